package postgres

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"vegas-desk/internal/ledger/core"
)

// A question's record and the sequencer's chain commit without waiting for
// the disk (synchronous_commit off): a PAID is answered only after a flush
// that began after them has ended, which a flusher runs, one at a time, on
// a connection of its own, shared by every question waiting when it
// begins (group commit).
//
// A flush must write WAL: PostgreSQL flushes its WAL at a commit, and
// waits for the synchronous standbys, only when the transaction wrote some
// (RecordTransactionCommit: an xid alone writes none, and its commit is
// asynchronous — issue 43). So a flush is one statement that writes a WAL
// record and commits: pg_logical_emit_message(true, …), a transactional
// message of no table, which any role may emit, at any wal_level, and no
// reader ever decodes. Its commit waits for the disk up to its own record,
// past every commit before it, and, where the operator set
// synchronous_standby_names, for the standbys as synchronous_commit says
// (on: flushed there; remote_apply: applied; local: the operator's choice
// of one machine). A synchronous_commit of off set for the role is raised
// to on for the flush's session: a flush that flushes nothing is none.
//
// PostgreSQL answers a commit whose wait for the standbys was cancelled (a
// pg_cancel_backend, a statement_timeout) as done, with a WARNING ("the
// transaction has already committed locally, but might not have been
// replicated to the standby"): a flush that sees a warning failed, and so
// does one whose connection was lost. A failed flush is core.ErrNotDurable:
// the questions waiting for it answer unavailable, with nothing known to
// be paid; a replay of their request ids waits for a flush of its own
// (Backend.said) and stays unavailable until one succeeds.
type flusher struct {
	cfg *pgx.ConnConfig

	mu      sync.Mutex
	running bool
	next    *flush // the flush to begin when the running one ends
	conn    *pgx.Conn
	closed  bool
	// warned is a notice of severity WARNING or worse received on conn
	// while a flush runs (OnNotice runs while the flush reads its answer).
	warned *pgconn.Notice
}

// flush is one flush: done is closed when it ends, err its failure.
type flush struct {
	done chan struct{}
	err  error
}

// flushTimeout bounds a flush: a standby that does not confirm within it
// fails the flush (the next one waits again).
const flushTimeout = 60 * time.Second

// newFlusher makes the flusher of the ledger at dsn (pgConfig's).
func newFlusher(dsn string) (*flusher, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, err
	}
	f := &flusher{cfg: cfg}
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
		if n.SeverityUnlocalized == "WARNING" || n.SeverityUnlocalized == "ERROR" || n.SeverityUnlocalized == "FATAL" {
			f.mu.Lock()
			if f.warned == nil {
				f.warned = n
			}
			f.mu.Unlock()
		}
	}
	return f, nil
}

// wait returns once a flush that began after the call has ended: nil when
// it made everything committed before it durable, else its error.
func (f *flusher) wait(ctx context.Context) error {
	f.mu.Lock()
	if f.next == nil {
		f.next = &flush{done: make(chan struct{})}
	}
	fl := f.next
	if !f.running {
		f.start()
	}
	f.mu.Unlock()
	select {
	case <-fl.done:
		return fl.err
	case <-ctx.Done():
		return fmt.Errorf("%w: waiting for PostgreSQL's flush: %w", core.ErrNotDurable, ctx.Err())
	}
}

// start begins the next flush; f.mu is held.
func (f *flusher) start() {
	fl := f.next
	f.next, f.running = nil, true
	go func() {
		fl.err = f.run()
		close(fl.done)
		f.mu.Lock()
		f.running = false
		switch {
		case f.next != nil:
			f.start()
		case f.closed && f.conn != nil:
			f.conn.Close(context.Background())
			f.conn = nil
		}
		f.mu.Unlock()
	}()
}

// run runs one flush on the flusher's connection, made again when lost.
func (f *flusher) run() error {
	ctx, cancel := context.WithTimeout(context.Background(), flushTimeout)
	defer cancel()
	if f.conn == nil || f.conn.IsClosed() {
		c, err := pgx.ConnectConfig(ctx, f.cfg)
		if err != nil {
			return fmt.Errorf("%w: flush: %w", core.ErrNotDurable, Classify(err))
		}
		var sync string
		if err := c.QueryRow(ctx, "SHOW synchronous_commit").Scan(&sync); err != nil {
			c.Close(context.Background())
			return fmt.Errorf("%w: flush: %w", core.ErrNotDurable, Classify(err))
		}
		if sync == "off" {
			if _, err := c.Exec(ctx, "SET synchronous_commit = on"); err != nil {
				c.Close(context.Background())
				return fmt.Errorf("%w: flush: %w", core.ErrNotDurable, Classify(err))
			}
		}
		f.conn = c
	}
	f.mu.Lock()
	f.warned = nil
	f.mu.Unlock()
	_, err := f.conn.Exec(ctx, "SELECT pg_logical_emit_message(true, 'vegas-desk', 'flush')")
	f.mu.Lock()
	warned := f.warned
	f.mu.Unlock()
	if err == nil && warned != nil {
		err = fmt.Errorf("PostgreSQL warned: %s (%s)", warned.Message, warned.Detail)
	}
	if err != nil {
		f.conn.Close(context.Background())
		f.conn = nil
		return fmt.Errorf("%w: flush: %w", core.ErrNotDurable, Classify(err))
	}
	return nil
}

// close closes the flusher's connection, now or as the running flush ends.
func (f *flusher) close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	if !f.running && f.conn != nil {
		f.conn.Close(context.Background())
		f.conn = nil
	}
}
