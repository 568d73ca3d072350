package ledgertest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/conformance"
	"vegas-desk/internal/testcache"
)

// Conformance is the world of the conformance table (package
// conformance): Stock's ledger with the table's desks, identity threshold
// and emission, each ticket a case names found and its pack moved to the
// case's state, the payments made before, and the sealed counter ledgers
// D1.db and D0.db issued after them (signed by Key).
const Conformance = conformance.Fixture

// stateMoves are the moves that bring a pack from the stock to a state, at
// desk D1.
var stateMoves = map[string][]string{
	"stock":     nil,
	"delivered": {"deliver"},
	"received":  {"deliver", "receive"},
	"on-sale":   {"deliver", "receive", "activate"},
	"settled":   {"deliver", "receive", "activate", "settle"},
	"returned":  {"deliver", "return"},
	"stolen":    {"stolen"},
	"destroyed": {"destroyed"},
}

func buildConformance(dir string) error {
	ctx := context.Background()
	src, err := Dir(Stock)
	if err != nil {
		return err
	}
	if err := testcache.CopyFile(filepath.Join(src, "ledger.db"), filepath.Join(dir, "ledger.db")); err != nil {
		return err
	}
	l, err := ledger.Open(filepath.Join(dir, "ledger.db"))
	if err != nil {
		return err
	}
	defer l.Close()
	who := ledger.Identity{Desk: "BO", Operator: "conformance"}
	for _, d := range conformance.Desks {
		if _, err := l.AddDesk(ctx, d.ID, d.Limit, who); err != nil {
			return err
		}
	}
	if err := l.SetSetting(ctx, ledger.SettingIdentityThreshold, conformance.Threshold, who); err != nil {
		return err
	}
	if _, err := l.SetEmission(ctx, 531, conformance.OpenEmission(), who); err != nil {
		return err
	}
	cases := conformance.Cases()
	w, states, err := allocate(ctx, l, cases)
	if err != nil {
		return err
	}
	for pack, state := range states {
		for _, mv := range stateMoves[state] {
			m := ledger.PackMove{Game: 531, Block: 1, First: pack, Last: pack, Move: mv, Desk: "D1"}
			if mv != "deliver" && mv != "receive" && mv != "activate" {
				m.Desk = ""
			}
			if err := l.MovePacks(ctx, m, who); err != nil {
				return fmt.Errorf("pack %d to %s: %w", pack, state, err)
			}
		}
	}
	for _, c := range cases {
		if c.Before == "" {
			continue
		}
		req := ledger.ClaimRequest{Serial: w.Tickets[c.Ticket.Spec].Serial, Method: ledger.MethodSerial,
			Who: ledger.Identity{Desk: c.Before, Operator: "before"}, Limit: ledger.NoLimit}
		if _, err := l.Claim(ctx, req); err != nil {
			return fmt.Errorf("case %s: pay before: %w", c.Name, err)
		}
	}
	for _, desk := range conformance.Counters {
		spec := ledger.CounterSpec{Desk: desk, Limit: ledger.NoLimit, Key: Key, Who: who}
		if _, err := l.IssueCounter(ctx, filepath.Join(dir, desk+".db"), spec); err != nil {
			return fmt.Errorf("issue %s: %w", desk, err)
		}
	}
	data, err := json.MarshalIndent(w, "", " ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "world.json"), data, 0o600); err != nil {
		return err
	}
	return l.Close()
}

// allocate finds each ticket the cases name: of its prize, in a pack of
// its state (a pack first found is given the state), none twice. It
// returns the world and the packs' states.
func allocate(ctx context.Context, l *ledger.Ledger, cases []conformance.Case) (conformance.World, map[int]string, error) {
	w := conformance.World{Tickets: map[string]conformance.WorldTicket{}}
	states := map[int]string{}
	used := map[int]bool{}
	packs := map[int][]ledger.Ticket{}
	pack := func(p int) ([]ledger.Ticket, error) {
		if ts, ok := packs[p]; ok {
			return ts, nil
		}
		var ts []ledger.Ticket
		for i := range game.PackSize {
			t, err := l.TicketAt(ctx, 531, 1, p*game.PackSize+i)
			if err != nil {
				return nil, err
			}
			ts = append(ts, t)
		}
		packs[p] = ts
		return ts, nil
	}
	rare, err := readSerials(Stock)
	if err != nil {
		return w, nil, err
	}
	for _, c := range cases {
		spec := c.Ticket
		if _, done := w.Tickets[spec.Spec]; done {
			if spec.Mod == "contents" && w.Tickets[spec.Spec].Unknown == nil {
				return w, nil, fmt.Errorf("case %s: !contents on a ticket named before", c.Name)
			}
			continue
		}
		var candidates []int
		if spec.Prize >= 100 {
			for _, s := range rare.Winners[spec.Prize] {
				sr, _ := game.ParseSerial(s)
				candidates = append(candidates, sr.Position)
			}
		} else {
			for p := 0; len(candidates) < 1 && p < game.BlockSize/game.PackSize; p++ {
				if st, ok := states[p]; ok && st != spec.State {
					continue
				}
				ts, err := pack(p)
				if err != nil {
					return w, nil, err
				}
				for _, t := range ts {
					if t.Prize == spec.Prize && !used[t.Position] {
						candidates = append(candidates, t.Position)
						break
					}
				}
			}
		}
		found := false
		for _, pos := range candidates {
			p := pos / game.PackSize
			if st, ok := states[p]; used[pos] || ok && st != spec.State {
				continue
			}
			t, err := l.TicketAt(ctx, 531, 1, pos)
			if err != nil {
				return w, nil, err
			}
			wt := conformance.WorldTicket{Serial: t.Serial.String(), Position: pos, Doc: game.NewDoc(&t.Ticket)}
			if spec.Mod == "contents" {
				if wt.Unknown, err = unknownContents(ctx, l, t.Ticket); err != nil {
					return w, nil, fmt.Errorf("case %s: %w", c.Name, err)
				}
			}
			states[p], used[pos], w.Tickets[spec.Spec], found = spec.State, true, wt, true
			break
		}
		if !found {
			return w, nil, fmt.Errorf("case %s: no ticket %s left", c.Name, spec.Spec)
		}
	}
	return w, states, nil
}

// unknownContents are contents of t's prize that no ticket of l shows: t's
// with other dice.
func unknownContents(ctx context.Context, l *ledger.Ledger, t game.Ticket) (*game.Doc, error) {
	prize := game.Prize(&t)
	for a := 1; a <= 6; a++ {
		for b := 1; b <= 6; b++ {
			u := t
			u.Craps.Dice = [2]int{a, b}
			if u.Craps.Dice == t.Craps.Dice || game.Validate(&u) != nil || game.Prize(&u) != prize {
				continue
			}
			_, err := l.FindByContents(ctx, &u, ledger.Identity{Desk: "BO", Operator: "conformance"}, ledger.NoLimit)
			if errors.Is(err, ledger.ErrUnknownContents) {
				d := game.NewDoc(&u)
				return &d, nil
			}
		}
	}
	return nil, errors.New("no unknown contents of this prize")
}
