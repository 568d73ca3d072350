package core

import (
	"context"
	"errors"
	"time"

	"vegas-desk/internal/game"
)

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

// AskLookup asks st a lookup of s (Ask) and answers it: the ticket with
// its verdict, or the refusal.
func AskLookup(ctx context.Context, st Storage, s game.Serial, who Identity, asked Limit, at time.Time) (Ticket, error) {
	out, err := Ask(ctx, st, &Question{Serial: s, Who: who, Asked: asked, At: at})
	if err == nil {
		_, err = out.Answer()
	}
	if err != nil {
		return Ticket{}, err
	}
	return out.Ticket, nil
}

// AskClaim asks st a claim of s (Ask) and answers it: the payment, or the
// refusal.
func AskClaim(ctx context.Context, st Storage, s game.Serial, req ClaimRequest, at time.Time) (Claim, error) {
	out, err := Ask(ctx, st, &Question{Serial: s, Claim: &req, Who: req.Who, Asked: req.Limit, At: at})
	if err != nil {
		return Claim{}, err
	}
	return out.Answer()
}

// AskFind asks st a search by contents of encoding code (Ask) and answers
// it: the tickets found, or the refusal.
func AskFind(ctx context.Context, st Storage, code []byte, who Identity, asked Limit, at time.Time) ([]Ticket, error) {
	out, err := Ask(ctx, st, &Question{Find: true, Code: code, Who: who, Asked: asked, At: at})
	if err == nil {
		_, err = out.Answer()
	}
	if err != nil {
		return nil, err
	}
	return out.Found, nil
}
