// Package sqlite is the back office's ledger in one SQLite file (schema.sql),
// and the mechanics of a ledger file that a sealed counter ledger shares:
// opening and checking it (its exact schema, its storage classes), and
// appending to its journal in Go. A SQLite back office decides its claims
// in Go, with core's rule, in the file's one write transaction.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jmoiron/sqlx"

	vegasdesk "vegas-desk"
	"vegas-desk/internal/ledger/backoffice"
	"vegas-desk/internal/ledger/core"
)

// SchemaDigest is the digest of sqlite_master in a back office's file
// (Schema.Digest). A change of schema.sql changes it: TestSchemaDigests
// prints the new one.
const SchemaDigest = "f8a3641c1597c7029f7b918934bdc5caf651b70afa304e024f24b93a24d40a8f"

// LedgerSchema is a back office's file's schema (schema.sql).
var LedgerSchema = NewSchema(vegasdesk.Schema, SchemaDigest)

// Backend is a back office's ledger file.
type Backend struct {
	*backoffice.Store
	file   *File
	blocks backoffice.BlockCache // the blocks its questions read
}

// OpenLedger opens the back office's ledger file at path (see Open), or
// makes one as c says; now gives the time of what it writes (a zero time:
// the clock).
func OpenLedger(path string, readOnly bool, c backoffice.Creation, now func() time.Time) (*Backend, error) {
	if c.Meta != nil {
		if app, _ := Header(path); app != 0 {
			return nil, fmt.Errorf("%s exists already: a copy goes to a new file", path)
		}
	}
	k := Kind{AppID: ApplicationID, Schema: LedgerSchema}
	if !readOnly {
		k.Create = func(tx *sqlx.Tx) error {
			if _, err := tx.Exec(vegasdesk.Schema()); err != nil {
				return fmt.Errorf("create the schema: %w", err)
			}
			at := time.Now()
			if t := now(); !t.IsZero() {
				at = t
			}
			for _, m := range c.Rows(at) {
				if _, err := tx.Exec("INSERT INTO meta (key, value) VALUES (?, ?)", m[0], m[1]); err != nil {
					return err
				}
			}
			return nil
		}
	}
	f, err := Open(path, readOnly, k)
	if err != nil {
		return nil, err
	}
	meta, err := f.Meta(context.Background())
	if err == nil && (meta["id"] == "" || meta["kind"] != "" && meta["kind"] != "back-office") {
		err = fmt.Errorf("%w: %s has no ledger id, or is not a back office's ledger", core.ErrNotLedger, path)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("open ledger %s: %w", path, err)
	}
	b := &Backend{file: f}
	b.Store = &backoffice.Store{E: Engine{f}, ID: meta["id"], Demo: meta["demo"] == "1", Location: path, ReadOnly: readOnly, Now: now}
	return b, nil
}

// Info says what the ledger is.
func (b *Backend) Info() core.Info {
	return core.Info{Location: b.Location, Kind: "back-office", ID: b.ID, Demo: b.Demo, ReadOnly: b.ReadOnly, Limit: core.NoLimit}
}

// Close closes the file.
func (b *Backend) Close() error { return b.file.Close() }

// Ping says the file answers.
func (b *Backend) Ping(ctx context.Context) error {
	if err := b.Store.E.Failed(); err != nil {
		return err
	}
	return b.file.R.PingContext(ctx)
}

// Refuse: a back office refuses nothing.
func (b *Backend) Refuse(string) error { return nil }

// Questions are the back office's questions on its tables
// (backoffice/question.go), asked by core.Ask: a claim in the file's one
// write transaction, a lookup and a search in a read transaction, and a
// write only for what they record.
func (b *Backend) Questions() core.Questions {
	return core.Local{Storage: b.FileStorage(backoffice.Tables{Cache: &b.blocks}, nil)}
}

// Engine is what a SQLite file gives the back office's store (a sealed
// counter ledger's file too, which changes what differs).
type Engine struct{ F *File }

// Bulk is Write: a write holds the file.
func (e Engine) Bulk(ctx context.Context) (*sqlx.Tx, error) { return e.Write(ctx) }

func (e Engine) Write(ctx context.Context) (*sqlx.Tx, error) {
	if e.F.W == nil {
		return nil, core.ErrReadOnly
	}
	return e.F.W.BeginTxx(ctx, nil)
}

func (e Engine) Read(ctx context.Context) (*sqlx.Tx, error) { return e.F.R.BeginTxx(ctx, nil) }

func (e Engine) Pool() core.Querier { return e.F.R }

func (e Engine) Append(ctx context.Context, q core.Querier, en *core.Entry) error {
	return Append(ctx, q, en)
}

// Append appends e after the last entry of a file's journal, in q (the
// file's one write transaction, so the chain stays one line), and fills in
// its id, number among its kind, time (now when zero) and hash: the last
// entry and the kind's next number read in one statement (lastQuery).
func Append(ctx context.Context, q core.Querier, e *core.Entry) error {
	if e.At.IsZero() {
		e.At = time.Now()
	}
	var lastID int64
	var lastHash []byte
	query, args := lastQuery(e.Kind)
	err := q.QueryRowxContext(ctx, query, args...).Scan(&lastID, &lastHash, &e.Number)
	if errors.Is(err, sql.ErrNoRows) { // the journal's first entry
		lastID, lastHash, e.Number, err = 0, nil, 1, nil
	}
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	e.ID = lastID + 1
	e.AtText = core.FormatTime(e.At)
	e.Hash = e.ChainHash(lastHash)
	if _, err = q.ExecContext(ctx, insertEntry, e.Values()...); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	return nil
}

// insertEntry inserts an entry's columns (core.Entry.Values).
var insertEntry = "INSERT INTO journal (" + core.EntryCols + ") VALUES (" + core.Marks(len((&core.Entry{}).Values())) + ")"

// lastQueries are lastQuery's texts by kind.
var lastQueries sync.Map

// lastQuery is the statement that reads the journal's last entry (its id
// and hash) and the next number of kind, and its arguments. The kind is
// written into the text, not bound: SQLite compares a bound kind with the
// WHERE of the journal's partial index (kind = 'claim') when it plans the
// statement, and so plans it again whenever another kind is bound, or the
// same one bound again (issue 38: 7 % of serve's processor time on a file,
// each claim parsing and planning it anew). The kinds are the ledger's
// own words (core.Entry.Kind); one that is not a plain word is bound.
func lastQuery(kind string) (string, []any) {
	if q, ok := lastQueries.Load(kind); ok {
		return q.(string), nil
	}
	const head = "SELECT id, hash, (SELECT coalesce(max(number), 0) + 1 FROM journal WHERE kind = "
	const tail = ") FROM journal ORDER BY id DESC LIMIT 1"
	if !plainWord(kind) {
		return head + "?" + tail, []any{kind}
	}
	q := head + "'" + kind + "'" + tail
	lastQueries.Store(kind, q)
	return q, nil
}

// plainWord: 1 to 32 letters a-z, digits or '_'.
func plainWord(s string) bool {
	if len(s) == 0 || len(s) > 32 {
		return false
	}
	for _, c := range []byte(s) {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '_' {
			return false
		}
	}
	return true
}

func (e Engine) Classify(err error) error { return Classify(err) }

// Storage lists the rows of the journal (and of the kept tables) stored
// with another class than the app writes: SQLite keeps a value with the
// class it was written with, whatever the column's type.
func (e Engine) Storage(ctx context.Context, q core.Querier, journalOnly bool, limit int) ([]core.Problem, error) {
	tables := append([]StorageTable{JournalStorage}, keptStorage...)
	if journalOnly {
		tables = tables[:1]
	}
	return Storage(ctx, q, tables, limit)
}

// LockRows: a write transaction holds the file (BEGIN IMMEDIATE).
func (e Engine) LockRows() string { return "" }

// Waiting: a file's entries are chained as they are recorded.
func (e Engine) Waiting(context.Context, core.Querier) ([]core.Entry, time.Time, error) {
	return nil, time.Time{}, nil
}

// Durable returns once everything the file holds is on disk
// (groupSync.durable). A file opened read-only has no writer: it pays
// nothing, and what it reads was synced, or refused, by its writer.
func (e Engine) Durable(context.Context) error {
	if e.F.group == nil {
		return nil
	}
	return e.F.group.durable()
}

// Failed is the error of the file's failed sync (core.ErrNotDurable), after
// which the file answers nothing until it is reopened; nil otherwise.
func (e Engine) Failed() error {
	if e.F.group == nil {
		return nil
	}
	return e.F.group.failed()
}

// Paid: a file's paid rows name their payments by id.
func (e Engine) Paid() string { return "paid" }

// File is the ledger's file: its connections.
func (b *Backend) File() *File { return b.file }
