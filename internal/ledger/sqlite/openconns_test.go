package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	msqlite "modernc.org/sqlite"

	"vegas-desk/internal/ledger/backoffice"
	"vegas-desk/internal/ledger/core"
)

// countingDriver is modernc's driver, counting the connections it opens
// and the statements they run: each _pragma of the DSN (run as the connection opens)
// and each text queried, executed or prepared.
type countingDriver struct {
	mu    sync.Mutex
	conns int
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
	d.mu.Lock()
	d.conns++
	d.mu.Unlock()
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

// counted swaps the driver of a read-only file's connections for a
// counting one, until the test ends.
func counted(t *testing.T) *countingDriver {
	d := &countingDriver{}
	countingOnce.Do(func() { sql.Register("sqlite-counting", &switchDriver{}) })
	switched.Store(d)
	old := readDriver
	readDriver = "sqlite-counting"
	t.Cleanup(func() { readDriver = old })
	return d
}

// switchDriver is the counting driver of the test that runs.
type switchDriver struct{}

var switched atomic.Pointer[countingDriver]

func (switchDriver) Open(dsn string) (driver.Conn, error) { return switched.Load().Open(dsn) }

// A read-only open of a ledger whose -wal and -shm files are gone, as a
// writer's or sqlite3's clean close leaves it (make bench's lookups
// alternate with sqlite3's, issue 38), opens one connection: the one that
// reads, which parses the schema and checks it. It opened two: an
// immutable one first, to check the file before the reading connection
// makes its -wal and -shm (a file refused is left without them), which
// parsed the schema and ran five statements of its own; its check is now
// made from the file's bytes (rawSchemaMatches). A file that is not
// exactly a ledger (a trigger added) is still checked through SQLite,
// refused, and left without -wal or -shm.
func TestReadOnlyOpenConnections(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.db")
	now := func() time.Time { return time.Time{} }
	w, err := OpenLedger(path, false, backoffice.Creation{}, now)
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	if walFiles(path) {
		t.Fatalf("%s-wal and -shm left by the writer's close", path)
	}
	d := counted(t)
	r, err := OpenLedger(path, true, backoffice.Creation{}, now)
	if err != nil {
		t.Fatal(err)
	}
	if r.ID == "" || !r.ReadOnly {
		t.Errorf("opened %+v, want a read-only ledger with its id", r.Store)
	}
	r.Close()
	schema := 0
	for _, s := range d.texts {
		if strings.Contains(s, "sqlite_master") {
			schema++
		}
	}
	if d.conns != 1 || schema != 1 {
		t.Errorf("a read-only open opened %d connections and read sqlite_master %d times, want one connection and one read (the reading connection's check):\n%s",
			d.conns, schema, strings.Join(d.texts, "\n"))
	}

	// A trigger added by hand, the -wal and -shm gone again.
	db, err := sql.Open("sqlite", DSN(path))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TRIGGER rewrite AFTER INSERT ON meta BEGIN UPDATE meta SET value = 'x'; END"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if walFiles(path) {
		t.Fatalf("%s-wal and -shm left", path)
	}
	if rawSchemaMatches(path, Kind{AppID: ApplicationID, Schema: LedgerSchema}) {
		t.Error("a ledger with a trigger added passed the check from its bytes")
	}
	d = counted(t)
	if r, err := OpenLedger(path, true, backoffice.Creation{}, now); !errors.Is(err, core.ErrNotLedger) {
		if r != nil {
			r.Close()
		}
		t.Fatalf("a ledger with a trigger added opened read-only: %v", err)
	}
	if _, err := os.Stat(path + "-wal"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s-wal beside the refused file (%v)", path, err)
	}
	if _, err := os.Stat(path + "-shm"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s-shm beside the refused file (%v)", path, err)
	}
}

// rawSchema reads what SQLite reads of a ledger: its version, kind and
// sqlite_master (checked against masterQuery's rows of the same file,
// and k's digest); of a file of 4 KiB pages, whose schema spans pages, it
// says nothing; of bytes that are not a SQLite file, nothing, without
// failing (FuzzOpen opens random files).
func TestRawSchema(t *testing.T) {
	now := func() time.Time { return time.Time{} }
	for _, page := range []int{0, 4096} {
		path := filepath.Join(t.TempDir(), "ledger.db")
		if page != 0 {
			// A ledger made with smaller pages.
			db, err := sql.Open("sqlite", DSN(path, fmt.Sprintf("_pragma=page_size(%d)", page), "_journal_mode=WAL"))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec("PRAGMA user_version"); err != nil {
				t.Fatal(err)
			}
			db.Close()
		}
		w, err := OpenLedger(path, false, backoffice.Creation{}, now)
		if err != nil {
			t.Fatal(err)
		}
		var want []masterRow
		if err := w.file.R.Select(&want, masterQuery); err != nil {
			t.Fatal(err)
		}
		w.Close()
		s, ok := rawSchema(path)
		if page == 4096 {
			if ok {
				t.Errorf("4 KiB pages: page 1 read as the whole schema (%d rows of %d)", len(s.master), len(want))
			}
			continue
		}
		if !ok || s.version != core.SchemaVersion || s.app != ApplicationID || !slices.Equal(s.master, want) {
			t.Errorf("raw read %v: version %d, application id %#x, %d rows; SQLite reads %d rows", ok, s.version, s.app, len(s.master), len(want))
		}
		if !rawSchemaMatches(path, Kind{AppID: ApplicationID, Schema: LedgerSchema}) {
			t.Error("a ledger's bytes do not match its schema's digest")
		}
		// A WAL that holds writes may hold a newer page 1: SQLite reads it.
		if err := os.WriteFile(path+"-wal", []byte{0x37}, 0o600); err != nil {
			t.Fatal(err)
		}
		if rawSchemaMatches(path, Kind{AppID: ApplicationID, Schema: LedgerSchema}) {
			t.Error("the file's bytes taken for its schema beside a WAL that holds writes")
		}
		os.Remove(path + "-wal")
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{0, 50, 100, 4096, 16384, len(b) / 2} {
			cut := filepath.Join(t.TempDir(), "cut.db")
			if err := os.WriteFile(cut, b[:min(n, len(b))], 0o600); err != nil {
				t.Fatal(err)
			}
			if n < 16384 && rawSchemaMatches(cut, Kind{AppID: ApplicationID, Schema: LedgerSchema}) {
				t.Errorf("the first %d bytes of a ledger pass as one", n)
			}
		}
		// Every byte of page 1 changed in turn: never a panic; a byte of a
		// CREATE statement changed, never the schema.
		for i := 100; i < 16384; i++ {
			c := slices.Clone(b[:16384])
			c[i] ^= 0x5a
			leafRows(c, 16384)
		}
		sqlAt := bytes.Index(b[:16384], []byte("CREATE TRIGGER"))
		if sqlAt < 0 {
			t.Fatal("no trigger's text in page 1")
		}
		c := slices.Clone(b)
		c[sqlAt+20] ^= 0x20
		changed := filepath.Join(t.TempDir(), "changed.db")
		if err := os.WriteFile(changed, c, 0o600); err != nil {
			t.Fatal(err)
		}
		if rawSchemaMatches(changed, Kind{AppID: ApplicationID, Schema: LedgerSchema}) {
			t.Error("a trigger's text changed in page 1 passed as the schema")
		}
	}
}
