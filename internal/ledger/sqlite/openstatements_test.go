package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	msqlite "modernc.org/sqlite"

	"vegas-desk/internal/ledger/backoffice"
)

// countingDriver is modernc's driver, counting the statements its
// connections run: each _pragma of the DSN (run as the connection opens)
// and each text queried, executed or prepared.
type countingDriver struct {
	mu    sync.Mutex
	texts []string
}

func (d *countingDriver) add(text string) {
	d.mu.Lock()
	d.texts = append(d.texts, text)
	d.mu.Unlock()
}

func (d *countingDriver) Open(dsn string) (driver.Conn, error) {
	if _, q, ok := strings.Cut(dsn, "?"); ok {
		v, err := url.ParseQuery(q)
		if err != nil {
			return nil, err
		}
		for _, p := range v["_pragma"] {
			d.add("PRAGMA " + p)
		}
	}
	c, err := (&msqlite.Driver{}).Open(dsn)
	if err != nil {
		return nil, err
	}
	return &countedConn{innerConn: c.(innerConn), d: d}, nil
}

type countedConn struct {
	innerConn
	d *countingDriver
}

func (c *countedConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	c.d.add(query)
	return c.innerConn.QueryContext(ctx, query, args)
}

func (c *countedConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	c.d.add(query)
	return c.innerConn.ExecContext(ctx, query, args)
}

func (c *countedConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	c.d.add(query)
	return c.innerConn.PrepareContext(ctx, query)
}

var countingOnce sync.Once
var counting = &countingDriver{}

// A read-only open (every lookup process's, issue 38) runs four
// statements: its connection's two pragmas (a busy timeout; no function
// with side effects called by the file's schema), one read of the file's
// version, kind and schema together (readSchema, which the schema check
// compares with the digest of schema.sql's: kept whole), and the meta
// rows. It ran six: PRAGMA user_version, PRAGMA application_id and the
// select of sqlite_master were three statements, each prepared and read
// in a transaction of its own. A statement added to the open fails here.
func TestReadOnlyOpenStatements(t *testing.T) {
	countingOnce.Do(func() { sql.Register("sqlite-counting", counting) })
	path := filepath.Join(t.TempDir(), "ledger.db")
	now := func() time.Time { return time.Time{} }
	w, err := OpenLedger(path, false, backoffice.Creation{}, now)
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	defer func(d string) { readDriver = d }(readDriver)
	readDriver = "sqlite-counting"
	counting.texts = nil
	r, err := OpenLedger(path, true, backoffice.Creation{}, now)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.ID == "" || !r.ReadOnly {
		t.Fatalf("opened %+v, want a read-only ledger with its id", r.Store)
	}
	const want = 4
	if n := len(counting.texts); n > want {
		t.Errorf("a read-only open ran %d statements, at most %d (its connection's pragmas, the schema's read, the meta rows):\n%s",
			n, want, strings.Join(counting.texts, "\n"))
	}
	schema := 0
	for _, s := range counting.texts {
		if strings.Contains(s, "sqlite_master") {
			schema++
		}
	}
	if schema != 1 {
		t.Errorf("sqlite_master read %d times, want once (the schema's check):\n%s", schema, strings.Join(counting.texts, "\n"))
	}
}
