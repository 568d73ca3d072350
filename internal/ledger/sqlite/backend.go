// Package sqlite is the back office's ledger in one SQLite file (schema.sql),
// and the mechanics of a ledger file that a sealed counter ledger shares:
// opening and checking it (its exact schema, its storage classes), and
// appending to its journal in Go. A SQLite back office decides its claims
// in Go, with core's rule, in the file's one write transaction.
package sqlite

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jmoiron/sqlx"

	vegasdesk "vegas-desk"
	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/backoffice"
	"vegas-desk/internal/ledger/core"
)

// SchemaDigest is the digest of sqlite_master in a back office's file
// (Schema.Digest). A change of schema.sql changes it: TestSchemaDigests
// prints the new one.
const SchemaDigest = "e6dde7076d5c5c3c00cad12759076d6aad7dccf4b727fd251e9df35ea76a5c72"

// LedgerSchema is a back office's file's schema (schema.sql).
var LedgerSchema = NewSchema(vegasdesk.Schema, SchemaDigest)

// Backend is a back office's ledger file.
type Backend struct {
	*backoffice.Store
	file *File
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
			if _, err := tx.Exec(vegasdesk.Schema); err != nil {
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
func (b *Backend) Ping(ctx context.Context) error { return b.file.R.PingContext(ctx) }

// Refuse: a back office refuses nothing.
func (b *Backend) Refuse(string) error { return nil }

// Lookup is the ticket of s with the verdict a claim at who.Desk would get
// at time at; an unknown serial and a stolen pack's ticket are recorded,
// unless the file is read-only.
func (b *Backend) Lookup(ctx context.Context, s game.Serial, who core.Identity, asked core.Limit, at time.Time) (core.Ticket, error) {
	tx, err := b.file.R.BeginTxx(ctx, nil)
	if err != nil {
		return core.Ticket{}, err
	}
	t, err := core.DecideLookup(ctx, reader{tx}, s, who.Desk, asked, clock(at))
	tx.Rollback()
	if e := core.RefusedLookup(s, t, err, who); e != nil && !b.ReadOnly {
		if rerr := b.Record(ctx, e); rerr != nil {
			return core.Ticket{}, core.Refused(err, rerr)
		}
		if r := (*core.Refusal)(nil); errors.As(err, &r) {
			r.Entry = e.ID
		}
	}
	return t, err
}

// Claim decides and records a claim in the file's one write transaction.
func (b *Backend) Claim(ctx context.Context, s game.Serial, req core.ClaimRequest, at time.Time) (core.Claim, error) {
	tx, err := b.ClaimTx(ctx)
	if err != nil {
		return core.Claim{}, fmt.Errorf("claim: %w", err)
	}
	defer tx.Rollback()
	return core.DecideClaim(ctx, tx, s, req, clock(at))
}

// Find lists the tickets of the ledger with encoding code (its finder's
// candidates), each with its verdict at who.Desk.
func (b *Backend) Find(ctx context.Context, code []byte, who core.Identity, asked core.Limit, at time.Time) ([]core.Ticket, error) {
	tx, err := b.file.R.BeginTxx(ctx, nil)
	if err != nil {
		return nil, err
	}
	found, err := core.DecideFind(ctx, reader{tx}, code, who.Desk, asked, clock(at))
	tx.Rollback()
	if err != nil || len(found) > 0 {
		return found, err
	}
	return nil, RefuseContents(ctx, who, b.ReadOnly, b.Record)
}

// RefuseContents records, with record, a search by contents that found
// nothing (unless the ledger is read-only), and is its refusal.
func RefuseContents(ctx context.Context, who core.Identity, readOnly bool, record func(context.Context, *core.Entry) error) error {
	r := &core.Refusal{Verdict: core.UnknownContents}
	if readOnly {
		return r
	}
	e := core.RefusedContents(who)
	if err := record(ctx, e); err != nil {
		return core.Refused(r, err)
	}
	r.Entry = e.ID
	return r
}

// clock is at, or now when zero.
func clock(at time.Time) time.Time {
	if at.IsZero() {
		return time.Now()
	}
	return at
}

// reader reads the facts and rules of a question in one snapshot.
type reader struct{ q *sqlx.Tx }

func (r reader) Facts(ctx context.Context, s game.Serial) (*core.Facts, error) {
	return backoffice.FactsBySerial(ctx, r.q, s)
}

func (r reader) Rules(ctx context.Context, gameCode int, desk string, asked core.Limit, at time.Time) (core.Rules, error) {
	return backoffice.DeskRules(ctx, r.q, gameCode, desk, asked, at)
}

func (r reader) Blocks(ctx context.Context) ([]core.Block, error) {
	bs, err := backoffice.ListBlocks(ctx, r.q)
	slices.SortFunc(bs, func(a, b core.Block) int { return cmp.Compare(a.ID, b.ID) })
	return bs, err
}

func (r reader) Candidates(ctx context.Context, b core.Block, code []byte) ([]*core.Facts, error) {
	return backoffice.Candidates(ctx, r.q, b, code)
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

// File is the ledger's file: its connections.
func (b *Backend) File() *File { return b.file }
