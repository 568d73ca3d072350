package ledger

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"vegas-desk/internal/game"
)

// replay walks the journal from its first entry: it recomputes the hash
// chain, checks each entry against the records it names, and builds the
// state the entries lead to, which the ledger's kept tables must hold.
type replay struct {
	blocks    map[[2]int]Block // by game and number
	seenBlock map[[2]int]bool
	prev      []byte
	lastID    int64
	numbers   map[int64]int64 // entry id → its number among its kind
	kinds     map[int64]string
	lastNum   map[string]int64          // the last number of each kind
	claimOf   map[int64]*entry          // claim entries by id
	voided    map[int64]int64           // claim id → the void entry that voids it
	active    map[int64][]int64         // ticket → its claims not voided
	packs     map[[2]int64]packStateRow // (block id, pack) → state
	desks     map[string]deskRow
	games     map[int]emission
	settings  map[string]string
}

// packStateRow is a row of pack_states.
type packStateRow struct {
	Block int64  `db:"block"`
	Pack  int    `db:"pack"`
	State string `db:"state"`
	Desk  string `db:"desk"`
	Entry int64  `db:"entry"`
}

// deskRow is a row of desks.
type deskRow struct {
	ID          string  `db:"id"`
	Role        *string `db:"role"`
	Limit       int     `db:"payout_limit"`
	Disabled    int     `db:"disabled"`
	LockedUntil string  `db:"locked_until"`
	UnlockedAt  string  `db:"unlocked_at"`
}

func newReplay(blocks []Block) *replay {
	st := &replay{blocks: map[[2]int]Block{}, seenBlock: map[[2]int]bool{}, numbers: map[int64]int64{},
		kinds: map[int64]string{}, lastNum: map[string]int64{}, claimOf: map[int64]*entry{}, voided: map[int64]int64{},
		active: map[int64][]int64{}, packs: map[[2]int64]packStateRow{}, desks: map[string]deskRow{},
		games: map[int]emission{}, settings: map[string]string{}}
	for _, b := range blocks {
		st.blocks[[2]int{b.Game, b.Number}] = b
	}
	return st
}

// apply checks entry e and applies it.
func (st *replay) apply(ctx context.Context, q querier, e *entry, rep *VerifyReport) {
	rep.Entries++
	where := fmt.Sprintf("journal entry %d", e.ID)
	if e.Kind == "claim" {
		where = fmt.Sprintf("payment %d", e.Number)
	}
	if want := st.lastID + 1; e.ID != want {
		rep.add(fmt.Sprintf("journal entry %d", want), "missing: the next entry is %d", e.ID)
	}
	st.lastID = e.ID
	if !bytes.Equal(e.hash(st.prev), e.Hash) {
		rep.add(where, "hash does not match its contents and the previous entry: the entry or the one before it was changed")
	}
	st.prev = e.Hash
	if want := st.lastNum[e.Kind] + 1; e.Number != want {
		rep.add(where, "is number %d of its kind (%s), want %d: an entry was removed or renumbered", e.Number, e.Kind, want)
	}
	st.lastNum[e.Kind] = e.Number
	st.numbers[e.ID], st.kinds[e.ID] = e.Number, e.Kind
	key := [2]int{e.Game, e.Block}
	switch e.Kind {
	case "block":
		b, ok := st.blocks[key]
		switch {
		case !ok:
			rep.add(where, "records block %d/%d, which the ledger does not hold", e.Game, e.Block)
		case b.Digest != e.Detail:
			rep.add("block "+b.Name(), "digest %s differs from the one recorded in journal entry %d (%s)", b.Digest, e.ID, e.Detail)
		case formatTime(b.CreatedAt) != e.AtText:
			rep.add("block "+b.Name(), "created %s, journal entry %d says %s", formatTime(b.CreatedAt), e.ID, e.AtText)
		}
		st.seenBlock[key] = true
	case "claim", "referral":
		if e.Kind == "claim" {
			st.claimOf[e.ID] = e
			if e.Ticket.Valid {
				st.active[e.Ticket.Int64] = append(st.active[e.Ticket.Int64], e.ID)
			}
		}
		st.checkTicket(ctx, q, e, where, rep)
	case "void":
		c, ok := st.claimOf[e.Ref.Int64]
		switch {
		case !e.Ref.Valid || st.kinds[e.Ref.Int64] != "claim" || !ok:
			rep.add(where, "voids entry %d, which is not an earlier payment", e.Ref.Int64)
		case st.voided[c.ID] != 0:
			rep.add(where, "voids payment %d, already voided by entry %d", c.Number, st.voided[c.ID])
		case e.Ticket != c.Ticket || e.Serial != c.Serial || e.Game != c.Game || e.Block != c.Block || e.Position != c.Position:
			rep.add(where, "voids payment %d but names another ticket (%s)", c.Number, e.Serial)
		default:
			st.voided[c.ID] = e.ID
			ids := st.active[c.Ticket.Int64]
			st.active[c.Ticket.Int64] = slices.DeleteFunc(ids, func(id int64) bool { return id == c.ID })
		}
	case "packs":
		b, ok := st.blocks[key]
		if !ok || e.PackFirst < 0 || e.PackLast < e.PackFirst || e.PackLast >= b.Tickets/game.PackSize {
			rep.add(where, "moves packs %d–%d of block %d/%d, which the ledger does not hold", e.PackFirst, e.PackLast, e.Game, e.Block)
			return
		}
		m, known := packMoves[e.Method]
		if !known || m.to != e.State {
			rep.add(where, "moves packs with %q to %q, which is not a move of a pack", e.Method, e.State)
			return
		}
		wrongDesk := false
		for p := e.PackFirst; p <= e.PackLast; p++ {
			k := [2]int64{b.ID, int64(p)}
			cur := st.packs[k]
			if !moveAllowed(e.Method, cur.State) {
				rep.add(where, "moves pack %d of block %s from %q with %q, which is not allowed", p, b.Name(), stateName(cur.State), e.Method)
			}
			if e.Method != "deliver" && e.Method != "generate" && cur.Desk != e.Desk && !wrongDesk {
				rep.add(where, "names desk %q for pack %d of block %s, which was delivered to %q", e.Desk, p, b.Name(), cur.Desk)
				wrongDesk = true // once an entry
			}
			desk := cur.Desk
			if e.Method == "deliver" {
				desk = e.Desk
			}
			st.packs[k] = packStateRow{Block: b.ID, Pack: p, State: e.State, Desk: desk, Entry: e.ID}
		}
	case "emission":
		em, err := parseEmission(e.Detail)
		if err != nil {
			rep.add(where, "%v", err)
			return
		}
		st.games[e.Game] = em
	case "desk":
		d := st.desks[e.Desk]
		d.ID = e.Desk
		switch e.State {
		case "added":
			d.Limit, d.Disabled = e.Amount, 0
			if e.Detail != "" {
				role := e.Detail
				d.Role = &role
			}
		case "limit":
			d.Limit = e.Amount
		case "disabled":
			d.Disabled = 1
		case "enabled":
			d.Disabled = 0
		case "locked":
			d.LockedUntil = e.Detail
		case "unlocked":
			d.LockedUntil, d.UnlockedAt = "", e.AtText
		default:
			rep.add(where, "desk entry with state %q", e.State)
		}
		st.desks[e.Desk] = d
	case "setting":
		st.settings[e.Reason] = e.Detail
	case "refusal", "import", "checkpoint":
	default:
		rep.add(where, "kind %q is not a kind of entry", e.Kind)
	}
}

// stateName names a pack state, "" being the stock.
func stateName(s string) string {
	if s == "" {
		return "stock"
	}
	return s
}

// checkTicket checks that a claim or a referral names a ticket of the
// ledger by its right serial, and its prize.
func (st *replay) checkTicket(ctx context.Context, q querier, e *entry, where string, rep *VerifyReport) {
	b, ok := st.blocks[[2]int{e.Game, e.Block}]
	if !ok {
		rep.add(where, "names a ticket of block %d/%d, which the ledger does not hold", e.Game, e.Block)
		return
	}
	s := game.Serial{Game: b.Game, Block: b.Number, Position: e.Position}
	if e.Position >= 0 && e.Position < b.Tickets {
		s.Secret = b.key.Secret(e.Position)
	}
	if s.String() != e.Serial || !e.Ticket.Valid || e.Ticket.Int64 != b.first+int64(e.Position) {
		rep.add(where, "serial %s and ticket row do not name ticket %d of block %s", e.Serial, e.Position, b.Name())
		return
	}
	_, pb, err := storedTicket(ctx, q, b, e.Position)
	if err != nil {
		rep.add(where, "its ticket cannot be read: %v", err)
		return
	}
	prize, _ := prizeOf(pb)
	if prize == 0 || prize != e.Amount {
		rep.add(where, "names %d €, the ticket wins %d €", e.Amount, prize)
	}
}

// compare checks the kept tables against the replayed state.
func (st *replay) compare(ctx context.Context, q querier, rep *VerifyReport) error {
	var paid []struct {
		Ticket int64 `db:"ticket"`
		Claim  int64 `db:"claim"`
	}
	if err := sel(ctx, q, &paid, "SELECT ticket, claim FROM paid ORDER BY ticket"); err != nil {
		return err
	}
	want := map[int64]int64{}
	for t, ids := range st.active {
		if len(ids) > 0 {
			want[t] = ids[0]
		}
	}
	for _, p := range paid {
		if want[p.Ticket] != p.Claim {
			rep.add(fmt.Sprintf("ticket %d", p.Ticket), "the ledger keeps it paid by entry %d; the journal says %s", p.Claim, paidBy(want[p.Ticket], st))
		}
		delete(want, p.Ticket)
	}
	for t, c := range want {
		rep.add(fmt.Sprintf("ticket %d", t), "payment %d pays it in the journal, but the ledger does not keep it paid", st.numbers[c])
	}

	var packs []packStateRow
	if err := sel(ctx, q, &packs, "SELECT block, pack, state, desk, entry FROM pack_states"); err != nil {
		return err
	}
	wantPacks := maps.Clone(st.packs)
	for _, p := range packs {
		k := [2]int64{p.Block, int64(p.Pack)}
		if w, ok := wantPacks[k]; !ok || w != p {
			rep.add(fmt.Sprintf("pack %d of block row %d", p.Pack, p.Block), "the ledger keeps it %s (desk %q, entry %d); the journal says %s (desk %q, entry %d)",
				p.State, p.Desk, p.Entry, stateName(w.State), w.Desk, w.Entry)
		}
		delete(wantPacks, k)
	}
	for k, w := range wantPacks {
		rep.add(fmt.Sprintf("pack %d of block row %d", k[1], k[0]), "the journal says %s; the ledger keeps it in stock", w.State)
	}

	var desks []deskRow
	if err := sel(ctx, q, &desks, "SELECT id, role, payout_limit, disabled, locked_until, unlocked_at FROM desks"); err != nil {
		return err
	}
	wantDesks := maps.Clone(st.desks)
	for _, d := range desks {
		w, ok := wantDesks[d.ID]
		if !ok || w.Limit != d.Limit || w.Disabled != d.Disabled || w.LockedUntil != d.LockedUntil || w.UnlockedAt != d.UnlockedAt {
			rep.add("desk "+d.ID, "the ledger keeps limit %d, disabled %d, locked until %q; the journal says limit %d, disabled %d, locked until %q",
				d.Limit, d.Disabled, d.LockedUntil, w.Limit, w.Disabled, w.LockedUntil)
		}
		delete(wantDesks, d.ID)
	}
	for id := range wantDesks {
		rep.add("desk "+id, "the journal adds it; the ledger does not keep it")
	}

	var games []struct {
		Code int `db:"code"`
		emission
	}
	if err := sel(ctx, q, &games, "SELECT code, on_sale, end_of_sale, deadline FROM games"); err != nil {
		return err
	}
	for _, g := range games {
		if w := st.games[g.Code]; w != g.emission {
			rep.add(fmt.Sprintf("game %d", g.Code), "the ledger keeps the dates %+v; the journal says %+v", g.emission, w)
		}
	}

	var settings []struct {
		Key   string `db:"key"`
		Value string `db:"value"`
	}
	if err := sel(ctx, q, &settings, "SELECT key, value FROM settings"); err != nil {
		return err
	}
	wantSettings := maps.Clone(st.settings)
	for _, s := range settings {
		if w, ok := wantSettings[s.Key]; !ok || w != s.Value {
			rep.add("setting "+s.Key, "the ledger keeps %q; the journal says %q", s.Value, w)
		}
		delete(wantSettings, s.Key)
	}
	for k := range wantSettings {
		rep.add("setting "+k, "the journal sets it; the ledger does not keep it")
	}
	return nil
}

func paidBy(claim int64, st *replay) string {
	if claim == 0 {
		return "it is not paid"
	}
	return fmt.Sprintf("payment %d pays it", st.numbers[claim])
}

// emissionText is the detail of an emission entry.
func emissionText(em emission) string {
	return "on_sale=" + em.OnSale + "\nend_of_sale=" + em.EndOfSale + "\ndeadline=" + em.Deadline
}

// parseEmission reads the detail of an emission entry.
func parseEmission(s string) (emission, error) {
	var em emission
	for _, line := range strings.Split(s, "\n") {
		k, v, _ := strings.Cut(line, "=")
		if v != "" && parseTime(v).IsZero() {
			return em, fmt.Errorf("emission date %s=%q is not a time", k, v)
		}
		switch k {
		case "on_sale":
			em.OnSale = v
		case "end_of_sale":
			em.EndOfSale = v
		case "deadline":
			em.Deadline = v
		default:
			return em, fmt.Errorf("emission entry names %q", k)
		}
	}
	return em, nil
}
