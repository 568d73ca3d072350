package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"vegas-desk/internal/ledger/core"
)

// The journal's chain, in Go: a question of the back office's login (or a
// server's) records its entry in vegas.waiting in its own transaction;
// the chain takes what waits, under the row lock of vegas.chainer (which
// another process's chain takes too: one at a time on one database), and
// appends it to the hash chain in the order of its records, each entry
// with its id, its number among its kind and its hash (core's canonical
// text).
//
// A question chains what waits itself, in its own transaction, when the
// chainer's lock is free (questionTx.ownChain); else its process's
// sequencer does, in rounds (below). Either way the chain is two round
// trips to PostgreSQL, each a pipeline of statements (pgx's batch): the
// lock and what waits taken; then the journal's rows inserted and the
// commit. The lock is a statement of its own before the take: a statement
// reads the journal's end in the snapshot it began with, and one that
// waited for the lock must see the chain it waited for.

// chained is what the chain gave an entry that waited.
type chained struct {
	ID     int64
	Number int64
	Hash   []byte
}

// waitingRow is a row of vegas.waiting, as the chain takes it.
type waitingRow struct {
	core.Entry
	Seq                      int64
	Name, DocType, DocNumber sql.NullString
	// The journal's last entry and the last number of the row's kind,
	// when the row was taken; RefID the journal's id of the entry a ref
	// of schema 7 (-seq, one that waited) names, if chained.
	LastID     sql.NullInt64
	LastHash   []byte
	LastNumber int64
	RefID      sql.NullInt64
}

// chainBatch bounds the entries one statement of the chain inserts (22
// parameters each: PostgreSQL takes at most 65,535 a statement).
const chainBatch = 1000

// takeWaiting takes what waits from vegas.waiting, in the order of the
// records, with the journal's last entry and each kind's last number: one
// statement (the chainer's lock holds the journal still). cond is a further
// condition (ownChain's: the lock was got). Its columns are the
// declaration's (takenCols), in the order scanWaiting reads them
// (TestJournalTableEveryEngine chains a row of every column).
func takeWaiting(cond string) string {
	return `WITH d AS (DELETE FROM vegas.waiting
	WHERE seq IN (SELECT seq FROM vegas.waiting ORDER BY seq LIMIT ` + strconv.Itoa(chainBatch) + `)` + cond + `
	RETURNING ` + takenCols + `),
	l AS (SELECT id, hash FROM vegas.journal ORDER BY id DESC LIMIT 1)
	SELECT d.*, l.id AS last_id, l.hash AS last_hash,
	(SELECT coalesce(max(j.number), 0) FROM vegas.journal j WHERE j.kind = d.kind) AS last_number,
	CASE WHEN d.ref < 0 THEN (SELECT j.id FROM vegas.journal j WHERE j.seq = -d.ref) END AS ref_id
	FROM d LEFT JOIN l ON true ORDER BY d.seq`
}

// takeAll takes what waits; takeIfHeld only when the transaction got the
// chainer's lock (lockIfFree). Made when first asked (TestStartupInits).
var (
	takeAll    = sync.OnceValue(func() string { return takeWaiting("") })
	takeIfHeld = sync.OnceValue(func() string {
		return takeWaiting(` AND current_setting('vegas.chainer', true) = 'held'`)
	})
)

const (
	// lockChainer waits for the chainer's lock; its transaction commits
	// without waiting for the disk (a flush does, after: flush.go).
	lockChainer = "SELECT set_config('synchronous_commit', 'off', true) FROM vegas.chainer FOR UPDATE"
	// lockIfFree takes it if no one holds it, and says so to takeIfHeld
	// (set above the lock: a projection of the row locked would run
	// before the lock is tried, and say held when it was skipped). A
	// question's write takes it (writeStatement).
	lockIfFree = "SELECT set_config('vegas.chainer', 'held', true) FROM (SELECT FROM vegas.chainer FOR UPDATE SKIP LOCKED) l"
)

// rowScanner is a result's rows, of pgx or of database/sql.
type rowScanner interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// scanWaiting reads takeWaiting's rows.
func scanWaiting(rows rowScanner) ([]waitingRow, error) {
	var out []waitingRow
	for rows.Next() {
		var w waitingRow
		e := &w.Entry
		if err := rows.Scan(&w.Seq, &e.Kind, &e.AtText, &e.Ticket, &e.Serial, &e.Game, &e.Block, &e.Position, &e.PackFirst,
			&e.PackLast, &e.State, &e.Amount, &e.Desk, &e.Operator, &e.Method, &e.Ref, &e.Request, &e.Reason, &e.Detail,
			&w.Name, &w.DocType, &w.DocNumber, &w.LastID, &w.LastHash, &w.LastNumber, &w.RefID); err != nil {
			return nil, err
		}
		out = append(out, w)
	}
	return out, rows.Err()
}

// statement is one SQL statement and its arguments; scan, when not nil,
// reads its row (in a pipeline: chainPipelined).
type statement struct {
	sql  string
	args []any
	scan func(pgx.Row) error
}

// chainWaiting appends the entries waiting (those committed) to the
// chain, in tx, whose caller holds the chainer's lock; a payment's winner
// goes to vegas.identities. Its paid row, written by its question, names
// it by its record (-seq) and stays as it is: the journal's entry keeps
// seq. It returns what each entry got, by seq. (A back office's write's
// chain, before its own appends: engine.go.)
func chainWaiting(ctx context.Context, tx core.Querier) (map[int64]chained, error) {
	out := map[int64]chained{}
	for {
		rows, err := tx.QueryContext(ctx, takeAll())
		if err != nil {
			return nil, fmt.Errorf("chain: %w", err)
		}
		taken, err := scanWaiting(rows)
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("chain: %w", err)
		}
		if len(taken) == 0 {
			return out, nil
		}
		for _, s := range chainRows(taken, out) {
			if _, err := tx.ExecContext(ctx, s.sql, s.args...); err != nil {
				return nil, fmt.Errorf("chain: %w", err)
			}
		}
		if len(taken) < chainBatch {
			return out, nil
		}
	}
}

// chainPipelined is chainWaiting on a connection of pgx, whose
// transaction (begun by the caller) holds the chainer's lock or asked for
// it (take: takeAll or takeIfHeld), in as few round trips as it can: the
// take is sent with first (the caller's statements before it, in the same
// pipeline: the question's write, the lock), then the inserts with the
// commit. It returns what each entry got, by seq, and runs taken once
// what waits is taken (the sequencer's next round may begin). On an error
// the transaction is rolled back.
func chainPipelined(ctx context.Context, conn *pgxpool.Conn, first []statement, take string, taken func(), t *tail) (map[int64]chained, error) {
	return chainPipelinedThen(ctx, conn, first, take, taken, nil, t)
}

// chainPipelinedThen is chainPipelined, with none's statement sent before
// the commit when nothing was taken (a question's: see writeOutcome). t,
// when not nil, is given the journal's end the chain moved (see tail).
func chainPipelinedThen(ctx context.Context, conn *pgxpool.Conn, first []statement, take string, taken func(), none *statement, t *tail) (map[int64]chained, error) {
	out := map[int64]chained{}
	var rows []waitingRow
	var moved tail
	queue := func(b *pgx.Batch) {
		b.Queue(take).Query(func(r pgx.Rows) (err error) { rows, err = scanWaiting(r); return err })
	}
	b := &pgx.Batch{}
	for _, s := range first {
		if q := b.Queue(s.sql, s.args...); s.scan != nil {
			q.QueryRow(s.scan)
		}
	}
	queue(b)
	for {
		if err := conn.SendBatch(ctx, b).Close(); err != nil {
			rollback(conn)
			return nil, err
		}
		if taken != nil {
			taken()
			taken = nil
		}
		b = &pgx.Batch{}
		if len(rows) > 0 {
			var part tail
			for _, s := range chainRowsTail(rows, out, &part) {
				b.Queue(s.sql, s.args...)
			}
			moved.extend(part)
		} else if none != nil && len(out) == 0 {
			b.Queue(none.sql, none.args...)
		}
		if len(rows) < chainBatch {
			b.Queue("COMMIT")
			if err := conn.SendBatch(ctx, b).Close(); err != nil {
				rollback(conn)
				return nil, commitUnknown{err}
			}
			if t != nil {
				*t = moved
			}
			return out, nil
		}
		queue(b)
	}
}

// commitUnknown is the error of a pipeline that sent its COMMIT: whether
// its transaction committed is not known (a connection lost), and it is
// not run again (pool.retry).
type commitUnknown struct{ error }

func (e commitUnknown) Unwrap() error { return e.error }

// retry is Retry on px: f once more on a new connection when it lost its
// own, unless it may have committed (commitUnknown).
func (p pool) retry(f func() error) error {
	err := f()
	var sent commitUnknown
	if err != nil && !errors.As(err, &sent) && errors.Is(Classify(err), core.ErrUnreachable) {
		p.px.Reset()
		err = f()
	}
	return err
}

// rollback ends a connection's failed transaction; a connection that
// cannot is closed (the pool makes another).
func rollback(conn *pgxpool.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := conn.Exec(ctx, "ROLLBACK"); err != nil {
		conn.Conn().Close(ctx)
	}
}

// chainRows chains rows, taken from vegas.waiting in the order of their
// records, after the journal's last entry, adds what each got to out, and
// returns the statements that insert them (the journal's rows, a winner's
// identity).
func chainRows(rows []waitingRow, out map[int64]chained) []statement {
	return chainRowsTail(rows, out, nil)
}

// chainRowsTail is chainRows, which says in t, when not nil, how it moves
// the journal's end.
func chainRowsTail(rows []waitingRow, out map[int64]chained, t *tail) []statement {
	last := struct {
		ID   int64
		Hash []byte
	}{rows[0].LastID.Int64, rows[0].LastHash}
	numbers := map[string]int64{}
	for i := range rows {
		numbers[rows[i].Kind] = rows[i].LastNumber
	}
	var idents []any
	for i := range rows {
		w := &rows[i]
		e := &w.Entry
		numbers[e.Kind]++
		e.ID, e.Number = last.ID+1, numbers[e.Kind]
		if e.Ref.Valid && e.Ref.Int64 < 0 { // recorded by schema 7, naming one that waited
			if c, ok := out[-e.Ref.Int64]; ok {
				e.Ref.Int64 = c.ID
			} else {
				e.Ref = w.RefID // chained before, or none
			}
		}
		e.Hash = e.ChainHash(last.Hash)
		last.ID, last.Hash = e.ID, e.Hash
		out[w.Seq] = chained{ID: e.ID, Number: e.Number, Hash: e.Hash}
		if e.Kind == "claim" && w.Name.Valid {
			idents = append(idents, e.ID, w.Name.String, w.DocType.String, w.DocNumber.String, core.NameSkeleton(w.Name.String))
		}
	}
	if t != nil {
		*t = tail{moved: true, prev: rows[0].LastID.Int64, id: last.ID, hash: last.Hash, numbers: numbers}
	}
	ens, seqs := make([]*core.Entry, len(rows)), make([]int64, len(rows))
	for i := range rows {
		ens[i], seqs[i] = &rows[i].Entry, rows[i].Seq
	}
	stmts := insertStatements(ens, seqs)
	if len(idents) > 0 {
		var b strings.Builder
		b.WriteString("INSERT INTO vegas.identities (claim, name, doc_type, doc_number, skeleton) VALUES ")
		for i := 0; i < len(idents); i += 5 {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "($%d, $%d, $%d, $%d, $%d)", i+1, i+2, i+3, i+4, i+5)
		}
		stmts = append(stmts, statement{sql: b.String(), args: idents})
	}
	return stmts
}

// A sequencer chains, in rounds, what a process's questions recorded: a
// question that recorded an entry (committed) waits for the next round to
// begin and end. A round takes the chainer's lock (waiting for the chain
// in progress, of another process), chains everything waiting, commits,
// and then waits for the disk (chain): so one round makes durable every
// entry chained before its end, by anyone (its flush covers the WAL past
// their chains' commits, which it waited for), and one flush serves all
// the questions of a round, while the next round chains. Rounds run one
// after the other, in a goroutine of their own: a question whose context
// ends stops waiting, not the round.
type sequencer struct {
	db pool

	mu      sync.Mutex
	running bool
	next    *round // the round to begin when the running one ends
	rounds  int    // rounds run, for the tests
	// chained are what this process's chains (its questions' own, its
	// rounds) gave the entries they chained, committed: a question whose
	// entry another chain took finds it here, with no read. The last two
	// generations are kept (the entries of other processes' questions
	// are never asked for here).
	chained, older map[int64]chained
	// byRound are the rounds that chained the entries of this process's
	// rounds (two generations, as chained): a question whose entry a
	// round took before the question waited waits for that round's end
	// (its flush), not for a flush of its own.
	byRound, olderByRound map[int64]*round
	// afterCommit, when set (tests), runs between a round's commit and
	// its wait for a flush.
	afterCommit func()
	// end is the journal's end as this process's chains left it
	// (journalEnd): a question alone chains its entry after it in one
	// statement (direct.go).
	end journalEnd
}

// chainedIn keeps that round r chained the entries of out, once its
// commit is done (its flush is to come).
func (s *sequencer) chainedIn(r *round, out map[int64]chained) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.byRound == nil || len(s.byRound) > keptChained {
		s.olderByRound, s.byRound = s.byRound, make(map[int64]*round, len(out))
	}
	for seq := range out {
		s.byRound[seq] = r
	}
}

// roundOf is the round of this process that chained entry seq, or nil.
func (s *sequencer) roundOf(seq int64) *round {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r, ok := s.byRound[seq]; ok {
		return r
	}
	return s.olderByRound[seq]
}

// forget forgets what this process's chains gave their entries (the
// flusher's connection made again: the server may be another).
func (s *sequencer) forget() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.chained, s.older, s.byRound, s.olderByRound = nil, nil, nil, nil
	s.end.forget()
}

// waitRound returns once round r, which chained entry seq, has ended,
// with what it gave the entry.
func waitRound(ctx context.Context, r *round, seq int64) (chained, error) {
	select {
	case <-r.done:
	case <-ctx.Done():
		return chained{}, fmt.Errorf("%w: journal: entry waiting for its chain's flush: %w", core.ErrNotDurable, ctx.Err())
	}
	if r.err != nil {
		return chained{}, r.err
	}
	c, ok := r.chained[seq]
	if !ok {
		return c, fmt.Errorf("journal: entry %d is not among what its round chained", seq)
	}
	return c, nil
}

// keptChained bounds a generation of sequencer.chained.
const keptChained = 4096

// chainedBy keeps what a chain of this process gave the entries it
// chained, once its commit is done.
func (s *sequencer) chainedBy(out map[int64]chained) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.chained == nil || len(s.chained) > keptChained {
		s.older, s.chained = s.chained, make(map[int64]chained, len(out))
	}
	for seq, c := range out {
		s.chained[seq] = c
	}
}

// chainedOwn is what a chain of this process gave entry seq, if one did.
func (s *sequencer) chainedOwn(seq int64) (chained, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.chained[seq]
	if !ok {
		c, ok = s.older[seq]
	}
	return c, ok
}

// round is one chain: done is closed when it ends, with what it chained
// (by seq) or its error.
type round struct {
	done    chan struct{}
	chained map[int64]chained
	err     error
}

// roundTimeout bounds a round (the chainer's lock is held by a back
// office's write for as long as it lasts: a block's generation takes its
// lock only at its end).
const roundTimeout = 60 * time.Second

// wait returns once entry seq, recorded and committed, is chained and
// durable, with what the chain gave it.
func (s *sequencer) wait(ctx context.Context, seq int64) (chained, error) {
	if r := s.roundOf(seq); r != nil {
		// Taken by a round before this wait: its flush, or the one it
		// waits for, began after its commit.
		return waitRound(ctx, r, seq)
	}
	if c, ok := s.chainedOwn(seq); ok {
		// Chained by another question's own chain, whose flush may
		// have begun before this entry was recorded.
		return c, s.db.flush.wait(ctx)
	}
	s.mu.Lock()
	if s.next == nil {
		s.next = &round{done: make(chan struct{})}
	}
	r := s.next
	if !s.running {
		s.start()
	}
	s.mu.Unlock()
	select {
	case <-r.done:
	case <-ctx.Done():
		// The round not done: its chain, or its flush, waits (for the
		// chainer's lock, the disk, a synchronous standby).
		return chained{}, fmt.Errorf("%w: journal: entry waiting to be chained and flushed: %w", core.ErrNotDurable, ctx.Err())
	}
	if r.err != nil {
		return chained{}, r.err
	}
	if c, ok := r.chained[seq]; ok {
		return c, nil
	}
	if pr := s.roundOf(seq); pr != nil {
		return waitRound(ctx, pr, seq) // the round before, ended
	}
	// Not this round's: chained before it took the chainer's lock (the
	// entry was committed before the round began), by the round before
	// or a question's own chain of this process, or by another
	// process's chain: each committed before this round's chain, which
	// its flush, ended, made durable with them.
	if c, ok := s.chainedOwn(seq); ok {
		return c, nil
	}
	var c chained
	err := s.db.retry(func() error {
		return s.db.px.QueryRow(ctx, "SELECT j.id, j.number, j.hash FROM vegas.journal j WHERE j.seq = $1", seq).Scan(&c.ID, &c.Number, &c.Hash)
	})
	if errors.Is(err, sql.ErrNoRows) {
		// Recorded without waiting for the disk, on a server that is no
		// longer the one the round chained on (a failover): lost with
		// it, nothing known to be paid.
		return c, fmt.Errorf("%w: journal: entry %d, recorded, is not in the journal a round chained after it (lost with the server that recorded it: a failover?)", core.ErrNotDurable, seq)
	}
	if err != nil {
		return c, Classify(err)
	}
	return c, nil
}

// idle reports whether no round runs nor waits to.
func (s *sequencer) idle() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.running && s.next == nil
}

// start begins the next round; s.mu is held. The round after it begins as
// soon as this one has taken what waits (taken), while this one commits:
// it waits for the lock, and takes what was recorded meanwhile once this
// one's commit (its flush) is done, so that a question recorded during a
// round waits for the rest of that round and one more, not for two
// rounds from their start.
func (s *sequencer) start() {
	r := s.next
	s.next, s.running = nil, true
	s.rounds++
	go func() {
		var once sync.Once
		taken := func() {
			once.Do(func() {
				s.mu.Lock()
				s.running = false
				if s.next != nil {
					s.start()
				}
				s.mu.Unlock()
			})
		}
		ctx, cancel := context.WithTimeout(context.Background(), roundTimeout)
		r.chained, r.err = s.chain(ctx, r, taken)
		cancel()
		close(r.done)
		taken()
	}()
}

// chain runs one round: the chainer's lock, what waits chained (then
// taken is called), a commit that does not wait for the disk, so that the
// next round takes the lock at once; then a flush (flush.go), which makes
// the round's commit durable, and every commit before it, the questions'
// records with them (a flush that writes WAL, and waits for the
// synchronous standbys: issue 43). The flush is not folded into the
// round's transaction (a synchronous commit of it): the round would then
// wait for the disk holding the chainer's lock, and the next round, and
// every question's own chain, would wait for the flush too; apart, a
// flush serves all the questions of a round while the next one chains.
//
// The flusher's connection is noted before the chain: a flush on a
// connection made again since (the last one lost: a failover may have
// changed the primary) vouches for nothing the round committed, though
// its wait for a flush began after.
func (s *sequencer) chain(ctx context.Context, r *round, taken func()) (map[int64]chained, error) {
	since := s.db.flush.now()
	var out map[int64]chained
	var moved tail
	err := s.db.retry(func() error {
		conn, err := s.db.px.Acquire(ctx)
		if err != nil {
			return err
		}
		defer conn.Release()
		out, err = chainPipelined(ctx, conn, []statement{{sql: "BEGIN"}, {sql: lockChainer}}, takeAll(), taken, &moved)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("journal: %w", Classify(err))
	}
	s.end.learn(moved)
	s.chainedIn(r, out)
	if s.afterCommit != nil {
		s.afterCommit()
	}
	if err := s.db.flush.waitSince(ctx, &since); err != nil {
		return nil, fmt.Errorf("journal: flush the chain: %w", err)
	}
	return out, nil
}
