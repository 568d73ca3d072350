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

// writerConns is how many connections a file's writer's pool holds: one
// writes at a time (the file's write lock, taken first in the process),
// the others wait for their commit's sync. Their transactions all run on
// one SQLite connection of the writer's (sharedTx), which no transaction
// holds while it waits for its sync.
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
	shared            sharedTx // the writer's transactions' connection
	walFile           kept     // the WAL, kept open for its syncs
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
		err := g.walFile.sync(g.wal)
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

// kept is a file kept open for its syncs (the WAL's: a sync for every
// commit, and an open and a close of the file each time were a third of
// the system calls of a commit's sync), and what it is, so that a file
// removed and made again at its path (a WAL checkpointed and removed when
// the last connection closed) is opened again. Its syncs run one at a
// time (groupSync.syncing).
type kept struct {
	mu sync.Mutex
	f  *os.File
	fi os.FileInfo
}

// sync fsyncs the file at path, kept open from one sync to the next; a
// file that is not there has nothing to sync.
func (k *kept) sync(path string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		k.closeLocked()
		return nil
	}
	if err != nil {
		return err
	}
	if k.f == nil || !os.SameFile(k.fi, fi) {
		k.closeLocked()
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if k.fi, err = f.Stat(); err != nil {
			f.Close()
			return err
		}
		k.f = f
	}
	if err := k.f.Sync(); err != nil {
		k.closeLocked()
		return err
	}
	return nil
}

func (k *kept) close() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.closeLocked()
}

func (k *kept) closeLocked() {
	if k.f != nil {
		k.f.Close()
		k.f, k.fi = nil, nil
	}
}

// connector opens a writer's connections: each a connection of its own,
// for what runs outside a transaction, and the writer's one transaction
// connection (sharedTx), shared.
type connector struct {
	driver.Connector
	g *groupSync
}

// sharedTx is the SQLite connection every write transaction of a file's
// writer runs on, one at a time (the turn), whichever connection of the
// pool began it (issue 38). SQLite empties a connection's page cache
// whenever another connection of the file wrote since its last
// transaction: with a transaction on each of the pool's connections in
// turn (the others waiting for their sync), each began by reading again,
// from the file, the pages the one before had just read (14 % of a
// claim's processor time at 16 counters); on one connection they stay.
// It is opened with the writer's first transaction and closed with the
// pool's last connection.
type sharedTx struct {
	mu   sync.Mutex
	conn *cachedConn
	refs int
}

func (c *connector) Connect(ctx context.Context) (driver.Conn, error) {
	own, err := c.connect(ctx)
	if err != nil {
		return nil, err
	}
	s := &c.g.shared
	s.mu.Lock()
	s.refs++
	s.mu.Unlock()
	return &writerConn{innerConn: own, g: c.g, connector: c}, nil
}

// get is the writer's transaction connection, opened with the first
// transaction (a command that only reads opens none).
func (s *sharedTx) get(ctx context.Context, c *connector) (*cachedConn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn == nil {
		conn, err := c.connect(ctx)
		if err != nil {
			return nil, err
		}
		s.conn = conn
	}
	return s.conn, nil
}

// connect opens a SQLite connection whose statements are prepared once
// (stmtcache.go).
func (c *connector) connect(ctx context.Context) (*cachedConn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	inner, ok := conn.(innerConn)
	if !ok {
		conn.Close()
		return nil, fmt.Errorf("the SQLite driver's connection %T lacks a method", conn)
	}
	return withStmtCache(inner), nil
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

// writerConn is a connection of a writer's pool: its transactions take
// the turn and run on the writer's transaction connection (tx, sharedTx),
// and their commits wait for their sync; what it runs outside a
// transaction runs on its own connection (innerConn). database/sql calls
// a connection's methods one at a time.
type writerConn struct {
	innerConn
	g         *groupSync
	connector *connector
	tx        *cachedConn // the writer's transaction connection, while inTx
	inTx      bool        // from BeginTx to Commit or Rollback: its statements run on tx
	stmts     []*txStmt   // prepared in the transaction
}

func (c *writerConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	if c.inTx {
		return c.tx.QueryContext(atStart{ctx}, query, args)
	}
	return c.innerConn.QueryContext(ctx, query, args)
}

func (c *writerConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	if c.inTx {
		return c.tx.ExecContext(atStart{ctx}, query, args)
	}
	return c.innerConn.ExecContext(ctx, query, args)
}

// atStart is the context of a statement in a write transaction as the
// driver sees it: ended or not when the statement starts (as database/sql
// sees it before each statement), not watched while it runs. The driver
// starts a goroutine for each statement whose context may end, to
// interrupt it: 8 a claim, and 4 % of a claim's processor time with their
// scheduling. A write transaction's statements wait for no lock (its
// BEGIN IMMEDIATE, watched, took the file's) and each reads or writes a
// few rows; a task that writes for long (a block generated, a ledger
// imported) runs many, and stops at the first that starts once its
// context ended.
type atStart struct{ context.Context }

func (c atStart) Done() <-chan struct{} {
	if c.Err() != nil {
		return c.Context.Done()
	}
	return nil
}

// PrepareContext prepares a statement on c's own connection, or in a
// transaction on the writer's transaction connection, where it is closed
// as the transaction ends (txStmt).
func (c *writerConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	if !c.inTx {
		return c.innerConn.PrepareContext(ctx, query)
	}
	st, err := c.tx.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	s := &txStmt{Stmt: st}
	c.stmts = append(c.stmts, s)
	return s, nil
}

// txStmt is a statement prepared in a write transaction, on the writer's
// transaction connection: closed as its transaction ends, before the next
// may begin there (database/sql closes a transaction's statements after
// its Commit or Rollback returns, which would close it on a connection
// that another transaction may be using then). Its statements run as the
// transaction's (atStart).
type txStmt struct {
	driver.Stmt
	closed bool
}

func (s *txStmt) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	return s.Stmt.Close()
}

func (s *txStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	if s.closed {
		return nil, driver.ErrBadConn
	}
	return s.Stmt.(driver.StmtExecContext).ExecContext(atStart{ctx}, args)
}

func (s *txStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	if s.closed {
		return nil, driver.ErrBadConn
	}
	return s.Stmt.(driver.StmtQueryContext).QueryContext(atStart{ctx}, args)
}

func (c *writerConn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

// Close closes c's own connection, and with the pool's last the WAL kept
// open for its syncs, then the writer's transaction connection (the last
// connection of the process to the file removes the WAL, which a file
// still open may keep from going on some systems).
func (c *writerConn) Close() error {
	s := &c.g.shared
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refs--
	if s.refs == 0 {
		c.g.walFile.close()
	}
	err := c.innerConn.Close()
	if s.refs == 0 && s.conn != nil {
		err = errors.Join(err, s.conn.Close())
		s.conn = nil
	}
	return err
}

func (c *writerConn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

// BeginTx begins a write transaction (BEGIN IMMEDIATE, whatever opts
// says: the writer's transactions write).
func (c *writerConn) BeginTx(ctx context.Context, _ driver.TxOptions) (driver.Tx, error) {
	if err := c.g.failed(); err != nil {
		return nil, err
	}
	select {
	case c.g.turn <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	shared, err := c.g.shared.get(ctx, c.connector)
	if err != nil {
		<-c.g.turn
		return nil, err
	}
	if _, err := shared.ExecContext(ctx, "BEGIN IMMEDIATE", nil); err != nil {
		// A BEGIN that took effect as ctx ended is undone (an error:
		// none began).
		shared.ExecContext(context.Background(), "ROLLBACK", nil)
		<-c.g.turn
		return nil, err
	}
	c.tx, c.inTx = shared, true
	return &writerTx{c: c}, nil
}

// writerTx is a write transaction holding the turn, on the writer's
// transaction connection. database/sql calls its Commit or its Rollback,
// once, its rows closed. Its BEGIN IMMEDIATE, COMMIT and ROLLBACK are
// prepared once (the driver's own transactions prepare theirs each time:
// 2 % of a claim's processor time).
type writerTx struct{ c *writerConn }

// end ends the transaction on the writer's transaction connection: the
// next may begin there.
func (t *writerTx) end() {
	for _, s := range t.c.stmts {
		s.Close()
	}
	t.c.tx, t.c.inTx, t.c.stmts = nil, false, nil
	<-t.c.g.turn
}

// Commit commits, whatever the context of the transaction says by now
// (in WAL mode a COMMIT waits for no lock), and waits for its sync; a
// COMMIT that failed leaves nothing begun (rolled back, as the driver
// does).
func (t *writerTx) Commit() error {
	g := t.c.g
	_, err := t.c.tx.ExecContext(context.Background(), "COMMIT", nil)
	if err != nil {
		t.c.tx.ExecContext(context.Background(), "ROLLBACK", nil) // (none active: an error, and nothing to do)
	}
	g.mu.Lock()
	g.committed++
	n := g.committed
	if err != nil && g.err == nil && errors.Is(diskFailed(err), core.ErrNotDurable) {
		// SQLite's own sync (a WAL restarted, a checkpoint) or write
		// failed: as one of ours.
		g.err = notDurable(g.wal, err)
	}
	g.mu.Unlock()
	t.end()
	if err != nil || g.mode != GroupSync {
		return err
	}
	return g.wait(n)
}

func (t *writerTx) Rollback() error {
	_, err := t.c.tx.ExecContext(context.Background(), "ROLLBACK", nil)
	t.end()
	return err
}
