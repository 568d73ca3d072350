package core

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"vegas-desk/internal/game"
)

// A question (a lookup, a claim, a search by contents) on a ledger whose
// rows the process reads (a SQLite back office, PostgreSQL, a sealed
// counter ledger) is prepared (PrepareClaim, CheckWho: below), then is
// one read, one decision and one write, asked by Ask (below) for every
// kind:
//
//   - the backend reads a Snapshot: everything the rule needs, nothing
//     else;
//   - core decides on it in pure Go, touching no storage (rule.go:
//     DecideClaim, DecideLookup, DecideFind, with the desk's gate and
//     lock-out): an Outcome, the entry to record, whether it pays, and
//     the answer;
//   - the backend writes the Outcome in one transaction that checks
//     again only what may have changed since the read: the ticket paid
//     once (the paid row's key), the desk's lock-out under the desk's
//     lock (Lock.Guess, Lock.Locked), the request id; then commits, and
//     the answer is Outcome.Answer.

// The engine: Ask and what a storage gives it.

// Ask is the one engine of the questions a ledger the process reads
// itself answers (a SQLite back office, a sealed counter ledger,
// PostgreSQL): package ledger prepares the question (a serial parsed, the
// identity checked), then Ask reads (Storage.Read), decides here in pure
// Go (Question.Decide), writes (Storage.Write, where the promise that a
// PAID is durable lives), and the backend answers with the Outcome. The
// gate, the lock-out, the identity, the paid row and the journal entry
// are decided once, in rule.go; each storage only reads and
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

// Asker is the questions as a ledger's user asks them (package ledger's
// Ledger holds one, and answers with it): each is prepared here (the
// serial parsed, the identity trimmed and checked: PrepareClaim, CheckWho;
// an error is Invalid), then asked of Questions (Local: Ask on the
// ledger's storage, or a validation server's client).
type Asker struct {
	Questions Questions
	// Desk is the ledger's own desk ("" for the back office's): a
	// counter's login or sealed ledger asks as its desk.
	Desk string
	// Now gives the time of the entries this process writes and of the
	// verdicts it asks; nil is the current time, which on PostgreSQL is
	// the server's (so that the journal's times follow one clock; a
	// counter on a validation server always has the server's). Tests set it.
	Now func() time.Time
}

// Clock is the time of what the ledger writes and asks: the zero time when
// nobody set Now (a backend's own clock).
func (a *Asker) Clock() time.Time {
	if a.Now == nil {
		return time.Time{}
	}
	return a.Now()
}

// Lookup finds a ticket by its full serial, with what a claim of it at
// this desk would answer now (its Verdict): the desk's stored payout limit
// (a served counter's, a sealed ledger's, a desk of the ledger's desks),
// which limit may lower, never raise (NoLimit asks nothing). The serial is
// parsed first (game.ErrCheckDigit or game.ErrSerialFormat, before the
// ledger is read); then an unknown serial or a wrong secret part both
// answer a *Refusal with UnknownSerial (errors.Is ErrUnknownSerial),
// recorded as refused with who unless the ledger is read-only; so is a
// ticket of a stolen pack, for the back office, though it is returned. A
// counter on a validation server that was locked out answers Locked.
func (a *Asker) Lookup(ctx context.Context, serial string, who Identity, limit Limit) (Ticket, error) {
	s, err := game.ParseSerial(serial)
	if err != nil {
		return Ticket{}, Invalid(err)
	}
	who = Trimmed(who, a.Desk)
	if err := CheckWho("lookup", who); err != nil {
		return Ticket{}, Invalid(err)
	}
	return a.Questions.Lookup(ctx, s, who, limit, a.Clock())
}

// Claim pays a winning ticket once and records it in the journal, with the
// time, who, the amount, the method and the request id. A refusal is a
// *Refusal (errors.Is ErrUnknownSerial, ErrNotWinner, ErrAlreadyClaimed —
// naming the first payment —, ErrNotActivated, ErrStolen, ErrExpired,
// ErrNotYetOnSale, ErrOverLimit — a referral to the back office is
// recorded —, ErrIdentityRequired, ErrLocked), and is recorded too. The
// check and the payment are one step, so counters claiming one ticket at
// once pay it exactly once. The payout limit is the desk's stored one,
// which req.Limit may lower (see Lookup).
//
// A request id names one ticket at one desk: a retry with the same id
// answers what the first answer was (the payment, or ErrVoided with the
// payment voided since), and a retry of another ticket is refused
// (ErrRequestReused). So a claim whose answer was lost (a timeout, a
// dropped connection) is asked again safely, and is, by a counter on a
// validation server, whose client (package remote) follows the policy
// protocol.Retry: within 31 s it is answered or ErrUnreachable. The
// policy runs there only: a ledger the process reads itself (a file,
// PostgreSQL — the server's own) answers each question once,
// unavailable when it cannot (its context ended, PostgreSQL away, a flush
// failed), and the counter asks again.
func (a *Asker) Claim(ctx context.Context, req ClaimRequest) (Claim, error) {
	s, err := PrepareClaim(&req, a.Desk, clock(a.Clock()))
	if err != nil {
		return Claim{}, Invalid(err)
	}
	return a.Questions.Claim(ctx, s, req, a.Clock())
}

// FindByContents returns the ledger's ticket with exactly these contents
// (the duel's cards in any order), with its verdict at this desk (see
// Lookup), or a *Refusal with UnknownContents, recorded. Losing contents
// are not searched: only winning tickets are indexed, and there is nothing
// to pay, so it answers ErrNotWinner. Should two tickets of the ledger show
// the same winning contents, the first one not yet paid is returned.
func (a *Asker) FindByContents(ctx context.Context, t *game.Ticket, who Identity, limit Limit) (Ticket, error) {
	c := *t
	slices.Sort(c.Duel.Cards[:]) // generated tickets show them ascending
	if err := game.Validate(&c); err != nil {
		return Ticket{}, Invalid(fmt.Errorf("find by contents: %w", err))
	}
	if game.Prize(&c) == 0 {
		return Ticket{}, Invalid(fmt.Errorf("find by contents: %w: these contents lose, there is nothing to pay", ErrNotWinner))
	}
	code := game.Encode(&c)
	who = Trimmed(who, a.Desk)
	if err := CheckWho("find by contents", who); err != nil {
		return Ticket{}, Invalid(err)
	}
	found, err := a.Questions.Find(ctx, code[:], who, limit, a.Clock())
	if err != nil {
		return Ticket{}, err
	}
	return FoundTicket(found)
}

// Preparing a question: what it asks checked before anything is read.

// Trimmed is who with its texts trimmed, its desk own when own is set (a
// counter on a validation server or ledger asks as its desk).
func Trimmed(who Identity, own string) Identity {
	who.Desk, who.Operator = strings.TrimSpace(who.Desk), strings.TrimSpace(who.Operator)
	if own != "" {
		who.Desk = own
	}
	return who
}

// The bounds of what a journal entry records from a person: a request id,
// an operator, a reason (MaxText characters); a winner's name, identity
// document and its number (MaxIdentity).
const (
	MaxText     = 64
	MaxIdentity = 200
)

// CheckText refuses text an entry cannot hold the same way on every
// engine (invalid UTF-8, a NUL character) or longer than max characters
// (0: no bound).
func CheckText(field, s string, max int) error {
	if !utf8.ValidString(s) || strings.ContainsRune(s, 0) {
		return fmt.Errorf("%s %q: not plain text; type it again", field, s)
	}
	if max > 0 && utf8.RuneCountInString(s) > max {
		return fmt.Errorf("%s: at most %d characters, not %d; shorten it", field, max, utf8.RuneCountInString(s))
	}
	return nil
}

// Blank reports whether s is empty once every Unicode white space is
// trimmed (unicode.IsSpace: a no-break space too).
func Blank(s string) bool { return strings.TrimSpace(s) == "" }

// NewRequestID makes a request id for a claim: 128 random bits in hex.
func NewRequestID() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// PrepareClaim checks a claim request as every kind of ledger does before
// it asks anything, and returns its serial. own is the desk of a counter's
// login or sealed ledger ("" for the back office): it pays as that desk
// only. Texts are trimmed; a winner's identity is kept in its normal form
// (Winner.Normal), and one that is not given (Winner.Check: blank,
// invisible, no document of the list, a number out of its format, a name
// that is no name, a zone that does not read) is none; one whose zone says
// the winner is a minor or the document expired on at's day
// (Winner.CheckAt) is refused; an empty request id gets one.
func PrepareClaim(req *ClaimRequest, own string, at time.Time) (game.Serial, error) {
	s, err := game.ParseSerial(req.Serial)
	if err != nil {
		return s, err
	}
	if req.Method != MethodSerial && req.Method != MethodContents {
		return s, fmt.Errorf("claim: method %q: want %q or %q", req.Method, MethodSerial, MethodContents)
	}
	req.Who.Desk, req.Who.Operator, req.Request = strings.TrimSpace(req.Who.Desk), strings.TrimSpace(req.Who.Operator), strings.TrimSpace(req.Request)
	if own != "" && req.Who.Desk == "" {
		req.Who.Desk = own
	}
	if req.Who.Desk == "" || req.Who.Operator == "" {
		return s, fmt.Errorf("claim: desk %q, operator %q: a payment records both; name the desk and the operator", req.Who.Desk, req.Who.Operator)
	}
	if own != "" && req.Who.Desk != own {
		return s, fmt.Errorf("claim: %w: this ledger or login is desk %s's, not %s's", ErrDeskMismatch, own, req.Who.Desk)
	}
	if err := CheckWho("claim", req.Who); err != nil {
		return s, err
	}
	if err := CheckText("request id", req.Request, MaxText); err != nil {
		return s, fmt.Errorf("claim: %w", err)
	}
	if w := req.Winner; w != nil {
		t := Winner{Name: strings.TrimSpace(w.Name), DocType: strings.TrimSpace(w.DocType), DocNumber: strings.TrimSpace(w.DocNumber),
			MRZ: strings.TrimSpace(w.MRZ)}
		for _, f := range []struct {
			name, text string
		}{{"winner's name", t.Name}, {"identity document", t.DocType}, {"document number", t.DocNumber}, {"machine-readable zone", t.MRZ}} {
			if err := CheckText(f.name, f.text, MaxIdentity); err != nil {
				return s, fmt.Errorf("claim: %w", err)
			}
		}
		// An identity is kept, hashed and compared in its normal form
		// (IdentityText); one that is not given (Winner.Check) is none.
		req.Winner = nil
		if n := t.Normal(); t.Given() { // as typed: a bidirectional control is refused, not removed
			for _, f := range [][2]string{{"winner's name", n.Name}, {"identity document", n.DocType}, {"document number", n.DocNumber}} {
				if err := CheckText(f[0], f[1], MaxIdentity); err != nil {
					return s, fmt.Errorf("claim: %w", err)
				}
			}
			req.Winner = n
			if err := n.CheckAt(at); err != nil {
				return s, fmt.Errorf("claim: %w", err)
			}
		}
	}
	if req.Request == "" {
		req.Request = NewRequestID()
	}
	return s, nil
}

// CheckWho refuses a desk or an operator that an entry cannot record
// (CheckText, MaxText): what (a claim, a lookup) names the question.
func CheckWho(what string, who Identity) error {
	for _, f := range [][2]string{{"desk", who.Desk}, {"operator", who.Operator}} {
		if err := CheckText(f[0], f[1], MaxText); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
	}
	return nil
}
