package postgres

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jmoiron/sqlx"

	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/ledger/tables"
)

// A question alone on the ledger chains its entry in one statement, its
// own transaction (autocommit), as the bare server's one UPDATE: no
// record in vegas.waiting, no take, one round trip after its read
// (writeDirect); questions asked beside others, in groups of one
// transaction each (group.go). An entry's id, number and hash are given
// in Go, after the journal's end as this process's chains last left it
// (journalEnd: read at Open, and again when forgotten), and the statement
// checks that end itself: it takes the chainer's lock if it is free (SKIP
// LOCKED), and inserts the entry only if nothing waits in vegas.waiting
// and the journal's last entry is still the one it names, by id and hash,
// and the entry's number follows the last of its kind (no gap);
// the journal's keys (its id; its kind and number) refuse the entry if
// another chain appended after that end all the same (one that committed
// while the statement began). An end moved (then forgotten), or a lock
// taken, the question is written as before (recorded in vegas.waiting:
// its own chain of what waits, or the process's sequencer). The commit
// waits for the disk and the synchronous standbys (the session's
// synchronous_commit, on at least: open.go), and a commit PostgreSQL
// warns about is core.ErrNotDurable. A paid row names its entry by its id
// (no record: journal.seq is NULL).

// tail is how one chain moved the journal's end: from the entry prev to
// the entry id (its hash), and the last number of each kind it chained
// (numbers) — of those kinds only.
type tail struct {
	moved    bool
	prev, id int64
	hash     []byte
	numbers  map[string]int64
}

// extend adds a chain's next part, chained after t in one transaction.
func (t *tail) extend(next tail) {
	if !next.moved {
		return
	}
	if !t.moved || next.prev != t.id {
		*t = next
		return
	}
	numbers := maps.Clone(t.numbers)
	maps.Copy(numbers, next.numbers)
	t.id, t.hash, t.numbers = next.id, next.hash, numbers
}

// journalEnd is the journal's end as this process's chains left it, once
// committed: its last entry's id and hash, and the last number of each
// kind known at that entry (numbers known since the end was last learnt
// whole: a chain that began at the end known keeps them, one that began
// elsewhere — another process appended — keeps its own only).
type journalEnd struct {
	// chain is held by a question that chains its entry directly, from
	// reading the end to learning the one it made (writeDirect): a
	// token, taken by sending, given back by receiving.
	chain chan struct{}
	once  sync.Once
	mu    sync.Mutex
	known bool
	// directs counts the entries chained directly; moved the direct
	// statements that found the end moved (for the tests).
	directs, moved atomic.Int64
	id             int64
	hash           []byte
	numbers        map[string]int64
}

// lock takes the chain's token, unless ctx ends first.
func (j *journalEnd) lock(ctx context.Context) error {
	j.once.Do(func() { j.chain = make(chan struct{}, 1) })
	select {
	case j.chain <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// unlock gives the chain's token back.
func (j *journalEnd) unlock() { <-j.chain }

// learn keeps the end a committed chain of this process left (t), unless
// a later one is known already.
func (j *journalEnd) learn(t tail) {
	if !t.moved {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	switch {
	case j.known && t.prev == j.id:
		maps.Copy(j.numbers, t.numbers)
	case !j.known || t.id > j.id:
		j.numbers = maps.Clone(t.numbers)
	default:
		return // an older chain's commit, learnt after a later one's
	}
	j.known, j.id, j.hash = true, t.id, t.hash
}

// after is the end, and the last number of kind, when both are known.
func (j *journalEnd) after(kind string) (id int64, hash []byte, number int64, ok bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	number, ok = j.numbers[kind]
	if !j.known || !ok || j.id <= 0 {
		return 0, nil, 0, false
	}
	return j.id, j.hash, number, true
}

// appended keeps the end an entry a question chained directly made, if
// it was chained after the end known (from id).
func (j *journalEnd) appended(from int64, e *core.Entry) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.known && j.id == from {
		j.id, j.hash = e.ID, e.Hash
		j.numbers[e.Kind] = e.Number
	}
}

// read keeps the end read in one snapshot (readEnd): the last entry's id
// and hash, and the last number of each kind; unless a later end is
// known already.
func (j *journalEnd) read(id int64, hash []byte, numbers map[string]int64) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.known && j.id > id {
		return
	}
	j.known, j.id, j.hash, j.numbers = true, id, hash, numbers
}

// state is the end and the last number of each kind known, read at one
// moment (a group's entries are numbered from one end, never from two).
func (j *journalEnd) state() (id int64, hash []byte, numbers map[string]int64, ok bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if !j.known || j.id <= 0 {
		return 0, nil, nil, false
	}
	return j.id, j.hash, maps.Clone(j.numbers), true
}

// knows reports whether the end, and the last number of kind, are known.
func (j *journalEnd) knows(kind string) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	_, ok := j.numbers[kind]
	return j.known && ok
}

// endRead reads the journal's end in one statement (one snapshot): its
// last entry, and the last number of each kind a question records.
const endRead = `SELECT (SELECT id FROM vegas.journal ORDER BY id DESC LIMIT 1), (SELECT hash FROM vegas.journal ORDER BY id DESC LIMIT 1),
	k, (SELECT coalesce(max(number), 0) FROM vegas.journal WHERE kind = k) FROM unnest($1::text[]) k`

// readEnd reads the journal's end into the process's (at Open, and when
// a question finds it unknown: forgotten, or a kind not yet known).
func (b *Backend) readEnd(ctx context.Context) error {
	rows, err := b.db.px.Query(ctx, endRead, tables.OfficeKinds)
	if err != nil {
		return err
	}
	var id *int64
	var hash []byte
	numbers := map[string]int64{}
	for rows.Next() {
		var kind string
		var n int64
		if err := rows.Scan(&id, &hash, &kind, &n); err != nil {
			rows.Close()
			return err
		}
		numbers[kind] = n
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if id == nil {
		return nil // an empty journal: its first entry is appended as before
	}
	b.seq.end.read(*id, hash, numbers)
	return nil
}

// forget forgets the end (another chain moved it; a connection made
// again: a failover may have changed the primary).
func (j *journalEnd) forget() {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.known, j.numbers = false, nil
}

// What a direct statement says when it did not chain its entry: the
// chainer's lock was taken (busy), or the journal's end was not the one
// it named (moved). Each is an integer's invalid input, which fails the
// statement (and so undoes it).
const (
	chainerBusy = "vegas-desk: the chainer lock is taken"
	endMoved    = "vegas-desk: the end of the journal moved"
)

// errNotDirect is a direct write that did not chain its entry: the
// question is written as before (writeOutcome).
var errNotDirect = errors.New("journal: the entry was not chained directly")

// directCols are the journal's columns an entry chained directly is
// inserted with: its entry's (no seq: it never waited), each cast to its
// type (an INSERT … SELECT does not give its parameters the columns'
// types).
var directCols = sync.OnceValues(func() (string, []string) {
	casts := make([]string, len(tables.Journal.Columns))
	for i, c := range tables.Journal.Columns {
		casts[i] = "?::" + c.Type.In(tables.Postgres)
	}
	return tables.Journal.Cols(), casts
})

// writeDirect writes out's entry, chained after the journal's end the
// process knows, in one statement that commits as it ends, its commit
// waiting for the disk and the synchronous standbys itself (a question
// alone: its answer waits for nothing more; beside others, group.go);
// errNotDirect when the chainer's lock was taken, or entries wait to be
// chained, or the end moved (then forgotten), errRaced when what the
// question read changed. The process's direct chains run one at a time
// (journalEnd.chain, a token held from reading the end to learning the
// one made).
func (b *Backend) writeDirect(ctx context.Context, sn *core.Snapshot, out *core.Outcome) (*questionTx, error) {
	e := out.Record
	end := &b.seq.end
	if end.lock(ctx) != nil {
		return nil, errNotDirect // the question's time ended: its write as before says so
	}
	defer end.unlock()
	if !end.knows(e.Kind) {
		if err := b.readEnd(ctx); err != nil {
			return nil, errNotDirect // the question's write as before says what failed
		}
	}
	from, prev, number, ok := end.after(e.Kind)
	if !ok {
		return nil, errNotDirect
	}
	q := &questionTx{}
	e.AtText = core.FormatTime(e.At)
	e.ID, e.Number = from+1, number+1
	e.Hash = e.ChainHash(prev)
	w := directStatement(sn, out, from, prev)
	conn, err := b.db.px.Acquire(ctx)
	if err != nil {
		return nil, errNotDirect // the pool's error: the question's write as before, which retries
	}
	defer conn.Release()
	pc := conn.Conn().PgConn()
	b.db.warned.Delete(pc)
	q.recorded = time.Now()
	var id int64
	err = conn.QueryRow(ctx, w.sql, w.args...).Scan(&id)
	var warned *pgconn.Notice
	if n, ok := b.db.warned.LoadAndDelete(pc); ok {
		warned = n.(*pgconn.Notice)
	}
	var pe *pgconn.PgError
	switch {
	case err != nil && strings.Contains(err.Error(), chainerBusy):
		return nil, errNotDirect
	case err != nil && (strings.Contains(err.Error(), endMoved) ||
		errors.As(err, &pe) && pe.Code == "23505" && (pe.ConstraintName == "journal_pkey" || pe.ConstraintName == "journal_kind_number_key")):
		end.forget()
		end.moved.Add(1)
		return nil, errNotDirect
	case err != nil && (strings.Contains(err.Error(), changed) ||
		errors.As(err, &pe) && pe.Code == "23505" && pe.ConstraintName == "journal_requests"):
		return nil, errRaced
	case err != nil && ctx.Err() != nil:
		end.forget() // committed or not: not known
		return nil, fmt.Errorf("%w: journal: the commit of the question's entry, waiting for the disk or the synchronous standbys: %w", core.ErrNotDurable, ctx.Err())
	case err != nil:
		end.forget()
		return nil, fmt.Errorf("journal: %w", Classify(err))
	case id != e.ID:
		end.forget()
		return nil, fmt.Errorf("journal: entry %d chained as %d", e.ID, id)
	}
	end.appended(from, e)
	end.directs.Add(1)
	if warned != nil {
		// The commit's wait for the standbys cancelled: committed
		// locally only (flush.go).
		return nil, fmt.Errorf("%w: journal: PostgreSQL warned at the commit of the question's entry: %s (%s)", core.ErrNotDurable, warned.Message, warned.Detail)
	}
	q.own, q.selfChained, q.durable = chained{ID: e.ID, Number: e.Number, Hash: e.Hash}, true, true
	return q, nil
}

// directStatement is writeDirect's statement: the chainer's lock taken if
// free (lk), the journal's end read (h), the entry inserted after it if
// it is the one named (from, prev) and its number the one after its
// kind's last (a cached end's numbers are checked too: one past the last
// would leave a gap, which verify reports as an entry removed), the lock
// was got and nothing waits (j), and what writeStatement checks again,
// written and checked the same way (its paid row naming the entry by its id); it answers the
// entry's id. Its text depends on the question's shape only, and is made
// once for each (directTexts).
func directStatement(sn *core.Snapshot, out *core.Outcome, from int64, prev []byte) statement {
	e := out.Record
	var shape directShape
	args := append(e.Values(), from, prev, e.Kind, e.Number-1)
	if w := out.Winner; out.Pay && w != nil && e.Kind == "claim" {
		shape |= shapeWinner
		args = append(args, w.Name, w.DocType, w.DocNumber, core.NameSkeleton(w.Name))
	}
	if out.Pay {
		shape |= shapePay
		args = append(args, e.Ticket.Int64)
	}
	if e.Request != "" && sn.Facts != nil {
		shape |= shapeRequest
		if sn.Prior != nil {
			shape |= shapePrior
		}
		args = append(args, e.Desk, e.Request, out.Pay)
	}
	if sn.Desk.On {
		shape |= shapeDesk
		args = append(args, e.Desk, sn.Desk.UntilText())
	}
	text, ok := directTexts.Load(shape)
	if !ok {
		text, _ = directTexts.LoadOrStore(shape, shape.text())
	}
	return statement{sql: text.(string), args: args}
}

// directShape is what a direct statement writes and checks.
type directShape uint8

const (
	shapeWinner  directShape = 1 << iota // a winner's identity
	shapePay                             // a paid row
	shapeRequest                         // a request id's row
	shapePrior                           // its use found by the read
	shapeDesk                            // the desk's lock-out checked
)

// directTexts are the direct statements' texts, by shape.
var directTexts sync.Map

// text is the statement of shape s (its arguments: directStatement's).
func (s directShape) text() string {
	cols, casts := directCols()
	stmt := `WITH lk AS (SELECT 1 FROM vegas.chainer FOR UPDATE SKIP LOCKED),
	h AS (SELECT id, hash FROM vegas.journal ORDER BY id DESC LIMIT 1),
	j AS (INSERT INTO vegas.journal (` + cols + `) SELECT ` + strings.Join(casts, ", ") + `
		FROM lk, h WHERE h.id = ? AND h.hash = ? AND NOT EXISTS (SELECT FROM vegas.waiting)
		AND (SELECT coalesce(max(number), 0) FROM vegas.journal WHERE kind = ?) = ? RETURNING id)`
	same := []string{"true"}
	if s&shapeWinner != 0 {
		stmt += `, i AS (INSERT INTO vegas.identities (claim, name, doc_type, doc_number, skeleton) SELECT id, ?, ?, ?, ? FROM j)`
	}
	if s&shapePay != 0 {
		stmt += `, p AS (` + paidInsert + ` SELECT ?, id FROM j ON CONFLICT (ticket) DO NOTHING RETURNING ticket)`
		same = append(same, `EXISTS (SELECT FROM p)`)
	}
	if s&shapeRequest != 0 {
		// No row: the id paid a ticket since the read; fresh false: the
		// id was used since, unless the read found its use.
		stmt += `, r AS (INSERT INTO requests (desk, request, paid) VALUES (?, ?, ?) ON CONFLICT (desk, request)
			DO UPDATE SET paid = excluded.paid WHERE NOT requests.paid RETURNING (xmax = 0) AS fresh)`
		same = append(same, fmt.Sprintf(`coalesce((SELECT fresh OR %t FROM r), false)`, s&shapePrior != 0))
	}
	if s&shapeDesk != 0 {
		stmt += `, d AS (SELECT locked_until FROM desks WHERE id = ? FOR SHARE)`
		same = append(same, `(SELECT locked_until FROM d) = ?`)
	}
	stmt += ` SELECT CASE WHEN NOT EXISTS (SELECT FROM lk) OR EXISTS (SELECT FROM vegas.waiting) THEN ('` + chainerBusy + ` ' || (SELECT count(*) FROM h))::bigint
		WHEN NOT EXISTS (SELECT FROM j) THEN ('` + endMoved + ` ' || (SELECT count(*) FROM h))::bigint
		WHEN ` + strings.Join(same, " AND ") + ` THEN (SELECT id FROM j)
		ELSE ('` + changed + ` ' || (SELECT id FROM j))::bigint END AS id`
	return sqlx.Rebind(sqlx.DOLLAR, stmt)
}
