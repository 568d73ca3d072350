package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"path/filepath"
	"testing"

	"modernc.org/sqlite"
)

// countingConn counts the statements its connection prepares.
type countingConn struct {
	innerConn
	prepared map[string]int
}

func (c *countingConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	c.prepared[query]++
	return c.innerConn.PrepareContext(ctx, query)
}

type countingConnector struct {
	driver.Connector
	conn *countingConn
}

func (c *countingConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	c.conn = &countingConn{innerConn: conn.(innerConn), prepared: map[string]int{}}
	return withStmtCache(c.conn), nil
}

// A writer's connection prepares a statement once and runs it again and
// again, with the answers of a statement prepared each time: the same
// text run again while its rows are open (nested), a failed statement (a
// constraint) and what follows it, a script, a schema changed under a
// prepared statement.
func TestStmtCache(t *testing.T) {
	c, err := sqlite.NewConnector(DSN(filepath.Join(t.TempDir(), "cache.db"), "_pragma=journal_mode(WAL)"))
	if err != nil {
		t.Fatal(err)
	}
	cc := &countingConnector{Connector: c}
	db := sql.OpenDB(cc)
	db.SetMaxOpenConns(1)
	defer db.Close()
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	// A script: run whole, never cached.
	_, err = db.ExecContext(ctx, "CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT NOT NULL); INSERT INTO t VALUES (1, 'one');")
	must(err)
	const ins, sel = "INSERT INTO t (k, v) VALUES (?, ?)", "SELECT v FROM t WHERE k = ?"
	for k := 2; k <= 50; k++ {
		_, err := db.ExecContext(ctx, ins, k, "v")
		must(err)
		var v string
		must(db.QueryRowContext(ctx, sel, k).Scan(&v))
		if v != "v" {
			t.Fatalf("row %d: %q", k, v)
		}
	}
	if p := cc.conn.prepared; p[ins] != 1 || p[sel] != 1 {
		t.Fatalf("prepared %v; want each statement once", p)
	}
	// The same text while its rows are open: both read whole.
	const all = "SELECT k FROM t WHERE k <= ? ORDER BY k"
	outer, err := db.QueryContext(ctx, all, 3)
	must(err)
	n := 0
	for outer.Next() {
		var k int
		must(outer.Scan(&k))
		n++
	}
	must(outer.Err())
	outer.Close()
	// In a transaction (one connection), the text again while its first
	// rows are open.
	tx, err := db.BeginTx(ctx, nil)
	must(err)
	r1, err := tx.QueryContext(ctx, all, 2)
	must(err)
	r1.Next()
	r2, err := tx.QueryContext(ctx, all, 3)
	must(err)
	var got []int
	for r2.Next() {
		var k int
		must(r2.Scan(&k))
		got = append(got, k)
	}
	must(r2.Close())
	for more := true; more; more = r1.Next() {
		var k int
		must(r1.Scan(&k))
		got = append(got, k)
	}
	must(r1.Close())
	must(tx.Commit())
	if n != 3 || len(got) != 5 || got[0] != 1 || got[2] != 3 || got[3] != 1 || got[4] != 2 {
		t.Fatalf("nested rows: outer %d, inner then outer %v; want 3, [1 2 3 1 2]", n, got)
	}
	// A failed statement, then the same text again.
	if _, err := db.ExecContext(ctx, ins, 2, "again"); err == nil {
		t.Fatal("a duplicate key was inserted")
	}
	_, err = db.ExecContext(ctx, ins, 51, "after")
	must(err)
	var v string
	must(db.QueryRowContext(ctx, sel, 51).Scan(&v))
	if v != "after" {
		t.Fatalf("after a failed insert: %q", v)
	}
	// The schema changed under a prepared statement: SQLite compiles it
	// again.
	const star = "SELECT * FROM t WHERE k = ?"
	cols := func() []string {
		rows, err := db.QueryContext(ctx, star, 1)
		must(err)
		defer rows.Close()
		c, err := rows.Columns()
		must(err)
		return c
	}
	before := cols()
	_, err = db.ExecContext(ctx, "ALTER TABLE t ADD COLUMN w TEXT")
	must(err)
	if after := cols(); len(before) != 2 || len(after) != 3 {
		t.Fatalf("columns before %v, after ALTER TABLE %v", before, after)
	}
}
