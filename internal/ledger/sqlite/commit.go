package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/jmoiron/sqlx"
	"modernc.org/sqlite"
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
	// err is the first failed sync's: every commit after it fails too
	// (after a failed fsync the kernel may have dropped the pages it
	// could not write, and a later fsync succeed without them).
	err error
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
			g.err = fmt.Errorf("the ledger's commit may not be on disk: sync %s: %w", g.wal, err)
		} else {
			g.synced = upTo
		}
		g.cond.Broadcast()
	}
	return g.err
}

// syncFile fsyncs the file at path (any descriptor of a file syncs it).
func syncFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
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
	return &writerConn{innerConn: inner, g: c.g}, nil
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
