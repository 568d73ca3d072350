// Package postgres is the ledger in a PostgreSQL database that a pilot's
// back office and its counters share (postgres.sql): the back office's
// login reads and writes its tables (backoffice.Store), and each counter's
// login may only call the functions granted to the counters, which decide
// its claims inside the database with core's rule (Constants) and take its
// desk and payout limit from its login.
package postgres

import (
	"context"
	"database/sql/driver"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
	"vegas-desk/internal/ledger/backoffice"
	"vegas-desk/internal/ledger/core"

	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
	"github.com/jmoiron/sqlx"
)

// The PostgreSQL engine: a database shared by the back office and the
// counters: postgres.sql (the tables, the chain, the rule's helpers), then
// counters.sql (what counters' calls share) and questions.sql (their
// questions, and what they may call).

//go:embed postgres.sql
var postgresSQL string

//go:embed counters.sql
var countersSQL string

//go:embed questions.sql
var questionsSQL string

// SchemaVersion is the version of a shared ledger's schema, its meta row
// 'schema': 3 since its journal is recorded, then chained; 4 since a
// desk's request ids are asked one at a time (vegas.requests) and the
// chainer ends counters' transactions kept open (vegas.reap); 5 since a
// winner's identity is the rule of core's identity.go (vegas.identity_of)
// and a locked-out desk is answered locked before its request id is
// replayed (issue 23: an earlier database's functions still pay an
// invisible identity and answer the lock-out's oracle). The SQLite
// file's is core.SchemaVersion. An earlier one is refused.
const SchemaVersion = 5

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
// the time of what the back office writes (a zero time: the server's). The
// backend is the back office's (*Backend) or, for a counter's login, the
// counter's (*Counter).
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
	fail := func(err error) (core.Backend, error) {
		db.Close()
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
	var who struct {
		Desk    string `db:"desk"`
		Counter bool   `db:"counter"`
		Limit   *int   `db:"payout_limit"`
	}
	if err := db.GetContext(ctx, &who, "SELECT desk, counter, payout_limit FROM vegas.whoami()"); err != nil {
		return fail(Classify(err))
	}
	p := pool{db, idleConns}
	if who.Counter {
		limit := core.Limit(0)
		if who.Limit != nil {
			limit = core.LimitOf(*who.Limit)
		}
		return &Counter{db: p, location: shown, desk: who.Desk, limit: limit, readOnly: readOnly}, nil
	}
	var version string
	if err := db.GetContext(ctx, &version, "SELECT value FROM meta WHERE key = 'schema'"); err != nil {
		return fail(Classify(err))
	}
	switch v, _ := strconv.Atoi(version); {
	case v > SchemaVersion:
		return fail(fmt.Errorf("%w: database %s has schema version %s, this vegas-desk knows up to %d; install a newer vegas-desk", core.ErrTooNew, dbname, version, SchemaVersion))
	case v < SchemaVersion:
		return fail(fmt.Errorf("%w: database %s has schema version %s, made by an earlier vegas-desk whose counters' functions this one does not call: copy it to a file with that vegas-desk (vegas-desk --db URL copy URL FILE), then into a new database with this one", core.ErrTooOld, dbname, version))
	}
	var meta []struct {
		Key   string `db:"key"`
		Value string `db:"value"`
	}
	if err := db.SelectContext(ctx, &meta, "SELECT key, value FROM meta"); err != nil {
		return fail(Classify(err))
	}
	p.idle = backOfficeConns
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
	return b, nil
}

// create installs the schema in an empty database, as its owner, in one
// transaction.
func create(ctx context.Context, db *sqlx.DB, dbname string, c backoffice.Creation, now func() time.Time) error {
	if strings.ContainsAny(dbname, `"'\`) || len("vd_"+dbname+"_counters") > 63 {
		return fmt.Errorf("database name %q: use letters, digits and _ (at most 50)", dbname)
	}
	tx, err := db.BeginTxx(ctx, nil)
	if err != nil {
		return Classify(err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, Schema(dbname)); err != nil {
		return fmt.Errorf("create the ledger's schema (connect as the database's owner, with CREATEROLE): %w", Classify(err))
	}
	if err := revokePublicFunctions(ctx, tx); err != nil {
		return Classify(err)
	}
	at := time.Now()
	if t := now(); !t.IsZero() {
		at = t
	}
	rows := append(c.Rows(at), [2]string{"schema", fmt.Sprint(SchemaVersion)}, [2]string{"counters", counterGroup(dbname)})
	for _, m := range rows {
		if _, err := tx.ExecContext(ctx, "INSERT INTO vegas.meta (key, value) VALUES ($1, $2)", m[0], m[1]); err != nil {
			return err
		}
	}
	return Classify(tx.Commit())
}

// counterGroup is the group role of the counters of a ledger made in
// database dbname; the ledger's meta row 'counters' names it (a copy made
// with CREATE DATABASE … TEMPLATE keeps its template's).
func counterGroup(dbname string) string { return "vd_" + dbname + "_counters" }

// Classify maps PostgreSQL's errors to the ledger's: a server that
// cannot be reached, or a connection lost, is core.ErrUnreachable; the
// functions' own refusals (SQLSTATE class VD) keep their message.
func Classify(err error) error {
	if err == nil {
		return nil
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case pe.Code == "VD001":
			return fmt.Errorf("%w: %s", core.ErrDeskMismatch, pe.Message)
		case pe.Code == "VD002":
			return fmt.Errorf("%w: %s", core.ErrDeskDisabled, pe.Message)
		case pe.Code == "VD007":
			return fmt.Errorf("%w: %s", core.ErrPackMove, pe.Message)
		case pe.Code == "VD012":
			return fmt.Errorf("%w: %s", core.ErrRequestReused, pe.Message)
		case pe.Code == "VD008":
			return fmt.Errorf("%s: %w", pe.Message, core.ErrNotFound)
		case strings.HasPrefix(pe.Code, "VD"):
			return errors.New(pe.Message)
		case pe.Code == "28000" && strings.Contains(pe.Message, "not permitted to log in"): // desks disable: NOLOGIN
			return fmt.Errorf("%w: this counter's login is disabled; ask the back office (%s)", core.ErrDeskDisabled, pe.Message)
		case pe.Code == "28P01" || pe.Code == "28000": // invalid password; invalid authorization
			return fmt.Errorf("%w: %s", core.ErrPassword, pe.Message)
		case pe.Code == "42501": // insufficient_privilege
			return fmt.Errorf("%w: %s", core.ErrCounterOnly, pe.Message)
		case strings.HasPrefix(pe.Code, "08"), pe.Code == "57P01", pe.Code == "57P02", pe.Code == "57P03":
			// connection exceptions; admin or crash shutdown; cannot connect now
			return fmt.Errorf("%w: %s", core.ErrUnreachable, pe.Message)
		}
		return err
	}
	var ne net.Error
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) || errors.As(err, &ne) || errors.Is(err, driver.ErrBadConn) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || pgconn.SafeToRetry(err) ||
		strings.Contains(err.Error(), "conn closed") {
		return fmt.Errorf("%w: %w", core.ErrUnreachable, err)
	}
	return err
}
