// Package postgres is the ledger in a PostgreSQL database (postgres.sql):
// the back office's login reads and writes its tables (backoffice.Store),
// and decides its questions, and a validation server's (vegas-desk serve,
// on the same login), in Go with core's rule (question.go); its Go
// sequencer chains the journal (chain.go). Counters hold no
// login: they ask a server.
package postgres

import (
	"context"
	_ "embed"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
	"vegas-desk/internal/ledger/backoffice"
	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/ledger/tables"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
	"github.com/jmoiron/sqlx"
)

// The PostgreSQL engine's schema: the tables, their indexes and the
// append-only triggers; the tables declared once for every engine
// (internal/ledger/tables) written in.
var postgresSQL = sync.OnceValue(func() string { return tables.Shared.Expand(postgresText) })

//go:embed postgres.sql
var postgresText string

// SchemaVersion is the version of a shared ledger's schema, its meta row
// 'schema': 3 since its journal is recorded, then chained; 4 since a
// desk's request ids are asked one at a time (vegas.requests); 5 since a
// winner's identity is the rule of core's identity.go and a locked-out
// desk is answered locked before its request id is replayed (issue 23);
// 6 since counters' logins and their PL/pgSQL are retired (issue 22):
// counters ask a validation server, the rule runs in Go only, and the
// schema is storage and the append-only triggers; 7 since a desk keeps
// its lock-out's count (desks.guesses) and no index of the journal by
// kind and time is kept (issue 28). An earlier database
// holds logins and functions that this version neither makes nor keeps
// in line with the rule; version 5 and later are upgraded in place
// (Steps), earlier ones are refused, with how to copy them (through a
// file) into a new one. 7 also since a desk accepts the certificates
// listed in vegas.desk_certs only (issue 29). 8 since a question's paid
// row is written once, naming its payment by its record (-seq) for good
// (issue 28). The SQLite file's is core.SchemaVersion.
const SchemaVersion = 8

// pgConfig prepares a PostgreSQL URL for the driver: the ledger's tables are
// found in the schema "vegas", and a server that does not answer is given
// up after 5 seconds (the counter then says REGISTRE INJOIGNABLE). A
// password comes from the URL, PGPASSWORD or ~/.pgpass, as libpq does;
// vegas-desk never stores one.
func pgConfig(location string) (dsn, shown, dbname string, err error) {
	u, err := url.Parse(location)
	if err != nil {
		return "", "", "", fmt.Errorf("ledger URL %q: %w", redact(location), err)
	}
	dbname = strings.TrimPrefix(u.Path, "/")
	if dbname == "" {
		return "", "", "", fmt.Errorf("ledger URL %s names no database: write postgres://user@host/DATABASE", redact(location))
	}
	q := u.Query()
	q.Set("search_path", "vegas")
	if q.Get("connect_timeout") == "" {
		q.Set("connect_timeout", "5")
	}
	u.RawQuery = q.Encode()
	return u.String(), redact(location), dbname, nil
}

// redact removes the password of a URL, for messages and screens.
func redact(location string) string {
	u, err := url.Parse(location)
	if err != nil || u.User == nil {
		return location
	}
	if _, has := u.User.Password(); has {
		u.User = url.User(u.User.Username())
	}
	return u.String()
}

// Open opens the ledger in the database at location (a postgres:// URL),
// and installs the schema in an empty database, as its owner. now gives
// the time of what the back office writes (a zero time: the server's).
func Open(location string, readOnly bool, c backoffice.Creation, now func() time.Time) (core.Backend, error) {
	dsn, shown, dbname, err := pgConfig(location)
	if err != nil {
		return nil, err
	}
	db, err := sqlx.Open("pgx", dsn)
	if err != nil {
		return nil, fmt.Errorf("open ledger %s: %w", shown, err)
	}
	db.SetMaxOpenConns(backOfficeConns)
	db.SetMaxIdleConns(idleConns)
	db.SetConnMaxIdleTime(5 * time.Minute)
	var px *pgxpool.Pool
	fail := func(err error) (core.Backend, error) {
		db.Close()
		if px != nil {
			px.Close()
		}
		return nil, fmt.Errorf("open ledger %s: %w", shown, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var enc string
	if err := db.GetContext(ctx, &enc, "SHOW server_encoding"); err != nil {
		return fail(Classify(err))
	}
	if enc != "UTF8" {
		return fail(fmt.Errorf("%w: database %s has encoding %s; a ledger needs UTF8 (CREATE DATABASE … ENCODING 'UTF8')", core.ErrNotLedger, dbname, enc))
	}
	var schema *string
	if err := db.GetContext(ctx, &schema, "SELECT to_regnamespace('vegas')::text"); err != nil {
		return fail(Classify(err))
	}
	if schema != nil && c.Meta != nil {
		return fail(fmt.Errorf("database %s holds a ledger already: a copy goes to an empty database", dbname))
	}
	if schema == nil {
		if readOnly {
			return fail(fmt.Errorf("%w: database %s holds no vegas-desk ledger; the back office creates one with vegas-desk --db URL generate", core.ErrNoLedger, dbname))
		}
		if err := create(ctx, db, dbname, c, now); err != nil {
			return fail(err)
		}
	}
	fl, err := newFlusher(dsn)
	if err != nil {
		return fail(err)
	}
	pcfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return fail(err)
	}
	pcfg.MaxConns = backOfficeConns
	warned := &sync.Map{}
	pcfg.ConnConfig.OnNotice = func(c *pgconn.PgConn, n *pgconn.Notice) {
		if n.SeverityUnlocalized == "WARNING" || n.SeverityUnlocalized == "ERROR" || n.SeverityUnlocalized == "FATAL" {
			warned.Store(c, n)
		}
	}
	// A question's commit that chains waits for the disk (writeOutcome):
	// at least on, as the flusher's, and kept so for the session, a reload
	// of the configuration notwithstanding (flush.go).
	pcfg.AfterConnect = pinSynchronousCommit
	px, err = pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		return fail(err)
	}
	p := pool{db, backOfficeConns, fl, px, warned}
	var version string
	if err := db.GetContext(ctx, &version, "SELECT value FROM meta WHERE key = 'schema'"); err != nil {
		return fail(Classify(err))
	}
	switch v, _ := strconv.Atoi(version); {
	case v > SchemaVersion:
		return fail(fmt.Errorf("%w: database %s has schema version %s, this vegas-desk knows up to %d; install a newer vegas-desk", core.ErrTooNew, dbname, version, SchemaVersion))
	case v < SchemaVersion:
		if _, err := core.Plan(Steps, v, SchemaVersion); err != nil {
			return fail(tooOld(dbname, version))
		}
		return fail(fmt.Errorf("%w: database %s has schema version %s, made by an earlier vegas-desk; this one upgrades it in place: vegas-desk --db URL upgrade (it says what it changes, backs the database up with pg_dump, then upgrades it in one transaction)", core.ErrNeedsUpgrade, dbname, version))
	}
	var meta []struct {
		Key   string `db:"key"`
		Value string `db:"value"`
	}
	if err := db.SelectContext(ctx, &meta, "SELECT key, value FROM meta"); err != nil {
		return fail(Classify(err))
	}
	db.SetMaxIdleConns(p.idle)
	b := &Backend{db: p, seq: &sequencer{db: p}}
	b.Store = &backoffice.Store{E: engine{p}, Location: shown, ReadOnly: readOnly, Shared: true, Now: now}
	for _, m := range meta {
		switch m.Key {
		case "id":
			b.ID = m.Value
		case "demo":
			b.Demo = m.Value == "1"
		}
	}
	if b.ID == "" {
		return fail(fmt.Errorf("%w: database %s has no ledger id", core.ErrNotLedger, dbname))
	}
	// The flusher's connection, made again after one was lost, may reach
	// another primary (a failover): what this process's own chains gave
	// their entries, kept by the sequencer, may not be there, and a record
	// there may have the number of one of them.
	fl.reconnected = b.seq.forget
	// Made now, read-only too (a lookup's "paid here" waits for a flush):
	// a flush vouches only for what was committed while its connection
	// was open (flush.go). Not made, the first flush makes it.
	fl.connect(ctx)
	// The journal's end, after which a question alone chains its entry
	// directly (direct.go); not read, the first question reads it.
	b.readEnd(ctx)
	return b, nil
}

// create installs the schema in an empty database, as its owner, in one
// transaction.
func create(ctx context.Context, db *sqlx.DB, dbname string, c backoffice.Creation, now func() time.Time) error {
	if strings.ContainsAny(dbname, `"'\`) {
		return fmt.Errorf("database name %q: use letters, digits and _", dbname)
	}
	tx, err := db.BeginTxx(ctx, nil)
	if err != nil {
		return Classify(err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, postgresSQL()); err != nil {
		return fmt.Errorf("create the ledger's schema (connect as the database's owner): %w", Classify(err))
	}
	// Nobody but the owner (and a superuser) connects to the ledger's
	// database (a new database lets PUBLIC connect).
	if _, err := tx.ExecContext(ctx, fmt.Sprintf(`REVOKE ALL ON DATABASE %q FROM PUBLIC`, dbname)); err != nil {
		return fmt.Errorf("create the ledger's schema: %w", Classify(err))
	}
	at := time.Now()
	if t := now(); !t.IsZero() {
		at = t
	}
	rows := append(c.Rows(at), [2]string{"schema", fmt.Sprint(SchemaVersion)})
	for _, m := range rows {
		if _, err := tx.ExecContext(ctx, "INSERT INTO vegas.meta (key, value) VALUES ($1, $2)", m[0], m[1]); err != nil {
			return err
		}
	}
	return Classify(tx.Commit())
}
