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
	// gen counts the connections made; live says one is open. A flush
	// vouches only for what was committed while the connection it runs
	// on was already open: a connection made again (the last one lost)
	// may reach another server than the commits did (a failover: the
	// multi-host URL's next, promoted meanwhile), whose flush makes
	// nothing of the old primary's durable (TestFailoverPrimaryVanishes).
	gen  int
	live bool
	// reconnected, when set, is called when a connection is made again
	// after one was lost (the sequencer forgets what its chains gave: it
	// may not be on this server).
	reconnected func()
}

// flush is one flush: done is closed when it ends, err its failure, gen
// the connection it ran on.
type flush struct {
	done chan struct{}
	err  error
	gen  int
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

// flushConn is the flusher's connection at a moment: a flush vouches
// for what was committed from then on only if it runs on that same one.
type flushConn struct {
	gen  int
	live bool
}

// now is the flusher's connection now.
func (f *flusher) now() flushConn {
	f.mu.Lock()
	defer f.mu.Unlock()
	return flushConn{f.gen, f.live}
}

// wait returns once a flush that began after the call has ended: nil when
// it made everything committed before it durable, else its error.
func (f *flusher) wait(ctx context.Context) error { return f.waitSince(ctx, nil) }

// waitSince is wait for commits made since the flusher's connection was
// since (nil: now), before the call: a flush on a connection made after
// since vouches for none of them.
func (f *flusher) waitSince(ctx context.Context, since *flushConn) error {
	f.mu.Lock()
	if f.next == nil {
		f.next = &flush{done: make(chan struct{})}
	}
	fl := f.next
	gen, live := f.gen, f.live
	if since != nil {
		gen, live = since.gen, since.live
	}
	if !f.running {
		f.start()
	}
	f.mu.Unlock()
	select {
	case <-fl.done:
		if fl.err == nil && (!live || fl.gen != gen) {
			return fmt.Errorf("%w: flush: made on a new connection to PostgreSQL (the last one was lost: a failover may have changed the primary), it vouches for nothing committed before", core.ErrNotDurable)
		}
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
		f.mu.Lock()
		fl.gen = f.gen
		f.mu.Unlock()
		close(fl.done)
		f.mu.Lock()
		f.running = false
		switch {
		case f.next != nil:
			f.start()
		case f.closed && f.conn != nil:
			f.conn.Close(context.Background())
			f.conn, f.live = nil, false
		}
		f.mu.Unlock()
	}()
}

// run runs one flush on the flusher's connection, made again when lost.
func (f *flusher) run() error {
	ctx, cancel := context.WithTimeout(context.Background(), flushTimeout)
	defer cancel()
	if f.conn == nil || f.conn.IsClosed() {
		if err := f.connect(ctx); err != nil {
			return err
		}
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
		f.mu.Lock()
		f.conn, f.live = nil, false
		f.mu.Unlock()
		// A connection made again at once (if the server answers): the
		// questions that wait from now on find it open, and their flush
		// vouches for them; those of this flush are answered unavailable,
		// and asked again (a PostgreSQL restarted: TestUnreachable).
		if ctx.Err() == nil {
			f.connect(ctx)
		}
		return fmt.Errorf("%w: flush: %w", core.ErrNotDurable, Classify(err))
	}
	return nil
}

// connect makes the flusher's connection (Open makes the first one, so
// that the first questions' flush vouches for them).
func (f *flusher) connect(ctx context.Context) error {
	c, err := pgx.ConnectConfig(ctx, f.cfg)
	if err != nil {
		return fmt.Errorf("%w: flush: %w", core.ErrNotDurable, Classify(err))
	}
	if err := pinSynchronousCommit(ctx, c); err != nil {
		c.Close(context.Background())
		return fmt.Errorf("%w: flush: %w", core.ErrNotDurable, Classify(err))
	}
	f.mu.Lock()
	f.conn, f.live = c, true
	f.gen++
	again := f.gen > 1
	f.mu.Unlock()
	if again && f.reconnected != nil {
		f.reconnected()
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
		f.conn, f.live = nil, false
	}
}

// pinSynchronousCommit sets c's synchronous_commit for its session to what
// it is now, raised to on where it is off: a setting of the session, which
// a configuration reloaded later (ALTER SYSTEM, postgresql.conf and
// pg_reload_conf) does not change. Left as the server's default, a
// connection made while it was on took a reloaded off, and its commits, a
// flush's or a question's own chain's, waited for nothing
// (TestPaidDurableReloadedOff).
func pinSynchronousCommit(ctx context.Context, c *pgx.Conn) error {
	var sync string
	if err := c.QueryRow(ctx, "SHOW synchronous_commit").Scan(&sync); err != nil {
		return err
	}
	switch sync {
	case "off":
		sync = "on"
	case "on", "local", "remote_write", "remote_apply":
	default:
		return fmt.Errorf("synchronous_commit is %q, not a value vegas-desk knows", sync)
	}
	_, err := c.Exec(ctx, "SET synchronous_commit = "+sync)
	return err
}
