package backoffice

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/core"
)

// MovePacks moves packs First … Last of a block from their state, which
// the move must allow for every one of them (otherwise nothing moves),
// and records it in the journal with the time, the counter and the
// operator (who.Operator).
//
// The entry's desk is the counter concerned: the one the packs are
// delivered to (deliver), else the counter they were delivered to, which
// must be one for the whole range ("" for packs still in stock, reported
// stolen or destroyed there). m.Desk, when given for receive, activate,
// settle or return, must be that counter.
// m and who were prepared (core.PrepareMove).
func (o *Store) MovePacks(ctx context.Context, m core.PackMove, who core.Identity) error {
	mv := core.PackMoves[m.Move]

	if m.Move == "deliver" {
		if err := core.CheckDeskID(m.Desk); err != nil {
			return fmt.Errorf("deliver packs: %w", err)
		}
	}
	tx, err := o.write(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if m.Move == "deliver" {
		if err := o.listedDesk(ctx, tx, m.Desk); err != nil {
			return err
		}
	}
	b, err := GetBlock(ctx, tx, m.Game, m.Block)
	if err != nil {
		return err
	}
	packs := b.Tickets / game.PackSize
	if m.First < 0 || m.Last < m.First || m.Last >= packs {
		return fmt.Errorf("%w: packs %d–%d of block %s: packs go from 0 to %d", core.ErrPackMove, m.First, m.Last, b.Name(), packs-1)
	}
	var rows []core.PackStateRow
	if err := core.Select(ctx, tx, &rows, "SELECT block, pack, state, desk, entry FROM pack_states WHERE block = ? AND pack BETWEEN ? AND ? ORDER BY pack"+o.E.LockRows(),
		b.ID, m.First, m.Last); err != nil {
		return o.E.Classify(err)
	}
	cur := map[int]core.PackStateRow{}
	for _, r := range rows {
		cur[r.Pack] = r
	}
	desk := m.Desk // the counter concerned
	if m.Move != "deliver" {
		desk = cur[m.First].Desk
	}
	mustBe := m.Desk != "" && (m.Move == "receive" || m.Move == "activate" || m.Move == "settle" || m.Move == "return")
	for p := m.First; p <= m.Last; p++ {
		r := cur[p]
		code := game.PackCode{Game: b.Game, Block: b.Number, Pack: p}
		if mustBe && r.Desk != m.Desk && who.Desk == m.Desk {
			// A counter moving its own packs (through a validation
			// server) learns nothing of a pack not its own, neither its
			// state nor its desk: said before the pack's state.
			return fmt.Errorf("%w: pack %s was not delivered to desk %s: ask the back office", core.ErrPackMove, code, m.Desk)
		}
		if !core.MoveAllowed(m.Move, r.State) {
			return fmt.Errorf("%w: pack %s is %s; %s needs it %s", core.ErrPackMove, code,
				core.StateName(r.State), m.Move, strings.Join(core.FromNames(mv.From), " or "))
		}
		if len(m.Only) > 0 && !slices.Contains(m.Only, core.StateName(r.State)) {
			return fmt.Errorf("%w: pack %s is %s; this move takes packs that are %s only", core.ErrPackMove, code,
				core.StateName(r.State), strings.Join(m.Only, " or "))
		}
		switch {
		case mustBe && r.Desk != m.Desk:
			return fmt.Errorf("%w: pack %s was delivered to desk %s, not %s", core.ErrPackMove, code, core.OrNone(r.Desk), m.Desk)
		case m.Move != "deliver" && r.Desk != desk:
			return fmt.Errorf("%w: packs %s and %s are desk %s's and desk %s's: move them one counter at a time", core.ErrPackMove,
				game.PackCode{Game: b.Game, Block: b.Number, Pack: m.First}, code, core.OrNone(desk), core.OrNone(r.Desk))
		}
	}
	e := core.Entry{Kind: "packs", Game: b.Game, Block: b.Number, PackFirst: m.First, PackLast: m.Last, State: mv.To,
		Method: m.Move, Desk: desk, Operator: who.Operator, Reason: m.Reason}
	if err := o.appendJournal(ctx, tx, &e); err != nil {
		return err
	}
	if _, err := core.Exec(ctx, tx, `WITH RECURSIVE p(n) AS (SELECT CAST(? AS INTEGER) UNION ALL SELECT n + 1 FROM p WHERE n < CAST(? AS INTEGER))
		INSERT INTO pack_states (block, pack, state, desk, entry)
		SELECT CAST(? AS BIGINT), n, CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS BIGINT) FROM p WHERE true
		ON CONFLICT (block, pack) DO UPDATE SET state = excluded.state, desk = excluded.desk, entry = excluded.entry`,
		m.First, m.Last, b.ID, mv.To, desk, e.ID); err != nil {
		return o.E.Classify(err)
	}
	return o.E.Classify(tx.Commit())
}

// listedDesk refuses a desk the ledger does not list (desks list), to
// deliver packs to: on a shared ledger, whose counters are logins that the
// back office adds, always; on a file, once it lists any desk (a file that
// lists none serves a shop whose counters it does not know, by any name).
// A mistyped desk would send packs where no counter can receive them.
func (o *Store) listedDesk(ctx context.Context, tx core.Querier, desk string) error {
	var n struct {
		Known  int `db:"known"`
		Listed int `db:"listed"`
	}
	if err := core.Get(ctx, tx, &n, "SELECT (SELECT count(*) FROM desks WHERE id = ?) AS known, (SELECT count(*) FROM desks) AS listed", desk); err != nil {
		return o.E.Classify(err)
	}
	if n.Known == 0 && (o.Shared || n.Listed > 0) {
		return fmt.Errorf("deliver packs: desk %s: %w: the ledger lists no such desk; check its name (desks list), or add it first (desks add %s)", desk, core.ErrNotFound, desk)
	}
	return nil
}

// orNone names a desk, "none" for the stock's "".
func orNone(desk string) string {
	if desk == "" {
		return "none"
	}
	return desk
}

func fromNames(states []string) []string {
	out := make([]string, len(states))
	for i, s := range states {
		out[i] = core.StateName(s)
	}
	return out
}
