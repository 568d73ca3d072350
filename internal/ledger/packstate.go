package ledger

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"vegas-desk/internal/game"
)

// The life of a pack (carnet): stock → delivered to a counter → received
// (the counter confirms) → on sale (activated) → settled; returned,
// stolen and destroyed are end states. A pack without a row of
// pack_states is in stock (""). Only tickets of packs on sale or settled
// are paid.

// packMove is one move: the states it starts from and the state it leads to.
type packMove struct {
	from []string
	to   string
}

// packMoves are the moves, by the name the journal's packs entries record
// in method. "generate" is generate --activate's: stock straight to sale.
var packMoves = map[string]packMove{
	"generate":  {[]string{""}, "on-sale"},
	"deliver":   {[]string{""}, "delivered"},
	"receive":   {[]string{"delivered"}, "received"},
	"activate":  {[]string{"received"}, "on-sale"},
	"settle":    {[]string{"on-sale"}, "settled"},
	"return":    {[]string{"delivered", "received", "on-sale"}, "returned"},
	"stolen":    {[]string{"", "delivered", "received", "on-sale"}, "stolen"},
	"destroyed": {[]string{"", "delivered", "received", "on-sale"}, "destroyed"},
}

// moveAllowed reports whether move takes a pack from state from.
func moveAllowed(move, from string) bool {
	m, ok := packMoves[move]
	if !ok {
		return false
	}
	for _, f := range m.from {
		if f == from {
			return true
		}
	}
	return false
}

// PackStates lists the states a pack may be in.
var PackStates = []string{"stock", "delivered", "received", "on-sale", "settled", "returned", "stolen", "destroyed"}

// PackMove is a move of packs asked for: packs First … Last of a block.
type PackMove struct {
	Game, Block int
	First, Last int
	// Move is "deliver", "receive", "activate", "settle", "return",
	// "stolen" or "destroyed".
	Move string
	// Desk is the counter the packs are delivered to (deliver), or the
	// counter that receives or activates them, which must be theirs.
	Desk   string
	Reason string // why (stolen, destroyed, return)
}

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
//
// A counter's login on a shared ledger may only receive and activate its
// own packs, through vegas.move_my_packs, which applies the same rules in
// the database; every other move is the back office's (ErrCounterOnly).
func (l *Ledger) MovePacks(ctx context.Context, m PackMove, who Identity) error {
	mv, ok := packMoves[m.Move]
	if !ok || m.Move == "generate" {
		return fmt.Errorf("move %q: want deliver, receive, activate, settle, return, stolen or destroyed", m.Move)
	}
	who.Desk, who.Operator = strings.TrimSpace(who.Desk), strings.TrimSpace(who.Operator)
	m.Desk = strings.TrimSpace(m.Desk)
	if who.Operator == "" {
		return fmt.Errorf("%s packs: name the operator", m.Move)
	}
	for _, f := range [][2]string{{"desk", m.Desk}, {"reason", m.Reason}, {"operator", who.Operator}} {
		if err := checkText(f[0], f[1]); err != nil {
			return err
		}
	}
	if l.counter != nil {
		return fmt.Errorf("%s packs: %w: %s is the sealed ledger of counter %s, whose packs are sealed as they were at its issue; move them on the back office's ledger, then issue a new counter ledger",
			m.Move, ErrCounterOnly, l.location, l.counter.desk)
	}
	if l.desk != "" {
		if m.Move != "receive" && m.Move != "activate" {
			return l.backOffice(m.Move + " packs")
		}
		if m.Desk != "" && m.Desk != l.desk {
			return fmt.Errorf("%s packs: %w: this login is desk %s's, not %s's", m.Move, ErrDeskMismatch, l.desk, m.Desk)
		}
		var id int64
		err := get(ctx, l.w, &id, "SELECT vegas.move_my_packs(?, ?, ?, ?, ?, ?)", m.Move, m.Game, m.Block, m.First, m.Last, who.Operator)
		return l.classify(err)
	}
	if m.Move == "deliver" {
		if err := checkDeskID(m.Desk); err != nil {
			return fmt.Errorf("deliver packs: %w", err)
		}
	}
	tx, err := l.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	b, err := getBlock(ctx, tx, m.Game, m.Block)
	if err != nil {
		return err
	}
	packs := b.Tickets / game.PackSize
	if m.First < 0 || m.Last < m.First || m.Last >= packs {
		return fmt.Errorf("%w: packs %d–%d of block %s: packs go from 0 to %d", ErrPackMove, m.First, m.Last, b.Name(), packs-1)
	}
	var rows []packStateRow
	if err := sel(ctx, tx, &rows, "SELECT block, pack, state, desk, entry FROM pack_states WHERE block = ? AND pack BETWEEN ? AND ?",
		b.ID, m.First, m.Last); err != nil {
		return l.classify(err)
	}
	cur := map[int]packStateRow{}
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
		if !moveAllowed(m.Move, r.State) {
			return fmt.Errorf("%w: pack %s is %s; %s needs it %s", ErrPackMove, code,
				stateName(r.State), m.Move, strings.Join(fromNames(mv.from), " or "))
		}
		switch {
		case mustBe && r.Desk != m.Desk:
			return fmt.Errorf("%w: pack %s was delivered to desk %s, not %s", ErrPackMove, code, orNone(r.Desk), m.Desk)
		case m.Move != "deliver" && r.Desk != desk:
			return fmt.Errorf("%w: packs %s and %s are desk %s's and desk %s's: move them one counter at a time", ErrPackMove,
				game.PackCode{Game: b.Game, Block: b.Number, Pack: m.First}, code, orNone(desk), orNone(r.Desk))
		}
	}
	e := entry{Kind: "packs", Game: b.Game, Block: b.Number, PackFirst: m.First, PackLast: m.Last, State: mv.to,
		Method: m.Move, Desk: desk, Operator: who.Operator, Reason: m.Reason}
	if err := l.appendJournal(ctx, tx, &e); err != nil {
		return err
	}
	if _, err := execute(ctx, tx, `WITH RECURSIVE p(n) AS (SELECT CAST(? AS INTEGER) UNION ALL SELECT n + 1 FROM p WHERE n < CAST(? AS INTEGER))
		INSERT INTO pack_states (block, pack, state, desk, entry)
		SELECT CAST(? AS BIGINT), n, CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS BIGINT) FROM p WHERE true
		ON CONFLICT (block, pack) DO UPDATE SET state = excluded.state, desk = excluded.desk, entry = excluded.entry`,
		m.First, m.Last, b.ID, mv.to, desk, e.ID); err != nil {
		return l.classify(err)
	}
	return l.classify(tx.Commit())
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
		out[i] = stateName(s)
	}
	return out
}

// ErrPackMove: a move that a pack's state does not allow.
var ErrPackMove = errors.New("pack move not allowed")

// PackMoveFrom lists the states (of PackStates) that move takes a pack
// from, and the state it leads to; ok is false for no such move. The app
// says with it why a move was refused.
func PackMoveFrom(move string) (from []string, to string, ok bool) {
	m, ok := packMoves[move]
	if !ok {
		return nil, "", false
	}
	return fromNames(m.from), m.to, true
}
