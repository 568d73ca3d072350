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
	"time"

	"github.com/jmoiron/sqlx"
	_ "modernc.org/sqlite" // registers the "sqlite" driver

	vegasdesk "vegas-desk"
)

// ApplicationID marks a SQLite file as a vegas-desk ledger ("VGDS").
const ApplicationID = 0x56474453

// migrations are the schema versions in order: migrations[i] takes a ledger
// from user_version i to i+1. Never edit one; append.
var migrations = []string{
	vegasdesk.Schema,
}

// SchemaVersion is the user_version of a ledger of this build.
var SchemaVersion = len(migrations)

// timeFormat stores times in UTC with a fixed width, so that text order is
// time order.
const timeFormat = "2006-01-02T15:04:05.000000000Z"

func formatTime(t time.Time) string { return t.UTC().Format(timeFormat) }

func parseTime(s string) time.Time {
	t, err := time.Parse(timeFormat, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

// Ledger is an open ledger file. Its methods are safe for concurrent use;
// writes go through one connection, reads through a small pool.
type Ledger struct {
	// Now gives the time of claims, voids and blocks; tests replace it.
	Now func() time.Time

	path     string
	readOnly bool
	w        *sqlx.DB // the one writer connection; nil when read-only
	r        *sqlx.DB // readers (query_only)
}

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

var commonPragmas = []string{
	"_pragma=busy_timeout(10000)",
	"_pragma=foreign_keys(ON)",
	"_pragma=synchronous(NORMAL)",
}

// DefaultPath is the ledger of a desk that names none:
// $XDG_DATA_HOME/vegas-desk/ledger.db, or ~/.local/share/vegas-desk/ledger.db.
func DefaultPath() string {
	dir := os.Getenv("XDG_DATA_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			home = "."
		}
		dir = filepath.Join(home, ".local", "share")
	}
	return filepath.Join(dir, "vegas-desk", "ledger.db")
}

// Open opens the ledger at path, creating it (and its directory) if
// missing, and migrates it forward. A file that is not a vegas-desk ledger
// (ErrNotLedger) or comes from a newer version (ErrTooNew) is refused and
// left untouched.
func Open(path string) (*Ledger, error) {
	if path == "" {
		return nil, errors.New("open ledger: no file name given")
	}
	if err := precheck(path); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("open ledger: %w", err)
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
	var mode string
	if err := w.Get(&mode, "PRAGMA journal_mode"); err != nil {
		w.Close()
		return nil, fmt.Errorf("open ledger %s: %w", path, classify(err))
	}
	if mode != "wal" {
		w.Close()
		return nil, fmt.Errorf("open ledger %s: journal_mode is %q, want wal", path, mode)
	}
	l := &Ledger{Now: time.Now, path: path, w: w}
	if err := l.migrate(); err != nil {
		w.Close()
		return nil, fmt.Errorf("open ledger %s: %w", path, err)
	}
	r, err := sqlx.Open("sqlite", dsn(path, append([]string{"_pragma=query_only(1)"}, commonPragmas...)...))
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("open ledger %s: %w", path, err)
	}
	r.SetMaxOpenConns(4)
	l.r = r
	return l, nil
}

// OpenReadOnly opens an existing ledger for lookups, checks, reports,
// exports and verification; every write answers ErrReadOnly and refused
// lookups are not recorded. It works on a read-only file in a read-only
// directory too.
func OpenReadOnly(path string) (*Ledger, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("open ledger: %w", err)
	}
	if err := precheck(path); err != nil {
		return nil, err
	}
	l := &Ledger{Now: time.Now, path: path, readOnly: true}
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
				return nil, fmt.Errorf("open ledger %s read-only: schema version %d, this build reads %d: open it once read-write to migrate it", path, v, SchemaVersion)
			}
			r.SetMaxOpenConns(4)
			l.r = r
			return l, nil
		}
		r.Close()
		// In a read-only directory the WAL index cannot be created:
		// read the file as immutable.
	}
	return nil, fmt.Errorf("open ledger %s read-only: cannot read it", path)
}

// precheck refuses, without changing a byte, a file that is not a ledger or
// comes from a newer version. It reads the 100-byte header; when that is
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
		return fmt.Errorf("%w: %s is not a SQLite file; choose another file with --db", ErrNotLedger, path)
	}
	version := int(binary.BigEndian.Uint32(hdr[60:]))
	app := binary.BigEndian.Uint32(hdr[68:])
	if app == ApplicationID && version == SchemaVersion {
		return nil
	}
	if app == ApplicationID && version > SchemaVersion {
		return tooNew(path, version)
	}
	// Ask SQLite: the header may lag behind the WAL.
	db, err := sql.Open("sqlite", dsn(path, "mode=ro", "_pragma=busy_timeout(10000)"))
	if err != nil {
		return fmt.Errorf("open ledger: %w", err)
	}
	defer db.Close()
	var tables int
	if err := db.QueryRow("PRAGMA application_id").Scan(&app); err != nil {
		if errors.Is(classify(err), ErrNotLedger) {
			return fmt.Errorf("%w: %s is not a SQLite database; choose another file with --db", ErrNotLedger, path)
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
	case app == ApplicationID && version > SchemaVersion:
		return tooNew(path, version)
	case app == ApplicationID:
		return nil
	case app == 0 && version == 0 && tables == 0:
		return nil // an empty database becomes a new ledger
	default:
		return fmt.Errorf("%w: %s is another application's SQLite database (application_id %#x); choose another file with --db", ErrNotLedger, path, app)
	}
}

func tooNew(path string, version int) error {
	return fmt.Errorf("%w: %s has schema version %d, this vegas-desk knows up to %d; install a newer vegas-desk", ErrTooNew, path, version, SchemaVersion)
}

// classify maps SQLite's "not a database" to ErrNotLedger.
func classify(err error) error {
	if err != nil && strings.Contains(err.Error(), "file is not a database") {
		return fmt.Errorf("%w: %w", ErrNotLedger, err)
	}
	return err
}

// migrate brings the file to SchemaVersion. The version is read without a
// lock first so that opening a current ledger never waits for a writer;
// migrations run in one BEGIN IMMEDIATE transaction that reads it again.
func (l *Ledger) migrate() error {
	var v int
	if err := l.w.Get(&v, "PRAGMA user_version"); err != nil {
		return classify(err)
	}
	if v == SchemaVersion {
		return nil
	}
	tx, err := l.w.Beginx()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var app uint32
	if err := tx.Get(&v, "PRAGMA user_version"); err != nil {
		return err
	}
	if err := tx.Get(&app, "PRAGMA application_id"); err != nil {
		return err
	}
	if v > SchemaVersion {
		return tooNew(l.path, v)
	}
	if v > 0 && app != ApplicationID {
		return fmt.Errorf("%w: application_id %#x", ErrNotLedger, app)
	}
	for ; v < SchemaVersion; v++ {
		if _, err := tx.Exec(migrations[v]); err != nil {
			return fmt.Errorf("migrate to schema version %d: %w", v+1, err)
		}
	}
	if _, err := tx.Exec(fmt.Sprintf("PRAGMA application_id = %d; PRAGMA user_version = %d", ApplicationID, SchemaVersion)); err != nil {
		return err
	}
	return tx.Commit()
}

// Close closes the ledger.
func (l *Ledger) Close() error {
	var err error
	if l.r != nil {
		err = l.r.Close()
	}
	if l.w != nil {
		// A clean close checkpoints the WAL into the file.
		err = errors.Join(err, l.w.Close())
	}
	return err
}

// Path returns the ledger's file path.
func (l *Ledger) Path() string { return l.path }

// ReadOnly reports whether the ledger was opened with OpenReadOnly.
func (l *Ledger) ReadOnly() bool { return l.readOnly }

func (l *Ledger) now() time.Time {
	if l.Now == nil {
		return time.Now()
	}
	return l.Now()
}

// begin opens a write transaction (BEGIN IMMEDIATE through _txlock).
func (l *Ledger) begin(ctx context.Context) (*sqlx.Tx, error) {
	if l.readOnly {
		return nil, ErrReadOnly
	}
	return l.w.BeginTxx(ctx, nil)
}

// read opens a read transaction: one consistent snapshot.
func (l *Ledger) read(ctx context.Context) (*sqlx.Tx, error) {
	return l.r.BeginTxx(ctx, nil)
}
