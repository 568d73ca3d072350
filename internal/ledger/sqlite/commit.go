package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/jmoiron/sqlx"
	"modernc.org/sqlite"

	"vegas-desk/internal/ledger/core"
)

// A commit is answered only once it is on disk (issue 32). Under
// synchronous(FULL) SQLite fsyncs the WAL inside each COMMIT, while the
// file's write lock is held: commits queue behind one another's syncs, and
// a server on a file answered half as many claims a second as with NORMAL
// (BenchmarkDurableClaims). So a file's writer commits with NORMAL (the
// WAL written, not synced) and then waits for a sync of the WAL that began
// after its commit, the write lock already free: the commits made while
// one sync runs share the next one (group commit, as PostgreSQL's
// sequencer does for a shared ledger). No caller sees Commit return
// before its commit is on disk: a claim, a void, an import, a pack move, a
// desk change, a block, each a transaction of the writer (Engine.Write; a
// statement run on the writer outside a transaction is not waited for,
// and no ledger writes so).

// SyncMode is how a file's writer makes its commits durable.
type SyncMode int

const (
	// GroupSync: NORMAL, then a sync of the WAL shared by the commits
	// made meanwhile. What every ledger file runs with.
	GroupSync SyncMode = iota
	// FullSync: synchronous(FULL), each commit syncing the WAL itself.
	FullSync
	// NoSync: NORMAL alone, the WAL synced only at checkpoints: what a
	// power cut may take back. Never for a ledger: the durability
	// benchmark's reference.
	NoSync
)

// CommitSync is the SyncMode of the files opened from now on: GroupSync,
// unless the durability benchmark changes it to measure the others.
var CommitSync = GroupSync

// writerConns is how many connections a file's writer holds: one writes
// at a time (the file's write lock, taken first in the process), the
// others wait for their commit's sync.
const writerConns = 8

// openWriter opens the pool of a file's writer on the file at path with
// the DSN parameters params (synchronous added, as CommitSync says).
func openWriter(path string, params []string) (*sqlx.DB, *groupSync, error) {
	g := &groupSync{wal: path + "-wal", turn: make(chan struct{}, 1), mode: CommitSync}
	g.cond = sync.NewCond(&g.mu)
	pragma := "_pragma=synchronous(NORMAL)"
	if g.mode == FullSync {
		pragma = "_pragma=synchronous(FULL)"
	}
	c, err := sqlite.NewConnector(DSN(path, append(params, pragma)...))
	if err != nil {
		return nil, nil, err
	}
	w := sqlx.NewDb(sql.OpenDB(&connector{Connector: c, g: g}), "sqlite")
	w.SetMaxOpenConns(writerConns)
	w.SetMaxIdleConns(writerConns)
	w.SetConnMaxIdleTime(0)
	return w, g, nil
}

// groupSync is a file writer's turn to write and its WAL's syncs.
type groupSync struct {
	wal  string
	mode SyncMode
	// turn is held from BEGIN to COMMIT or ROLLBACK: one write
	// transaction at a time in this process (SQLite's write lock, with
	// busy_timeout, orders it with other processes).
	turn chan struct{}

	mu                sync.Mutex
	cond              *sync.Cond
	committed, synced uint64 // commits counted, and synced, so far
	syncs             int    // syncs run
	syncing           bool
	// err is the first failed sync's: every commit after it fails too,
	// and no write begins (after a failed fsync the kernel may have
	// dropped the pages it could not write, and a later fsync succeed
	// without them: the file's state on disk is unknown until it is
	// reopened, as PostgreSQL concluded with data_sync_retry = off).
	err error
}

// failed is the first failed sync's error (core.ErrNotDurable), or nil.
func (g *groupSync) failed() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.err
}

// durable returns once everything committed to the file before the call,
// by any process, is on disk: a sync of the WAL that begins after the
// call (shared with the commits waiting then), then of the database file
// (what a checkpoint moved there). What an answer reads and says is paid
// (a request id's payment answered again, a ticket paid here) waits for
// it: the commit it reads may be another process's, whose sync failed.
func (g *groupSync) durable() error {
	g.mu.Lock()
	g.committed++
	n := g.committed
	g.mu.Unlock()
	if err := g.wait(n); err != nil {
		return err
	}
	if err := syncFile(strings.TrimSuffix(g.wal, "-wal")); err != nil {
		g.mu.Lock()
		defer g.mu.Unlock()
		if g.err == nil {
			g.err = notDurable(g.wal, err)
		}
		return g.err
	}
	return nil
}

// notDurable is the error of a failed sync of the file at path.
func notDurable(path string, err error) error {
	return fmt.Errorf("%w: the sync of %s failed (%v), so its last commits may not be on disk: check the disk (dmesg, its free space), then restart, which reopens and recovers the file", core.ErrNotDurable, path, err)
}

// wait returns once commit n is synced, syncing the WAL itself when no
// sync runs: all the commits counted when a sync begins are on disk when
// it ends.
func (g *groupSync) wait(n uint64) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	for g.synced < n && g.err == nil {
		if g.syncing {
			g.cond.Wait()
			continue
		}
		g.syncing = true
		upTo := g.committed
		g.mu.Unlock()
		err := syncFile(g.wal)
		g.mu.Lock()
		g.syncing = false
		g.syncs++
		if err != nil {
			g.err = notDurable(g.wal, err)
		} else {
			g.synced = upTo
		}
		g.cond.Broadcast()
	}
	return g.err
}

// syncFile fsyncs the file at path (any descriptor of a file syncs it); a
// file that is not there (a WAL checkpointed and removed) has nothing to
// sync.
func syncFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return errors.Join(f.Sync(), f.Close())
}

// connector opens a writer's connections.
type connector struct {
	driver.Connector
	g *groupSync
}

func (c *connector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	inner, ok := conn.(innerConn)
	if !ok {
		conn.Close()
		return nil, fmt.Errorf("the SQLite driver's connection %T lacks a method", conn)
	}
	return &writerConn{innerConn: withStmtCache(inner), g: c.g}, nil // its statements prepared once (stmtcache.go)
}

// innerConn is what database/sql uses of the driver's connection.
type innerConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
	driver.Pinger
	driver.SessionResetter
	driver.Validator
}

// writerConn is a writer's connection: its transactions take the turn,
// and their commits wait for their sync.
type writerConn struct {
	innerConn
	g *groupSync
}

func (c *writerConn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

func (c *writerConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	if err := c.g.failed(); err != nil {
		return nil, err
	}
	select {
	case c.g.turn <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	tx, err := c.innerConn.BeginTx(ctx, opts)
	if err != nil {
		<-c.g.turn
		return nil, err
	}
	return &writerTx{Tx: tx, g: c.g}, nil
}

// writerTx is a write transaction holding the turn. database/sql calls
// its Commit or its Rollback, once.
type writerTx struct {
	driver.Tx
	g *groupSync
}

func (t *writerTx) Commit() error {
	err := t.Tx.Commit()
	t.g.mu.Lock()
	t.g.committed++
	n := t.g.committed
	if err != nil && t.g.err == nil && errors.Is(diskFailed(err), core.ErrNotDurable) {
		// SQLite's own sync (a WAL restarted, a checkpoint) or write
		// failed: as one of ours.
		t.g.err = notDurable(t.g.wal, err)
	}
	t.g.mu.Unlock()
	<-t.g.turn
	if err != nil || t.g.mode != GroupSync {
		return err
	}
	return t.g.wait(n)
}

func (t *writerTx) Rollback() error {
	err := t.Tx.Rollback()
	<-t.g.turn
	return err
}
