package core

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"

	"vegas-desk/internal/game"
)

// replay walks the journal from its first entry: it recomputes the hash
// chain, checks each entry against the records it names, and builds the
// state the entries lead to, which the ledger's kept tables must hold.
type Replay struct {
	prizes    Prizes
	blocks    map[[2]int]Block // by game and number
	seenBlock map[[2]int]bool
	prev      []byte
	lastID    int64
	numbers   map[int64]int64 // entry id → its number among its kind
	kinds     map[int64]string
	lastNum   map[string]int64          // the last number of each kind
	claimOf   map[int64]*Entry          // claim entries by id
	voided    map[int64]int64           // claim id → the void entry that voids it
	active    map[int64][]int64         // ticket → its claims not voided
	packs     map[[2]int64]PackStateRow // (block id, pack) → state
	desks     map[string]DeskRow
	certs     map[DeskCertKey]string // a desk's accepted certificate → its expiry
	games     map[int]Dates
	settings  map[string]string
	// A drawn block's seed: the 'commitment' entries by commitment, the
	// 'reveal' entry that used each, and the reveals waiting for their
	// block's entry.
	commitments map[string]*Entry
	revealed    map[string]int64
	reveals     map[[2]int][]*Entry
}

// packStateRow is a row of pack_states.
type PackStateRow struct {
	Block int64  `db:"block"`
	Pack  int    `db:"pack"`
	State string `db:"state"`
	Desk  string `db:"desk"`
	Entry int64  `db:"entry"`
}

// deskRow is a row of desks.
type DeskRow struct {
	ID          string `db:"id"`
	Limit       int    `db:"payout_limit"`
	Disabled    int    `db:"disabled"`
	LockedUntil string `db:"locked_until"`
	UnlockedAt  string `db:"unlocked_at"`
}

func NewReplay(blocks []Block, prizes Prizes) *Replay {
	st := &Replay{prizes: prizes, blocks: map[[2]int]Block{}, seenBlock: map[[2]int]bool{}, numbers: map[int64]int64{},
		kinds: map[int64]string{}, lastNum: map[string]int64{}, claimOf: map[int64]*Entry{}, voided: map[int64]int64{},
		active: map[int64][]int64{}, packs: map[[2]int64]PackStateRow{}, desks: map[string]DeskRow{},
		certs: map[DeskCertKey]string{}, games: map[int]Dates{}, settings: map[string]string{},
		commitments: map[string]*Entry{}, revealed: map[string]int64{}, reveals: map[[2]int][]*Entry{}}
	for _, b := range blocks {
		st.blocks[[2]int{b.Game, b.Number}] = b
	}
	return st
}

// Prizes reads a block's stored prizes for a replay.
type Prizes interface {
	// Prize is the prize stored for the ticket at pos of b.
	Prize(b Block, pos int) (int, error)
}

// Apply checks entry e and applies it.
func (st *Replay) Apply(e *Entry, rep *VerifyReport) {
	rep.Entries++
	where := fmt.Sprintf("journal entry %d", e.ID)
	if e.Kind == "claim" {
		where = fmt.Sprintf("payment %d", e.Number)
	}
	if want := st.lastID + 1; e.ID != want {
		rep.Add(fmt.Sprintf("journal entry %d", want), "missing: the next entry is %d", e.ID)
	}
	st.lastID = e.ID
	if !bytes.Equal(e.ChainHash(st.prev), e.Hash) {
		rep.Add(where, "hash does not match its contents and the previous entry: the entry or the one before it was changed")
	}
	st.prev = e.Hash
	if want := st.lastNum[e.Kind] + 1; e.Number != want {
		rep.Add(where, "is number %d of its kind (%s), want %d: an entry was removed or renumbered", e.Number, e.Kind, want)
	}
	st.lastNum[e.Kind] = e.Number
	st.effect(e, where, rep)
}

// ApplyWaiting applies an entry recorded and not yet chained (a shared
// ledger's, in the order of their records, each with the id and number
// its chain would give it, after the journal's last): its effects only,
// for the kept tables already hold them; the chain's checks (its hash,
// its id and number in sequence) wait for its chaining.
func (st *Replay) ApplyWaiting(e *Entry, rep *VerifyReport) {
	st.effect(e, fmt.Sprintf("entry %d, waiting to be chained", e.ID), rep)
}

// effect checks what entry e names and applies it to the state.
func (st *Replay) effect(e *Entry, where string, rep *VerifyReport) {
	st.numbers[e.ID], st.kinds[e.ID] = e.Number, e.Kind
	key := [2]int{e.Game, e.Block}
	switch e.Kind {
	case "block":
		b, ok := st.blocks[key]
		switch {
		case !ok:
			rep.Add(where, "records block %d/%d, which the ledger does not hold", e.Game, e.Block)
		case b.Digest != e.Detail:
			rep.Add("block "+b.Name(), "digest %s differs from the one recorded in journal entry %d (%s)", b.Digest, e.ID, e.Detail)
		case FormatTime(b.CreatedAt) != e.AtText:
			rep.Add("block "+b.Name(), "created %s, journal entry %d says %s", FormatTime(b.CreatedAt), e.ID, e.AtText)
		}
		st.seenBlock[key] = true
		st.drawnBlock(e, rep)
	case "claim", "referral":
		if e.Kind == "claim" {
			st.claimOf[e.ID] = e
			if e.Ticket.Valid {
				st.active[e.Ticket.Int64] = append(st.active[e.Ticket.Int64], e.ID)
			}
		}
		st.checkTicket(e, where, rep)
	case "void":
		c, ok := st.claimOf[e.Ref.Int64]
		switch {
		case !e.Ref.Valid || st.kinds[e.Ref.Int64] != "claim" || !ok:
			rep.Add(where, "voids entry %d, which is not an earlier payment", e.Ref.Int64)
		case st.voided[c.ID] != 0:
			rep.Add(where, "voids payment %d, already voided by entry %d", c.Number, st.voided[c.ID])
		case e.Ticket != c.Ticket || e.Serial != c.Serial || e.Game != c.Game || e.Block != c.Block || e.Position != c.Position:
			rep.Add(where, "voids payment %d but names another ticket (%s)", c.Number, e.Serial)
		default:
			st.voided[c.ID] = e.ID
			ids := st.active[c.Ticket.Int64]
			st.active[c.Ticket.Int64] = slices.DeleteFunc(ids, func(id int64) bool { return id == c.ID })
		}
	case "packs":
		b, ok := st.blocks[key]
		if !ok || e.PackFirst < 0 || e.PackLast < e.PackFirst || e.PackLast >= b.Tickets/game.PackSize {
			rep.Add(where, "moves packs %d–%d of block %d/%d, which the ledger does not hold", e.PackFirst, e.PackLast, e.Game, e.Block)
			return
		}
		m, known := PackMoves[e.Method]
		if !known || m.To != e.State {
			rep.Add(where, "moves packs with %q to %q, which is not a move of a pack", e.Method, e.State)
			return
		}
		wrongDesk := false
		for p := e.PackFirst; p <= e.PackLast; p++ {
			k := [2]int64{b.ID, int64(p)}
			cur := st.packs[k]
			if !MoveAllowed(e.Method, cur.State) {
				rep.Add(where, "moves pack %d of block %s from %q with %q, which is not allowed", p, b.Name(), StateName(cur.State), e.Method)
			}
			if e.Method != "deliver" && e.Method != "generate" && cur.Desk != e.Desk && !wrongDesk {
				rep.Add(where, "names desk %q for pack %d of block %s, which was delivered to %q", e.Desk, p, b.Name(), cur.Desk)
				wrongDesk = true // once an entry
			}
			desk := cur.Desk
			if e.Method == "deliver" {
				desk = e.Desk
			}
			st.packs[k] = PackStateRow{Block: b.ID, Pack: p, State: e.State, Desk: desk, Entry: e.ID}
		}
	case "emission":
		em, err := ParseEmission(e.Detail)
		if err != nil {
			rep.Add(where, "%v", err)
			return
		}
		st.games[e.Game] = em
	case "desk":
		st.desk(e, where, rep)
	case "setting":
		st.settings[e.Reason] = e.Detail
	case "checkpoint":
		st.seedEntry(e, where, rep)
	case "refusal", "import":
	default:
		rep.Add(where, "kind %q is not a kind of entry", e.Kind)
	}
}

// checkTicket checks that a claim or a referral names a ticket of the
// ledger by its right serial, and its prize.
func (st *Replay) checkTicket(e *Entry, where string, rep *VerifyReport) {
	b, ok := st.blocks[[2]int{e.Game, e.Block}]
	if !ok {
		rep.Add(where, "names a ticket of block %d/%d, which the ledger does not hold", e.Game, e.Block)
		return
	}
	s := game.Serial{Game: b.Game, Block: b.Number, Position: e.Position}
	if e.Position >= 0 && e.Position < b.Tickets {
		s.Secret = b.Key.Secret(e.Position)
	}
	if s.String() != e.Serial || !e.Ticket.Valid || e.Ticket.Int64 != b.First()+int64(e.Position) {
		rep.Add(where, "serial %s and ticket row do not name ticket %d of block %s", e.Serial, e.Position, b.Name())
		return
	}
	prize, err := st.prizes.Prize(b, e.Position)
	if err != nil {
		rep.Add(where, "its ticket cannot be read: %v", err)
		return
	}
	if prize == 0 || prize != e.Amount {
		rep.Add(where, "names %d €, the ticket wins %d €", e.Amount, prize)
	}
}

// Finish ends the replay: a ticket paid twice and not voided (but by a
// double payment recorded as one), the chain's
// head, and the blocks whose generation no entry records.
func (st *Replay) Finish(rep *VerifyReport) {
	for _, ticket := range slices.Sorted(maps.Keys(st.active)) {
		ids := st.active[ticket]
		for _, id := range ids[min(1, len(ids)):] {
			// A double payment recorded as one (an import's: Case) is a
			// fact kept, not a fault of the ledger.
			if st.claimOf[id].Reason != ReasonDoublePayment {
				rep.Add(fmt.Sprintf("payment %d", st.numbers[id]), "pays ticket %d, already paid by payment %d and not voided", ticket, st.numbers[ids[0]])
				break
			}
		}
	}
	rep.Head = hex.EncodeToString(st.prev)
	for key, b := range st.blocks {
		if !st.seenBlock[key] {
			rep.Add("block "+b.Name(), "no journal entry records its generation")
		}
	}
}

// Kept is what a ledger keeps beside its journal, which the journal's
// replay must lead to.
type Kept struct {
	Paid     map[int64]int64 // ticket → the claim that pays it
	Packs    []PackStateRow
	Desks    []DeskRow
	Certs    map[DeskCertKey]string // desk_certs: a desk's accepted certificate → its expiry
	Games    map[int]Dates          // by code
	Settings map[string]string
}

// DeskCertKey is a certificate a desk accepts: the desk and the
// certificate's serial number (lowercase hex).
type DeskCertKey struct{ Desk, Serial string }

// desk applies a desk entry: added, its limit, disabled, enabled,
// locked, unlocked, a new password, a certificate accepted (certified: its
// detail "SERIAL NOT_AFTER") or revoked (its detail the serial).
func (st *Replay) desk(e *Entry, where string, rep *VerifyReport) {
	d := st.desks[e.Desk]
	d.ID = e.Desk
	switch e.State {
	case "added":
		// Its detail: the PostgreSQL login an earlier vegas-desk made
		// for it (schema 5 and before), which nothing keeps now.
		d.Limit, d.Disabled = e.Amount, 0
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
	case "password": // an earlier version's login's: nothing the ledger keeps
	case "certified":
		serial, notAfter, _ := strings.Cut(e.Detail, " ")
		st.certs[DeskCertKey{e.Desk, serial}] = notAfter
	case "revoked":
		delete(st.certs, DeskCertKey{e.Desk, e.Detail})
	default:
		rep.Add(where, "desk entry with state %q", e.State)
	}
	st.desks[e.Desk] = d
}

// Compare checks what the ledger keeps against the replayed state.
func (st *Replay) Compare(kept Kept, rep *VerifyReport) {
	want := map[int64]int64{}
	for t, ids := range st.active {
		if len(ids) > 0 {
			want[t] = ids[0]
		}
	}
	for _, t := range slices.Sorted(maps.Keys(kept.Paid)) {
		c := kept.Paid[t]
		if want[t] != c {
			rep.Add(fmt.Sprintf("ticket %d", t), "the ledger keeps it paid by entry %d; the journal says %s", c, paidBy(want[t], st))
		}
		delete(want, t)
	}
	for t, c := range want {
		rep.Add(fmt.Sprintf("ticket %d", t), "payment %d pays it in the journal, but the ledger does not keep it paid", st.numbers[c])
	}

	wantPacks := maps.Clone(st.packs)
	for _, p := range kept.Packs {
		k := [2]int64{p.Block, int64(p.Pack)}
		if w, ok := wantPacks[k]; !ok || w != p {
			rep.Add(fmt.Sprintf("pack %d of block row %d", p.Pack, p.Block), "the ledger keeps it %s (desk %q, entry %d); the journal says %s (desk %q, entry %d)",
				p.State, p.Desk, p.Entry, StateName(w.State), w.Desk, w.Entry)
		}
		delete(wantPacks, k)
	}
	for k, w := range wantPacks {
		rep.Add(fmt.Sprintf("pack %d of block row %d", k[1], k[0]), "the journal says %s; the ledger keeps it in stock", w.State)
	}

	wantDesks := maps.Clone(st.desks)
	for _, d := range kept.Desks {
		w, ok := wantDesks[d.ID]
		if !ok || w.Limit != d.Limit || w.Disabled != d.Disabled || w.LockedUntil != d.LockedUntil || w.UnlockedAt != d.UnlockedAt {
			rep.Add("desk "+d.ID, "the ledger keeps limit %d, disabled %d, locked until %q; the journal says limit %d, disabled %d, locked until %q",
				d.Limit, d.Disabled, d.LockedUntil, w.Limit, w.Disabled, w.LockedUntil)
		}
		delete(wantDesks, d.ID)
	}
	for id := range wantDesks {
		rep.Add("desk "+id, "the journal adds it; the ledger does not keep it")
	}

	wantCerts := maps.Clone(st.certs)
	for k, notAfter := range kept.Certs {
		if w, ok := wantCerts[k]; !ok || w != notAfter {
			rep.Add("desk "+k.Desk, "the ledger keeps certificate %s (until %s) accepted; the journal does not (%q)", k.Serial, notAfter, w)
		}
		delete(wantCerts, k)
	}
	for k := range wantCerts {
		rep.Add("desk "+k.Desk, "the journal accepts certificate %s; the ledger does not keep it", k.Serial)
	}

	for _, code := range slices.Sorted(maps.Keys(kept.Games)) {
		if g, w := kept.Games[code], st.games[code]; w != g {
			rep.Add(fmt.Sprintf("game %d", code), "the ledger keeps the dates %+v; the journal says %+v", g, w)
		}
	}
	wantSettings := maps.Clone(st.settings)
	for _, k := range slices.Sorted(maps.Keys(kept.Settings)) {
		if w, ok := wantSettings[k]; !ok || w != kept.Settings[k] {
			rep.Add("setting "+k, "the ledger keeps %q; the journal says %q", kept.Settings[k], w)
		}
		delete(wantSettings, k)
	}
	for k := range wantSettings {
		rep.Add("setting "+k, "the journal sets it; the ledger does not keep it")
	}
}

func paidBy(claim int64, st *Replay) string {
	if claim == 0 {
		return "it is not paid"
	}
	return fmt.Sprintf("payment %d pays it", st.numbers[claim])
}

// EmissionText is the detail of an emission entry.
func EmissionText(em Dates) string {
	return "on_sale=" + em.OnSale + "\nend_of_sale=" + em.EndOfSale + "\ndeadline=" + em.Deadline
}

// ParseEmission reads the detail of an emission entry.
func ParseEmission(s string) (Dates, error) {
	var em Dates
	for _, line := range strings.Split(s, "\n") {
		k, v, _ := strings.Cut(line, "=")
		if v != "" && ParseTime(v).IsZero() {
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

// seedEntry checks a 'checkpoint' entry of a drawn seed: a commitment
// recorded once; a reveal that names an earlier commitment of its role
// and game, recorded before the generation began, used by no other block.
func (st *Replay) seedEntry(e *Entry, where string, rep *VerifyReport) {
	switch e.Method {
	case "commitment":
		if c, twice := st.commitments[e.Request]; twice {
			rep.Add(where, "records commitment %s, recorded already by entry %d", e.Request, c.ID)
			return
		}
		st.commitments[e.Request] = e
	case "reveal":
		c, ok := st.commitments[e.Request]
		switch {
		case !ok || !e.Ref.Valid || e.Ref.Int64 != c.ID:
			rep.Add(where, "draws block %d/%d from commitment %s, which no earlier entry recorded", e.Game, e.Block, e.Request)
		case c.State != e.State || c.Game != e.Game:
			rep.Add(where, "draws block %d/%d from commitment %s as the %s's, recorded as the %s's of game %d", e.Game, e.Block, e.Request, e.State, c.State, c.Game)
		case c.AtText >= e.AtText:
			rep.Add(where, "draws block %d/%d from commitment %s, recorded at %s, not before the generation began (%s)", e.Game, e.Block, e.Request, c.AtText, e.AtText)
		}
		if used, twice := st.revealed[e.Request]; twice {
			rep.Add(where, "draws block %d/%d from commitment %s, which drew a block already (entry %d): a commitment draws one block", e.Game, e.Block, e.Request, used)
		}
		st.revealed[e.Request] = e.ID
		k := [2]int{e.Game, e.Block}
		st.reveals[k] = append(st.reveals[k], e)
	}
}

// drawnBlock checks the reveals recorded for block entry e: none (a seed
// chosen by the operator alone) or one of the operator and one of the
// auditor.
func (st *Replay) drawnBlock(e *Entry, rep *VerifyReport) {
	k := [2]int{e.Game, e.Block}
	rs := st.reveals[k]
	delete(st.reveals, k)
	if len(rs) == 0 {
		return
	}
	if len(rs) != 2 || rs[0].State == rs[1].State {
		roles := make([]string, len(rs))
		for i, r := range rs {
			roles[i] = r.State
		}
		rep.Add(fmt.Sprintf("block %d/%d", e.Game, e.Block), "drawn from %d reveal(s) (%s), not from one of the operator and one of the auditor",
			len(rs), strings.Join(roles, ", "))
	}
}
