package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"

	"vegas-desk/internal/ledger/core"
)

// A sequencer chains, in rounds, what a process's questions recorded: a
// question that recorded an entry (committed) waits for the next round to
// begin and end. A round takes the chainer's lock (waiting for the chain
// in progress, of another process), chains everything waiting
// (chainWaiting), commits, and then waits for the disk (chain): so one
// round makes durable every entry chained before its end, by anyone (its
// flush covers the WAL past their chains' commits, which it waited for),
// and one flush serves all the questions of a round, while the next round
// chains. Rounds run one after the other, in a goroutine of their own: a
// question whose context ends stops waiting, not the round.
type sequencer struct {
	db pool

	mu      sync.Mutex
	running bool
	next    *round // the round to begin when the running one ends
	rounds  int    // rounds run, for the tests
	// chained are what this process's questions' own chains gave the
	// entries they chained, committed (durable): a question whose entry
	// another's chain took finds it here, with no round nor read. The
	// last two generations are kept (the entries of other processes'
	// questions are never asked for here).
	chained, older map[int64]chained
}

// keptChained bounds a generation of sequencer.chained.
const keptChained = 4096

// chainedBy keeps what a question's own chain gave the entries it
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

// chainedOwn is what a question's own chain gave entry seq, if one did.
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
	if c, ok := s.chainedOwn(seq); ok {
		return c, s.db.flush.wait(ctx)
	}
	// Chained by another process's chain, committed before this read,
	// perhaps after the round's flush began: a flush of its own.
	var c chained
	err := core.Get(ctx, s.db, &c, "SELECT j.id, j.number, j.hash FROM vegas.journal j WHERE j.seq = ?", seq)
	if errors.Is(err, sql.ErrNoRows) {
		return c, fmt.Errorf("journal: entry %d, recorded, was not chained", seq)
	}
	if err != nil {
		return c, Classify(err)
	}
	return c, s.db.flush.wait(ctx)
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
		r.chained, r.err = s.chain(ctx, taken)
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
func (s *sequencer) chain(ctx context.Context, taken func()) (map[int64]chained, error) {
	tx, err := (engine{s.db}).Bulk(ctx)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "SELECT set_config('synchronous_commit', 'off', true) FROM vegas.chainer FOR UPDATE"); err != nil {
		return nil, fmt.Errorf("journal: %w", Classify(err))
	}
	out, err := chainWaiting(ctx, tx)
	if err != nil {
		return nil, Classify(err)
	}
	taken()
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("journal: commit the chain: %w", Classify(err))
	}
	if err := s.db.flush.wait(ctx); err != nil {
		return nil, fmt.Errorf("journal: flush the chain: %w", err)
	}
	return out, nil
}
