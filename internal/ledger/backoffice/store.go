// Package backoffice is the back office's ledger in the SQL that SQLite and
// PostgreSQL both speak: its blocks and tickets, payments and voids, packs,
// desks, emissions and settings, reports, imports of counters' payments,
// copies, anchors and verification. The sqlite and postgres backends each
// hold a Store and give it their Engine: their connections, their way of
// appending to the journal, and the few things each does its own way.
package backoffice

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/jmoiron/sqlx"

	"vegas-desk/internal/ledger/core"
)

// Engine is what a database engine gives the back office's store.
type Engine interface {
	// Write opens a write transaction, Read a read-only one (one
	// consistent snapshot), and Pool is the connections for one read.
	Write(ctx context.Context) (*sqlx.Tx, error)
	// Bulk opens a long write transaction of new rows that no question
	// reads yet (a block generated).
	Bulk(ctx context.Context) (*sqlx.Tx, error)
	Read(ctx context.Context) (*sqlx.Tx, error)
	Pool() core.Querier
	// Append appends e after the journal's last entry, in q (a write
	// transaction), filling in its id, number, time and hash.
	Append(ctx context.Context, q core.Querier, e *core.Entry) error
	// Classify maps the engine's errors to the ledger's (ErrUnreachable…).
	Classify(err error) error
	// Storage lists, for verify, the rows of the journal and of the kept
	// tables stored with another type than the ledger writes (at most
	// limit), each as where and what.
	Storage(ctx context.Context, q core.Querier, journalOnly bool, limit int) ([]core.Problem, error)
	// LockRows is what a write's query appends to lock the rows it reads
	// before it changes them ("" where a write holds the whole ledger).
	LockRows() string
	// Waiting lists the entries recorded and not yet chained (PostgreSQL's:
	// see postgres.sql), in the order of their records, each with the id
	// and number its chain would give it after the journal's last entry,
	// and when the oldest was recorded.
	Waiting(ctx context.Context, q core.Querier) ([]core.Entry, time.Time, error)
	// Durable returns once everything committed before the call, by any
	// process, is durable where the operator asked: synced on the disk;
	// on PostgreSQL flushed, and on its synchronous standby too. Failing,
	// it is core.ErrNotDurable (or unreachable). An answer that says a
	// payment exists waits for it (Store.Said).
	Durable(ctx context.Context) error
	// Failed is non-nil once the engine can no longer make anything
	// durable until it is reopened (a file whose sync failed): every
	// question is refused with it.
	Failed() error
	// Paid is the SQL of the paid table as rows (ticket, claim), claim
	// the journal id of the payment that keeps the ticket paid (an entry
	// waiting to be chained: the id Waiting gives it). PostgreSQL's paid
	// rows name a question's payment by its record (postgres.sql).
	Paid() string
}

// Store is a back office's ledger.
type Store struct {
	E        Engine
	ID       string
	Demo     bool
	Location string
	ReadOnly bool
	// Shared: a PostgreSQL ledger (its counters ask a validation server).
	Shared bool
	// Now gives the time of the entries this process writes; nil, or a
	// zero time, is the engine's own (PostgreSQL's: the server's).
	Now func() time.Time
	// LockOut: the desks the ledger lists are locked out (LockOutGuesses),
	// read by every question.
	LockOut atomic.Bool
}

// LockOutGuesses makes the ledger lock out the desks it lists that guess
// serials or contents (core.Lock): the validation server's. The back
// office's own questions lock no one out.
func (o *Store) LockOutGuesses() { o.LockOut.Store(true) }

// now is the time of an entry or a question.
func (o *Store) now() time.Time {
	if o.Now != nil {
		if t := o.Now(); !t.IsZero() {
			return t
		}
	}
	return time.Now()
}

// write opens a write transaction.
func (o *Store) write(ctx context.Context) (*sqlx.Tx, error) {
	if o.ReadOnly {
		return nil, core.ErrReadOnly
	}
	return o.E.Write(ctx)
}

// appendJournal appends e in tx, after checking its texts.
func (o *Store) appendJournal(ctx context.Context, tx core.Querier, e *core.Entry) error {
	if err := e.CheckTexts(); err != nil {
		return err
	}
	if e.At.IsZero() && o.Now != nil {
		e.At = o.Now() // zero: the engine's clock
	}
	if err := o.E.Append(ctx, tx, e); err != nil {
		return fmt.Errorf("journal: %w", o.E.Classify(err))
	}
	return nil
}

// Record appends one entry in its own transaction (the tests forge
// entries with it).
func (o *Store) Record(ctx context.Context, e *core.Entry) error {
	tx, err := o.write(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := o.appendJournal(ctx, tx, e); err != nil {
		return err
	}
	return o.E.Classify(tx.Commit())
}

// notFound says what is missing.
func notFound(format string, args ...any) error {
	return fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), core.ErrNotFound)
}

// Head is the hash of the journal's last entry, in hex ("" when empty).
func (o *Store) Head(ctx context.Context) (string, error) {
	h, err := Head(ctx, o.E.Pool())
	return h, o.E.Classify(err)
}

// Head is the hash of the last entry of the journal q reads, in hex (""
// when empty).
func Head(ctx context.Context, q core.Querier) (string, error) {
	var h []byte
	err := core.Get(ctx, q, &h, "SELECT hash FROM journal ORDER BY id DESC LIMIT 1")
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return fmt.Sprintf("%x", h), err
}

// Creation says what a ledger made by an open is.
type Creation struct {
	Demo bool
	// Meta, when not nil, are the meta rows of the new ledger (a copy's:
	// its source's), and a ledger that exists already is refused.
	Meta [][2]string
}

// Rows are the meta rows of the new ledger.
func (c Creation) Rows(at time.Time) [][2]string {
	if c.Meta != nil {
		return c.Meta
	}
	d := "0"
	if c.Demo {
		d = "1"
	}
	return [][2]string{{"id", NewLedgerID()}, {"kind", "back-office"}, {"demo", d}, {"created_at", core.FormatTime(at)}}
}

// NewLedgerID names a new ledger: 128 random bits in hex.
func NewLedgerID() string { return core.NewRequestID() }

// Office is the store itself: what the ledger's facade asks of a back
// office's backend (a SQLite or PostgreSQL one, which holds a Store).
func (o *Store) Office() *Store { return o }
