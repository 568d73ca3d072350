package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jmoiron/sqlx"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/core"
)

// A question on PostgreSQL (core/question.go: core.Ask): one read, core's decision, one
// write. The read is one statement (snapshot.go); the write one
// statement (writeOutcome), which records the entry in vegas.waiting and
// checks again what may have changed since the read: the ticket paid once
// (the paid row's key), the request id (its row of vegas.requests), the
// desk's lock-out (its row, locked). The sequencer then chains the entry,
// and the question answers with its id, number and hash.

// errRaced is core.ErrRaced: a write that found changed what its
// question read; core.Ask asks it again.
var errRaced = core.ErrRaced

// Questions are core.Ask's on the backend's storage (questions); Lookup,
// Find and Claim ask them.
func (b *Backend) Questions() core.Questions { return core.Local{Storage: questions{b}} }

func (b *Backend) Lookup(ctx context.Context, s game.Serial, who core.Identity, asked core.Limit, at time.Time) (core.Ticket, error) {
	return b.Questions().Lookup(ctx, s, who, asked, at)
}

func (b *Backend) Find(ctx context.Context, code []byte, who core.Identity, asked core.Limit, at time.Time) ([]core.Ticket, error) {
	return b.Questions().Find(ctx, code, who, asked, at)
}

func (b *Backend) Claim(ctx context.Context, s game.Serial, req core.ClaimRequest, at time.Time) (core.Claim, error) {
	return b.Questions().Claim(ctx, s, req, at)
}

// questions is the backend's questions as core.Ask asks them
// (core.Storage): a read is one statement (snapshot.go), a write one
// statement (writeOutcome), then the wait for the entry's chain and a
// flush (recorded).
type questions struct{ b *Backend }

func (p questions) Read(ctx context.Context, q *core.Question) (*core.Snapshot, core.Held, error) {
	b := p.b
	if q.Claim != nil && b.ReadOnly {
		return nil, nil, core.ErrReadOnly
	}
	if q.Find {
		sn, err := b.Store.ReadSnapshot(ctx, b.db, source{b}, q)
		return sn, nil, Classify(err)
	}
	sn, err := b.snapshot(ctx, q.Serial, q.Who, q.Asked, q.Request(), q.At)
	return sn, nil, Classify(err)
}

// Write writes out (unless the login is read-only), and waits for its
// entry to be chained and flushed.
func (p questions) Write(ctx context.Context, _ *core.Question, _ core.Held, sn *core.Snapshot, out *core.Outcome) error {
	b := p.b
	if b.ReadOnly {
		return nil
	}
	w, err := b.writeOutcome(ctx, sn, out)
	if errors.Is(err, errRaced) {
		return err
	}
	if err == nil {
		err = b.recorded(ctx, w, out.Record)
	}
	if err != nil {
		return classified(err)
	}
	out.Chained = time.Since(w.recorded)
	return nil
}

func (p questions) Durable(ctx context.Context) error { return p.b.Store.E.Durable(ctx) }

func (p questions) Failed() error { return p.b.Store.E.Failed() }

// questionTx is a question's write: its transaction, and the entry it
// recorded (seq), which its answer waits for.
type questionTx struct {
	*sqlx.Tx
	seq       int64
	recorded  time.Time // when it recorded its entry: its chain delay's start
	committed bool
	seqr      *sequencer
	// ctx is the question's, for the chain its commit may run.
	ctx context.Context
	// own is what the question's own chain gave its entry (ownChain):
	// its answer waits for no round; chains what it gave every entry it
	// chained.
	own         chained
	chains      map[int64]chained
	selfChained bool
}

// writeOutcome writes out's entry: one statement that records it in
// vegas.waiting (its commit does not wait for the disk: the chain's does)
// and checks again what may have changed since sn was read, and undoes
// itself, failing (errRaced: the question is asked again, and core decides
// on what changed), when something did:
//
//   - a payment inserts the ticket's paid row ON CONFLICT: a payment
//     committed since;
//   - a request id's row of vegas.requests is inserted or locked: the id
//     used since (the read found no use of it), or paid since;
//   - the desk's row, read FOR SHARE: its lock-out changed since.
//
// A guess of a desk the ledger locks out first locks its desk's row, in a
// transaction, and counts the guess with it (core.Lock.Guess: Locked,
// nothing recorded, when the desk is locked out); the guess that locks
// the desk records its lock-out too. The statement commits as it ends (no
// BEGIN, no COMMIT) unless it is a guess's, or no round of the sequencer
// runs: the question then chains what waits in its own transaction
// (ownChain).
func (b *Backend) writeOutcome(ctx context.Context, sn *core.Snapshot, out *core.Outcome) (*questionTx, error) {
	e := out.Record
	if err := e.CheckTexts(); err != nil {
		return nil, err
	}
	q := &questionTx{seqr: b.seq, ctx: ctx}
	guess := b.LocksOut() && e.IsGuess()
	if !guess && !b.seq.idle() {
		if err := b.write(ctx, b.db.DB, q, sn, out, nil, nil); err != nil {
			return nil, err
		}
		q.committed = true
		return q, nil
	}
	if err := b.db.Retry(func() (err error) { q.Tx, err = b.db.BeginTxx(ctx, nil); return err }); err != nil {
		return nil, Classify(err)
	}
	var count *core.Lock
	var lockEntry *core.Entry
	if guess {
		next, lock, err := b.CountGuess(ctx, q, e)
		if err != nil {
			q.Rollback()
			return nil, err
		}
		if next.On {
			count, lockEntry = &next, lock
		}
	}
	if err := b.write(ctx, q.Tx, q, sn, out, count, lockEntry); err != nil {
		q.Rollback()
		return nil, err
	}
	if err := q.commit(); err != nil {
		q.Rollback()
		return nil, err
	}
	return q, nil
}

// changed is what the write's statement says when what it checks again
// changed since the read (an integer's invalid input: the statement fails,
// and so undoes itself).
const changed = "vegas-desk: the ledger changed since the question read it"

// write is writeOutcome's statement, in x (a transaction, or the pool: it
// commits as it ends). count, when not nil, is the desk's lock-out after
// the guess (its row locked already), and lock the entry that records its
// lock-out when the guess locks it.
func (b *Backend) write(ctx context.Context, x core.Querier, q *questionTx, sn *core.Snapshot, out *core.Outcome, count *core.Lock, lock *core.Entry) error {
	e := out.Record
	rows := []*core.Entry{e}
	if lock != nil {
		rows = append(rows, lock)
	}
	stmt := `WITH w AS (` + waitingInsert
	var args []any
	for i, r := range rows {
		if i > 0 {
			stmt += ", "
		}
		var name, docType, docNumber sql.NullString
		if w := out.Winner; r == e && out.Pay && w.Given() {
			name, docType, docNumber = sql.NullString{String: w.Name, Valid: true}, sql.NullString{String: w.DocType, Valid: true},
				sql.NullString{String: w.DocNumber, Valid: true}
		}
		r.AtText = core.FormatTime(r.At)
		v := append(recorded(r), name, docType, docNumber)
		stmt += "(" + core.Marks(len(v)) + ")"
		args = append(args, v...)
	}
	stmt += ` RETURNING seq, set_config('synchronous_commit', 'off', true) AS sync)`
	same := []string{"true"}
	if out.Pay {
		stmt += `, p AS (` + paidInsert + ` SELECT ?, -min(seq) FROM w ON CONFLICT (ticket) DO NOTHING RETURNING ticket)`
		args = append(args, e.Ticket.Int64)
		same = append(same, `EXISTS (SELECT FROM p)`)
	}
	if e.Request != "" && sn.Facts != nil {
		// No row: the id paid a ticket since the read; fresh false: the
		// id was used since, unless the read found its use. (An unknown
		// serial is answered before its request id is looked at.)
		stmt += `, r AS (INSERT INTO requests (desk, request, paid) VALUES (?, ?, ?) ON CONFLICT (desk, request)
			DO UPDATE SET paid = excluded.paid WHERE NOT requests.paid RETURNING (xmax = 0) AS fresh)`
		args = append(args, e.Desk, e.Request, out.Pay)
		same = append(same, fmt.Sprintf(`coalesce((SELECT fresh OR %t FROM r), false)`, sn.Prior != nil))
	}
	switch {
	case count != nil:
		stmt += `, u AS (UPDATE desks SET guesses = ?, locked_until = ? WHERE id = ? RETURNING id)`
		args = append(args, count.GuessesText(), count.UntilText(), e.Desk)
		same = append(same, `EXISTS (SELECT FROM u)`)
	case sn.Desk.On:
		stmt += `, d AS (SELECT locked_until FROM desks WHERE id = ? FOR SHARE)`
		args = append(args, e.Desk, sn.Desk.UntilText())
		same = append(same, `(SELECT locked_until FROM d) = ?`)
	}
	stmt += ` SELECT CASE WHEN ` + strings.Join(same, " AND ") + ` THEN min(w.seq) ELSE ('` + changed + ` ' || min(w.seq))::bigint END AS seq FROM w`
	var seq int64
	if err := sqlx.GetContext(ctx, x, &seq, x.Rebind(stmt), args...); err != nil {
		// A payment of the request id recorded since, waiting still: its
		// index refuses a second (whichever part of the statement ran
		// first).
		var pe *pgconn.PgError
		if strings.Contains(err.Error(), changed) || errors.As(err, &pe) && pe.Code == "23505" && pe.ConstraintName == "waiting_requests" {
			return errRaced
		}
		return fmt.Errorf("journal: %w", Classify(err))
	}
	q.seq, q.recorded = seq, time.Now()
	return nil
}

// commit commits, its error classified. A question that recorded an
// entry first chains it itself when no chain is running (ownChain): one
// commit, then a flush (recorded), and no round to wait for. While its
// process's sequencer runs a round, or has one to run, the question joins
// it instead: one flush for many.
func (t *questionTx) commit() error {
	if t.seqr.idle() {
		if err := t.ownChain(); err != nil {
			return err
		}
	}
	if err := t.Tx.Commit(); err != nil {
		return Classify(err)
	}
	t.committed = true
	if t.selfChained {
		t.seqr.chainedBy(t.chains)
	}
	return nil
}

// ownChain chains what waits, the question's entry with it, in the
// question's transaction, if the chainer's lock is free now (SKIP LOCKED:
// a chain running, of a round or of another question, leaves the entry to
// the sequencer's next round); the commit does not wait for the disk: the
// flush after it does (recorded), as a round's.
func (t *questionTx) ownChain() error {
	var got []int
	if err := sqlx.SelectContext(t.ctx, t.Tx, &got, `SELECT 1 FROM vegas.chainer FOR UPDATE SKIP LOCKED`); err != nil {
		return fmt.Errorf("journal: %w", Classify(err))
	}
	if len(got) == 0 {
		return nil
	}
	out, err := chainWaiting(t.ctx, t.Tx)
	if err != nil {
		return Classify(err)
	}
	c, ok := out[t.seq]
	if !ok {
		return fmt.Errorf("journal: entry %d, recorded, was not chained by its own chain", t.seq)
	}
	t.own, t.chains, t.selfChained = c, out, true
	return nil
}

// recorded waits for the entry q recorded, e, to be chained, and gives e
// its id, number and hash.
func (b *Backend) recorded(ctx context.Context, q *questionTx, e *core.Entry) error {
	c := q.own
	if q.selfChained {
		if err := b.db.flush.wait(ctx); err != nil {
			return err
		}
	} else {
		var err error
		if c, err = b.seq.wait(ctx, q.seq); err != nil {
			return err
		}
	}
	e.ID, e.Number, e.Hash = c.ID, c.Number, c.Hash
	return nil
}

// classified is err with PostgreSQL's errors mapped to the ledger's; a
// refusal is kept as it is.
func classified(err error) error {
	var r *core.Refusal
	if err == nil || errors.As(err, &r) {
		return err
	}
	return Classify(err)
}

// clock is at, or now when zero.
func clock(at time.Time) time.Time {
	if at.IsZero() {
		return time.Now()
	}
	return at
}
