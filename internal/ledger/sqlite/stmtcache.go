package sqlite

import (
	"context"
	"database/sql/driver"
	"io"
	"strings"
	"sync"
)

// stmtCacheSize bounds the statements a connection keeps prepared: the
// ledger's questions use a few dozen texts.
const stmtCacheSize = 128

// cachedConn is a connection that keeps the statements it runs prepared,
// by their text (issue 38): database/sql's Query and Exec on a
// connection prepare the text each time, and SQLite's prepare was about
// 30 % of serve's processor time on a file (compiling the question's
// read and write, a few hundred bytes of SQL each, again for every
// claim). A prepared statement is reset after each use (its rows closed)
// and is recompiled by SQLite itself when the schema changes. A text of
// several statements (a script) is never cached, nor is one whose
// statement is still in use (rows open); a statement that failed is
// closed and prepared again at its next use.
type cachedConn struct {
	innerConn
	mu    sync.Mutex
	stmts map[string]*cachedStmt
	order []string // oldest first
}

type cachedStmt struct {
	st   driver.Stmt
	busy bool // its rows are open
}

func withStmtCache(c innerConn) *cachedConn {
	return &cachedConn{innerConn: c, stmts: map[string]*cachedStmt{}}
}

// cacheable: one statement (no ';' but a trailing one).
func cacheable(query string) bool {
	return !strings.Contains(strings.TrimRight(strings.TrimSpace(query), ";"), ";")
}

// take is query's prepared statement, marked busy; nil when it cannot be
// cached or is in use.
func (c *cachedConn) take(ctx context.Context, query string) (*cachedStmt, error) {
	if !cacheable(query) {
		return nil, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.stmts[query]; ok {
		if s.busy {
			return nil, nil
		}
		s.busy = true
		return s, nil
	}
	st, err := c.innerConn.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if len(c.order) >= stmtCacheSize {
		old := c.order[0]
		if s := c.stmts[old]; !s.busy {
			s.st.Close()
			delete(c.stmts, old)
			c.order = c.order[1:]
		}
	}
	s := &cachedStmt{st: st, busy: true}
	if len(c.order) < stmtCacheSize {
		c.stmts[query] = s
		c.order = append(c.order, query)
	}
	return s, nil
}

// give returns s after its use; a statement that failed is dropped.
func (c *cachedConn) give(query string, s *cachedStmt, failed bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s.busy = false
	if c.stmts[query] != s { // not kept (the cache was full)
		s.st.Close()
		return
	}
	if failed {
		s.st.Close()
		delete(c.stmts, query)
		for i, q := range c.order {
			if q == query {
				c.order = append(c.order[:i:i], c.order[i+1:]...)
				break
			}
		}
	}
}

func (c *cachedConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	s, err := c.take(ctx, query)
	if err != nil {
		return nil, err
	}
	if s == nil {
		return c.innerConn.QueryContext(ctx, query, args)
	}
	rows, err := s.st.(driver.StmtQueryContext).QueryContext(ctx, args)
	if err != nil {
		c.give(query, s, true)
		return nil, err
	}
	return &cachedRows{Rows: rows, done: func(failed bool) { c.give(query, s, failed) }}, nil
}

func (c *cachedConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	s, err := c.take(ctx, query)
	if err != nil {
		return nil, err
	}
	if s == nil {
		return c.innerConn.ExecContext(ctx, query, args)
	}
	res, err := s.st.(driver.StmtExecContext).ExecContext(ctx, args)
	c.give(query, s, err != nil)
	return res, err
}

// Close closes the prepared statements, then the connection.
func (c *cachedConn) Close() error {
	c.mu.Lock()
	for _, s := range c.stmts {
		s.st.Close()
	}
	c.stmts, c.order = nil, nil
	c.mu.Unlock()
	return c.innerConn.Close()
}

// cachedRows gives its statement back once closed.
type cachedRows struct {
	driver.Rows
	done   func(failed bool)
	failed bool
	once   sync.Once
}

func (r *cachedRows) Next(dest []driver.Value) error {
	err := r.Rows.Next(dest)
	if err != nil && err != io.EOF {
		r.failed = true
	}
	return err
}

func (r *cachedRows) Close() error {
	err := r.Rows.Close()
	r.once.Do(func() { r.done(r.failed || err != nil) })
	return err
}
