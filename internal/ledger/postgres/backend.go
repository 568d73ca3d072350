package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/backoffice"
	"vegas-desk/internal/ledger/core"

	"github.com/jmoiron/sqlx"
)

// Backend is the back office's login to a shared ledger (or a server's):
// it reads and writes the tables, and decides a lookup, a claim or a
// search by contents in Go, with core's rule, as a file does (ask.go);
// its sequencer chains what its questions record.
type Backend struct {
	*backoffice.Store
	db     pool
	seq    *sequencer
	blocks blockCache
	// lockOut: the questions' guesses are recorded under the lock-out
	// (LockOutGuesses).
	lockOut atomic.Bool
}

// Info says what the ledger is.
func (b *Backend) Info() core.Info {
	return core.Info{Location: b.Location, Kind: "back-office", Shared: true, ID: b.ID, Demo: b.Demo, ReadOnly: b.ReadOnly, Limit: core.NoLimit}
}

// Close closes the connections.
func (b *Backend) Close() error { return b.db.Close() }

// Ping says whether the server answers.
func (b *Backend) Ping(ctx context.Context) error { return Classify(b.db.PingContext(ctx)) }

// Refuse: the back office refuses nothing.
func (b *Backend) Refuse(string) error { return nil }

// Counter is a counter's login to a shared ledger: what it may do is the
// functions granted to the counters, which take its desk and its payout
// limit from its login.
type Counter struct {
	db       pool
	location string
	desk     string
	limit    core.Limit
	readOnly bool
}

// Info says what the login is.
func (c *Counter) Info() core.Info {
	return core.Info{Location: c.location, Kind: "back-office", Shared: true, ReadOnly: c.readOnly, Desk: c.desk, Limit: c.limit}
}

// Close closes the connections.
func (c *Counter) Close() error { return c.db.Close() }

// Ping says whether the server answers.
func (c *Counter) Ping(ctx context.Context) error { return Classify(c.db.PingContext(ctx)) }

// Refuse refuses what a counter's login may not do, before the database
// would.
func (c *Counter) Refuse(what string) error {
	return fmt.Errorf("%s: %w: this login is counter %s's; the back office's login does this", what, core.ErrCounterOnly, c.desk)
}

// Lookup asks vegas.lookup as the counter.
func (c *Counter) Lookup(ctx context.Context, s game.Serial, who core.Identity, limit core.Limit, _ time.Time) (core.Ticket, error) {
	return lookup(ctx, c.db, s, who, limit)
}

// Claim asks vegas.claim as the counter: the server's time.
func (c *Counter) Claim(ctx context.Context, s game.Serial, req core.ClaimRequest, _ time.Time) (core.Claim, error) {
	if c.readOnly {
		return core.Claim{}, core.ErrReadOnly
	}
	return claim(ctx, c.db, s, req, time.Time{})
}

// Find asks vegas.find as the counter.
func (c *Counter) Find(ctx context.Context, code []byte, who core.Identity, limit core.Limit, _ time.Time) ([]core.Ticket, error) {
	return find(ctx, c.db, code, who, limit)
}

// Blocks lists the blocks' public part: no serial key.
func (c *Counter) Blocks(ctx context.Context) ([]core.Block, error) {
	var rows []backoffice.BlockRow
	if err := core.Select(ctx, c.db, &rows, "SELECT 0 AS id, game, number, 0 AS first_pack, tickets, pack_size, winners, payout, ''::bytea AS serial_key, digest, created_at FROM vegas.blocks_public()"); err != nil {
		return nil, fmt.Errorf("list blocks: %w", Classify(err))
	}
	out := make([]core.Block, len(rows))
	for i := range rows {
		out[i] = rows[i].Block()
	}
	return out, nil
}

// Claims lists the counter's own claims that f selects.
func (c *Counter) Claims(ctx context.Context, f core.ClaimFilter) ([]core.Claim, error) {
	var rows []backoffice.ClaimRow
	if err := core.Select(ctx, c.db, &rows, `SELECT id, number, serial, game, block, position, amount, desk, operator, method,
		'' AS request, at, hash, voided, void_reason, voided_by, voided_at, void_desk FROM vegas.my_claims(?, ?)`,
		core.InstantText(f.Since), core.InstantText(f.Until)); err != nil {
		return nil, fmt.Errorf("list claims: %w", Classify(err))
	}
	var out []core.Claim
	for i := range rows {
		cl := rows[i].Claim()
		if (f.Game == 0 || cl.Game == f.Game) && (f.Block == 0 || cl.Block == f.Block) && (f.Desk == "" || cl.Desk == f.Desk) {
			out = append(out, cl)
		}
	}
	return out, nil
}

// VoidsBetween lists the counter's payments voided from since until
// before until.
func (c *Counter) VoidsBetween(ctx context.Context, desk string, since, until time.Time) ([]core.Claim, error) {
	cs, err := c.Claims(ctx, core.ClaimFilter{})
	if err != nil {
		return nil, err
	}
	var out []core.Claim
	for _, cl := range cs {
		if cl.Voided && cl.Desk == desk && !cl.VoidedAt.Before(since) && cl.VoidedAt.Before(until) {
			out = append(out, cl)
		}
	}
	return out, nil
}

// ReferralsBetween lists the counter's referrals from since until before
// until (vegas.my_referrals): their serials are the part printed outside
// the ticket.
func (c *Counter) ReferralsBetween(ctx context.Context, desk string, since, until time.Time) ([]core.Referral, error) {
	var rows []core.Entry
	if err := core.Select(ctx, c.db, &rows, "SELECT id, at, serial, game, block, position, amount, desk, operator FROM vegas.my_referrals(?, ?)",
		core.FormatTime(since), core.FormatTime(until)); err != nil {
		return nil, fmt.Errorf("list referrals: %w", Classify(err))
	}
	return core.ReferralsOf(rows), nil
}

// Packs lists the counter's own packs that f selects; the stock is
// nobody's.
func (c *Counter) Packs(ctx context.Context, f core.PackFilter) ([]core.PackRun, error) {
	if err := core.CheckPackFilter(f); err != nil || f.State == "stock" {
		return nil, err
	}
	var rows []core.PackRow
	if err := core.Select(ctx, c.db, &rows, "SELECT game, block, pack, state, desk, entry, at, operator, method FROM vegas.my_packs()"); err != nil {
		return nil, fmt.Errorf("list packs: %w", Classify(err))
	}
	return core.PackRuns(rows, f), nil
}

// PackEntries lists the moves of the counter's packs that f selects.
func (c *Counter) PackEntries(ctx context.Context, f core.PackEntryFilter) ([]core.PackEntry, error) {
	var rows []core.Entry
	if err := core.Select(ctx, c.db, &rows, `SELECT id, at, game, block, pack_first, pack_last, state, desk, operator, method, reason
		FROM vegas.my_pack_moves(?, ?)`, core.InstantText(f.Since), core.InstantText(f.Until)); err != nil {
		return nil, fmt.Errorf("list moves of packs: %w", Classify(err))
	}
	return core.PackEntriesOf(rows, f), nil
}

// MovePacks receives or activates the counter's own packs, through
// vegas.move_my_packs, which applies the rules of core.PackMoves in the
// database; every other move is the back office's.
func (c *Counter) MovePacks(ctx context.Context, m core.PackMove, who core.Identity) error {
	if m.Move != "receive" && m.Move != "activate" {
		return c.Refuse(m.Move + " packs")
	}
	if m.Desk != "" && m.Desk != c.desk {
		return fmt.Errorf("%s packs: %w: this login is desk %s's, not %s's", m.Move, core.ErrDeskMismatch, c.desk, m.Desk)
	}
	var a answer
	return Classify(call(ctx, c.db, &a, "CALL vegas.move_my_packs(?, ?, ?, ?, ?, ?)", m.Move, m.Game, m.Block, m.First, m.Last, who.Operator))
}

// Game reads a game's public row (all of it).
func (c *Counter) Game(ctx context.Context, code int) (core.Game, error) {
	var g core.Game
	err := core.Get(ctx, c.db, &g, "SELECT code, name, price, on_sale, end_of_sale, deadline FROM vegas.games_public() WHERE code = ?", code)
	if errors.Is(err, sql.ErrNoRows) {
		return g, fmt.Errorf("game %d: %w: the ledger knows no such game", code, core.ErrNotFound)
	}
	if err != nil {
		return g, fmt.Errorf("game %d: %w", code, Classify(err))
	}
	return g, nil
}

// Head is the journal's head, which a counter prints on its papers.
func (c *Counter) Head(ctx context.Context) (string, error) {
	var h []byte
	if err := core.Get(ctx, c.db, &h, "SELECT coalesce(vegas.journal_head(), ''::bytea)"); err != nil {
		return "", Classify(err)
	}
	return fmt.Sprintf("%x", h), nil
}

// Verify is the back office's.
func (c *Counter) Verify(context.Context, int, int, func(int, int)) (core.VerifyReport, error) {
	return core.VerifyReport{}, c.Refuse("verify")
}

// CheckHead is the back office's.
func (c *Counter) CheckHead(context.Context, string) (core.Anchor, error) {
	return core.Anchor{}, c.Refuse("check a journal head")
}

// DB is the back office's connections.
func (b *Backend) DB() *sqlx.DB { return b.db.DB }

// DB is the counter's connections.
func (c *Counter) DB() *sqlx.DB { return c.db.DB }
