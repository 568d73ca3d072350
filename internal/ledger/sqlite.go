package ledger

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/jmoiron/sqlx"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	vegasdesk "vegas-desk"
)

// The SQLite engine: one file, schema.sql.

// ApplicationID marks a SQLite file as a vegas-desk ledger ("VGDS"), and
// CounterApplicationID as a sealed counter ledger ("VGDC", counter.sql).
const (
	ApplicationID        = 0x56474453
	CounterApplicationID = 0x56474443
)

// ours reports whether a SQLite application id is one of vegas-desk's.
func ours(app uint32) bool { return app == ApplicationID || app == CounterApplicationID }

// dsn builds a modernc.org/sqlite DSN: a file: URI whose pragmas every
// pooled connection runs when it opens.
func dsn(path string, params ...string) string {
	u := url.URL{Path: path}
	p := u.EscapedPath()
	// A relative path must not look like an authority.
	if strings.HasPrefix(p, "//") {
		p = "/." + p
	}
	return "file:" + p + "?" + strings.Join(params, "&")
}

// commonPragmas run on every connection. trusted_schema(0): whatever a file
// holds, no trigger or view of it may call a function with side effects
// (and the schema check refuses any we did not make).
var commonPragmas = []string{
	"_pragma=busy_timeout(10000)",
	"_pragma=foreign_keys(ON)",
	"_pragma=synchronous(NORMAL)",
	"_pragma=trusted_schema(0)",
}

func openSQLite(path string, readOnly bool, c creation) (*Ledger, error) {
	if err := precheck(path); err != nil {
		return nil, err
	}
	_, statErr := os.Stat(path)
	if readOnly {
		if statErr != nil {
			return nil, fmt.Errorf("open ledger: %w", statErr)
		}
		return openSQLiteReadOnly(path)
	}
	if statErr == nil && c.meta != nil {
		if st, _ := os.Stat(path); st.Size() > 0 {
			return nil, fmt.Errorf("%s exists already: a copy goes to a new file", path)
		}
	}
	if statErr == nil {
		// Before any write connection touches it (switching a file to WAL
		// is a write), an existing file must hold exactly our schema.
		if err := checkSchemaFile(path, true); err != nil {
			return nil, err
		}
	}
	if errors.Is(statErr, os.ErrNotExist) {
		// A new ledger is for its owner's eyes: 0600 in a 0700 directory.
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, fmt.Errorf("open ledger: %w", err)
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil && !errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("open ledger: %w", err)
		}
		if f != nil {
			f.Close()
		}
	}
	w, err := sqlx.Open("sqlite", dsn(path, append([]string{"_txlock=immediate",
		// A new file gets 16 KiB pages, where five ~3 KiB pack rows fit
		// (one in 4 KiB); it must be set before the switch to WAL and is
		// ignored for an existing file. The driver runs the _pragma list in
		// lexicographic order and the _journal_mode key after it.
		"_pragma=page_size(16384)", "_journal_mode=WAL",
		// Bulk loads: a whole block's pages stay in memory until the commit.
		"_pragma=cache_size(-262144)"}, commonPragmas...)...))
	if err != nil {
		return nil, fmt.Errorf("open ledger %s: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	w.SetConnMaxIdleTime(0)
	fail := func(err error) (*Ledger, error) {
		w.Close()
		return nil, fmt.Errorf("open ledger %s: %w", path, err)
	}
	var mode string
	if err := w.Get(&mode, "PRAGMA journal_mode"); err != nil {
		return fail(classifySQLite(err))
	}
	if mode != "wal" {
		return fail(fmt.Errorf("journal_mode is %q, want wal", mode))
	}
	l := &Ledger{location: path, eng: sqliteEngine, w: w}
	if err := l.createSQLite(c); err != nil {
		return fail(err)
	}
	if err := checkSchema(context.Background(), w, path); err != nil {
		w.Close()
		return nil, err
	}
	r, err := sqlx.Open("sqlite", dsn(path, append([]string{"_pragma=query_only(1)"}, commonPragmas...)...))
	if err != nil {
		return fail(err)
	}
	r.SetMaxOpenConns(4)
	l.r = r
	if err := l.readMeta(context.Background()); err != nil {
		l.Close()
		return nil, fmt.Errorf("open ledger %s: %w", path, err)
	}
	return l, nil
}

// openSQLiteReadOnly reads an existing ledger. It works on a read-only file
// in a read-only directory too.
func openSQLiteReadOnly(path string) (*Ledger, error) {
	// Checked first through an immutable connection, which leaves no
	// -wal or -shm file beside a file that is refused.
	if err := checkSchemaFile(path, false); err != nil {
		return nil, err
	}
	l := &Ledger{location: path, eng: sqliteEngine, readOnly: true}
	modes := [][]string{{"mode=ro"}}
	if st, err := os.Stat(path + "-wal"); err != nil || st.Size() == 0 {
		// Only when no write waits in a WAL: immutable=1 does not read it.
		modes = append(modes, []string{"mode=ro", "immutable=1"})
	}
	for _, extra := range modes {
		r, err := sqlx.Open("sqlite", dsn(path, append(extra, commonPragmas...)...))
		if err != nil {
			return nil, fmt.Errorf("open ledger %s: %w", path, err)
		}
		var v int
		if err = r.Get(&v, "PRAGMA user_version"); err == nil {
			if v != SchemaVersion {
				r.Close()
				return nil, fmt.Errorf("open ledger %s read-only: it is empty or has schema version %d; this vegas-desk reads %d", path, v, SchemaVersion)
			}
			r.SetMaxOpenConns(4)
			l.r = r
			if err := l.readMeta(context.Background()); err != nil {
				r.Close()
				return nil, fmt.Errorf("open ledger %s: %w", path, err)
			}
			return l, nil
		}
		r.Close()
		// In a read-only directory the WAL index cannot be created:
		// read the file as immutable.
	}
	return nil, fmt.Errorf("open ledger %s read-only: cannot read it", path)
}

// precheck refuses, without changing a byte, a file that is not a ledger or
// comes from another version. It reads the 100-byte header; when that is
// not conclusive (a ledger whose first write is still in the WAL) it asks
// SQLite through a read-only connection.
func precheck(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("open ledger: %w", err)
	}
	var hdr [100]byte
	n, err := io.ReadFull(f, hdr[:])
	f.Close()
	if n == 0 {
		return nil // an empty file becomes a new ledger
	}
	if err != nil || !bytes.HasPrefix(hdr[:], []byte("SQLite format 3\x00")) {
		return fmt.Errorf("%w: %s is not a SQLite file", ErrNotLedger, path)
	}
	version := int(binary.BigEndian.Uint32(hdr[60:]))
	app := binary.BigEndian.Uint32(hdr[68:])
	if ours(app) {
		if err := versionCheck(path, version); err != nil || version == SchemaVersion {
			return err
		}
	}
	// Ask SQLite: the header may lag behind the WAL.
	db, err := sql.Open("sqlite", dsn(path, "mode=ro", "_pragma=busy_timeout(10000)", "_pragma=trusted_schema(0)"))
	if err != nil {
		return fmt.Errorf("open ledger: %w", err)
	}
	defer db.Close()
	var tables int
	if err := db.QueryRow("PRAGMA application_id").Scan(&app); err != nil {
		if errors.Is(classifySQLite(err), ErrNotLedger) {
			return fmt.Errorf("%w: %s is not a SQLite database", ErrNotLedger, path)
		}
		return fmt.Errorf("open ledger %s: %w", path, err)
	}
	if err := db.QueryRow("PRAGMA user_version").Scan(&version); err != nil {
		return fmt.Errorf("open ledger %s: %w", path, err)
	}
	if err := db.QueryRow("SELECT count(*) FROM sqlite_schema").Scan(&tables); err != nil {
		return fmt.Errorf("open ledger %s: %w", path, err)
	}
	switch {
	case ours(app):
		return versionCheck(path, version)
	case app == 0 && version == 0 && tables == 0:
		return nil // an empty database becomes a new ledger
	default:
		return fmt.Errorf("%w: %s is another application's SQLite database (application_id %#x)", ErrNotLedger, path, app)
	}
}

// versionCheck refuses a ledger of another schema version.
func versionCheck(path string, version int) error {
	switch {
	case version > SchemaVersion:
		return fmt.Errorf("%w: %s has schema version %d, this vegas-desk knows up to %d; install a newer vegas-desk", ErrTooNew, path, version, SchemaVersion)
	case version == 1:
		return fmt.Errorf("%w: %s has schema version 1, a development format whose 6-digit secret parts are too short to protect unsold tickets; keep it for the record with the vegas-desk that made it, and generate new blocks in a new ledger", ErrTooOld, path)
	}
	return nil
}

// classifySQLite maps SQLite's result codes to the ledger's errors: "not a
// database" (SQLITE_NOTADB) is ErrNotLedger.
func classifySQLite(err error) error {
	var se *sqlite.Error
	if errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_NOTADB {
		return fmt.Errorf("%w: %w", ErrNotLedger, err)
	}
	return err
}

// createSQLite makes a new file a ledger: the schema, its meta rows, the
// application id and version, in one BEGIN IMMEDIATE transaction that reads
// the version again. An existing ledger is left alone.
func (l *Ledger) createSQLite(c creation) error {
	var v int
	if err := l.w.Get(&v, "PRAGMA user_version"); err != nil {
		return classifySQLite(err)
	}
	if v != 0 {
		return versionCheck(l.location, v)
	}
	tx, err := l.w.Beginx()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var app uint32
	var tables int
	if err := tx.Get(&v, "PRAGMA user_version"); err != nil {
		return err
	}
	if err := tx.Get(&app, "PRAGMA application_id"); err != nil {
		return err
	}
	if err := tx.Get(&tables, "SELECT count(*) FROM sqlite_schema"); err != nil {
		return err
	}
	if v != 0 || app != 0 || tables != 0 {
		return tx.Rollback() // made by another process meanwhile; checked next
	}
	if _, err := tx.Exec(vegasdesk.Schema); err != nil {
		return fmt.Errorf("create the schema: %w", err)
	}
	for _, m := range c.rows(l.now()) {
		if _, err := tx.Exec("INSERT INTO meta (key, value) VALUES (?, ?)", m[0], m[1]); err != nil {
			return err
		}
	}
	if _, err := tx.Exec(fmt.Sprintf("PRAGMA application_id = %d; PRAGMA user_version = %d", ApplicationID, SchemaVersion)); err != nil {
		return err
	}
	return tx.Commit()
}

// masterRow is one row of sqlite_master.
type masterRow struct {
	Type    string         `db:"type"`
	Name    string         `db:"name"`
	TblName string         `db:"tbl_name"`
	SQL     sql.NullString `db:"sql"`
}

func (r masterRow) String() string {
	return r.Type + " " + r.Name + " on " + r.TblName + ": " + r.SQL.String
}

const masterQuery = "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name"

// expectedSchema is sqlite_master as a schema makes it, computed once.
type expectedSchema struct {
	sql    string
	once   sync.Once
	master []masterRow
	err    error
}

var (
	backOfficeSchema = &expectedSchema{sql: vegasdesk.Schema}
	counterSchema    = &expectedSchema{sql: vegasdesk.CounterSchema}
)

// expected is sqlite_master as the schema of a file whose application id
// is app makes it (schema.sql, or counter.sql), in a database in memory.
func expected(app uint32) ([]masterRow, error) {
	s := backOfficeSchema
	if app == CounterApplicationID {
		s = counterSchema
	}
	s.once.Do(func() {
		db, err := sqlx.Open("sqlite", "file:expected?mode=memory")
		if err != nil {
			s.err = err
			return
		}
		defer db.Close()
		if _, err := db.Exec(s.sql); err != nil {
			s.err = err
			return
		}
		s.err = db.Select(&s.master, masterQuery)
	})
	return s.master, s.err
}

// checkSchemaFile checks the schema of the file at path through a
// read-only connection; an empty file or database passes (it becomes a new
// ledger). With quick, for a file about to be written, it runs PRAGMA
// quick_check too: a file whose pages SQLite does not find consistent (an
// index that points at another's pages, say) is refused before a write
// builds on it. It reads the whole file: about 20 ms for a 2,000,000-ticket
// ledger (35 MB) in the page cache.
func checkSchemaFile(path string, quick bool) error {
	mode := []string{"mode=ro"}
	if st, err := os.Stat(path + "-wal"); err != nil || st.Size() == 0 {
		// Nothing waits in a WAL: read the file as immutable, which makes
		// no -wal or -shm file beside it.
		mode = append(mode, "immutable=1")
	}
	db, err := sqlx.Open("sqlite", dsn(path, append(mode, "_pragma=busy_timeout(10000)", "_pragma=trusted_schema(0)")...))
	if err != nil {
		return fmt.Errorf("open ledger: %w", err)
	}
	defer db.Close()
	var v int
	if err := db.Get(&v, "PRAGMA user_version"); err != nil {
		return fmt.Errorf("open ledger %s: %w", path, classifySQLite(err))
	}
	if v == 0 {
		// An empty database becomes a new ledger; one that holds anything
		// is checked (and refused) here, before a write connection switches
		// it to WAL.
		var rows int
		if err := db.Get(&rows, "SELECT count(*) FROM sqlite_master"); err != nil {
			return fmt.Errorf("open ledger %s: %w", path, classifySQLite(err))
		}
		if rows == 0 {
			return nil
		}
	}
	if err := checkSchema(context.Background(), db, path); err != nil || !quick {
		return err
	}
	var problems []string
	if err := db.Select(&problems, "PRAGMA quick_check(5)"); err != nil {
		return fmt.Errorf("open ledger %s: %w", path, classifySQLite(err))
	}
	if len(problems) != 1 || problems[0] != "ok" {
		return fmt.Errorf("%w: %s is damaged (SQLite's quick_check: %s): it is refused and left untouched (restore a copy)", ErrNotLedger, path, strings.Join(problems, "; "))
	}
	return nil
}

// checkSchema refuses a ledger whose schema is not exactly what schema.sql
// (or counter.sql, for a sealed counter ledger) makes: an extra trigger
// (which could rewrite a payment as it is written), view, table or index,
// a changed definition, or a row of sqlite_master twice.
func checkSchema(ctx context.Context, q querier, path string) error {
	var app uint32
	if err := get(ctx, q, &app, "PRAGMA application_id"); err != nil {
		return fmt.Errorf("open ledger %s: %w", path, classifySQLite(err))
	}
	want, err := expected(app)
	if err != nil {
		return fmt.Errorf("open ledger: the expected schema: %w", err)
	}
	var got []masterRow
	if err := sel(ctx, q, &got, masterQuery); err != nil {
		return fmt.Errorf("open ledger %s: %w", path, classifySQLite(err))
	}
	if len(got) != len(want) {
		// The same rows twice (sqlite_master written by hand, say a second
		// index row with another root page) pass the comparison of sets.
		return fmt.Errorf("%w: %s has %d schema rows, a vegas-desk ledger %d: the file was altered; it is refused and left untouched (restore a copy, or ask who changed it)", ErrNotLedger, path, len(got), len(want))
	}
	wantSet := map[string]bool{}
	for _, r := range want {
		wantSet[r.String()] = true
	}
	gotSet := map[string]bool{}
	for _, r := range got {
		gotSet[r.String()] = true
		if !wantSet[r.String()] {
			return fmt.Errorf("%w: %s holds a %s %q that no vegas-desk ledger has: the file was altered; it is refused and left untouched (restore a copy, or ask who changed it)", ErrNotLedger, path, r.Type, r.Name)
		}
	}
	for _, r := range want {
		if !gotSet[r.String()] {
			return fmt.Errorf("%w: %s lacks the %s %q of a vegas-desk ledger, or it was changed: the file was altered; it is refused and left untouched", ErrNotLedger, path, r.Type, r.Name)
		}
	}
	return nil
}
