package sqlite

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"vegas-desk/internal/ledger/core"

	"github.com/jmoiron/sqlx"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"vegas-desk/internal/platform"
)

// The SQLite engine: one file, schema.sql.

// ApplicationID marks a SQLite file as a vegas-desk back office's ledger
// ("VGDS"); a sealed counter ledger has its own (package counter).
const ApplicationID = 0x56474453

// Header reads the application id of the SQLite file at path from its
// header: 0 for a missing or empty file, or one whose header does not say
// yet (a new ledger whose first write is still in its WAL).
func Header(path string) (uint32, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("open ledger: %w", err)
	}
	defer f.Close()
	var hdr [100]byte
	if n, _ := io.ReadFull(f, hdr[:]); n < len(hdr) || !bytes.HasPrefix(hdr[:], []byte("SQLite format 3\x00")) {
		return 0, nil
	}
	return binary.BigEndian.Uint32(hdr[68:]), nil
}

// DSN builds a modernc.org/sqlite DSN: a file: URI whose pragmas every
// pooled connection runs when it opens.
func DSN(path string, params ...string) string {
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
// (and the schema check refuses any we did not make). The writer's
// synchronous is openWriter's (commit.go): no commit returns before it is
// on disk.
var commonPragmas = []string{
	"_pragma=busy_timeout(10000)",
	"_pragma=foreign_keys(ON)",
	"_pragma=trusted_schema(0)",
}

// Kind is a kind of ledger file: its application id and schema, and how a
// new one is made (nil: opening never makes one).
type Kind struct {
	AppID  uint32
	Schema *Schema
	// Create writes a new file's schema and meta rows, in tx.
	Create func(tx *sqlx.Tx) error
}

// File is an open ledger file: a writer, whose transactions (BEGIN
// IMMEDIATE) take turns and return from their commit once it is synced
// (commit.go), and a pool of query_only readers; a file opened read-only
// has readers only.
type File struct {
	Path     string
	W, R     *sqlx.DB
	ReadOnly bool
	group    *groupSync
}

// Open opens the ledger file of kind k at path, and makes a new one when
// the file is missing or empty and k says how: mode 0600, in a directory
// made 0700. A file that is not of kind k (core.ErrNotLedger), of another
// version (core.ErrTooNew, core.ErrTooOld), or whose schema holds anything the kind's
// does not (core.ErrNotLedger) is refused untouched. A file opened read-only
// may be a read-only file in a read-only directory.
func Open(path string, readOnly bool, k Kind) (f *File, err error) {
	defer func() { err = diskFailed(err) }()
	wal, err := precheck(path, k)
	if err != nil {
		return nil, err
	}
	_, statErr := os.Stat(path)
	if readOnly {
		if statErr != nil {
			return nil, fmt.Errorf("open ledger: %w", statErr)
		}
		return openReadOnly(path, k, wal)
	}
	if statErr == nil {
		// Before any write connection touches it (switching a file to WAL
		// is a write), an existing file must hold exactly our schema.
		if err := checkSchemaFile(path, k, true); err != nil {
			return nil, err
		}
	}
	if errors.Is(statErr, os.ErrNotExist) {
		if k.Create == nil {
			return nil, fmt.Errorf("open ledger: %w", statErr)
		}
		// A new ledger is for its owner's eyes: 0600 in a 0700 directory
		// (on Windows an access list for its owner alone, inherited by the
		// -wal and -shm files of a folder made here).
		if err := platform.MkdirAllOwnerOnly(filepath.Dir(path)); err != nil {
			return nil, fmt.Errorf("open ledger: %w", err)
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil && !errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("open ledger: %w", err)
		}
		if f != nil {
			f.Close()
			if err := platform.OwnerOnly(path); err != nil {
				os.Remove(path)
				return nil, fmt.Errorf("open ledger: %w", err)
			}
		}
	}
	w, group, err := openWriter(path, append([]string{"_txlock=immediate",
		// A new file gets 16 KiB pages, where five ~3 KiB pack rows fit
		// (one in 4 KiB); it must be set before the switch to WAL and is
		// ignored for an existing file. The driver runs the _pragma list in
		// lexicographic order and the _journal_mode key after it.
		"_pragma=page_size(16384)", "_journal_mode=WAL",
		// Bulk loads: a whole block's pages stay in memory until the commit.
		"_pragma=cache_size(-262144)"}, commonPragmas...))
	if err != nil {
		return nil, fmt.Errorf("open ledger %s: %w", path, err)
	}
	fail := func(err error) (*File, error) {
		w.Close()
		return nil, fmt.Errorf("open ledger %s: %w", path, err)
	}
	var mode string
	if err := w.Get(&mode, "PRAGMA journal_mode"); err != nil {
		return fail(Classify(err))
	}
	if mode != "wal" {
		return fail(fmt.Errorf("journal_mode is %q, want wal", mode))
	}
	if err := create(w, path, k); err != nil {
		return fail(err)
	}
	if err := checkSchema(context.Background(), w, path, k); err != nil {
		w.Close()
		return nil, err
	}
	r, err := sqlx.Open("sqlite", DSN(path, append([]string{"_pragma=query_only(1)"}, commonPragmas...)...))
	if err != nil {
		return fail(err)
	}
	r.SetMaxOpenConns(4)
	return &File{Path: path, W: w, R: r, group: group}, nil
}

// Close closes the file; a clean close checkpoints the WAL into it.
func (f *File) Close() error {
	var err error
	if f.R != nil {
		err = f.R.Close()
	}
	if f.W != nil {
		err = errors.Join(err, f.W.Close())
	}
	return err
}

// Meta reads the file's meta rows.
func (f *File) Meta(ctx context.Context) (map[string]string, error) {
	meta := map[string]string{}
	err := scanRows(ctx, f.R, "SELECT key, value FROM meta", func(rows *sql.Rows) error {
		var k, v string
		err := rows.Scan(&k, &v)
		meta[k] = v
		return err
	})
	if err != nil {
		return nil, Classify(err)
	}
	return meta, nil
}

// openReadOnly reads an existing ledger file, through one pool of
// connections whose first checks the file's version and schema. It works
// on a read-only file in a read-only directory too.
func openReadOnly(path string, k Kind, wal bool) (*File, error) {
	if wal && !walFiles(path) && !rawSchemaMatches(path, k) {
		// The first connection to a file in WAL mode makes its -wal and
		// -shm files: a file refused must be left without them, so it is
		// checked first, from its bytes when they say it is a ledger
		// (rawschema.go), else through an immutable connection, which
		// makes none.
		if err := checkSchemaFile(path, k, false); err != nil {
			return nil, err
		}
	}
	modes := [][]string{{"mode=ro"}}
	if st, err := os.Stat(path + "-wal"); err != nil || st.Size() == 0 {
		// Only when no write waits in a WAL: immutable=1 does not read it.
		modes = append(modes, []string{"mode=ro", "immutable=1"})
	}
	for _, extra := range modes {
		r, err := sqlx.Open(readDriver, DSN(path, append(extra, readPragmas...)...))
		if err != nil {
			return nil, fmt.Errorf("open ledger %s: %w", path, err)
		}
		r.SetMaxOpenConns(4)
		var v int
		if err = r.Get(&v, "PRAGMA user_version"); err == nil {
			if err := checkVersion(r, path, k, v); err != nil {
				r.Close()
				return nil, err
			}
			return &File{Path: path, R: r, ReadOnly: true}, nil
		}
		r.Close()
		// In a read-only directory the WAL index cannot be created:
		// read the file as immutable.
	}
	return nil, fmt.Errorf("open ledger %s read-only: cannot read it", path)
}

// readDriver is the driver of the connections that read a file opened
// read-only and check it: the tests count them (TestReadOnlyOpenConnections).
var readDriver = "sqlite"

// readPragmas run on every connection of a file opened read-only.
var readPragmas = []string{"_pragma=busy_timeout(10000)", "_pragma=trusted_schema(0)"}

// walFiles reports whether the -wal and -shm files of the file at path are
// there.
func walFiles(path string) bool {
	_, err1 := os.Stat(path + "-wal")
	_, err2 := os.Stat(path + "-shm")
	return err1 == nil && err2 == nil
}

// checkVersion refuses, on q, a file opened read-only whose version is v
// and is not this vegas-desk's, or whose schema is not k's: an empty one
// too, which holds no ledger to read.
func checkVersion(q core.Querier, path string, k Kind, v int) error {
	if v == 0 {
		var rows int
		if err := core.Get(context.Background(), q, &rows, "SELECT count(*) FROM sqlite_master"); err != nil {
			return fmt.Errorf("open ledger %s: %w", path, Classify(err))
		}
		if rows == 0 {
			return fmt.Errorf("%w: %s is empty; make a ledger there with vegas-desk --db %s generate, or give the ledger's file", core.ErrNoLedger, path, path)
		}
		return checkSchema(context.Background(), q, path, k) // refused: not a ledger
	}
	if err := versionCheck(path, v); err != nil {
		return err
	}
	return checkSchema(context.Background(), q, path, k)
}

// precheck refuses, without changing a byte, a file that is not a ledger or
// comes from another version. It reads the 100-byte header; when that is
// not conclusive (a ledger whose first write is still in the WAL) it asks
// SQLite through a read-only connection.
func precheck(path string, k Kind) (wal bool, err error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("open ledger: %w", err)
	}
	var hdr [100]byte
	n, err := io.ReadFull(f, hdr[:])
	st, serr := f.Stat()
	f.Close()
	if n == 0 {
		return false, nil // an empty file becomes a new ledger
	}
	// A ledger is in WAL mode and never has a rollback journal; one beside
	// it would be played into the file by the first write connection, after
	// the checks below read the file without it.
	if st, err := os.Stat(path + "-journal"); err == nil && st.Size() > 0 {
		return false, fmt.Errorf("%w: %s-journal is beside %s: a rollback journal, which vegas-desk never writes; both are refused and left untouched (move the journal away, or restore a copy of the ledger)", core.ErrNotLedger, path, path)
	}
	if err != nil || !bytes.HasPrefix(hdr[:], []byte("SQLite format 3\x00")) {
		return false, fmt.Errorf("%w: %s is not a SQLite file", core.ErrNotLedger, path)
	}
	// SQLite writes whole pages: a file cut inside one would read as an
	// empty database, which a read-write open would make a new ledger of.
	page := int64(binary.BigEndian.Uint16(hdr[16:]))
	if page == 1 {
		page = 65536
	}
	if serr == nil && page >= 512 && (st.Size() < page || st.Size()%page != 0) {
		return false, fmt.Errorf("%w: %s is %d bytes, not whole pages of %d: a SQLite file cut short or damaged; it is refused and left untouched (restore a copy)", core.ErrNotLedger, path, st.Size(), page)
	}
	wal = hdr[18] == 2 // the file format's read version: 2 is WAL
	version := int(binary.BigEndian.Uint32(hdr[60:]))
	app := binary.BigEndian.Uint32(hdr[68:])
	if app == k.AppID {
		if err := versionCheck(path, version); err != nil || version == core.SchemaVersion {
			return wal, err
		}
	}
	// Ask SQLite: the header may lag behind the WAL. Without a WAL to read,
	// through an immutable connection, which makes no -wal or -shm file
	// beside a file that is refused.
	mode := []string{"mode=ro"}
	if st, err := os.Stat(path + "-wal"); err != nil || st.Size() == 0 {
		mode = append(mode, "immutable=1")
	}
	db, err := sql.Open("sqlite", DSN(path, append(mode, "_pragma=busy_timeout(10000)", "_pragma=trusted_schema(0)")...))
	if err != nil {
		return wal, fmt.Errorf("open ledger: %w", err)
	}
	defer db.Close()
	var tables int
	if err := db.QueryRow("PRAGMA application_id").Scan(&app); err != nil {
		if errors.Is(Classify(err), core.ErrNotLedger) {
			return wal, fmt.Errorf("%w: %s is not a SQLite database", core.ErrNotLedger, path)
		}
		return wal, fmt.Errorf("open ledger %s: %w", path, err)
	}
	if err := db.QueryRow("PRAGMA user_version").Scan(&version); err != nil {
		return wal, fmt.Errorf("open ledger %s: %w", path, err)
	}
	if err := db.QueryRow("SELECT count(*) FROM sqlite_schema").Scan(&tables); err != nil {
		return wal, fmt.Errorf("open ledger %s: %w", path, err)
	}
	switch {
	case app == k.AppID:
		return wal, versionCheck(path, version)
	case app == 0 && version == 0 && tables == 0:
		return wal, nil // an empty database becomes a new ledger
	default:
		return wal, fmt.Errorf("%w: %s is another application's SQLite database (application_id %#x)", core.ErrNotLedger, path, app)
	}
}

// versionCheck refuses a ledger of another schema version.
func versionCheck(path string, version int) error {
	switch {
	case version > core.SchemaVersion:
		return fmt.Errorf("%w: %s has schema version %d, this vegas-desk knows up to %d; install a newer vegas-desk", core.ErrTooNew, path, version, core.SchemaVersion)
	case version == 1:
		return fmt.Errorf("%w: %s has schema version 1, a development format whose 6-digit secret parts are too short to protect unsold tickets; keep it for the record with the vegas-desk that made it, and generate new blocks in a new ledger", core.ErrTooOld, path)
	case version > 1 && version < core.SchemaVersion:
		return fmt.Errorf("%w: %s has schema version %d, made by an earlier vegas-desk; this one upgrades it in place: vegas-desk --db %s upgrade (it says what it changes, backs the file up, then upgrades it in one transaction)", core.ErrNeedsUpgrade, path, version, path)
	}
	return nil
}

// Classify maps SQLite's result codes to the ledger's errors: "not a
// database" (SQLITE_NOTADB) is core.ErrNotLedger.
func Classify(err error) error {
	var se *sqlite.Error
	if errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_NOTADB {
		return fmt.Errorf("%w: %w", core.ErrNotLedger, err)
	}
	return diskFailed(err)
}

// diskFailed is err marked core.ErrNotDurable, with what to do, when it is
// SQLite's I/O error (a read, write or sync the disk failed: SQLITE_IOERR
// and its extended codes); else err.
func diskFailed(err error) error {
	var se *sqlite.Error
	if errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_IOERR && !errors.Is(err, core.ErrNotDurable) {
		return fmt.Errorf("%w: %w: check the disk (dmesg, its free space), then open the ledger again", core.ErrNotDurable, err)
	}
	return err
}

// create makes a new file a ledger of kind k: its schema and meta rows
// (k.Create), the application id and version, in one BEGIN IMMEDIATE
// transaction that reads the version again. An existing ledger is left
// alone.
func create(w *sqlx.DB, path string, k Kind) error {
	var v int
	if err := w.Get(&v, "PRAGMA user_version"); err != nil {
		return Classify(err)
	}
	if v != 0 {
		return versionCheck(path, v)
	}
	if k.Create == nil {
		return fmt.Errorf("%w: %s holds no ledger", core.ErrNotLedger, path)
	}
	tx, err := w.Beginx()
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
	if err := k.Create(tx); err != nil {
		return err
	}
	if _, err := tx.Exec(fmt.Sprintf("PRAGMA application_id = %d; PRAGMA user_version = %d", k.AppID, core.SchemaVersion)); err != nil {
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

// masterRows are the rows of masterQuery on q. Every open reads them, and
// Meta's rows: each is scanned field by field, as sqlx's scan of a struct
// builds the struct's map of fields by reflection first, once a type and
// process (issue 38: the two were 1.5 % of a lookup process's
// instructions).
func masterRows(ctx context.Context, q core.Querier) ([]masterRow, error) {
	var got []masterRow
	err := scanRows(ctx, q, masterQuery, func(rows *sql.Rows) error {
		var r masterRow
		err := rows.Scan(&r.Type, &r.Name, &r.TblName, &r.SQL)
		got = append(got, r)
		return err
	})
	return got, err
}

// scanRows runs query on q and gives each row to scan.
func scanRows(ctx context.Context, q core.Querier, query string, scan func(*sql.Rows) error) error {
	rows, err := core.Query(ctx, q, query)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// Schema is a kind of file's schema: its SQL, the digest of sqlite_master
// as it makes it (masterDigest), and those rows, computed once when needed.
type Schema struct {
	// SQL makes the schema's text (when first asked: sync.OnceValue).
	SQL func() string
	// Digest is what a file's schema is checked against, without making
	// the schema in memory (a third of a lookup process's time): that is
	// done only to name what differs. TestSchemaDigests keeps it true.
	Digest string
	once   sync.Once
	master []masterRow
	err    error
}

// NewSchema is the schema that sql makes, whose sqlite_master has digest.
func NewSchema(sql func() string, digest string) *Schema { return &Schema{SQL: sql, Digest: digest} }

// masterDigest is the SHA-256 of rows, sqlite_master in masterQuery's
// order: of each row, each field's length then its bytes (a NULL sql, the
// length 2^32).
func masterDigest(rows []masterRow) string {
	h := sha256.New()
	var buf []byte
	for _, r := range rows {
		buf = buf[:0]
		for _, f := range []string{r.Type, r.Name, r.TblName} {
			buf = binary.BigEndian.AppendUint64(buf, uint64(len(f)))
			buf = append(buf, f...)
		}
		if !r.SQL.Valid {
			buf = binary.BigEndian.AppendUint64(buf, 1<<32)
		} else {
			buf = binary.BigEndian.AppendUint64(buf, uint64(len(r.SQL.String)))
			buf = append(buf, r.SQL.String...)
		}
		h.Write(buf)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// ExpectedDigest is masterDigest of sqlite_master as the schema's SQL
// makes it, in a database in memory.
func (s *Schema) ExpectedDigest() (string, error) {
	rows, err := s.expected()
	return masterDigest(rows), err
}

// expected is sqlite_master as the schema makes it, in a database in
// memory.
func (s *Schema) expected() ([]masterRow, error) {
	s.once.Do(func() {
		db, err := sqlx.Open("sqlite", "file:expected?mode=memory")
		if err != nil {
			s.err = err
			return
		}
		defer db.Close()
		if _, err := db.Exec(s.SQL()); err != nil {
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
func checkSchemaFile(path string, k Kind, quick bool) error {
	mode := []string{"mode=ro"}
	if st, err := os.Stat(path + "-wal"); err != nil || st.Size() == 0 {
		// Nothing waits in a WAL: read the file as immutable, which makes
		// no -wal or -shm file beside it.
		mode = append(mode, "immutable=1")
	}
	db, err := sqlx.Open(readDriver, DSN(path, append(mode, "_pragma=busy_timeout(10000)", "_pragma=trusted_schema(0)")...))
	if err != nil {
		return fmt.Errorf("open ledger: %w", err)
	}
	defer db.Close()
	var v int
	if err := db.Get(&v, "PRAGMA user_version"); err != nil {
		return fmt.Errorf("open ledger %s: %w", path, Classify(err))
	}
	if v == 0 {
		// An empty database becomes a new ledger; one that holds anything
		// is checked (and refused) here, before a write connection switches
		// it to WAL.
		var rows int
		if err := db.Get(&rows, "SELECT count(*) FROM sqlite_master"); err != nil {
			return fmt.Errorf("open ledger %s: %w", path, Classify(err))
		}
		if rows == 0 {
			return nil
		}
	}
	if err := checkSchema(context.Background(), db, path, k); err != nil || !quick {
		return err
	}
	var problems []string
	if err := db.Select(&problems, "PRAGMA quick_check(5)"); err != nil {
		return fmt.Errorf("open ledger %s: %w", path, Classify(err))
	}
	if len(problems) != 1 || problems[0] != "ok" {
		return fmt.Errorf("%w: %s is damaged (SQLite's quick_check: %s): it is refused and left untouched (restore a copy)", core.ErrNotLedger, path, strings.Join(problems, "; "))
	}
	return nil
}

// checkSchema refuses a ledger whose schema is not exactly what schema.sql
// (or counter.sql, for a sealed counter ledger) makes: an extra trigger
// (which could rewrite a payment as it is written), view, table or index,
// a changed definition, or a row of sqlite_master twice.
func checkSchema(ctx context.Context, q core.Querier, path string, k Kind) error {
	var app uint32
	if err := core.Get(ctx, q, &app, "PRAGMA application_id"); err != nil {
		return fmt.Errorf("open ledger %s: %w", path, Classify(err))
	}
	if app != k.AppID {
		return fmt.Errorf("%w: %s is another kind of SQLite file (application_id %#x)", core.ErrNotLedger, path, app)
	}
	got, err := masterRows(ctx, q)
	if err != nil {
		return fmt.Errorf("open ledger %s: %w", path, Classify(err))
	}
	if masterDigest(got) == k.Schema.Digest {
		return nil
	}
	// Not the schema: make it in memory, and name what differs.
	want, err := k.Schema.expected()
	if err != nil {
		return fmt.Errorf("open ledger: the expected schema: %w", err)
	}
	if len(got) != len(want) {
		// The same rows twice (sqlite_master written by hand, say a second
		// index row with another root page) pass the comparison of sets.
		return fmt.Errorf("%w: %s has %d schema rows, a vegas-desk ledger %d: the file was altered; it is refused and left untouched (restore a copy, or ask who changed it)", core.ErrNotLedger, path, len(got), len(want))
	}
	wantSet := map[string]bool{}
	for _, r := range want {
		wantSet[r.String()] = true
	}
	gotSet := map[string]bool{}
	for _, r := range got {
		gotSet[r.String()] = true
		if !wantSet[r.String()] {
			return fmt.Errorf("%w: %s holds a %s %q that no vegas-desk ledger has: the file was altered; it is refused and left untouched (restore a copy, or ask who changed it)", core.ErrNotLedger, path, r.Type, r.Name)
		}
	}
	for _, r := range want {
		if !gotSet[r.String()] {
			return fmt.Errorf("%w: %s lacks the %s %q of a vegas-desk ledger, or it was changed: the file was altered; it is refused and left untouched", core.ErrNotLedger, path, r.Type, r.Name)
		}
	}
	return nil
}
