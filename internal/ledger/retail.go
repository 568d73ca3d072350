package ledger

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"vegas-desk/internal/game"
)

// The retail side of the ledger: the packs where they are, their moves,
// the referrals to the back office, the winners' identities. The reports
// made of them (receipt, day report, settlement) are in settlement.go.

// PackRun is a run of consecutive packs of one block in one state at one
// counter, which one entry moved there last.
type PackRun struct {
	Game, Block int
	First, Last int    // pack numbers, both included
	State       string // one of PackStates ("stock" for packs never moved)
	Desk        string // the counter they were delivered to ("" when none)
	// The last move: its entry (0 for the stock), time, operator and name
	// ("deliver", "activate", "generate" …).
	Entry    int64
	At       time.Time
	Operator string
	Move     string
}

// Count is the number of packs of the run.
func (r PackRun) Count() int { return r.Last - r.First + 1 }

// Codes are the pack codes of the run, in order.
func (r PackRun) Codes() []game.PackCode {
	out := make([]game.PackCode, 0, r.Count())
	for p := r.First; p <= r.Last; p++ {
		out = append(out, game.PackCode{Game: r.Game, Block: r.Block, Pack: p})
	}
	return out
}

// PackFilter selects packs; a zero field selects all.
type PackFilter struct {
	Game, Block int
	Desk        string
	State       string // one of PackStates
}

// packRow is a pack out of the stock with its last move.
type packRow struct {
	Game     int    `db:"game"`
	Block    int    `db:"block"`
	Pack     int    `db:"pack"`
	State    string `db:"state"`
	Desk     string `db:"desk"`
	Entry    int64  `db:"entry"`
	At       string `db:"at"`
	Operator string `db:"operator"`
	Method   string `db:"method"`
}

// Packs lists the packs f selects as runs, by game, block and pack. Packs
// in stock are listed only when f.State is "stock" (every block has 10,000
// packs). A counter's login on a shared ledger sees its own packs only; a
// sealed counter ledger, the states sealed at its issue.
func (l *Ledger) Packs(ctx context.Context, f PackFilter) ([]PackRun, error) {
	if f.State != "" && !slices.Contains(PackStates, f.State) {
		return nil, fmt.Errorf("pack state %q: want one of %s", f.State, strings.Join(PackStates, ", "))
	}
	var rows []packRow
	var err error
	switch {
	case l.desk != "":
		err = sel(ctx, l.r, &rows, "SELECT game, block, pack, state, desk, entry, at, operator, method FROM vegas.my_packs()")
	case l.counter != nil:
		// The packs' states sealed at the issue, the issue their last move.
		err = sel(ctx, l.r, &rows, `SELECT b.game, b.number AS block, s.pack, s.state, '' AS desk, j.id AS entry, j.at, j.operator, 'issue' AS method
			FROM pack_states s JOIN blocks b ON b.id = s.block JOIN journal j ON j.kind = 'issue'
			ORDER BY b.game, b.number, s.pack`)
	default:
		err = sel(ctx, l.r, &rows, `SELECT b.game, b.number AS block, s.pack, s.state, s.desk, s.entry, j.at, j.operator, j.method
			FROM pack_states s JOIN blocks b ON b.id = s.block JOIN journal j ON j.id = s.entry
			ORDER BY b.game, b.number, s.pack`)
	}
	if err != nil {
		return nil, fmt.Errorf("list packs: %w", l.classify(err))
	}
	keep := func(g, b int) bool { return (f.Game == 0 || g == f.Game) && (f.Block == 0 || b == f.Block) }
	if f.State == "stock" {
		if f.Desk != "" || l.CounterDesk() != "" {
			return nil, nil // the stock is the back office's, and nobody's
		}
		blocks, err := l.Blocks(ctx)
		if err != nil {
			return nil, err
		}
		moved := map[[3]int]bool{}
		for _, r := range rows {
			moved[[3]int{r.Game, r.Block, r.Pack}] = true
		}
		var out []PackRun
		for _, b := range blocks {
			if !keep(b.Game, b.Number) {
				continue
			}
			for p := 0; p < b.Tickets/b.PackSize; p++ {
				if moved[[3]int{b.Game, b.Number, p}] {
					continue
				}
				if n := len(out); n > 0 && out[n-1].Game == b.Game && out[n-1].Block == b.Number && out[n-1].Last == p-1 {
					out[n-1].Last = p
					continue
				}
				out = append(out, PackRun{Game: b.Game, Block: b.Number, First: p, Last: p, State: "stock"})
			}
		}
		return out, nil
	}
	var out []PackRun
	for _, r := range rows {
		if !keep(r.Game, r.Block) || f.Desk != "" && r.Desk != f.Desk || f.State != "" && r.State != f.State {
			continue
		}
		if n := len(out); n > 0 {
			last := &out[n-1]
			if last.Game == r.Game && last.Block == r.Block && last.Last == r.Pack-1 && last.State == r.State &&
				last.Desk == r.Desk && last.Entry == r.Entry {
				last.Last = r.Pack
				continue
			}
		}
		out = append(out, PackRun{Game: r.Game, Block: r.Block, First: r.Pack, Last: r.Pack, State: r.State, Desk: r.Desk,
			Entry: r.Entry, At: parseTime(r.At), Operator: r.Operator, Move: r.Method})
	}
	return out, nil
}

// PackEntry is one move of packs, a 'packs' entry of the journal.
type PackEntry struct {
	Entry       int64
	At          time.Time
	Game, Block int
	First, Last int
	State       string // the state they moved to
	Desk        string // the counter concerned
	Operator    string
	Move        string // deliver, receive, activate, settle, return, stolen, destroyed, generate
	Reason      string
}

// PackEntryFilter selects moves of packs; a zero field selects all.
type PackEntryFilter struct {
	Desk         string
	Since, Until time.Time // Since inclusive, Until exclusive
	Moves        []string
}

// PackEntries lists the moves of packs f selects, in journal order. A
// counter's login on a shared ledger sees the moves of its own packs.
func (l *Ledger) PackEntries(ctx context.Context, f PackEntryFilter) ([]PackEntry, error) {
	var since, until string
	if !f.Since.IsZero() {
		since = formatTime(f.Since)
	}
	if !f.Until.IsZero() {
		until = formatTime(f.Until)
	}
	var rows []entry
	var err error
	if l.desk != "" {
		err = sel(ctx, l.r, &rows, `SELECT id, at, game, block, pack_first, pack_last, state, desk, operator, method, reason
			FROM vegas.my_pack_moves(?, ?)`, since, until)
	} else {
		q := "SELECT " + entryCols + " FROM journal WHERE kind = 'packs' AND at >= ?"
		args := []any{since}
		if until != "" {
			q, args = q+" AND at < ?", append(args, until)
		}
		if f.Desk != "" {
			q, args = q+" AND desk = ?", append(args, f.Desk)
		}
		err = sel(ctx, l.r, &rows, q+" ORDER BY id", args...)
	}
	if err != nil {
		return nil, fmt.Errorf("list moves of packs: %w", l.classify(err))
	}
	var out []PackEntry
	for _, e := range rows {
		if f.Desk != "" && e.Desk != f.Desk || len(f.Moves) > 0 && !slices.Contains(f.Moves, e.Method) {
			continue
		}
		out = append(out, PackEntry{Entry: e.ID, At: parseTime(e.AtText), Game: e.Game, Block: e.Block, First: e.PackFirst,
			Last: e.PackLast, State: e.State, Desk: e.Desk, Operator: e.Operator, Move: e.Method, Reason: e.Reason})
	}
	return out, nil
}

// Referral is a prize above a counter's payout limit that the counter sent
// to the back office, which pays it with a claim of its own.
type Referral struct {
	Entry    int64 // the first referral of the ticket
	Number   int64
	At       time.Time
	Serial   string
	Game     int
	Block    int
	Position int
	Amount   int // euros
	Desk     string
	Operator string
	// Tries is the number of referrals of the ticket (a player may try
	// several counters); Last is the time of the last one.
	Tries int
	Last  time.Time
}

// Referrals lists the open referrals, one per ticket, oldest first: the
// referred tickets that no payment pays now.
func (l *Ledger) Referrals(ctx context.Context) ([]Referral, error) {
	if err := l.backOffice("referrals"); err != nil {
		return nil, err
	}
	var rows []entry
	if err := sel(ctx, l.r, &rows, "SELECT "+entryCols+` FROM journal r WHERE r.kind = 'referral'
		AND NOT EXISTS (SELECT 1 FROM paid p WHERE p.ticket = r.ticket) ORDER BY r.id`); err != nil {
		return nil, fmt.Errorf("list referrals: %w", l.classify(err))
	}
	return referralsOf(rows), nil
}

// referralsOf makes referral entries, in journal order, into one Referral
// per ticket, in the order of their first referral.
func referralsOf(rows []entry) []Referral {
	var out []Referral
	idx := map[[3]int]int{}
	for _, e := range rows {
		at := parseTime(e.AtText)
		k := [3]int{e.Game, e.Block, e.Position}
		if i, ok := idx[k]; ok {
			out[i].Tries++
			out[i].Last = at
			continue
		}
		idx[k] = len(out)
		out = append(out, Referral{Entry: e.ID, Number: e.Number, At: at, Serial: e.Serial, Game: e.Game, Block: e.Block,
			Position: e.Position, Amount: e.Amount, Desk: e.Desk, Operator: e.Operator, Tries: 1, Last: at})
	}
	return out
}

// Identities returns the winners' identities recorded with payments, by
// the payment's journal entry (Claim.Entry). They are personal data: only
// the back office reads them, and exports leave them out unless asked.
func (l *Ledger) Identities(ctx context.Context) (map[int64]Winner, error) {
	if err := l.backOffice("winners' identities"); err != nil {
		return nil, err
	}
	var rows []struct {
		Claim     int64  `db:"claim"`
		Name      string `db:"name"`
		DocType   string `db:"doc_type"`
		DocNumber string `db:"doc_number"`
	}
	if err := sel(ctx, l.r, &rows, "SELECT claim, name, doc_type, doc_number FROM identities ORDER BY claim"); err != nil {
		return nil, fmt.Errorf("winners' identities: %w", l.classify(err))
	}
	out := make(map[int64]Winner, len(rows))
	for _, r := range rows {
		out[r.Claim] = Winner{Name: r.Name, DocType: r.DocType, DocNumber: r.DocNumber}
	}
	return out, nil
}

// gameInfo is a game's name, price and dates.
type gameInfo struct {
	Code  int    `db:"code"`
	Name  string `db:"name"`
	Price int    `db:"price"`
	emission
}

// gameOf reads game code's row; a counter's login reads the public part
// of the games, which is all of it.
func (l *Ledger) gameOf(ctx context.Context, code int) (gameInfo, error) {
	var g gameInfo
	q := "SELECT code, name, price, on_sale, end_of_sale, deadline FROM games WHERE code = ?"
	if l.desk != "" {
		q = "SELECT code, name, price, on_sale, end_of_sale, deadline FROM vegas.games_public() WHERE code = ?"
	}
	err := get(ctx, l.r, &g, q, code)
	if errors.Is(err, sql.ErrNoRows) {
		return g, fmt.Errorf("game %d: %w: the ledger knows no such game", code, ErrNotFound)
	}
	return g, l.classify(err)
}

// head is the journal's head for anyone, a counter included.
func (l *Ledger) head(ctx context.Context) (string, error) {
	if l.desk == "" {
		return l.Head(ctx)
	}
	var h []byte
	if err := get(ctx, l.r, &h, "SELECT coalesce(vegas.journal_head(), ''::bytea)"); err != nil {
		return "", l.classify(err)
	}
	return fmt.Sprintf("%x", h), nil
}

// dayBounds is the local day of t: its first instant and the next day's.
func dayBounds(t time.Time) (time.Time, time.Time) {
	d := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, t.Location())
	return d, d.AddDate(0, 0, 1)
}

// packsOf lists the pack codes of moves, in order, each once.
func packsOf(moves []PackEntry) []game.PackCode {
	var out []game.PackCode
	for _, m := range moves {
		for p := m.First; p <= m.Last; p++ {
			out = append(out, game.PackCode{Game: m.Game, Block: m.Block, Pack: p})
		}
	}
	slices.SortFunc(out, func(a, b game.PackCode) int {
		return cmp.Or(cmp.Compare(a.Game, b.Game), cmp.Compare(a.Block, b.Block), cmp.Compare(a.Pack, b.Pack))
	})
	return slices.Compact(out)
}
