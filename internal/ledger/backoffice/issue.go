package backoffice

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/core"
)

// CounterSource is what the back office gives a counter ledger it issues
// (package counter writes it).
type CounterSource struct {
	Blocks   []core.Block
	Limit    core.Limit // the desk's payout limit, sealed
	Games    []core.Game
	Settings [][2]string
	States   map[int64][]core.PackStateRow // by block id
	Paid     map[int64][]PaidBefore        // by block id
}

// PaidBefore is a ticket paid at the issue of a counter ledger, and its
// payment.
type PaidBefore struct {
	Ticket   int64  `db:"ticket"`
	Number   int64  `db:"number"`
	At       string `db:"at"`
	Desk     string `db:"desk"`
	Operator string `db:"operator"`
	Amount   int    `db:"amount"`
}

// Threshold is the identity threshold sealed in the counter ledger.
func (src *CounterSource) Threshold() int {
	for _, s := range src.Settings {
		if s[0] == core.SettingIdentityThreshold {
			if n, err := strconv.Atoi(s[1]); err == nil {
				return n
			}
		}
	}
	return core.DefaultIdentityThreshold
}

// IssueTx opens the read from which a counter ledger is issued: what it
// holds is read in one snapshot.
func (o *Store) IssueTx(ctx context.Context) (*sqlx.Tx, error) { return o.E.Read(ctx) }

// CounterSource reads, in q, what a counter ledger issued for spec holds:
// the blocks named (every block when none is), at most maxBlocks; the
// desk's payout limit (its stored limit lowered by the one asked; a desk
// the ledger does not know must be given one); the packs' states; the
// games' rows and the settings.
func (o *Store) CounterSource(ctx context.Context, q core.Querier, spec core.CounterSpec, maxBlocks int) (*CounterSource, error) {
	src := &CounterSource{States: map[int64][]core.PackStateRow{}, Paid: map[int64][]PaidBefore{}}
	var err error
	if src.Blocks, err = sourceBlocks(ctx, q, spec.Blocks, maxBlocks); err != nil {
		return nil, err
	}
	if src.Limit, err = sourceLimit(ctx, q, spec); err != nil {
		return nil, err
	}
	codes := map[int]bool{}
	for _, b := range src.Blocks {
		codes[b.Game] = true
		var rows []core.PackStateRow
		if err := core.Select(ctx, q, &rows, "SELECT block, pack, state, desk, entry FROM pack_states WHERE block = ? ORDER BY pack", b.ID); err != nil {
			return nil, err
		}
		src.States[b.ID] = rows
		var paid []PaidBefore
		first := b.TicketNumber(0)
		if err := core.Select(ctx, q, &paid, `SELECT p.ticket, j.number, j.at, j.desk, j.operator, j.amount
			FROM `+o.E.Paid()+` p JOIN journal j ON j.id = p.claim WHERE p.ticket >= ? AND p.ticket < ? ORDER BY p.ticket`,
			first, first+int64(b.Tickets)); err != nil {
			return nil, err
		}
		src.Paid[b.ID] = paid
	}
	var games []core.Game
	if err := core.Select(ctx, q, &games, "SELECT code, name, price, on_sale, end_of_sale, deadline FROM games ORDER BY code"); err != nil {
		return nil, err
	}
	for _, g := range games {
		if codes[g.Code] {
			src.Games = append(src.Games, g)
		}
	}
	var settings []struct {
		Key   string `db:"key"`
		Value string `db:"value"`
	}
	if err := core.Select(ctx, q, &settings, "SELECT key, value FROM settings ORDER BY key"); err != nil {
		return nil, err
	}
	for _, s := range settings {
		src.Settings = append(src.Settings, [2]string{s.Key, s.Value})
	}
	return src, nil
}

// sourceBlocks are the blocks named, each once (every block when none is).
func sourceBlocks(ctx context.Context, q core.Querier, named [][2]int, maxBlocks int) ([]core.Block, error) {
	all, err := ListBlocks(ctx, q)
	if err != nil {
		return nil, err
	}
	if len(named) == 0 {
		named = make([][2]int, len(all))
		for i, b := range all {
			named[i] = [2]int{b.Game, b.Number}
		}
	}
	var out []core.Block
	for _, want := range named {
		i := slices.IndexFunc(all, func(b core.Block) bool { return b.Game == want[0] && b.Number == want[1] })
		if i < 0 {
			return nil, fmt.Errorf("block %d/%d: %w: the ledger has no such block (see blocks)", want[0], want[1], core.ErrNotFound)
		}
		if slices.ContainsFunc(out, func(b core.Block) bool { return b.ID == all[i].ID }) {
			return nil, fmt.Errorf("block %s is named twice", all[i].Name())
		}
		out = append(out, all[i])
	}
	switch {
	case len(out) == 0:
		return nil, errors.New("the ledger has no block to seal: generate one first")
	case len(out) > maxBlocks:
		return nil, fmt.Errorf("%d blocks: a counter ledger holds at most %d; name the blocks on sale with --block", len(out), maxBlocks)
	}
	return out, nil
}

// sourceLimit is the payout limit a counter ledger seals: the desk's
// stored limit, lowered by the one spec asks; a desk the ledger does not
// know has the one asked, and must be given one (no limit is the back
// office's alone).
func sourceLimit(ctx context.Context, q core.Querier, spec core.CounterSpec) (core.Limit, error) {
	var d core.DeskRow
	err := core.Get(ctx, q, &d, "SELECT id, payout_limit, disabled, locked_until, unlocked_at FROM desks WHERE id = ?", spec.Desk)
	switch {
	case err == nil && d.Disabled == 1:
		return 0, fmt.Errorf("desk %s is disabled: enable it first", spec.Desk)
	case err == nil:
		return core.LimitOf(d.Limit).Lower(spec.Limit), nil
	case !errors.Is(err, sql.ErrNoRows):
		return 0, err
	case spec.Limit == core.NoLimit:
		return 0, fmt.Errorf("desk %s: %w: it is not among the ledger's desks, and a counter ledger seals a payout limit (no limit is the back office's alone): add the desk with its limit (desks add), or give one (--limit EUROS)", spec.Desk, core.ErrNotFound)
	}
	return spec.Limit, nil
}

// RecordIssue records the issue of counter ledger is in the journal (a
// 'checkpoint' entry, method "counter-ledger", request = the counter
// ledger's id, amount = the sealed payout limit, detail = its seal digest,
// first entry's hash, identity threshold and blocks: what the import of
// its payments trusts, rather than the file its holder can change), then
// calls place, which puts the file in its place, then commits.
func (o *Store) RecordIssue(ctx context.Context, is core.CounterIssue, threshold int, who core.Identity, place func() error) (int64, error) {
	w, err := o.write(ctx)
	if err != nil {
		return 0, err
	}
	defer w.Rollback()
	ids := make([]string, len(is.Blocks))
	for i, b := range is.Blocks {
		ids[i] = strconv.FormatInt(b.ID, 10)
	}
	limit, _ := is.Limit.Euros()
	e := core.Entry{Kind: "checkpoint", Desk: is.Desk, Operator: who.Operator, Method: "counter-ledger",
		Amount: limit, Request: is.ID, Detail: "ledger=" + is.ID + "\nseal=" + is.Digest + "\ngenesis=" + is.Genesis +
			"\nidentity_threshold=" + strconv.Itoa(threshold) + "\nblocks=" + strings.Join(ids, " ")}
	if err := o.appendJournal(ctx, w, &e); err != nil {
		return 0, err
	}
	if err := place(); err != nil {
		return 0, err
	}
	return e.ID, o.E.Classify(w.Commit())
}

// BlockTickets reads the encodings and prize bytes of every ticket of b.
func BlockTickets(ctx context.Context, q core.Querier, b core.Block) (codes, prizes []byte, err error) {
	codes = make([]byte, 0, b.Tickets*game.EncodedSize)
	prizes = make([]byte, 0, b.Tickets)
	rows, err := core.Query(ctx, q, "SELECT id, prizes, codes FROM packs WHERE id >= ? AND id < ? ORDER BY id",
		b.FirstPack, b.FirstPack+int64(b.Tickets/game.PackSize))
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var id int64
	var p, c sql.RawBytes
	for rows.Next() {
		if err := rows.Scan(&id, &p, &c); err != nil {
			return nil, nil, err
		}
		if id != b.FirstPack+int64(len(prizes)/game.PackSize) || len(p) != game.PackSize || len(c) != core.PackCodesSize {
			return nil, nil, fmt.Errorf("block %s pack %d: missing or damaged (run verify)", b.Name(), len(prizes)/game.PackSize)
		}
		prizes, codes = append(prizes, p...), append(codes, c...)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	if len(prizes) != b.Tickets {
		return nil, nil, fmt.Errorf("block %s has %d tickets, want %d (run verify)", b.Name(), len(prizes), b.Tickets)
	}
	return codes, prizes, nil
}

// IssueRecord is the back office's record of a counter ledger it issued:
// what the import of its payments trusts, rather than the file.
type IssueRecord struct {
	Entry         int64
	At            time.Time
	Desk          string
	Seal, Genesis string
	Limit         core.Limit     // the sealed payout limit
	Threshold     int            // the sealed identity threshold, euros
	Blocks        map[int64]bool // the ids of the sealed blocks
}

// ReadIssue reads the back office's record of counter ledger id. An
// issue recorded before the threshold and the blocks were named in it
// takes the threshold set then, and the blocks generated before it.
func ReadIssue(ctx context.Context, q core.Querier, id string) (*IssueRecord, error) {
	var e core.Entry
	err := core.Get(ctx, q, &e, "SELECT "+core.EntryCols+" FROM journal WHERE kind = 'checkpoint' AND method = 'counter-ledger' AND request = ?", id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	c := &IssueRecord{Entry: e.ID, At: core.ParseTime(e.AtText), Desk: e.Desk, Limit: core.LimitOf(e.Amount), Threshold: -1}
	for _, ln := range strings.Split(e.Detail, "\n") {
		k, v, _ := strings.Cut(ln, "=")
		switch k {
		case "seal":
			c.Seal = v
		case "genesis":
			c.Genesis = v
		case "identity_threshold":
			if n, err := strconv.Atoi(v); err == nil && n >= 0 {
				c.Threshold = n
			}
		case "blocks":
			c.Blocks = map[int64]bool{}
			for _, f := range strings.Fields(v) {
				if n, err := strconv.ParseInt(f, 10, 64); err == nil {
					c.Blocks[n] = true
				}
			}
		}
	}
	if c.Threshold < 0 {
		c.Threshold = core.DefaultIdentityThreshold
		var v string
		err := core.Get(ctx, q, &v, "SELECT detail FROM journal WHERE kind = 'setting' AND reason = ? AND id < ? ORDER BY id DESC LIMIT 1",
			core.SettingIdentityThreshold, e.ID)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return nil, err
		}
		if n, err := strconv.Atoi(v); err == nil && n >= 0 {
			c.Threshold = n
		}
	}
	if c.Blocks == nil {
		c.Blocks = map[int64]bool{}
		var ids []int64
		if err := core.Select(ctx, q, &ids, `SELECT b.id FROM blocks b JOIN journal j ON j.kind = 'block' AND j.game = b.game
			AND j.block = b.number WHERE j.id < ?`, e.ID); err != nil {
			return nil, err
		}
		for _, id := range ids {
			c.Blocks[id] = true
		}
	}
	return c, nil
}
