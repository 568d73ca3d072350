package core

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"vegas-desk/internal/game"
)

// A question (a lookup, a claim, a search by contents) on a ledger whose
// rows the process reads (a SQLite back office, PostgreSQL, a sealed
// counter ledger) is one read, one decision and one write, asked by
// Ask (below) for every kind:
//
//   - the backend reads a Snapshot: everything the rule needs, nothing
//     else;
//   - core decides on it, here, in pure Go, touching no storage
//     (DecideClaim, DecideLookup, DecideFind): an Outcome, the entry to
//     record, whether it pays, and the answer;
//   - the backend writes the Outcome in one transaction that checks
//     again only what may have changed since the read: the ticket paid
//     once (the paid row's key), the desk's lock-out under the desk's
//     lock (Lock.Guess, Lock.Locked), the request id; then commits, and
//     the answer is Outcome.Answer.

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
	// winner's identity when Winner is given.
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
func question(e *Entry, s game.Serial, who Identity, request string, at time.Time) *Entry {
	e.At, e.Serial, e.Game, e.Block, e.Position = at, s.String(), s.Game, s.Block, s.Position
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
	if o := sn.refused(req.Who, s.String(), at); o != nil {
		return *o
	}
	refuse := func(e Entry, r *Refusal) Outcome {
		return Outcome{Record: question(&e, s, req.Who, req.Request, at), Err: r}
	}
	f := sn.Facts
	if f == nil {
		return refuse(Entry{Kind: "refusal", Method: "claim", Reason: string(UnknownSerial)},
			&Refusal{Verdict: UnknownSerial, Serial: s.String()})
	}
	if p := sn.Prior; p != nil {
		if p.Game != s.Game || p.Block != s.Block || p.Position != s.Position {
			return Outcome{Err: fmt.Errorf("claim %s: %w (ticket %03d-%04d-%07d, on %s): make a new request", s, ErrRequestReused,
				p.Game, p.Block, p.Position, ParseTime(p.AtText).Local().Format("2006-01-02 15:04:05"))}
		}
		if c := sn.PriorClaim; p.Kind == "claim" && c != nil {
			if c.Voided {
				return Outcome{Claim: *c, Err: &Refusal{Verdict: Voided, Serial: s.String(), First: c, Amount: c.Amount}}
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
	e := question(&Entry{Kind: "claim", Ticket: ticket, Amount: f.Prize, Method: req.Method}, s, req.Who, req.Request, at)
	if given {
		e.Detail = IdentityHash(req.Winner)
	}
	return Outcome{Record: e, Pay: true, Winner: req.Winner}
}

// DecideLookup is the ticket of s with the verdict a claim of it at
// who.Desk would get at at; a desk its gate refuses, or locked out, is
// refused. An unknown
// serial (or a wrong secret part: the same) is refused and recorded, and
// so is a ticket of a stolen pack, for the back office, though it is
// answered.
func DecideLookup(sn *Snapshot, s game.Serial, who Identity, at time.Time) Outcome {
	if o := sn.refused(who, s.String(), at); o != nil {
		return *o
	}
	refusal := func(reason Verdict) *Entry {
		return question(&Entry{Kind: "refusal", Method: "lookup", Reason: string(reason)}, s, who, "", at)
	}
	if sn.Facts == nil {
		return Outcome{Record: refusal(UnknownSerial), Err: &Refusal{Verdict: UnknownSerial, Serial: s.String()}}
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

// The engine: Ask and what a storage gives it.

// Ask is the one engine of the questions a ledger the process reads
// itself answers (a SQLite back office, a sealed counter ledger,
// PostgreSQL): package ledger prepares the question (a serial parsed, the
// identity checked), then Ask reads (Storage.Read), decides here in pure
// Go (Question.Decide), writes (Storage.Write, where the promise that a
// PAID is durable lives), and the backend answers with the Outcome. The
// gate, the lock-out, the identity, the paid row and the journal entry
// are decided once, here and in question.go; each storage only reads and
// writes. A counter on a validation server is no storage: package remote
// asks the server, whose ledger asks Ask.
func Ask(ctx context.Context, st Storage, q *Question) (Outcome, error) {
	if err := st.Failed(); err != nil {
		return Outcome{}, err
	}
	for try := 0; ; try++ {
		sn, held, err := st.Read(ctx, q)
		if err != nil {
			return Outcome{}, err
		}
		out := q.Decide(sn)
		if out.Record == nil {
			if held != nil {
				held.Release()
			}
			// An answer that says a payment exists is given once what
			// it read is durable: the commit it read may be another's
			// whose sync, or flush, failed (issue 43).
			if sn.ShowsPayment() {
				if err := st.Durable(ctx); err != nil {
					return Outcome{}, err
				}
			}
			return out, nil
		}
		err = st.Write(ctx, q, held, sn, &out)
		if errors.Is(err, ErrRaced) && try < raceRetries {
			continue
		}
		if err != nil && sn.ShowsPayment() {
			// Not the refusal decided: an "already claimed" says a
			// payment exists that may not be durable (its flush failed,
			// or the question's time ended waiting for it: the standby
			// gone). A refusal that says no payment exists (an unknown
			// serial) is answered, its record's failure with it.
			return Outcome{}, err
		}
		if err != nil {
			return out, Refused(out.Err, err)
		}
		return out, nil
	}
}

// ErrRaced is a write that found changed what its question read (a
// payment of its ticket, a use of its request id, its desk's lock-out,
// committed since): Ask asks the question again, and core decides on what
// changed.
var ErrRaced = errors.New("the ledger changed since the question read it")

// raceRetries bounds how many times a question that raced is asked again
// (the second reads what changed, and answers so).
const raceRetries = 3

// Storage is a kind of ledger as a question asks it: one read, one write.
type Storage interface {
	// Read reads q's snapshot. held, when not nil, is what the storage
	// holds from the read on (a file's write transaction, for a claim:
	// nothing changes between its read and its write): Write takes it,
	// or Ask releases it.
	Read(ctx context.Context, q *Question) (sn *Snapshot, held Held, err error)
	// Write writes out, decided on sn, in one transaction that checks
	// again what may have changed since the read (ErrRaced), gives
	// out.Record its id, number and hash, and returns once it is durable
	// where the operator asked (synced; on PostgreSQL flushed, and on the
	// synchronous standbys). A storage opened read-only writes nothing.
	Write(ctx context.Context, q *Question, held Held, sn *Snapshot, out *Outcome) error
	// Durable returns once what was committed before the call, by any
	// process, is durable; ErrNotDurable otherwise.
	Durable(ctx context.Context) error
	// Failed is non-nil once the storage can make nothing durable until
	// it is reopened (a file whose sync failed): every question is
	// refused with it.
	Failed() error
}

// Held is what a storage holds between a question's read and its write.
type Held interface{ Release() }

// Question is a question as Ask asks it: a lookup (Serial), a claim
// (Serial and Claim) or a search by contents (Find, Code), at desk Who,
// its payout limit lowered to Asked, at time At.
type Question struct {
	Serial game.Serial
	Claim  *ClaimRequest
	Find   bool
	Code   []byte
	Who    Identity
	Asked  Limit
	At     time.Time
}

// Request is the question's request id ("" but for a claim's).
func (q *Question) Request() string {
	if q.Claim != nil {
		return q.Claim.Request
	}
	return ""
}

// Decide is core's decision on sn (DecideClaim, DecideFind, DecideLookup).
func (q *Question) Decide(sn *Snapshot) Outcome {
	switch {
	case q.Claim != nil:
		return DecideClaim(sn, q.Serial, *q.Claim, q.At)
	case q.Find:
		return DecideFind(sn, q.Who, q.At)
	}
	return DecideLookup(sn, q.Serial, q.Who, q.At)
}

// Local is the questions (Questions) of a ledger the process reads
// itself: Ask on its storage, each question asked once, at its time (now
// when zero).
type Local struct{ Storage Storage }

// clock is at, or now when zero.
func clock(at time.Time) time.Time {
	if at.IsZero() {
		return time.Now()
	}
	return at
}

// Lookup asks a lookup of s (Ask) and answers it: the ticket with its
// verdict, or the refusal.
func (l Local) Lookup(ctx context.Context, s game.Serial, who Identity, asked Limit, at time.Time) (Ticket, error) {
	out, err := Ask(ctx, l.Storage, &Question{Serial: s, Who: who, Asked: asked, At: clock(at)})
	if err == nil {
		_, err = out.Answer()
	}
	if err != nil {
		return Ticket{}, err
	}
	return out.Ticket, nil
}

// Claim asks a claim of s (Ask) and answers it: the payment, or the
// refusal.
func (l Local) Claim(ctx context.Context, s game.Serial, req ClaimRequest, at time.Time) (Claim, error) {
	out, err := Ask(ctx, l.Storage, &Question{Serial: s, Claim: &req, Who: req.Who, Asked: req.Limit, At: clock(at)})
	if err != nil {
		return Claim{}, err
	}
	return out.Answer()
}

// Find asks a search by contents of encoding code (Ask) and answers it:
// the tickets found, or the refusal.
func (l Local) Find(ctx context.Context, code []byte, who Identity, asked Limit, at time.Time) ([]Ticket, error) {
	if len(code) != game.EncodedSize {
		return nil, fmt.Errorf("find by contents: an encoding has %d bytes, not %d", game.EncodedSize, len(code))
	}
	out, err := Ask(ctx, l.Storage, &Question{Find: true, Code: code, Who: who, Asked: asked, At: clock(at)})
	if err == nil {
		_, err = out.Answer()
	}
	if err != nil {
		return nil, err
	}
	return out.Found, nil
}

// The answers a decision builds of what was read.

// TicketOf is the Ticket of facts f, with the verdict v.
func TicketOf(f *Facts, v Verdict, d Dates) (Ticket, error) {
	gt, err := game.Decode(f.Code)
	if err != nil {
		return Ticket{}, fmt.Errorf("block %s ticket %d: %w (run verify)", f.Block.Name(), f.Position, err)
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
