// Package ledger is the vegas-desk ledger: blocks, tickets, payments, the
// packs' moves and every refused attempt, in a hash-chained journal kept in
// a SQLite file or a shared PostgreSQL database. It is the only package
// that speaks SQL; every rule of the game comes from internal/game.
package ledger

import (
	"errors"
	"fmt"
	"os"
	"os/user"
	"strings"
	"time"

	"vegas-desk/internal/game"
)

// Errors a caller must tell apart.
var (
	// ErrNotLedger: not a vegas-desk ledger (another application's file, not
	// SQLite at all, or a ledger whose schema was altered). It is left
	// untouched.
	ErrNotLedger = errors.New("not a vegas-desk ledger")
	// ErrTooNew: written by a newer vegas-desk. Left untouched.
	ErrTooNew = errors.New("ledger written by a newer version of vegas-desk")
	// ErrTooOld: schema version 1, a development format this version does
	// not open. Left untouched.
	ErrTooOld = errors.New("ledger of an earlier development format")
	// ErrNoLedger: a PostgreSQL database without a ledger, opened to read.
	ErrNoLedger = errors.New("no ledger there")
	// ErrNotDemo: a demonstration was asked of a ledger that is not one.
	ErrNotDemo = errors.New("not a demonstration ledger")
	// ErrNotFound: no such block, claim or ticket with these contents.
	ErrNotFound = errors.New("not found")
	// ErrReadOnly: a write on a ledger opened with OpenReadOnly.
	ErrReadOnly = errors.New("ledger opened read-only")
	// ErrUnreachable: the shared ledger's server cannot be reached or the
	// connection was lost. Nothing was half-written; for a claim, whether it
	// was recorded is known only by asking again with the same request id.
	ErrUnreachable = errors.New("ledger unreachable")
	// ErrCounterOnly: a back-office action asked through a counter's login.
	ErrCounterOnly = errors.New("not allowed to a counter")
	// ErrDeskMismatch: a counter's login acting as another desk.
	ErrDeskMismatch = errors.New("desk is not this login's")
	// ErrDeskDisabled: the back office disabled this counter.
	ErrDeskDisabled = errors.New("desk disabled")
	// ErrPassword: the shared ledger's server refused the login's password,
	// or none was given (none in the URL, PGPASSWORD or ~/.pgpass).
	ErrPassword = errors.New("password refused")
)

// Verdict is what a claim of a ticket at a desk answers, or would answer.
type Verdict string

// The verdicts, in the order they are checked (see decide).
const (
	Payable          Verdict = "payable"           // pay it
	Paid             Verdict = "paid"              // the claim was recorded
	UnknownSerial    Verdict = "unknown-serial"    // no such ticket, or a wrong secret part
	UnknownContents  Verdict = "unknown-contents"  // no winner of the ledger shows these contents
	Locked           Verdict = "locked"            // too many refused serials: the desk is locked out
	NotYetOnSale     Verdict = "not-yet-on-sale"   // before the emission's on-sale date
	Expired          Verdict = "expired"           // after the claim deadline (forclos)
	Stolen           Verdict = "stolen"            // its pack was reported stolen: keep the ticket
	NotActivated     Verdict = "not-activated"     // its pack is not on sale
	NotWinner        Verdict = "not-winner"        // a loser: nothing to pay
	AlreadyClaimed   Verdict = "already-claimed"   // paid before, by Claim
	OverLimit        Verdict = "over-limit"        // above this desk's limit: the back office pays it
	IdentityRequired Verdict = "identity-required" // from the identity threshold: record the winner's identity
)

// Sentinels of the refusals, for errors.Is.
var (
	ErrUnknownSerial    = errors.New("unknown serial")
	ErrUnknownContents  = errors.New("no ticket with these contents")
	ErrLocked           = errors.New("desk locked out")
	ErrNotYetOnSale     = errors.New("not yet on sale")
	ErrExpired          = errors.New("claim deadline passed")
	ErrStolen           = errors.New("pack reported stolen")
	ErrNotActivated     = errors.New("pack not on sale")
	ErrNotWinner        = errors.New("not a winning ticket")
	ErrAlreadyClaimed   = errors.New("already claimed")
	ErrOverLimit        = errors.New("above the payout limit")
	ErrIdentityRequired = errors.New("winner's identity required")
)

var verdictErr = map[Verdict]error{
	UnknownSerial: ErrUnknownSerial, UnknownContents: ErrUnknownContents, Locked: ErrLocked,
	NotYetOnSale: ErrNotYetOnSale, Expired: ErrExpired, Stolen: ErrStolen, NotActivated: ErrNotActivated,
	NotWinner: ErrNotWinner, AlreadyClaimed: ErrAlreadyClaimed, OverLimit: ErrOverLimit,
	IdentityRequired: ErrIdentityRequired,
}

// Refusal is a claim or lookup refused: its verdict and what goes with it.
// errors.Is(err, ErrAlreadyClaimed) and the like tell the verdicts apart.
type Refusal struct {
	Verdict Verdict
	Serial  string
	// First is the claim that paid the ticket (AlreadyClaimed).
	First *Claim
	// Amount is the prize (OverLimit, IdentityRequired).
	Amount int
	// Until is the end of a lock-out (Locked), the on-sale date
	// (NotYetOnSale) or the deadline (Expired).
	Until time.Time
	// Entry is the journal entry that recorded the refusal (or the referral
	// of OverLimit); 0 when nothing was recorded.
	Entry int64
}

func (r *Refusal) Error() string {
	s := r.Serial
	switch r.Verdict {
	case UnknownSerial:
		return fmt.Sprintf("serial %s: unknown serial: no ticket of the ledger has this serial; check it against the ticket", s)
	case UnknownContents:
		return "no ticket of the ledger shows these contents; check every zone against the ticket"
	case Locked:
		return fmt.Sprintf("desk locked out until %s after too many unknown serials; the back office can unlock it", r.Until.Local().Format("15:04"))
	case NotYetOnSale:
		return fmt.Sprintf("serial %s: not yet on sale: the emission goes on sale on %s", s, r.Until.Local().Format("2006-01-02"))
	case Expired:
		return fmt.Sprintf("serial %s: claim deadline passed on %s (forclos): do not pay", s, r.Until.Local().Format("2006-01-02"))
	case Stolen:
		return fmt.Sprintf("serial %s: its pack was reported stolen: keep the ticket and call the back office", s)
	case NotActivated:
		return fmt.Sprintf("serial %s: its pack is not on sale: do not pay", s)
	case NotWinner:
		return fmt.Sprintf("serial %s: this ticket loses, there is nothing to pay", s)
	case AlreadyClaimed:
		if c := r.First; c != nil {
			return fmt.Sprintf("serial %s: already claimed: payment n° %d of %s on %s at desk %q by %q; do not pay again", s, c.Number,
				game.FormatAmount(c.Amount), c.At.Local().Format("2006-01-02 15:04:05"), c.Desk, c.Operator)
		}
		return fmt.Sprintf("serial %s: already claimed", s)
	case OverLimit:
		return fmt.Sprintf("serial %s: %s is above this desk's payout limit: the back office pays it (referral recorded)", s, game.FormatAmount(r.Amount))
	case IdentityRequired:
		return fmt.Sprintf("serial %s: %s: a payment from the identity threshold records the winner's name and identity document", s, game.FormatAmount(r.Amount))
	}
	return fmt.Sprintf("serial %s: refused (%s)", s, r.Verdict)
}

// Is makes errors.Is(err, ErrAlreadyClaimed) and the like true.
func (r *Refusal) Is(target error) bool { return verdictErr[r.Verdict] == target }

// Block is one generated block of a game.
type Block struct {
	ID       int64
	Game     int    // game code
	Number   int    // block number within the game, from 1
	Digest   string // hex SHA-256 of game.Digest
	PackSize int
	Tickets  int
	Winners  int
	Payout   int // euros
	// CreatedAt is when the block was generated.
	CreatedAt time.Time

	first     int64 // global ticket number of position 0: firstPack * PackSize
	firstPack int64 // packs row of pack 0
	key       game.SerialKey
}

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
type Identity struct{ Desk, Operator string }

// DefaultIdentity is who acts when nobody said: the desk is the host name,
// the operator $USER, else the account's name.
func DefaultIdentity(desk, operator string) Identity {
	if desk == "" {
		desk, _ = os.Hostname()
	}
	if operator == "" {
		operator = os.Getenv("USER")
	}
	if operator == "" {
		if u, err := user.Current(); err == nil {
			operator = u.Username
		}
	}
	return Identity{Desk: desk, Operator: operator}
}

// How a ticket was identified for a claim.
const (
	MethodSerial   = "serial"
	MethodContents = "contents"
)

// Winner is a winner's identity, recorded with a payment from the identity
// threshold on.
type Winner struct{ Name, DocType, DocNumber string }

func (w *Winner) given() bool {
	return w != nil && strings.TrimSpace(w.Name) != "" && strings.TrimSpace(w.DocType) != "" && strings.TrimSpace(w.DocNumber) != ""
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
	// Limit is the desk's payout limit in euros, 0 for none (the back
	// office). A counter's login on a shared ledger has its limit from the
	// database, whatever this says.
	Limit int
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

// TierLine is one line of a block report: for one prize, the count of the
// prize table, the tickets generated, the claims (count and sum), the
// tickets still to pay and what they would cost.
type TierLine struct {
	Prize, Table, Generated, Claimed, ClaimedSum, Outstanding, Liability int
}

// Report is a block's report, highest prize first; Total adds the tiers
// (its Prize is the block's payout).
type Report struct {
	Block Block
	Tiers []TierLine
	Total TierLine
}

// DayDesk is one line of the daily report: active claims of a day (local
// time) at a desk.
type DayDesk struct {
	Day, Desk  string
	Count, Sum int
}

// Problem is one mismatch found by Verify. Where names the row: "block
// 531/1 ticket 123456", "block 531/1 pack 17", "claim 17", "journal entry 9".
type Problem struct{ Where, What string }

func (p Problem) String() string { return p.Where + ": " + p.What }

// VerifyReport sums up a verification.
type VerifyReport struct {
	Blocks, Tickets, Entries int
	// Head is the hash of the journal's last entry, in hex. Anyone who can
	// write the file can rebuild the chain; write Head down outside the
	// file (a register, a message) and give it to a later verify (--head):
	// the chain must still hold that entry unchanged.
	Head     string
	Problems []Problem
	// Key is, for a sealed counter ledger, the public key (hex) that signed
	// its seal: the back office's, which the caller compares with the one
	// it trusts.
	Key string
}

// OK reports whether everything matched.
func (r VerifyReport) OK() bool { return len(r.Problems) == 0 }
