package core

import (
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"vegas-desk/internal/game"
)

// The rule of a question, in one place, pure Go: what a decision needs
// and decides. Every kind of ledger asks Decide (a validation server's
// counters too), tested case by case on every kind (the conformance
// table, ledgertest.Cases); DecideClaim, DecideLookup and DecideFind
// decide a question on its Snapshot, with the desk's gate (Gate) and its
// lock-out (Lock, below).

// Limit is a payout limit in euros: the largest prize a desk pays itself;
// above it the winner is referred to the back office (OverLimit). 0 refers
// every winner, and is the zero value. NoLimit pays any prize: it is the
// back office's alone, and is always said explicitly.
type Limit int

// NoLimit is the back office's payout limit: none.
const NoLimit Limit = -1

// LimitOf is a limit of euros (0 or more).
func LimitOf(euros int) Limit { return Limit(max(euros, 0)) }

// Pays reports whether a desk with this limit pays prize itself.
func (l Limit) Pays(prize int) bool { return l == NoLimit || prize <= int(l) }

// Lower is the lower of two limits (NoLimit is above every number): an
// asked limit may lower a desk's, never raise it.
func (l Limit) Lower(o Limit) Limit {
	switch {
	case l == NoLimit:
		return o
	case o == NoLimit:
		return l
	}
	return min(l, o)
}

// Euros is the limit's amount, and false for NoLimit.
func (l Limit) Euros() (int, bool) { return int(l), l != NoLimit }

func (l Limit) String() string {
	if l == NoLimit {
		return "none (the back office's)"
	}
	return game.FormatAmount(int(l))
}

// Facts is what a verdict on one ticket needs, read in one transaction.
type Facts struct {
	Block    Block
	Position int
	Ticket   int64 // ledger-wide number
	Secret   int64 // the serial's secret part
	Prize    int
	Code     []byte
	// Contents are Code decoded, when the read decoded it (a sealed
	// record, whose prize is its contents'); nil: TicketOf decodes it.
	Contents  *game.Ticket
	PackState string // "" when the pack is in stock
	Paid      *Claim // the claim no void cancels
}

// Dates are a game's dates as a ledger stores them: UTC instants in text
// (TimeFormat), "" for none.
type Dates struct {
	OnSale    string `db:"on_sale"`
	EndOfSale string `db:"end_of_sale"`
	Deadline  string `db:"deadline"`
}

// Emission is the public form of a game's dates.
func (d Dates) Emission(code int, name string, price int) Emission {
	return Emission{Game: code, Name: name, Price: price, OnSale: ParseTime(d.OnSale),
		EndOfSale: ParseTime(d.EndOfSale), Deadline: ParseTime(d.Deadline)}
}

// DefaultIdentityThreshold is the prize from which a payment records the
// winner's identity, in euros, unless the setting says otherwise.
const DefaultIdentityThreshold = 5000

// Rules are what a verdict applies beside the ticket's facts.
type Rules struct {
	Dates     Dates
	At        string // the time of the question (TimeFormat)
	Limit     Limit  // the desk's payout limit
	Threshold int    // the identity threshold, euros
	Identity  bool   // the winner's identity is given
}

// Decide gives the verdict on a ticket, in this order: before the on-sale
// date, after the deadline, a stolen pack, a pack not on sale, a loser,
// already paid, above the limit, an identity needed and not given.
func Decide(f *Facts, r Rules) Verdict {
	switch {
	case r.Dates.OnSale != "" && r.At < r.Dates.OnSale:
		return NotYetOnSale
	case r.Dates.Deadline != "" && r.At > r.Dates.Deadline:
		return Expired
	case f.PackState == "stolen":
		return Stolen
	case f.PackState != "on-sale" && f.PackState != "settled":
		return NotActivated
	case f.Prize == 0:
		return NotWinner
	case f.Paid != nil:
		return AlreadyClaimed
	case !r.Limit.Pays(f.Prize):
		return OverLimit
	case f.Prize >= r.Threshold && !r.Identity:
		return IdentityRequired
	}
	return Payable
}

// Snapshot is what a question reads.
type Snapshot struct {
	// Facts are the ticket's of the serial asked (nil: the ledger holds
	// no ticket of that serial, or its secret part is wrong); Rules are
	// the rules of the question about it, at its desk.
	Facts *Facts
	Rules Rules
	// Found are a search by contents' tickets with exactly its encoding,
	// each with the rules of its game at the desk.
	Found []Found
	// Prior is the entry that answers the desk's request id used before
	// (its payment, else its first use), or nil; PriorClaim is its claim,
	// with its void, when it is a payment.
	Prior      *Entry
	PriorClaim *Claim
	// Desk is the desk's lock-out; Gate whether the ledger serves the
	// desk the certificate the question came with (Identity.Cert).
	Desk Lock
	Gate Gate
}

// Gate is a desk as a served question's read sees it, in the same
// statement as the rest (so a desk disabled or a certificate revoked is
// obeyed by every question whose read starts after the change): whether
// the ledger lists it, has disabled it, accepts the certificate the
// question came with. Asked is false for a question that came with no
// certificate (not through the validation server): no gate. Replaced is
// the ledger's meta row "replaced" ("" when none), read in the same
// statement too: a ledger a restore replaced serves no desk (the restore
// fence, issue 29), and a question costs no statement of its own for it.
type Gate struct {
	Asked, Listed, Disabled, Accepts bool
	Replaced                         string
}

// Refused is the error of a question of desk its gate refuses, in the
// order the server answers them: the ledger replaced (ErrReplaced),
// unknown (ErrDeskUnknown), disabled (ErrDeskDisabled), its certificate
// revoked (ErrDeskRevoked); or nil.
func (g Gate) Refused(desk string) error {
	switch {
	case !g.Asked:
		return nil
	case g.Replaced != "":
		return fmt.Errorf("%w on %s", ErrReplaced, g.Replaced)
	case !g.Listed:
		return fmt.Errorf("desk %s: %w", desk, ErrDeskUnknown)
	case g.Disabled:
		return fmt.Errorf("desk %s: %w", desk, ErrDeskDisabled)
	case !g.Accepts:
		return fmt.Errorf("desk %s: %w", desk, ErrDeskRevoked)
	}
	return nil
}

// refused is the outcome of a question its desk's gate or lock-out
// refuses (nothing recorded), or nil.
func (sn *Snapshot) refused(who Identity, serial string, at time.Time) *Outcome {
	if err := sn.Gate.Refused(who.Desk); err != nil {
		return &Outcome{Err: err}
	}
	if r := sn.Desk.Locked(at, serial); r != nil {
		return &Outcome{Err: r}
	}
	return nil
}

// ShowsPayment reports whether the snapshot read a payment that an answer
// made of it says exists (a request id's payment answered again, a ticket
// paid, here or elsewhere): such an answer is given only once what it read
// is durable (the backend's Durable), since the commit it read may be
// another's that never reached the disk.
func (sn *Snapshot) ShowsPayment() bool {
	if sn.PriorClaim != nil || sn.Facts != nil && sn.Facts.Paid != nil {
		return true
	}
	for _, f := range sn.Found {
		if f.Facts.Paid != nil {
			return true
		}
	}
	return false
}

// Found is a ticket a search by contents found, with its rules.
type Found struct {
	Facts *Facts
	Rules Rules
}

// Outcome is what a decision asks the backend to write, and answers.
type Outcome struct {
	// Record is the entry to record, or nil. A guess (Record.IsGuess)
	// is recorded only if the desk's lock-out, read again under its
	// lock, allows it (Lock.Guess).
	Record *Entry
	// Pay: Record is a payment; the ticket is kept paid by it, with the
	// winner's identity Winner (nil: none given, Winner.Given).
	Pay    bool
	Winner *Winner
	// Ticket, Found, Claim and Err are the answer (Answer fills in what
	// the write gave Record).
	Ticket Ticket
	Found  []Ticket
	Claim  Claim
	Err    error
	// Chained is how long Record waited to be chained (PostgreSQL's:
	// its payment's chain delay).
	Chained time.Duration
}

// Answer is the claim's answer once Record is written (its id, number
// and hash filled in).
func (o *Outcome) Answer() (Claim, error) {
	if o.Record != nil {
		if o.Pay {
			c := o.Record.Claim()
			c.Chained = o.Chained
			return c, nil
		}
		if r, ok := o.Err.(*Refusal); ok {
			r.Entry = o.Record.ID
		}
	}
	return o.Claim, o.Err
}

// question fills in what every entry of a question records.
func question(e *Entry, s game.Serial, text string, who Identity, request string, at time.Time) *Entry {
	e.At, e.Serial, e.Game, e.Block, e.Position = at, text, s.Game, s.Block, s.Position
	e.Desk, e.Operator, e.Request = who.Desk, who.Operator, request
	return e
}

// DecideClaim decides a claim of s (req prepared: PrepareClaim) at at: a
// desk its gate refuses, or locked out, is refused (nothing recorded); an unknown serial (or a
// wrong secret part) is refused and recorded, before the request id is
// looked at, so that the id cannot tell a right guess from a wrong one
// (issue 23); a request id used before answers its payment again (or that
// it was voided since), or is refused if it named another ticket;
// otherwise Decide's verdict: a payment, a referral (over the limit) or a
// refusal, recorded.
func DecideClaim(sn *Snapshot, s game.Serial, req ClaimRequest, at time.Time) Outcome {
	text := s.String() // once: the entry and the refusals name it
	if o := sn.refused(req.Who, text, at); o != nil {
		return *o
	}
	refuse := func(e Entry, r *Refusal) Outcome {
		return Outcome{Record: question(&e, s, text, req.Who, req.Request, at), Err: r}
	}
	f := sn.Facts
	if f == nil {
		return refuse(Entry{Kind: "refusal", Method: "claim", Reason: string(UnknownSerial)},
			&Refusal{Verdict: UnknownSerial, Serial: text})
	}
	if p := sn.Prior; p != nil {
		if p.Game != s.Game || p.Block != s.Block || p.Position != s.Position {
			return Outcome{Err: fmt.Errorf("claim %s: %w (ticket %03d-%04d-%07d, on %s): make a new request", s, ErrRequestReused,
				p.Game, p.Block, p.Position, ParseTime(p.AtText).Local().Format("2006-01-02 15:04:05"))}
		}
		if c := sn.PriorClaim; p.Kind == "claim" && c != nil {
			if c.Voided {
				return Outcome{Claim: *c, Err: &Refusal{Verdict: Voided, Serial: text, First: c, Amount: c.Amount}}
			}
			return Outcome{Claim: *c}
		}
	}
	rules := sn.Rules
	// No winner given (most claims) asks nothing of the identity's rules.
	given := req.Winner != nil && req.Winner.Given()
	rules.Identity = given
	v := Decide(f, rules)
	// The ticket decoded, even for a payment: a stored code that does not
	// decode is a damaged ledger, which pays nothing until verify is run.
	t, err := TicketOf(f, v, rules.Dates)
	if err != nil {
		return Outcome{Err: err}
	}
	ticket := sql.NullInt64{Int64: f.Ticket, Valid: true}
	switch v {
	case Payable:
	case OverLimit:
		return refuse(Entry{Kind: "referral", Ticket: ticket, Amount: f.Prize, Method: req.Method}, RefusalOf(t, v))
	case AlreadyClaimed:
		return refuse(Entry{Kind: "refusal", Ticket: ticket, Method: "claim", Reason: string(v),
			Ref: sql.NullInt64{Int64: f.Paid.Entry, Valid: true}}, RefusalOf(t, v))
	default:
		return refuse(Entry{Kind: "refusal", Ticket: ticket, Method: "claim", Reason: string(v)}, RefusalOf(t, v))
	}
	e := question(&Entry{Kind: "claim", Ticket: ticket, Amount: f.Prize, Method: req.Method}, s, text, req.Who, req.Request, at)
	o := Outcome{Record: e, Pay: true}
	if given {
		e.Detail, o.Winner = IdentityHash(req.Winner), req.Winner
	}
	return o
}

// DecideLookup is the ticket of s with the verdict a claim of it at
// who.Desk would get at at; a desk its gate refuses, or locked out, is
// refused. An unknown
// serial (or a wrong secret part: the same) is refused and recorded, and
// so is a ticket of a stolen pack, for the back office, though it is
// answered.
func DecideLookup(sn *Snapshot, s game.Serial, who Identity, at time.Time) Outcome {
	text := s.String()
	if o := sn.refused(who, text, at); o != nil {
		return *o
	}
	refusal := func(reason Verdict) *Entry {
		return question(&Entry{Kind: "refusal", Method: "lookup", Reason: string(reason)}, s, text, who, "", at)
	}
	if sn.Facts == nil {
		return Outcome{Record: refusal(UnknownSerial), Err: &Refusal{Verdict: UnknownSerial, Serial: text}}
	}
	t, err := TicketOf(sn.Facts, Decide(sn.Facts, sn.Rules), sn.Rules.Dates)
	if err != nil {
		return Outcome{Err: err}
	}
	o := Outcome{Ticket: t}
	if t.Verdict == Stolen {
		o.Record = refusal(Stolen)
		o.Record.Ticket = sql.NullInt64{Int64: sn.Facts.Ticket, Valid: true}
	}
	return o
}

// DecideFind lists the tickets found (sn.Found) with the verdict a claim
// of each at who.Desk would get at at; a desk its gate refuses, or locked
// out, is refused; none found is refused, and recorded.
func DecideFind(sn *Snapshot, who Identity, at time.Time) Outcome {
	if o := sn.refused(who, "", at); o != nil {
		return *o
	}
	var o Outcome
	for _, c := range sn.Found {
		t, err := TicketOf(c.Facts, Decide(c.Facts, c.Rules), c.Rules.Dates)
		if err != nil {
			return Outcome{Err: err}
		}
		o.Found = append(o.Found, t)
	}
	if len(o.Found) == 0 {
		o.Err = &Refusal{Verdict: UnknownContents}
		o.Record = &Entry{Kind: "refusal", At: at, Desk: who.Desk, Operator: who.Operator, Method: "contents", Reason: string(UnknownContents)}
	}
	return o
}

// FoundTicket is what a search by contents answers from the tickets found:
// the first not yet paid, else the first; none is a *Refusal
// UnknownContents.
func FoundTicket(found []Ticket) (Ticket, error) {
	for _, t := range found {
		if t.Status == StatusUnpaid {
			return t, nil
		}
	}
	if len(found) > 0 {
		return found[0], nil
	}
	return Ticket{}, &Refusal{Verdict: UnknownContents}
}

// The answers a decision builds of what was read.

// TicketOf is the Ticket of facts f, with the verdict v.
func TicketOf(f *Facts, v Verdict, d Dates) (Ticket, error) {
	var gt game.Ticket
	if f.Contents != nil {
		gt = *f.Contents
	} else {
		var err error
		if gt, err = game.Decode(f.Code); err != nil {
			return Ticket{}, fmt.Errorf("block %s ticket %d: %w (run verify)", f.Block.Name(), f.Position, err)
		}
	}
	t := Ticket{
		Serial:    game.Serial{Game: f.Block.Game, Block: f.Block.Number, Position: f.Position, Secret: f.Secret},
		Block:     f.Block,
		Pack:      f.Position / game.PackSize,
		Position:  f.Position,
		Ticket:    gt,
		Prize:     f.Prize,
		Claim:     f.Paid,
		PackState: f.PackState,
		Verdict:   v,
	}
	if t.PackState == "" {
		t.PackState = "stock"
	}
	switch {
	case f.Prize == 0:
		t.Status = StatusLoser
	case f.Paid != nil:
		t.Status = StatusPaid
	default:
		t.Status = StatusUnpaid
	}
	switch v {
	case NotYetOnSale:
		t.Until = ParseTime(d.OnSale)
	case Expired:
		t.Until = ParseTime(d.Deadline)
	}
	return t, nil
}

// RefusalOf is the refusal of verdict v on t.
func RefusalOf(t Ticket, v Verdict) *Refusal {
	return &Refusal{Verdict: v, Serial: t.Serial.String(), First: t.Claim, Amount: t.Prize, Until: t.Until}
}

// The lock-out of a counter that guesses serials, decided here and
// nowhere else: from the LockRefusals-th refused serial or contents (a
// guess) within LockWindow, the desk is refused as Locked for LockFor
// after that guess, or until the back office unlocks it (the guesses
// before the unlock no longer count). A desk keeps its lock-out with its
// row (Lock: its last guesses, at most LockRefusals of them, and the end
// of its lock-out), so that counting is one row's read whatever the
// desk's history; a guess is counted, and recorded, under the desk's lock
// (the write's re-check, Lock.Guess), so that questions at once, on one
// server or several, never record more guesses than the lock-out allows.
const (
	LockRefusals = 20
	LockWindow   = 10 * time.Minute
	LockFor      = 30 * time.Minute
)

// LockReason says why a desk is locked out.
var LockReason = "20 refused serials or contents within 10 minutes"

// Lock is a desk's lock-out as its row keeps it. On is false for a desk
// that is not locked out: one the ledger does not list (the back office's
// own questions), or a ledger that locks no one out (a file opened by the
// back office, a sealed counter ledger).
type Lock struct {
	On bool
	// Guesses are the times of the desk's last guesses since its unlock,
	// at most LockRefusals, in order.
	Guesses []time.Time
	// Until is the end of its lock-out (zero: none yet).
	Until time.Time
}

// LockOf is the lock of a desk's row: its guesses' text (GuessesText) and
// its locked_until.
func LockOf(guesses, until string) Lock {
	l := Lock{On: true, Until: ParseTime(until)}
	for _, g := range strings.Split(guesses, ",") {
		if t := ParseTime(g); !t.IsZero() {
			l.Guesses = append(l.Guesses, t)
		}
	}
	slices.SortFunc(l.Guesses, func(a, b time.Time) int { return a.Compare(b) })
	return l
}

// GuessesText is what a desk's row keeps of its guesses.
func (l Lock) GuessesText() string {
	ts := make([]string, len(l.Guesses))
	for i, t := range l.Guesses {
		ts[i] = FormatTime(t)
	}
	return strings.Join(ts, ",")
}

// UntilText is the end of the lock-out as a desk's row keeps it ("" for
// none).
func (l Lock) UntilText() string {
	if l.Until.IsZero() {
		return ""
	}
	return FormatTime(l.Until)
}

// Locked is the refusal of a question asked at at (of serial, "" for
// none) by a desk locked out then, or nil.
func (l Lock) Locked(at time.Time, serial string) *Refusal {
	if !l.On || !l.Until.After(at) {
		return nil
	}
	return &Refusal{Verdict: Locked, Serial: serial, Until: l.Until}
}

// LockedAt is the refusal of a question desk d asks at at when its row
// says it is locked out then (Lock.Locked: the one place that decides),
// or nil.
func (d Desk) LockedAt(at time.Time) *Refusal {
	return Lock{On: true, Until: d.LockedUntil}.Locked(at, "")
}

// Guess is the desk's lock after one more guess at at, or a *Refusal
// Locked when the desk is locked out at at (the guess is then not
// recorded). locks says the guess locks the desk out (it is the
// LockRefusals-th within LockWindow): its Until is then at + LockFor. A
// guess recorded first by a question that began later counts as earlier:
// at is then the latest guess's time.
func (l Lock) Guess(at time.Time, serial string) (next Lock, locks bool, err error) {
	if n := len(l.Guesses); n > 0 && l.Guesses[n-1].After(at) {
		at = l.Guesses[n-1]
	}
	if r := l.Locked(at, serial); r != nil {
		return l, false, r
	}
	next = Lock{On: l.On, Until: l.Until, Guesses: append(slices.Clone(l.Guesses), at)}
	if len(next.Guesses) > LockRefusals {
		next.Guesses = next.Guesses[len(next.Guesses)-LockRefusals:]
	}
	if len(next.Guesses) == LockRefusals && at.Sub(next.Guesses[0]) < LockWindow {
		next.Until, locks = at.Add(LockFor), true
	}
	return next, locks, nil
}

// IsGuess reports whether an entry is a guess: a refused serial or
// contents, which counts towards its desk's lock-out.
func (e *Entry) IsGuess() bool {
	return e.Kind == "refusal" && e.Desk != "" && (e.Reason == string(UnknownSerial) || e.Reason == string(UnknownContents))
}

// LockEntry is the entry that records desk's lock-out until until: the
// journal says why its row is locked (verify replays it).
func LockEntry(desk string, limit int, at, until time.Time) *Entry {
	return &Entry{Kind: "desk", At: at, Desk: desk, State: "locked", Amount: limit, Detail: FormatTime(until), Reason: LockReason}
}

// Refused is the answer of a question that answered answer (a refusal,
// or nil) and whose record failed with err: a refusal that err holds (the
// desk found locked out when its guess was to be recorded) answers in its
// place; otherwise both.
func Refused(answer, err error) error {
	var r *Refusal
	if errors.As(err, &r) {
		return r
	}
	return errors.Join(answer, err)
}
