package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jmoiron/sqlx"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/backoffice"
	"vegas-desk/internal/ledger/core"
)

// A question on PostgreSQL (core/question.go: core.Ask): one read, core's decision, one
// write. The read is one statement (snapshot, below); the write one
// statement (writeOutcome), which records the entry in vegas.waiting and
// checks again what may have changed since the read: the ticket paid once
// (the paid row's key), the request id (its row of vegas.requests), the
// desk's lock-out (its row, locked). The sequencer then chains the entry,
// and the question answers with its id, number and hash.

// errRaced is core.ErrRaced: a write that found changed what its
// question read; core.Ask asks it again.
var errRaced = core.ErrRaced

// Questions are core.Ask's on the backend's storage (questions), each
// counted while it is asked (ask: whether a question is alone); Lookup,
// Find and Claim ask them.
func (b *Backend) Questions() core.Questions { return counted{b} }

// counted is core.Local on the backend's storage, each question counted
// in b.asking while it is asked.
type counted struct{ b *Backend }

func (c counted) local() core.Local { return core.Local{Storage: questions{c.b}} }

func (c counted) Lookup(ctx context.Context, s game.Serial, who core.Identity, asked core.Limit, at time.Time) (core.Ticket, error) {
	defer c.b.ask()()
	return c.local().Lookup(ctx, s, who, asked, at)
}

func (c counted) Find(ctx context.Context, code []byte, who core.Identity, asked core.Limit, at time.Time) ([]core.Ticket, error) {
	defer c.b.ask()()
	return c.local().Find(ctx, code, who, asked, at)
}

func (c counted) Claim(ctx context.Context, s game.Serial, req core.ClaimRequest, at time.Time) (core.Claim, error) {
	defer c.b.ask()()
	return c.local().Claim(ctx, s, req, at)
}

func (b *Backend) Lookup(ctx context.Context, s game.Serial, who core.Identity, asked core.Limit, at time.Time) (core.Ticket, error) {
	return b.Questions().Lookup(ctx, s, who, asked, at)
}

func (b *Backend) Find(ctx context.Context, code []byte, who core.Identity, asked core.Limit, at time.Time) ([]core.Ticket, error) {
	return b.Questions().Find(ctx, code, who, asked, at)
}

func (b *Backend) Claim(ctx context.Context, s game.Serial, req core.ClaimRequest, at time.Time) (core.Claim, error) {
	return b.Questions().Claim(ctx, s, req, at)
}

// ask counts a question asked until the function it returns is called
// (writeOutcome: whether a question is alone).
func (b *Backend) ask() func() {
	b.asking.Add(1)
	return func() { b.asking.Add(-1) }
}

// questions is the backend's questions as core.Ask asks them
// (core.Storage): a read is one statement (snapshot), a write one
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
	if err != nil {
		return nil, nil, Classify(err)
	}
	return sn, nil, nil
}

// Write writes out (unless the login is read-only), and waits for its
// entry to be chained and flushed. A read-only login writes nothing, and
// its answer that names a payment (a lookup of a stolen ticket paid)
// waits for a flush, as one that records nothing does (core.Ask): its
// record's flush is none.
func (p questions) Write(ctx context.Context, _ *core.Question, _ core.Held, sn *core.Snapshot, out *core.Outcome) error {
	b := p.b
	if b.ReadOnly {
		if sn.ShowsPayment() {
			return p.Durable(ctx)
		}
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

// Durable returns once a flush that began after the call made everything
// committed before it durable (flush.go).
func (p questions) Durable(ctx context.Context) error { return p.b.db.flush.wait(ctx) }

// Failed: PostgreSQL itself stops when it cannot sync (data_sync_retry =
// off); a failed flush fails its own questions only.
func (p questions) Failed() error { return nil }

// questionTx is a question's write: the entry it recorded (seq), which
// its answer waits for.
type questionTx struct {
	seq      int64
	recorded time.Time // when it recorded its entry: its chain delay's start
	// own is what the question's own chain gave its entry (selfChained):
	// its answer waits for no round, only a flush, or none when its
	// commit waited for the disk itself (durable).
	own                  chained
	selfChained, durable bool
}

// writeOutcome writes out's entry. When no round of the sequencer runs
// nor waits to, it chains the entry directly after the journal's end the
// process knows, in one statement that commits waiting for the disk
// (direct.go), alone, or beside other questions in a group of one
// transaction (group.go): the statement checks again what writeStatement
// checks, written the same way. When it cannot (the end moved, the
// chainer's lock taken, entries waiting), the entry is written as
// before: one statement that records it in
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
// While other questions are asked, or a round of the sequencer runs or
// waits to, the statement commits as it ends (no BEGIN, no COMMIT),
// without waiting for the disk: one round trip, and the round chains it
// with theirs, and flushes once for all (a question chaining its own
// entry would hold the chainer's lock, which the round waits for, while
// its commit waits for the disk). Alone, the question
// chains what waits itself, in its transaction, if the chainer's lock is
// free (SKIP LOCKED, in the statement: a chain running, of a round or of
// another question, leaves the entry to the sequencer's next round):
// BEGIN, the statement and what waits taken in one round trip; the
// journal's rows and the commit in a second (chainPipelined). That commit
// waits for the disk, and the synchronous standbys, itself (as
// synchronous_commit says, raised to on where it is off: pgxpool's
// AfterConnect, open.go): it comes after the entry's chain, and its
// flush covers every commit before it; a commit PostgreSQL warns about
// (its wait for the standbys cancelled, flush.go) or whose question's
// time ended is core.ErrNotDurable. So a question alone on the ledger
// costs no flush of its own. One that did not chain its entry commits
// without waiting (asyncCommit), and the round that chains it flushes.
//
// A guess of a desk the ledger locks out first locks its desk's row, in a
// transaction, and counts the guess with it (core.Lock.Guess: Locked,
// nothing recorded, when the desk is locked out); the guess that locks
// the desk records its lock-out too (writeGuess).
func (b *Backend) writeOutcome(ctx context.Context, sn *core.Snapshot, out *core.Outcome) (*questionTx, error) {
	e := out.Record
	if err := e.CheckTexts(); err != nil {
		return nil, err
	}
	if b.LockOut.Load() && e.IsGuess() {
		return b.writeGuess(ctx, sn, out)
	}
	q := &questionTx{}
	var held bool
	alone, idle := b.asking.Load() <= 1, b.seq.idle()
	if idle {
		write := b.writeGrouped
		if alone {
			write = func(ctx context.Context, sn *core.Snapshot, out *core.Outcome) (*questionTx, error) {
				return b.writeDirect(ctx, sn, out)
			}
		}
		switch q, err := write(ctx, sn, out); {
		case err == nil:
			return q, nil
		case !errors.Is(err, errNotDirect):
			return nil, err
		}
		e.ID, e.Number, e.Hash = 0, 0, nil
		idle = b.seq.idle()
	}
	if !idle || !alone {
		w := writeStatement(sn, out, nil, nil, false, true)
		if err := b.db.px.QueryRow(ctx, w.sql, w.args...).Scan(&q.seq, &held); err != nil {
			return nil, writeFailed(err)
		}
		q.recorded = time.Now()
		return q, nil
	}
	w := writeStatement(sn, out, nil, nil, true, false)
	w.scan = func(r pgx.Row) error { return r.Scan(&q.seq, &held) }
	var chains map[int64]chained
	var warned *pgconn.Notice
	var moved tail
	err := b.db.retry(func() error {
		conn, err := b.db.px.Acquire(ctx)
		if err != nil {
			return err
		}
		defer conn.Release()
		pc := conn.Conn().PgConn()
		b.db.warned.Delete(pc)
		chains, err = chainPipelinedThen(ctx, conn, []statement{{sql: "BEGIN"}, w}, takeIfHeld(), func() { q.recorded = time.Now() }, &asyncCommit, &moved)
		if n, ok := b.db.warned.LoadAndDelete(pc); ok {
			warned = n.(*pgconn.Notice)
		}
		return err
	})
	var sent commitUnknown
	switch {
	case err != nil && errors.As(err, &sent) && ctx.Err() != nil:
		return nil, fmt.Errorf("%w: journal: the commit of the question's chain, waiting for the disk or the synchronous standbys: %w", core.ErrNotDurable, ctx.Err())
	case err != nil:
		return nil, writeFailed(err)
	case len(chains) > 0 && warned != nil:
		// The commit's wait for the standbys cancelled: committed
		// locally only (flush.go).
		return nil, fmt.Errorf("%w: journal: PostgreSQL warned at the commit of the question's chain: %s (%s)", core.ErrNotDurable, warned.Message, warned.Detail)
	}
	b.seq.end.learn(moved)
	if c, ok := chains[q.seq]; ok {
		q.own, q.selfChained, q.durable = c, true, true
		b.seq.chainedBy(chains)
	} else if len(chains) > 0 {
		return nil, fmt.Errorf("journal: entry %d, recorded, was not chained by its own chain", q.seq)
	}
	return q, nil
}

// asyncCommit is sent before the commit of a question's write that did
// not chain its entry (the chainer's lock was taken): the round that
// chains it flushes.
var asyncCommit = statement{sql: "SELECT set_config('synchronous_commit', 'off', true)"}

// writeGuess is writeOutcome's write of a guess, the desk's row locked
// and its count of guesses moved in the same transaction, which chains
// what waits if the chainer's lock is free (as writeOutcome's).
func (b *Backend) writeGuess(ctx context.Context, sn *core.Snapshot, out *core.Outcome) (*questionTx, error) {
	var tx *sqlx.Tx
	if err := b.db.Retry(func() (err error) { tx, err = b.db.BeginTxx(ctx, nil); return err }); err != nil {
		return nil, Classify(err)
	}
	defer tx.Rollback()
	next, lock, err := b.CountGuess(ctx, tx, out.Record)
	if err != nil {
		return nil, err
	}
	var count *core.Lock
	if !next.On {
		lock = nil
	} else {
		count = &next
	}
	q := &questionTx{}
	var held bool
	w := writeStatement(sn, out, count, lock, b.seq.idle(), true)
	if err := tx.QueryRowxContext(ctx, w.sql, w.args...).Scan(&q.seq, &held); err != nil {
		return nil, writeFailed(err)
	}
	q.recorded = time.Now()
	var chains map[int64]chained
	if held {
		if chains, err = chainWaiting(ctx, tx); err != nil {
			return nil, Classify(err)
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, Classify(err)
	}
	if c, ok := chains[q.seq]; ok {
		q.own, q.selfChained = c, true
		b.seq.chainedBy(chains)
	}
	return q, nil
}

// changed is what the write's statement says when what it checks again
// changed since the read (an integer's invalid input: the statement fails,
// and so undoes itself).
const changed = "vegas-desk: the ledger changed since the question read it"

// writeFailed is the error of a write whose statement failed: errRaced
// when what it checks again changed.
func writeFailed(err error) error {
	// A payment of the request id recorded since, waiting still: its
	// index refuses a second (whichever part of the statement ran
	// first).
	var pe *pgconn.PgError
	if strings.Contains(err.Error(), changed) || errors.As(err, &pe) && pe.Code == "23505" && pe.ConstraintName == "waiting_requests" {
		return errRaced
	}
	return fmt.Errorf("journal: %w", Classify(err))
}

// writeStatement is writeOutcome's statement, which answers the entry's
// record number (seq) and whether it took the chainer's lock (held: when
// chain is set, if it was free: lockIfFree, in the same statement; its
// chain, a statement after it, sees every chain committed before). count,
// when not nil, is the desk's lock-out after the guess (its row locked
// already), and lock the entry that records its lock-out when the guess
// locks it.
func writeStatement(sn *core.Snapshot, out *core.Outcome, count *core.Lock, lock *core.Entry, chain, async bool) statement {
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
		if w := out.Winner; r == e && out.Pay && w != nil { // a decision gives a winner only when one is given
			name, docType, docNumber = sql.NullString{String: w.Name, Valid: true}, sql.NullString{String: w.DocType, Valid: true},
				sql.NullString{String: w.DocNumber, Valid: true}
		}
		r.AtText = core.FormatTime(r.At)
		v := append(recorded(r), name, docType, docNumber)
		stmt += "(" + core.Marks(len(v)) + ")"
		args = append(args, v...)
	}
	// Its commit waits for the disk only where it chains (writeOutcome).
	stmt += ` RETURNING seq`
	if async {
		stmt += `, set_config('synchronous_commit', 'off', true) AS sync`
	}
	stmt += `)`
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
	held := "false"
	if chain {
		stmt += `, lk AS (` + lockIfFree + `)`
		held = `EXISTS (SELECT FROM lk)`
	}
	stmt += ` SELECT CASE WHEN ` + strings.Join(same, " AND ") + ` THEN min(w.seq) ELSE ('` + changed + ` ' || min(w.seq))::bigint END AS seq, ` +
		held + ` AS held FROM w`
	return statement{sql: sqlx.Rebind(sqlx.DOLLAR, stmt), args: args}
}

// recorded waits for the entry q recorded, e, to be chained and durable,
// and gives e its id, number and hash: a flush after the question's own
// chain, else the sequencer's round (which flushes).
func (b *Backend) recorded(ctx context.Context, q *questionTx, e *core.Entry) error {
	c := q.own
	switch {
	case q.selfChained && q.durable: // its commit waited for the disk
	case q.selfChained:
		if err := b.db.flush.wait(ctx); err != nil {
			return err
		}
	default:
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

// A question's read on PostgreSQL: the back office's tables, and what
// waits in vegas.waiting to be chained (a payment, a request id's use).
// An entry it needs that waits (a payment of the ticket, the request id's
// use) it waits for, chained, and reads in the journal: what core decides
// on names chained entries only, by their ids (a refusal's ref, a claim
// answered again), and the records' numbers (seq) stay here.

// snapshot reads what a lookup or a claim of s at desk needs, in one
// statement (its own snapshot): the ticket's facts (its block from the
// backend's cache, checked in Go), the game's dates, the identity
// threshold, the desk's payout limit, lock-out and gate (who.Cert: listed,
// disabled, accepting the certificate, the ledger's restore fence), and whether the request id was
// used. A paid ticket's payment and a used request id's
// entry are read after it, only when there is one.
func (b *Backend) snapshot(ctx context.Context, s game.Serial, who core.Identity, asked core.Limit, request string, at time.Time) (*core.Snapshot, error) {
	sn, desk := &core.Snapshot{}, who.Desk
	blk, err := b.blocks.Get(ctx, b.db, s.Game, s.Block)
	if err != nil && !errors.Is(err, core.ErrNotFound) {
		return nil, err
	}
	if err != nil || !blk.Holds(s) {
		sn.Desk, sn.Gate, err = b.QuestionDesk(ctx, b.db, who)
		return sn, err
	}
	pos := s.Position
	off := pos % game.PackSize
	var row *snapshotRow
	err = b.db.retry(func() error {
		row = &snapshotRow{}
		return b.db.px.QueryRow(ctx, snapshotRead(),
			off*game.EncodedSize+1, game.EncodedSize, off+1, blk.ID, pos/game.PackSize, blk.TicketNumber(pos),
			core.SettingIdentityThreshold, desk, who.Cert, desk, request, desk, request, blk.Game, desk, blk.PackID(pos)).Scan(row.fields()...)
	})
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return nil, fmt.Errorf("block %s pack %d: missing (run verify)", blk.Name(), pos/game.PackSize)
	case err != nil:
		return nil, fmt.Errorf("block %s ticket %d: %w", blk.Name(), pos, Classify(err))
	case !row.Game.Valid:
		return nil, fmt.Errorf("game %d: %w", blk.Game, core.ErrNotFound)
	}
	if sn.Facts, err = row.FactsRow.Facts(blk, pos, s.Secret); err != nil {
		return nil, err
	}
	if row.Claim.Valid {
		if sn.Facts.Paid, err = b.paidClaim(ctx, b.db, row.Claim.Int64, sn.Facts.Ticket); err != nil {
			return nil, err
		}
	}
	if sn.Rules, err = row.RulesRow.Rules(asked, at); err != nil {
		return nil, err
	}
	sn.Gate = core.Gate{Asked: who.Cert != "", Listed: row.Listed, Disabled: row.Disabled == 1, Accepts: row.Accepts, Replaced: row.Replaced}
	if row.Listed && b.LockOut.Load() {
		sn.Desk = core.LockOf(row.Guesses, row.Until)
	}
	if row.Prior {
		sn.Prior, sn.PriorClaim, err = b.priorUse(ctx, b.db, desk, request)
	}
	return sn, err
}

// snapshotRow is snapshotRead's row.
type snapshotRow struct {
	backoffice.FactsRow
	backoffice.RulesRow
	Game     sql.NullInt64 `db:"game"`
	Listed   bool          `db:"listed"`
	Guesses  string        `db:"guesses"`
	Until    string        `db:"locked_until"`
	Disabled int           `db:"disabled"`
	Accepts  bool          `db:"accepts"`
	Prior    bool          `db:"prior"`
	Replaced string        `db:"replaced"`
}

// fields are the row's, in snapshotRead's order of columns.
func (r *snapshotRow) fields() []any {
	return []any{&r.Code, &r.Prize, &r.State, &r.Claim, &r.Game, &r.OnSale, &r.EndOfSale, &r.Deadline, &r.Threshold, &r.Limit,
		&r.Listed, &r.Guesses, &r.Until, &r.Disabled, &r.Accepts, &r.Prior, &r.Replaced}
}

// snapshotRead is a question's read of a ticket (snapshot), made when
// first asked (TestStartupInits).
var snapshotRead = sync.OnceValue(func() string {
	return sqlx.Rebind(sqlx.DOLLAR, `SELECT substr(p.codes, ?, ?) AS code, substr(p.prizes, ?, 1) AS prize,
		coalesce((SELECT state FROM pack_states WHERE block = ? AND pack = ?), '') AS state,
		(SELECT claim FROM paid WHERE ticket = ?) AS claim, g.code AS game, `+backoffice.RulesCols+`,
		d.id IS NOT NULL AS listed, coalesce(d.guesses, '') AS guesses, coalesce(d.locked_until, '') AS locked_until,
		coalesce(d.disabled, 0) AS disabled, EXISTS (SELECT FROM desk_certs c WHERE c.desk = d.id AND c.serial = ?) AS accepts,
		(EXISTS (SELECT FROM journal WHERE desk = ? AND request = ? AND request <> '' AND kind IN ('claim', 'refusal', 'referral'))
		 OR EXISTS (SELECT FROM waiting WHERE desk = ? AND request = ? AND request <> '' AND kind IN ('claim', 'refusal', 'referral'))) AS prior,
		coalesce((SELECT value FROM meta WHERE key = 'replaced'), '') AS replaced
		FROM packs p LEFT JOIN games g ON g.code = ? LEFT JOIN desks d ON d.id = ? WHERE p.id = ?`)
})

// source is the Source of a search by contents on PostgreSQL: the back
// office's tables, blocks from the backend's cache, payments waiting to be
// chained read where they wait.
type source struct{ b *Backend }

func (r source) Facts(ctx context.Context, q core.Querier, s game.Serial) (*core.Facts, error) {
	blk, err := r.b.blocks.Get(ctx, q, s.Game, s.Block)
	if errors.Is(err, core.ErrNotFound) || err == nil && !blk.Holds(s) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return backoffice.Tables{Paid: r.b.paidClaim}.FactsOf(ctx, q, blk, s.Position, s.Secret)
}

func (source) Rules(ctx context.Context, q core.Querier, gameCode int, desk string, asked core.Limit, at time.Time) (core.Rules, error) {
	return backoffice.DeskRules(ctx, q, gameCode, desk, asked, at)
}

func (source) Blocks(ctx context.Context, q core.Querier) ([]core.Block, error) {
	return backoffice.ListBlocks(ctx, q)
}

func (r source) Candidates(ctx context.Context, q core.Querier, b core.Block, code []byte) ([]*core.Facts, error) {
	return backoffice.Tables{Paid: r.b.paidClaim}.Candidates(ctx, q, b, code)
}

func (r source) Prior(ctx context.Context, q core.Querier, desk, request string) (*core.Entry, *core.Claim, error) {
	return r.b.priorUse(ctx, q, desk, request)
}

// priorUse is the entry that answers desk's request id used before (its
// payment, else its first use), and its claim when it is a payment; or
// nil. One waiting to be chained is waited for (chained), and read in the
// journal.
func (b *Backend) priorUse(ctx context.Context, q core.Querier, desk, request string) (*core.Entry, *core.Claim, error) {
	for {
		// The journal's and vegas.waiting's uses in one statement (one
		// snapshot, which a chain's commit moves an entry into whole).
		var e struct {
			core.Entry
			Seq int64 `db:"wseq"`
		}
		err := core.Get(ctx, q, &e, `SELECT `+core.EntryCols+`, wseq FROM (
			SELECT `+core.EntryCols+`, 0::bigint AS wseq FROM journal
				WHERE desk = ? AND request = ? AND request <> '' AND kind IN ('claim', 'refusal', 'referral')
			UNION ALL
			SELECT `+waitingUse+`, seq AS wseq FROM waiting
				WHERE desk = ? AND request = ? AND request <> '' AND kind IN ('claim', 'refusal', 'referral')
			) u ORDER BY kind = 'claim' DESC, wseq, id LIMIT 1`, desk, request, desk, request)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return nil, nil, nil
		case err != nil:
			return nil, nil, err
		case e.Seq > 0:
			if _, err := b.seq.wait(ctx, e.Seq); err != nil {
				return nil, nil, err
			}
			q = b.db // chained since q's snapshot (a transaction's) began
			continue
		case e.Kind != "claim":
			return &e.Entry, nil, nil
		}
		var r backoffice.ClaimRow
		if err := core.Get(ctx, q, &r, backoffice.ClaimSelect+" WHERE c.id = ?", e.ID); err != nil {
			return nil, nil, err
		}
		c := r.Claim()
		return &e.Entry, &c, nil
	}
}

// paidClaim is the payment of a ticket whose paid row names claim: a
// chained entry, or -seq of the record of one (postgres.sql), waited for
// while it waits to be chained.
func (b *Backend) paidClaim(ctx context.Context, q core.Querier, claim, ticket int64) (*core.Claim, error) {
	if claim >= 0 {
		return backoffice.PaidClaim(ctx, q, ticket)
	}
	for try := 0; ; try++ {
		var rows []backoffice.ClaimRow
		if err := core.Select(ctx, q, &rows, backoffice.ClaimSelect+" WHERE c.seq = ?", -claim); err != nil {
			return nil, fmt.Errorf("payment %d of ticket %d: %w", -claim, ticket, err)
		}
		if len(rows) > 0 {
			c := rows[0].Claim()
			return &c, nil
		}
		if try > 0 {
			return nil, fmt.Errorf("payment %d of ticket %d: chained, not in the journal", -claim, ticket)
		}
		if _, err := b.seq.wait(ctx, -claim); err != nil {
			return nil, err
		}
		q = b.db // chained since q's snapshot (a transaction's) began
	}
}
