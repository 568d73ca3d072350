package ledger

import (
	"context"

	"github.com/jmoiron/sqlx"

	"vegas-desk/internal/ledger/backoffice"
	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/ledger/counter"
	"vegas-desk/internal/ledger/postgres"
	"vegas-desk/internal/ledger/sqlite"
)

// The tests read and write a ledger's tables to check what the API did and
// to tamper with them as an attacker would: these are the names they use
// for core's and the backends' pieces.

type entry = core.Entry

var entryCols = core.EntryCols

const (
	packCodesSize            = core.PackCodesSize
	defaultIdentityThreshold = core.DefaultIdentityThreshold
)

var (
	sel          = core.Select
	get          = core.Get
	execute      = core.Exec
	prizeOf      = core.PrizeOf
	parseTime    = core.ParseTime
	storedTicket = backoffice.StoredTicket
)

// rdb is the ledger's connections for reading; wdb, for writing.
func rdb(l *Ledger) *sqlx.DB {
	switch b := l.b.(type) {
	case *sqlite.Backend:
		return b.File().R
	case *counter.Backend:
		return b.File().R
	case *postgres.Backend:
		return b.DB()
	}
	panic("no such backend")
}

func wdb(l *Ledger) *sqlx.DB {
	switch b := l.b.(type) {
	case *sqlite.Backend:
		return b.File().W
	case *counter.Backend:
		return b.File().W
	}
	return rdb(l)
}

// appendEntry appends e to l's journal in its own write transaction, as
// the ledger does (the tests forge entries with it).
func appendEntry(l *Ledger, e *entry) error {
	o, err := l.office("append")
	if err != nil {
		return err
	}
	return o.Record(context.Background(), e)
}

// storeOf is the store of l's journal and kept tables.
func storeOf(l *Ledger) *backoffice.Store {
	switch b := l.b.(type) {
	case *counter.Backend:
		return b.Tables()
	case interface{ Office() *backoffice.Store }:
		return b.Office()
	}
	panic("no store: a counter through a server")
}

// begin opens a write transaction of l, as the ledger does.
func begin(l *Ledger, ctx context.Context) (*sqlx.Tx, error) { return storeOf(l).E.Write(ctx) }

// appendJournal appends e to l's journal in tx, as the ledger does, at
// l's time.
func appendJournal(l *Ledger, ctx context.Context, tx *sqlx.Tx, e *entry) error {
	if e.At.IsZero() {
		e.At = l.now()
	}
	return storeOf(l).E.Append(ctx, tx, e)
}

// classify is the ledger's error of an engine's.
func classify(l *Ledger, err error) error { return storeOrPool(l).Classify(err) }

func storeOrPool(l *Ledger) interface{ Classify(error) error } { return storeOf(l).E }
