package postgres

import (
	"context"
	"sync/atomic"

	"vegas-desk/internal/ledger/backoffice"
	"vegas-desk/internal/ledger/core"

	"github.com/jmoiron/sqlx"
)

// Backend is the back office's login to a shared ledger (or a server's):
// it reads and writes the tables, and decides a lookup, a claim or a
// search by contents in Go, with core's rule, as a file does
// (question.go);
// its sequencer chains what its questions record.
type Backend struct {
	*backoffice.Store
	db     pool
	seq    *sequencer
	blocks backoffice.BlockCache
	// asking counts the questions asked now (writeOutcome).
	asking atomic.Int32
	// groups gathers the questions asked beside others that chain their
	// entries directly (group.go).
	groups directGroups
}

// Info says what the ledger is.
func (b *Backend) Info() core.Info {
	return core.Info{Location: b.Location, Kind: "back-office", Shared: true, ID: b.ID, Demo: b.Demo, ReadOnly: b.ReadOnly, Limit: core.NoLimit}
}

// Close closes the connections.
func (b *Backend) Close() error {
	b.db.flush.close()
	b.db.px.Close()
	return b.db.Close()
}

// Ping says whether the server answers.
func (b *Backend) Ping(ctx context.Context) error { return Classify(b.db.PingContext(ctx)) }

// Refuse: the back office refuses nothing.
func (b *Backend) Refuse(string) error { return nil }

// DB is the back office's connections.
func (b *Backend) DB() *sqlx.DB { return b.db.DB }
