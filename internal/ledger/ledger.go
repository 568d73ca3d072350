package ledger

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
)

// SchemaVersion is the schema version of a ledger of this build, on both
// engines (SQLite's user_version, PostgreSQL's meta 'schema').
const SchemaVersion = 2

// timeFormat stores times in UTC with a fixed width, so that text order is
// time order. PostgreSQL writes microseconds and three zeros.
const timeFormat = "2006-01-02T15:04:05.000000000Z"

func formatTime(t time.Time) string { return t.UTC().Format(timeFormat) }

func parseTime(s string) time.Time {
	t, err := time.Parse(timeFormat, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

// engine is the database a ledger lives in.
type engine int

const (
	sqliteEngine engine = iota
	postgresEngine
)

// Ledger is an open ledger: a SQLite file or a PostgreSQL database. Its
// methods are safe for concurrent use.
type Ledger struct {
	// Now gives the time of the entries this process writes; nil is the
	// current time, which on PostgreSQL is the server's (so that the
	// journal's times follow one clock). Tests set it.
	Now func() time.Time

	location string // the path, or the URL without its password
	eng      engine
	readOnly bool
	w        *sqlx.DB // writes: SQLite's one writer connection; PostgreSQL's pool
	r        *sqlx.DB // reads: SQLite's query_only pool; PostgreSQL's pool (= w)
	// desk is the desk of a PostgreSQL counter's login; "" for the back
	// office (the owner), and on SQLite.
	desk  string
	limit int // the payout limit of the counter's login, in euros
	id    string
	demo  bool
	// counter is what a sealed counter ledger is (counter.go); nil for the
	// back office's ledger.
	counter *counterInfo
}

// querier is what the helpers read and write through: a database or a
// transaction. Queries are written with ? and rebound for the engine.
type querier interface {
	sqlx.QueryerContext
	sqlx.ExecerContext
	Rebind(string) string
}

func get(ctx context.Context, q querier, dest any, query string, args ...any) error {
	return onPool(q, func() error { return sqlx.GetContext(ctx, q, dest, q.Rebind(query), args...) })
}

func sel(ctx context.Context, q querier, dest any, query string, args ...any) error {
	return onPool(q, func() error { return sqlx.SelectContext(ctx, q, dest, q.Rebind(query), args...) })
}

// onPool runs f, and once more when f ran straight on a PostgreSQL pool
// (not in a transaction) and lost its connection: after a server restart,
// the pool's first use of an old connection fails. What runs on the pool
// is a read or a counter's function, which a retry does not harm (a claim
// carries its request id).
func onPool(q querier, f func() error) error {
	err := f()
	if db, ok := q.(*sqlx.DB); ok && err != nil && db.DriverName() == "pgx" && errors.Is(classifyPostgres(err), ErrUnreachable) {
		err = f()
	}
	return err
}

func execute(ctx context.Context, q querier, query string, args ...any) (sql.Result, error) {
	return q.ExecContext(ctx, q.Rebind(query), args...)
}

func queryRows(ctx context.Context, q querier, query string, args ...any) (*sql.Rows, error) {
	return q.QueryContext(ctx, q.Rebind(query), args...)
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

// IsURL reports whether location names a PostgreSQL database rather than a
// file.
func IsURL(location string) bool {
	return strings.HasPrefix(location, "postgres://") || strings.HasPrefix(location, "postgresql://")
}

// Open opens the ledger at location, a PostgreSQL URL (postgres:// or
// postgresql://) or a file path, and creates it when there is none: a new
// SQLite file (mode 0600, in a directory made 0700), or the schema in an
// empty PostgreSQL database (as its owner). A file that is not a vegas-desk
// ledger (ErrNotLedger) or comes from another version (ErrTooNew,
// ErrTooOld) is refused untouched; so is a file whose schema holds anything
// a ledger of its version does not (ErrNotLedger).
func Open(location string) (*Ledger, error) { return open(location, false, creation{}) }

// OpenReadOnly opens an existing ledger for lookups, checks, reports,
// exports and verification; every write answers ErrReadOnly and refused
// lookups are not recorded. A SQLite ledger may be a read-only file in a
// read-only directory.
func OpenReadOnly(location string) (*Ledger, error) { return open(location, true, creation{}) }

// CreateDemo opens the demonstration ledger at location, creating it
// marked as such. An existing ledger that is not one is refused: a
// demonstration ledger is a new one.
func CreateDemo(location string) (*Ledger, error) {
	l, err := open(location, false, creation{demo: true})
	if err != nil {
		return nil, err
	}
	if !l.demo {
		l.Close()
		return nil, fmt.Errorf("%s holds a ledger that is not a demonstration ledger; a demonstration needs a new file: %w", l.location, ErrNotDemo)
	}
	return l, nil
}

// creation says what a ledger created by open is.
type creation struct {
	demo bool
	// meta, when not nil, are the meta rows of the new ledger (a copy's:
	// its source's), and a ledger that exists already is refused.
	meta [][2]string
}

// rows are the meta rows of the new ledger.
func (c creation) rows(at time.Time) [][2]string {
	if c.meta != nil {
		return c.meta
	}
	d := "0"
	if c.demo {
		d = "1"
	}
	return [][2]string{{"id", newLedgerID()}, {"kind", "back-office"}, {"demo", d}, {"created_at", formatTime(at)}}
}

func open(location string, readOnly bool, c creation) (*Ledger, error) {
	if location == "" {
		return nil, errors.New("open ledger: no file name or URL given")
	}
	if IsURL(location) {
		return openPostgres(location, readOnly, c)
	}
	return openSQLite(location, readOnly, c)
}

// newLedgerID names a new ledger: 128 random bits in hex.
func newLedgerID() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// readMeta loads what the ledger is.
func (l *Ledger) readMeta(ctx context.Context) error {
	var rows []struct {
		Key   string `db:"key"`
		Value string `db:"value"`
	}
	if err := sel(ctx, l.r, &rows, "SELECT key, value FROM meta"); err != nil {
		return err
	}
	meta := map[string]string{}
	for _, r := range rows {
		meta[r.Key] = r.Value
		switch r.Key {
		case "id":
			l.id = r.Value
		case "demo":
			l.demo = r.Value == "1"
		}
	}
	if l.id == "" {
		return fmt.Errorf("%w: %s has no ledger id", ErrNotLedger, l.location)
	}
	return l.readCounterMeta(meta)
}

// Close closes the ledger.
func (l *Ledger) Close() error {
	var err error
	if l.r != nil && l.r != l.w {
		err = l.r.Close()
	}
	if l.w != nil {
		// A clean close checkpoints SQLite's WAL into the file.
		err = errors.Join(err, l.w.Close())
	}
	return err
}

// Location returns the ledger's file path, or its URL without password.
func (l *Ledger) Location() string { return l.location }

// Path is Location, for the screens that name a ledger file.
func (l *Ledger) Path() string { return l.location }

// Shared reports whether the ledger is a PostgreSQL database that several
// counters use.
func (l *Ledger) Shared() bool { return l.eng == postgresEngine }

// ID returns the ledger's id, which its copies keep.
func (l *Ledger) ID() string { return l.id }

// Demo reports whether this is a demonstration ledger (made by the app's
// first run or generate --demo), whose unpaid winners may be listed.
func (l *Ledger) Demo() bool { return l.demo }

// CounterDesk returns the desk of a counter's login on a shared ledger or
// of a sealed counter ledger, and "" for the back office.
func (l *Ledger) CounterDesk() string {
	if l.counter != nil {
		return l.counter.desk
	}
	return l.desk
}

// CounterLimit returns the payout limit of a counter's login on a shared
// ledger, which the database enforces, in euros (0 for the back office).
func (l *Ledger) CounterLimit() int {
	if l.counter != nil {
		return l.counter.limit
	}
	return l.limit
}

// Ping says whether the ledger answers: on a shared ledger, whether its
// server can be reached (ErrUnreachable otherwise).
func (l *Ledger) Ping(ctx context.Context) error { return l.classify(l.r.PingContext(ctx)) }

// ReadOnly reports whether the ledger was opened with OpenReadOnly.
func (l *Ledger) ReadOnly() bool { return l.readOnly }

func (l *Ledger) now() time.Time {
	if l.Now == nil {
		return time.Now()
	}
	return l.Now()
}

// backOffice refuses what a counter's login may not do, before the
// database would.
func (l *Ledger) backOffice(what string) error {
	if l.desk != "" {
		return fmt.Errorf("%s: %w: this login is counter %s's; the back office's login does this", what, ErrCounterOnly, l.desk)
	}
	if l.counter != nil {
		return fmt.Errorf("%s: %w: %s is the sealed ledger of counter %s, which holds no prize in clear; do it on the back office's ledger", what, ErrCounterOnly, l.location, l.counter.desk)
	}
	return nil
}

// begin opens a write transaction: BEGIN IMMEDIATE on SQLite (through
// _txlock), and on PostgreSQL a transaction that holds the journal's lock,
// so that whatever it appends stays one line.
func (l *Ledger) begin(ctx context.Context) (*sqlx.Tx, error) {
	if l.readOnly {
		return nil, ErrReadOnly
	}
	var tx *sqlx.Tx
	err := onPool(l.w, func() (err error) { tx, err = l.w.BeginTxx(ctx, nil); return err })
	if err != nil {
		return nil, l.classify(err)
	}
	if l.eng == postgresEngine {
		if _, err := tx.ExecContext(ctx, "LOCK TABLE vegas.journal IN SHARE ROW EXCLUSIVE MODE"); err != nil {
			tx.Rollback()
			return nil, l.classify(err)
		}
	}
	return tx, nil
}

// read opens a read transaction: one consistent snapshot.
func (l *Ledger) read(ctx context.Context) (*sqlx.Tx, error) {
	var opts *sql.TxOptions
	if l.eng == postgresEngine {
		opts = &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}
	}
	var tx *sqlx.Tx
	err := onPool(l.r, func() (err error) { tx, err = l.r.BeginTxx(ctx, opts); return err })
	return tx, l.classify(err)
}

// classify maps the engine's errors to the ledger's: a lost or refused
// connection to ErrUnreachable, and so on.
func (l *Ledger) classify(err error) error {
	if err == nil {
		return nil
	}
	if l.eng == postgresEngine {
		return classifyPostgres(err)
	}
	return classifySQLite(err)
}
