package postgres

import (
	"context"
	"fmt"
	"time"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/core"
)

// What the package's own tests (question_test.go) ask of its insides.

var ErrRaced = errRaced

// Snapshot is a question's read at desk.
func (b *Backend) Snapshot(ctx context.Context, s game.Serial, desk, request string, at time.Time) (*core.Snapshot, error) {
	return b.snapshot(ctx, s, core.Identity{Desk: desk}, core.NoLimit, request, at)
}

// SnapshotOf is a question's read as who (its certificate: who.Cert).
func (b *Backend) SnapshotOf(ctx context.Context, s game.Serial, who core.Identity, at time.Time) (*core.Snapshot, error) {
	return b.snapshot(ctx, s, who, core.NoLimit, "", at)
}

// Rounds is how many rounds the backend's sequencer began.
func (b *Backend) Rounds() int {
	b.seq.mu.Lock()
	defer b.seq.mu.Unlock()
	return b.seq.rounds
}

// Idle reports whether no round of the backend's sequencer runs nor
// waits to, and no flush runs.
func (b *Backend) Idle() bool {
	b.db.flush.mu.Lock()
	defer b.db.flush.mu.Unlock()
	return b.seq.idle() && !b.db.flush.running
}

// Write is a question's write of out, decided on sn, and the wait for its
// entry to be chained.
func (b *Backend) Write(ctx context.Context, sn *core.Snapshot, out *core.Outcome) error {
	q, err := b.writeOutcome(ctx, sn, out)
	if err == nil {
		err = b.recorded(ctx, q, out.Record)
	}
	return err
}

// AfterRoundCommit sets what runs between a round's commit and its wait
// for a flush.
func (b *Backend) AfterRoundCommit(f func()) { b.seq.afterCommit = f }

// LoseFlusherConnection ends the flusher's connection on the server and
// runs a flush, which fails and makes it again (as after a failover).
func (b *Backend) LoseFlusherConnection(ctx context.Context) error {
	f := b.db.flush
	f.mu.Lock()
	pid := f.conn.PgConn().PID()
	f.mu.Unlock()
	if _, err := b.db.ExecContext(ctx, "SELECT pg_terminate_backend($1)", pid); err != nil {
		return err
	}
	f.wait(ctx) // fails: the connection lost, made again
	if f.now().gen < 2 {
		return fmt.Errorf("the flusher's connection not made again")
	}
	return nil
}

// PoolSynchronousCommit is synchronous_commit on each idle connection of
// the questions' pool.
func (b *Backend) PoolSynchronousCommit(ctx context.Context) ([]string, error) {
	var out []string
	for _, c := range b.db.px.AcquireAllIdle(ctx) {
		var v string
		err := c.QueryRow(ctx, "SHOW synchronous_commit").Scan(&v)
		c.Release()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// Directs is how many entries the backend's questions chained directly,
// and how many of their statements found the journal's end moved.
func (b *Backend) Directs() (chained, moved int64) {
	return b.seq.end.directs.Load(), b.seq.end.moved.Load()
}
