package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"vegas-desk/internal/ledger/core"
)

// Questions asked beside others chain their entries directly in groups
// (direct.go): the questions that wait while a group is written form the
// next one, whose leader gives each entry its id, number and hash after
// the one before it, and sends their statements in one transaction, in
// one round trip (pgx's batch: BEGIN, each question's direct statement,
// COMMIT), whose commit waits for the disk and the synchronous standbys
// (group commit: one flush for the group, as a round's; a commit
// PostgreSQL warns about is core.ErrNotDurable for every question of
// it). One statement that fails undoes the group: its question is
// answered as its error says (errRaced: asked again), and the others are
// written as before (errNotDirect), as are all of a group whose end
// moved. A question whose time ends while its group is written is
// core.ErrNotDurable, as one waiting for a round.

// directRequest is one question's entry to chain in a group.
type directRequest struct {
	sn   *core.Snapshot
	out  *core.Outcome
	done chan struct{}
	// What the group gave it: its chain, or its error.
	own chained
	err error
}

// directGroups gathers the questions waiting to chain directly.
type directGroups struct {
	mu      sync.Mutex
	queue   []*directRequest
	leading bool
}

// groupTimeout bounds a group's round trip (as a round's).
const groupTimeout = roundTimeout

// writeGrouped chains out's entry directly in the next group.
func (b *Backend) writeGrouped(ctx context.Context, sn *core.Snapshot, out *core.Outcome) (*questionTx, error) {
	r := &directRequest{sn: sn, out: out, done: make(chan struct{})}
	g := &b.groups
	g.mu.Lock()
	g.queue = append(g.queue, r)
	lead := !g.leading
	g.leading = true
	g.mu.Unlock()
	recorded := time.Now()
	if lead {
		go b.leadGroups() // the leader's question waits as the others, within its time
	}
	select {
	case <-r.done:
	case <-ctx.Done():
		return nil, fmt.Errorf("%w: journal: entry waiting for its group's chain: %w", core.ErrNotDurable, ctx.Err())
	}
	if r.err != nil {
		return nil, r.err
	}
	return &questionTx{recorded: recorded, own: r.own, selfChained: true, durable: true}, nil
}

// leadGroups writes the group waiting, and hands the lead on to a
// goroutine of its own while others wait (the leader's question is
// answered without waiting for the groups after its own).
func (b *Backend) leadGroups() {
	g := &b.groups
	g.mu.Lock()
	group := g.queue
	g.queue = nil
	g.mu.Unlock()
	b.writeGroup(group)
	g.mu.Lock()
	if len(g.queue) == 0 {
		g.leading = false
		g.mu.Unlock()
		return
	}
	g.mu.Unlock()
	go b.leadGroups()
}

// writeGroup writes group's entries, chained one after the other after
// the journal's end, in one transaction, and tells each its outcome.
func (b *Backend) writeGroup(group []*directRequest) {
	defer func() {
		for _, r := range group {
			close(r.done)
		}
	}()
	fail := func(err error) {
		for _, r := range group {
			if r.err == nil {
				r.err = err
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), groupTimeout)
	defer cancel()
	end := &b.seq.end
	if end.lock(ctx) != nil {
		fail(errNotDirect)
		return
	}
	defer end.unlock()
	for _, r := range group {
		if !end.knows(r.out.Record.Kind) {
			if err := b.readEnd(ctx); err != nil {
				fail(errNotDirect)
				return
			}
			break
		}
	}
	from, prev, known, ok := end.state() // one moment's end: its id, hash and numbers
	if !ok {
		fail(errNotDirect)
		return
	}
	numbers := map[string]int64{}
	batch := &pgx.Batch{}
	if len(group) > 1 {
		batch.Queue("BEGIN")
	}
	ids := make([]int64, len(group))
	errs := make([]error, len(group))
	last, lastHash := from, prev
	for i, r := range group {
		e := r.out.Record
		n, ok := numbers[e.Kind]
		if !ok {
			if n, ok = known[e.Kind]; !ok {
				fail(errNotDirect)
				return
			}
		}
		numbers[e.Kind] = n + 1
		e.AtText = core.FormatTime(e.At)
		e.ID, e.Number = last+1, n+1
		e.Hash = e.ChainHash(lastHash)
		w := directStatement(r.sn, r.out, last, lastHash)
		last, lastHash = e.ID, e.Hash
		batch.Queue(w.sql, w.args...).QueryRow(func(row pgx.Row) error {
			errs[i] = row.Scan(&ids[i])
			return errs[i]
		})
	}
	if len(group) > 1 {
		batch.Queue("COMMIT")
	}
	conn, err := b.db.px.Acquire(ctx)
	if err != nil {
		fail(errNotDirect)
		return
	}
	defer conn.Release()
	pc := conn.Conn().PgConn()
	b.db.warned.Delete(pc)
	err = conn.SendBatch(ctx, batch).Close()
	if n, ok := b.db.warned.LoadAndDelete(pc); ok && err == nil {
		w := n.(*pgconn.Notice)
		fail(fmt.Errorf("%w: journal: PostgreSQL warned at the commit of a group of questions' entries: %s (%s)", core.ErrNotDurable, w.Message, w.Detail))
	}
	if err != nil {
		if len(group) > 1 {
			rollback(conn)
		}
		var pe *pgconn.PgError
		for i, r := range group {
			switch e := errs[i]; {
			case e == nil:
			case strings.Contains(e.Error(), chainerBusy):
			case strings.Contains(e.Error(), endMoved) ||
				errors.As(e, &pe) && pe.Code == "23505" && (pe.ConstraintName == "journal_pkey" || pe.ConstraintName == "journal_kind_number_key"):
				end.forget()
				end.moved.Add(1)
			case strings.Contains(e.Error(), changed) || errors.As(e, &pe) && pe.Code == "23505" && pe.ConstraintName == "journal_requests":
				r.err = errRaced
			default:
				end.forget()
				r.err = fmt.Errorf("journal: %w", Classify(e))
			}
		}
		if !slicesAny(errs) {
			// No statement failed: the commit's outcome is not known
			// (a connection lost).
			end.forget()
			fail(fmt.Errorf("%w: journal: the commit of a group of questions' entries: %w", core.ErrNotDurable, Classify(err)))
			return
		}
		fail(errNotDirect)
		return
	}
	for i, r := range group {
		e := r.out.Record
		if ids[i] != e.ID {
			end.forget()
			fail(fmt.Errorf("journal: entry %d chained as %d", e.ID, ids[i]))
			return
		}
	}
	for _, r := range group {
		e := r.out.Record
		end.appended(e.ID-1, e)
		r.own = chained{ID: e.ID, Number: e.Number, Hash: e.Hash}
	}
	end.directs.Add(int64(len(group)))
}

// slicesAny reports whether an error is among errs.
func slicesAny(errs []error) bool {
	for _, e := range errs {
		if e != nil {
			return true
		}
	}
	return false
}
