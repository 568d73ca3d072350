package backoffice

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"vegas-desk/internal/ledger/core"
)

// The retail side of the ledger: the packs where they are, their moves,
// the referrals to the back office, the winners' identities. The reports
// made of them (receipt, day report, settlement) are in settlement.go.

// Packs lists the packs f selects as runs, by game, block and pack. Packs
// in stock are listed only when f.State is "stock" (every block has 10,000
// packs).
func (o *Store) Packs(ctx context.Context, f core.PackFilter) ([]core.PackRun, error) {
	if err := core.CheckPackFilter(f); err != nil {
		return nil, err
	}
	var rows []core.PackRow
	err := core.Select(ctx, o.E.Pool(), &rows, `SELECT b.game, b.number AS block, s.pack, s.state, s.desk, s.entry, j.at, j.operator, j.method
		FROM pack_states s JOIN blocks b ON b.id = s.block JOIN journal j ON j.id = s.entry
		ORDER BY b.game, b.number, s.pack`)
	if err != nil {
		return nil, fmt.Errorf("list packs: %w", o.E.Classify(err))
	}
	if f.State != "stock" {
		return core.PackRuns(rows, f), nil
	}
	if f.Desk != "" {
		return nil, nil // the stock is nobody's
	}
	blocks, err := o.Blocks(ctx)
	if err != nil {
		return nil, err
	}
	return core.StockRuns(blocks, rows, f), nil
}

// PackEntries lists the moves of packs f selects, in journal order.
func (o *Store) PackEntries(ctx context.Context, f core.PackEntryFilter) ([]core.PackEntry, error) {
	q := "SELECT " + core.EntryCols + " FROM journal WHERE kind = 'packs' AND at >= ?"
	args := []any{core.InstantText(f.Since)}
	if !f.Until.IsZero() {
		q, args = q+" AND at < ?", append(args, core.FormatTime(f.Until))
	}
	if f.Desk != "" {
		q, args = q+" AND desk = ?", append(args, f.Desk)
	}
	var rows []core.Entry
	if err := core.Select(ctx, o.E.Pool(), &rows, q+" ORDER BY id", args...); err != nil {
		return nil, fmt.Errorf("list moves of packs: %w", o.E.Classify(err))
	}
	return core.PackEntriesOf(rows, f), nil
}

// Referrals lists the open referrals, one per ticket, oldest first: the
// referred tickets that no payment pays now.
func (o *Store) Referrals(ctx context.Context) ([]core.Referral, error) {
	var rows []core.Entry
	if err := core.Select(ctx, o.E.Pool(), &rows, "SELECT "+core.EntryCols+` FROM journal r WHERE r.kind = 'referral'
		AND NOT EXISTS (SELECT 1 FROM paid p WHERE p.ticket = r.ticket) ORDER BY r.id`); err != nil {
		return nil, fmt.Errorf("list referrals: %w", o.E.Classify(err))
	}
	return core.ReferralsOf(rows), nil
}

// ReferralsBetween lists desk's referrals from since until before until,
// one per ticket (core.ReferralsOf), for its day report.
func (o *Store) ReferralsBetween(ctx context.Context, desk string, since, until time.Time) ([]core.Referral, error) {
	var rows []core.Entry
	if err := core.Select(ctx, o.E.Pool(), &rows, "SELECT "+core.EntryCols+" FROM journal WHERE kind = 'referral' AND desk = ? AND at >= ? AND at < ? ORDER BY id",
		desk, core.FormatTime(since), core.FormatTime(until)); err != nil {
		return nil, fmt.Errorf("list referrals: %w", o.E.Classify(err))
	}
	return core.ReferralsOf(rows), nil
}

// Identities returns the winners' identities recorded with payments, by
// the payment's journal entry (Claim.Entry). They are personal data: only
// the back office reads them, and exports leave them out unless asked.
func (o *Store) Identities(ctx context.Context) (map[int64]core.Winner, error) {
	var rows []struct {
		Claim     int64  `db:"claim"`
		Name      string `db:"name"`
		DocType   string `db:"doc_type"`
		DocNumber string `db:"doc_number"`
		Skeleton  string `db:"skeleton"`
	}
	if err := core.Select(ctx, o.E.Pool(), &rows, "SELECT claim, name, doc_type, doc_number, skeleton FROM identities ORDER BY claim"); err != nil {
		return nil, fmt.Errorf("winners' identities: %w", o.E.Classify(err))
	}
	out := make(map[int64]core.Winner, len(rows))
	for _, r := range rows {
		// The key of now: an identity kept before issue 44 holds the key
		// of then (core.LegacyNameSkeleton, which verify accepts), which
		// kept capitals of other scripts apart from their Latin look-alikes.
		sk := r.Skeleton
		if sk == core.LegacyNameSkeleton(r.Name) {
			sk = core.NameSkeleton(r.Name)
		}
		out[r.Claim] = core.Winner{Name: r.Name, DocType: r.DocType, DocNumber: r.DocNumber, Skeleton: sk}
	}
	return out, nil
}

// Game reads game code's name, price and dates.
func (o *Store) Game(ctx context.Context, code int) (core.Game, error) {
	return ReadGame(ctx, o.E.Pool(), code)
}

// ReadGame reads game code's row.
func ReadGame(ctx context.Context, q core.Querier, code int) (core.Game, error) {
	var g core.Game
	err := core.Get(ctx, q, &g, "SELECT code, name, price, on_sale, end_of_sale, deadline FROM games WHERE code = ?", code)
	if errors.Is(err, sql.ErrNoRows) {
		return g, fmt.Errorf("game %d: %w: the ledger knows no such game", code, core.ErrNotFound)
	}
	return g, err
}
