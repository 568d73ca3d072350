package core

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// The life of a pack (carnet): stock → delivered to a counter → received
// (the counter confirms) → on sale (activated) → settled; returned,
// stolen and destroyed are end states. A pack without a row of
// pack_states is in stock (""). Only tickets of packs on sale or settled
// are paid.

// PackMoveRule is one move: the states it starts from and the state it leads to.
type PackMoveRule struct {
	From []string
	To   string
}

// PackMoves are the moves, by the name the journal's packs entries record
// in method. "generate" is generate --activate's: stock straight to sale.
var PackMoves = map[string]PackMoveRule{
	"generate":  {[]string{""}, "on-sale"},
	"deliver":   {[]string{""}, "delivered"},
	"receive":   {[]string{"delivered"}, "received"},
	"activate":  {[]string{"received"}, "on-sale"},
	"settle":    {[]string{"on-sale"}, "settled"},
	"return":    {[]string{"delivered", "received", "on-sale"}, "returned"},
	"stolen":    {[]string{"", "delivered", "received", "on-sale"}, "stolen"},
	"destroyed": {[]string{"", "delivered", "received", "on-sale"}, "destroyed"},
}

// MoveAllowed reports whether move takes a pack from state from.
func MoveAllowed(move, from string) bool {
	m, ok := PackMoves[move]
	if !ok {
		return false
	}
	for _, f := range m.From {
		if f == from {
			return true
		}
	}
	return false
}

// PackStates lists the states a pack may be in.
var PackStates = []string{"stock", "delivered", "received", "on-sale", "settled", "returned", "stolen", "destroyed"}

// OrNone names a desk, "none" for the stock's "".
func OrNone(desk string) string {
	if desk == "" {
		return "none"
	}
	return desk
}

// FromNames names states, the stock's "" as "stock".
func FromNames(states []string) []string {
	out := make([]string, len(states))
	for i, s := range states {
		out[i] = StateName(s)
	}
	return out
}

// ErrPackMove: a move that a pack's state does not allow.
var ErrPackMove = errors.New("pack move not allowed")

// PackMoveFrom lists the states (of PackStates) that move takes a pack
// from, and the state it leads to; ok is false for no such move. The app
// says with it why a move was refused.
func PackMoveFrom(move string) (from []string, to string, ok bool) {
	m, ok := PackMoves[move]
	if !ok {
		return nil, "", false
	}
	return FromNames(m.From), m.To, true
}

// StateName names a pack state, "" being the stock.
func StateName(s string) string {
	if s == "" {
		return "stock"
	}
	return s
}

// PackRow is a pack out of the stock with its last move.
type PackRow struct {
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

// CheckPackFilter refuses a filter of no state.
func CheckPackFilter(f PackFilter) error {
	if f.State != "" && !slices.Contains(PackStates, f.State) {
		return Invalid(fmt.Errorf("pack state %q: want one of %s", f.State, strings.Join(PackStates, ", ")))
	}
	return nil
}

// keeps reports whether f selects packs of game g's block b.
func (f PackFilter) keeps(g, b int) bool {
	return (f.Game == 0 || g == f.Game) && (f.Block == 0 || b == f.Block)
}

// PackRuns are the packs of rows that f selects, as runs of consecutive
// packs in one state at one counter moved there by one entry.
func PackRuns(rows []PackRow, f PackFilter) []PackRun {
	var out []PackRun
	for _, r := range rows {
		if !f.keeps(r.Game, r.Block) || f.Desk != "" && r.Desk != f.Desk || f.State != "" && r.State != f.State {
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
			Entry: r.Entry, At: ParseTime(r.At), Operator: r.Operator, Move: r.Method})
	}
	return out
}

// StockRuns are the packs of blocks that no row moved (the stock) that f
// selects, as runs.
func StockRuns(blocks []Block, rows []PackRow, f PackFilter) []PackRun {
	moved := map[[3]int]bool{}
	for _, r := range rows {
		moved[[3]int{r.Game, r.Block, r.Pack}] = true
	}
	var out []PackRun
	for _, b := range blocks {
		if !f.keeps(b.Game, b.Number) {
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
	return out
}

// PackEntriesOf are the moves of packs of entries that f selects.
func PackEntriesOf(rows []Entry, f PackEntryFilter) []PackEntry {
	var out []PackEntry
	for _, e := range rows {
		if f.Desk != "" && e.Desk != f.Desk || len(f.Moves) > 0 && !slices.Contains(f.Moves, e.Method) {
			continue
		}
		out = append(out, PackEntry{Entry: e.ID, At: ParseTime(e.AtText), Game: e.Game, Block: e.Block, First: e.PackFirst,
			Last: e.PackLast, State: e.State, Desk: e.Desk, Operator: e.Operator, Move: e.Method, Reason: e.Reason})
	}
	return out
}

// PrepareMove checks a move of packs as every kind of ledger does before
// it asks anything: a move of the table, texts trimmed, an operator named.
func PrepareMove(m *PackMove, who *Identity) error {
	if _, ok := PackMoves[m.Move]; !ok || m.Move == "generate" {
		return fmt.Errorf("move %q: want deliver, receive, activate, settle, return, stolen or destroyed", m.Move)
	}
	who.Desk, who.Operator = strings.TrimSpace(who.Desk), strings.TrimSpace(who.Operator)
	m.Desk = strings.TrimSpace(m.Desk)
	if who.Operator == "" {
		return fmt.Errorf("%s packs: name the operator", m.Move)
	}
	for _, st := range m.Only {
		if !slices.Contains(PackStates, st) {
			return fmt.Errorf("%s packs: state %q: want one of %s", m.Move, st, strings.Join(PackStates, ", "))
		}
	}
	for _, f := range [][2]string{{"desk", m.Desk}, {"reason", m.Reason}, {"operator", who.Operator}} {
		if err := CheckText(f[0], f[1], MaxText); err != nil {
			return err
		}
	}
	return nil
}
