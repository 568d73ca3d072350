// Package core is what every kind of vegas-desk ledger shares: the public
// types, the rule of a claim (Decide, with one Limit), the claim's request
// rules, and the journal (its entries, their canonical text and hash
// chain, its replay). It speaks no SQL of its own; the backends (sqlite,
// postgres, counter) and the back office's store (backoffice) do, through
// the few helpers of sql.go.
package core

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"vegas-desk/internal/game"
	"vegas-desk/internal/platform"
	"vegas-desk/internal/signing"
)

// Status is the state of a ticket in the ledger.
type Status int

// Ticket statuses.
const (
	StatusLoser  Status = iota // nothing to pay
	StatusUnpaid               // a winner not yet paid
	StatusPaid                 // a winner with an active claim
)

func (s Status) String() string {
	switch s {
	case StatusLoser:
		return "loser"
	case StatusUnpaid:
		return "unpaid"
	case StatusPaid:
		return "paid"
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// Ticket is one ticket of the ledger.
type Ticket struct {
	Serial   game.Serial
	Block    Block
	Pack     int
	Position int
	Ticket   game.Ticket
	Prize    int // euros, 0 for a loser
	Status   Status
	// Claim is the active (non-voided) claim when the ticket is paid.
	Claim *Claim
	// PackState is the state of the ticket's pack: "stock", "delivered",
	// "received", "on-sale", "settled", "returned", "stolen", "destroyed".
	PackState string
	// Verdict is what a claim of it at the asking desk would answer now;
	// Until goes with NotYetOnSale and Expired.
	Verdict Verdict
	Until   time.Time
}

// Identity says who acts: the desk (the counter or machine) and the operator.
type Identity struct {
	Desk, Operator string
	// Cert is the serial of the certificate a question came with through
	// the validation server (protocol.CertSerial), "" for none: the
	// question's read then reads its desk's gate too (Gate).
	Cert string
}

// DefaultIdentity is who acts when nobody said: the desk is the host name,
// the operator $USER, else the account's name (on Windows without its
// DOMAIN\ part).
func DefaultIdentity(desk, operator string) Identity {
	if desk == "" {
		desk, _ = os.Hostname()
	}
	if operator == "" {
		operator = os.Getenv("USER")
	}
	if operator == "" {
		operator = platform.UserName()
	}
	return Identity{Desk: desk, Operator: operator}
}

// How a ticket was identified for a claim.
const (
	MethodSerial   = "serial"
	MethodContents = "contents"
)

// Winner is a winner's identity, recorded with a payment from the identity
// threshold on. Skeleton is what the ledger keeps beside it, read back: the
// name's confusable skeleton (NameSkeleton), the same for look-alikes of
// one name; a claim does not give it.
//
// MRZ is the machine-readable zone of a document that carries one (a CNI,
// a passport, a titre de séjour: Document.MRZ), as typed or read by an MRZ
// reader (issue 44): a claim gives it, and the name, document and number
// are then the zone's (Normal), its birth date and expiry checked at the
// payment (CheckAt). A ledger keeps none of it but the name, the document
// and its number: not the zone, not the birth date, sex, nationality or
// expiry it holds.
type Winner struct {
	Name, DocType, DocNumber, Skeleton string
	MRZ                                string `json:",omitempty"` // (a counter's export, which keeps none, has no such field)
}

// ClaimRequest is one payment asked for.
type ClaimRequest struct {
	Serial string
	Method string // MethodSerial or MethodContents
	Who    Identity
	// Request is the client's id of this request: a retry with the same id
	// (after a timeout or a lost connection) answers what the first one
	// did, and never pays twice. Claim makes one when it is empty.
	Request string
	// Limit is the payout limit the caller asks: it may lower the desk's
	// stored limit (a served counter's, a sealed ledger's, a desk of the
	// ledger's desks), never raise it. NoLimit asks nothing: a desk the
	// ledger does not know pays as the back office, without limit. The
	// zero value, 0, refers every winner.
	Limit Limit
	// Winner is the winner's identity, required from the threshold on.
	Winner *Winner
}

// Claim is one payment of a winning ticket, an entry of the journal. A void
// is another entry; Voided and the Void fields show it on the claim.
type Claim struct {
	Number   int64 // payment number: 1, 2, 3 … without gaps
	Entry    int64 // its journal entry
	Hash     string
	Serial   string
	Game     int
	Block    int // block number
	Position int
	Amount   int // euros
	Desk     string
	Operator string
	Method   string // MethodSerial or MethodContents
	Request  string
	At       time.Time
	// Chained is how long the payment's entry waited to be chained (on a
	// shared ledger, which records first and chains after; 0 elsewhere).
	Chained time.Duration

	Voided     bool
	VoidReason string
	VoidedBy   string // operator of the void
	VoidDesk   string // desk of the void
	VoidedAt   time.Time
}

// ClaimFilter selects claims; a zero field selects all.
type ClaimFilter struct {
	Game, Block  int       // 0 = all
	Since, Until time.Time // zero = open; Since inclusive, Until exclusive
	Desk         string
}

// DefaultClaimDays is the claim period after the end of sale, unless the
// claim_days setting says otherwise: setting an end-of-sale date without a
// deadline sets the deadline this many days later.
const DefaultClaimDays = 60

// Emission is a game's dates; a zero time is not set. Claims are refused
// before OnSale and after Deadline.
type Emission struct {
	Game      int
	Name      string
	Price     int // euros
	OnSale    time.Time
	EndOfSale time.Time
	Deadline  time.Time
}

// Desk is a counter of the ledger.
type Desk struct {
	ID    string
	Limit int // payout limit, euros
	// Disabled desks are refused every question.
	Disabled bool
	// LockedUntil is the end of a lock-out after too many refused serials.
	LockedUntil time.Time
	// UnlockedAt is the back office's last unlock (zero: never).
	UnlockedAt time.Time
}

// Attempt is a refused attempt of the journal.
type Attempt struct {
	Entry    int64
	At       time.Time
	Reason   Verdict
	Serial   string
	Desk     string
	Operator string
	Method   string // "lookup", "claim" or "contents"
}

// PackRun is a run of consecutive packs of one block in one state at one
// counter, which one entry moved there last.
type PackRun struct {
	Game, Block int
	First, Last int    // pack numbers, both included
	State       string // one of PackStates ("stock" for packs never moved)
	Desk        string // the counter they were delivered to ("" when none)
	// The last move: its entry (0 for the stock), time, operator and name
	// ("deliver", "activate", "generate" …).
	Entry    int64
	At       time.Time
	Operator string
	Move     string
}

// Count is the number of packs of the run.
func (r PackRun) Count() int { return r.Last - r.First + 1 }

// Codes are the pack codes of the run, in order.
func (r PackRun) Codes() []game.PackCode {
	out := make([]game.PackCode, 0, r.Count())
	for p := r.First; p <= r.Last; p++ {
		out = append(out, game.PackCode{Game: r.Game, Block: r.Block, Pack: p})
	}
	return out
}

// PackFilter selects packs; a zero field selects all.
type PackFilter struct {
	Game, Block int
	Desk        string
	State       string // one of PackStates
}

// PackEntry is one move of packs, a 'packs' entry of the journal.
type PackEntry struct {
	Entry       int64
	At          time.Time
	Game, Block int
	First, Last int
	State       string // the state they moved to
	Desk        string // the counter concerned
	Operator    string
	Move        string // deliver, receive, activate, settle, return, stolen, destroyed, generate
	Reason      string
}

// PackEntryFilter selects moves of packs; a zero field selects all.
type PackEntryFilter struct {
	Desk         string
	Since, Until time.Time // Since inclusive, Until exclusive
	Moves        []string
}

// Referral is a prize above a counter's payout limit that the counter sent
// to the back office, which pays it with a claim of its own.
type Referral struct {
	Entry    int64 // the first referral of the ticket
	Number   int64
	At       time.Time
	Serial   string
	Game     int
	Block    int
	Position int
	Amount   int // euros
	Desk     string
	Operator string
	// Tries is the number of referrals of the ticket (a player may try
	// several counters); Last is the time of the last one.
	Tries int
	Last  time.Time
}

// PackMove is a move of packs asked for: packs First … Last of a block.
type PackMove struct {
	Game, Block int
	First, Last int
	// Move is "deliver", "receive", "activate", "settle", "return",
	// "stolen" or "destroyed".
	Move string
	// Desk is the counter the packs are delivered to (deliver), or the
	// counter that receives or activates them, which must be theirs.
	Desk   string
	Reason string // why (stolen, destroyed, return)
	// Only, when not empty, narrows the states (of PackStates: "stock",
	// "delivered", …) the packs may be in to these, checked with the move
	// in one transaction: printing destroys packs from the stock only,
	// and a pack delivered meanwhile must stop the move, not be destroyed.
	Only []string
}

// ContentsCheck is the verdict on typed-in contents: the rules' and the
// ledger's.
type ContentsCheck struct {
	game.Verdict // the rules: prize, winning zones, genuine or not, reasons
	// Ticket is the ledger's ticket with these contents (or with the serial
	// given), nil when there is none.
	Ticket *Ticket
	// Why the ledger says the contents are not a genuine ticket of its own
	// (each also appends a reason to Reasons, in English):
	NotInLedger   bool // winning contents no ticket of the ledger shows, or an unknown serial
	OtherContents bool // the serial given is a ticket that shows other contents
	OtherSerial   bool // the serial given is not the serial of the ticket with these contents
}

// Anchor is the journal entry a head hash names.
type Anchor struct {
	Entry int64
	Kind  string
	At    time.Time
}

// Checkpoint is a signed statement of the journal head.
type Checkpoint struct {
	// Text is the signed text:
	//
	//	vegas-desk checkpoint 1
	//	ledger=<the ledger's id>
	//	entry=<the last entry's id>
	//	entry_at="<its time>"
	//	head=<its hash>
	//	signed_at="<now>"
	//	public_key=…
	//	signature=…
	Text string
	// Entry is the journal's 'checkpoint' entry that records it (method
	// "head", ref = the entry checkpointed, detail = Text).
	Entry int64
	Head  string
}

// Certificate is a block certificate, signed.
type Certificate struct {
	// Text is the signed text (see Certificate).
	Text      string
	Block     Block
	GameName  string
	Counts    []TierLine // Prize and Generated (counted in the block) of each tier
	SignedAt  time.Time
	PublicKey string
	// Drawing is how the block's seed was drawn from two committed
	// secrets; nil: the seed was chosen by the operator alone.
	Drawing *Drawing
}

// Drawing is a block's seed drawn from the operator's and the auditor's
// secrets (game.DrawSeed), as the ledger recorded it: the commitments,
// recorded before the generation began, and the reveals' hashes.
type Drawing struct {
	// Began is when the generation began (the 'reveal' entries' time).
	Began time.Time
	// Parties are the operator's and the auditor's, in that order.
	Parties []DrawParty
}

// DrawParty is one party's part of a drawing.
type DrawParty struct {
	Role       game.Role
	Commitment game.Commitment
	// RecordedAt is when the commitment was recorded (its 'commitment'
	// entry's time), Entry that entry's id.
	RecordedAt time.Time
	Entry      int64
	RevealHash [32]byte
}

// CommitmentRecord is a commitment recorded in the journal: a
// 'checkpoint' entry, method "commitment", whose detail is Text, signed
// by the back office's key:
//
//	vegas-desk seed commitment record 1
//	ledger=<the ledger's id>
//	game=531
//	role=auditor
//	commitment=<64 hex digits>
//	recorded_at="<now>"
//	public_key=…
//	signature=…
type CommitmentRecord struct {
	Text       string
	Entry      int64
	Role       game.Role
	Game       int
	Commitment game.Commitment
	RecordedAt time.Time
}

// GenerateOptions tunes Generate.
type GenerateOptions struct {
	// Activate puts every pack of the block on sale at once, for
	// demonstrations; otherwise the packs start in stock.
	Activate bool
	// Who generates, for the journal.
	Who Identity
	// Progress, if not nil, is called with (done, game.BlockSize) from the
	// generating goroutine.
	Progress func(done, total int)
	// Commitments and Reveals, when given, draw the block's seed
	// (game.DrawSeed, the seed argument unused): the two commitments
	// recorded in the ledger (RecordCommitment) before the generation
	// begins, not used by another block, and the operator's and the
	// auditor's secret files that open them.
	Commitments []game.Commitment
	Reveals     []game.SeedFile
}

// CounterSpec says what counter ledger to issue.
type CounterSpec struct {
	// Desk is the counter's id (letters, digits, _ and -).
	Desk string
	// Blocks are the blocks to seal, as (game, number); none: every block
	// of the ledger. At most counter.MaxBlocks.
	Blocks [][2]int
	// Limit lowers the desk's stored payout limit, which the counter
	// ledger seals; NoLimit asks nothing. A desk the back office's ledger
	// does not know must be given one: a counter always has a limit.
	Limit Limit
	// Key signs the counter ledger.
	Key *signing.Key
	// Who issues it, for the journal.
	Who Identity
	// Progress, if not nil, is called with the tickets sealed so far and
	// the total, from any goroutine.
	Progress func(done, total int)
}

// CounterIssue is a counter ledger issued.
type CounterIssue struct {
	Path, ID, Desk string
	Blocks         []Block
	Limit          Limit // the payout limit sealed
	// Seal is the signed text of the counter ledger; Digest is its SHA-256
	// in hex, which the counter's first journal entry names, and Genesis
	// that entry's hash.
	Seal, Digest, Genesis string
	// Entry is the back office's journal entry that records the issue.
	Entry int64
}

// ImportFlag is one thing an import found wrong. Kind is one of:
//
//	not-issued        the file names a counter ledger this back office did not issue
//	broken-chain      an entry's hash does not recompute, or the chain does not start with the issue
//	rewritten         the chain no longer holds an entry an earlier import recorded
//	double-payment    a ticket already paid (here or by another counter): recorded all the same,
//	                  an open case (Case) of the money to recover
//	serial-mismatch   a payment or referral whose serial, secret part or ticket is not one of this ledger's
//	amount-mismatch   a payment of another amount than the ticket's prize, a referral of a
//	                  ticket within the counter's payout limit
//	not-yet-on-sale, expired   a payment outside the emission's dates
//	not-activated, stolen      a payment of a ticket whose pack was not on sale then
//	identity-missing  a payment from the sealed identity threshold on without the winner's
//	                  identity, or that records an identity the file does not hold (or another)
//	over-limit        a payment above the payout limit sealed at the issue (the back office's to pay)
//	not-sealed        a payment of a block the counter ledger does not hold
//	bad-time          a payment dated before the issue, after the import, or before the previous
//	                  payment (a referral: before the issue or after the import)
type ImportFlag struct {
	Entry  int64 // the counter's journal entry
	Kind   string
	Serial string
	Amount int
	What   string
}

func (f ImportFlag) String() string {
	if f.Entry == 0 {
		return f.Kind + ": " + f.What
	}
	return fmt.Sprintf("counter entry %d: %s: %s", f.Entry, f.Kind, f.What)
}

// ImportReport sums up an import.
type ImportReport struct {
	Ledger, Desk string
	Entries      int // journal entries in the file
	Payments     int // payments in the file
	Recorded     int // payments recorded as claims now
	Referred     int // referrals recorded now (prizes above the counter's limit, the back office's to pay)
	Already      int // payments recorded by an earlier import
	Refused      int // serials the counter refused as unknown (attempts)
	Head         string
	// Rejected: the file was refused as a whole (not issued here, broken
	// or rewritten chain) and nothing was recorded.
	Rejected bool
	Flags    []ImportFlag
}

// OK reports whether the import found nothing wrong.
func (r ImportReport) OK() bool { return len(r.Flags) == 0 }

// MaxProblems bounds a report on a badly damaged ledger.
const MaxProblems = 1000

// Add adds a problem to the report, up to MaxProblems.
func (r *VerifyReport) Add(where, format string, args ...any) {
	if len(r.Problems) == MaxProblems {
		r.Problems = append(r.Problems, Problem{"ledger", "too many problems; the rest are not listed"})
	}
	if len(r.Problems) > MaxProblems {
		return
	}
	r.Problems = append(r.Problems, Problem{where, fmt.Sprintf(format, args...)})
}

// Settings a ledger keeps, with their defaults.
const (
	// SettingIdentityThreshold: the prize, in euros, from which a payment
	// records the winner's identity (default 5,000).
	SettingIdentityThreshold = "identity_threshold"
	// SettingCommission: the retailer's commission on sales, in hundredths
	// of a percent (default 500 = 5 %).
	SettingCommission = "commission"
	// SettingClaimDays: the days from the end of sale to the claim
	// deadline when none is given (default DefaultClaimDays).
	SettingClaimDays = "claim_days"
)

// SettingDefaults are the settings' values until one is set.
var SettingDefaults = map[string]int{SettingIdentityThreshold: DefaultIdentityThreshold, SettingCommission: 500,
	SettingClaimDays: DefaultClaimDays}

// Game is a game's name, price and dates.
type Game struct {
	Code  int    `db:"code"`
	Name  string `db:"name"`
	Price int    `db:"price"`
	Dates
}

// ErrNotAnchored: the journal does not hold the entry of a given head hash
// unchanged at its place.
var ErrNotAnchored = errors.New("the journal does not hold this head")

// ErrCommitment: a drawn block's commitment is not one the ledger may
// draw from: not recorded, recorded after the generation began, of
// another role, or already used by a block.
var ErrCommitment = errors.New("the commitment cannot draw this block")

// SchemaVersion is the schema version of a ledger of this build, on every
// engine (SQLite's user_version, PostgreSQL's meta 'schema').
const SchemaVersion = 3

// Info is what a ledger is, as its backend says.
type Info struct {
	Location string // the file's path, or the database's URL without password
	Kind     string // "back-office" or "counter"
	Shared   bool   // a PostgreSQL database that several counters use
	// Served: a counter asking a validation server (package remote), the
	// one kind whose answers can be lost on the way: its claims follow
	// protocol.Retry, on the client only.
	Served   bool
	ID       string // the ledger's id, which its copies keep
	Demo     bool   // a demonstration ledger, whose unpaid winners may be listed
	ReadOnly bool
	// Desk is a counter's desk (a counter on a validation server, a sealed counter
	// ledger), "" for the back office; Limit is its payout limit, NoLimit
	// for the back office.
	Desk  string
	Limit Limit
}

// TestDeskPrefix begins the id of each desk a load test makes for itself
// (vegas-desk load): _load-1, _load-2 … A desk of the back office's never
// begins with _ (CheckDeskID), so no real desk can take one of these names,
// and a load test never touches a real desk.
const TestDeskPrefix = "_load-"

// TestDesk is the id of a load test's i-th desk (from 1).
func TestDesk(i int) string { return TestDeskPrefix + strconv.Itoa(i) }

// IsTestDesk reports whether id is a load test's desk's (TestDesk).
func IsTestDesk(id string) bool {
	n, ok := strings.CutPrefix(id, TestDeskPrefix)
	i, err := strconv.Atoi(n)
	return ok && err == nil && i >= 1 && n == strconv.Itoa(i)
}

// CheckRealDeskID is CheckDeskID, a load test's desk's id refused: the
// id of a desk added by hand or of a counter ledger.
func CheckRealDeskID(id string) error {
	if IsTestDesk(id) {
		return fmt.Errorf("desk id %q: ids beginning with %s are the desks a load test makes for itself (vegas-desk load): choose another", id, TestDeskPrefix)
	}
	return CheckDeskID(id)
}

// CheckDeskID refuses a desk id that is not 1 to 32 letters, digits, _ or -,
// starting with a letter or digit, or a load test's desk's (TestDesk).
// (By hand, not by a regular expression compiled in every process.)
func CheckDeskID(id string) error {
	if IsTestDesk(id) {
		return nil
	}
	ok := len(id) >= 1 && len(id) <= 32 && id[0] != '_' && id[0] != '-'
	for i := 0; ok && i < len(id); i++ {
		c := id[i]
		ok = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-'
	}
	if !ok {
		return fmt.Errorf("desk id %q: use 1 to 32 letters, digits, _ or -, starting with a letter or digit", id)
	}
	return nil
}

// NaturalCompare orders desk ids as a person reads them: the runs of digits
// by their value, so load-2 comes before load-10 and C9 before C10; ties
// (C01, C1) by the ids' bytes.
func NaturalCompare(a, b string) int {
	digit := func(c byte) bool { return '0' <= c && c <= '9' }
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if digit(a[i]) && digit(b[j]) {
			si, sj := i, j
			for i < len(a) && digit(a[i]) {
				i++
			}
			for j < len(b) && digit(b[j]) {
				j++
			}
			x, y := strings.TrimLeft(a[si:i], "0"), strings.TrimLeft(b[sj:j], "0")
			if c := cmp.Compare(len(x), len(y)); c != 0 {
				return c
			}
			if c := strings.Compare(x, y); c != 0 {
				return c
			}
			continue
		}
		if c := cmp.Compare(a[i], b[j]); c != 0 {
			return c
		}
		i, j = i+1, j+1
	}
	if c := cmp.Compare(len(a)-i, len(b)-j); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}
