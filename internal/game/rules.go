package game

import "fmt"

// Win is one winning zone of a ticket.
type Win struct {
	Surface Surface
	// Index tells which zone of the surface wins: the chip (0..2) for
	// ROULETTE, the line (0..2) for JACKPOT, 0 for the other surfaces.
	Index  int
	Amount int
}

// Zone names the winning zone as a field path of the interchange format,
// e.g. "roulette.bets[1]", "jackpot[2]", "craps".
func (w Win) Zone() string {
	switch w.Surface {
	case Roulette:
		return fmt.Sprintf("roulette.bets[%d]", w.Index)
	case Jackpot:
		return fmt.Sprintf("jackpot[%d]", w.Index)
	case Craps:
		return "craps"
	case Duel:
		return "duel"
	case Bonus:
		return "bonus"
	}
	return w.Surface.String()
}

// Evaluate applies articles 4.2 to 4.8 to a ticket: it returns the whole
// prize and each winning zone in ticket order. Evaluate does not validate;
// see Validate.
func Evaluate(t *Ticket) (prize int, wins []Win) {
	wins = AppendWins(nil, t)
	for _, w := range wins {
		prize += w.Amount
	}
	return prize, wins
}

// Prize returns the whole prize of a ticket without allocating.
func Prize(t *Ticket) int {
	var buf [9]Win
	p := 0
	for _, w := range AppendWins(buf[:0], t) {
		p += w.Amount
	}
	return p
}

// AppendWins appends the winning zones of t to dst, in ticket order.
func AppendWins(dst []Win, t *Ticket) []Win {
	// 4.2.3: each bet whose number is among the winning numbers wins its
	// amount; several matches add up.
	for i, b := range t.Roulette.Bets {
		for _, n := range t.Roulette.Winning {
			if b.Number == n {
				dst = append(dst, Win{Roulette, i, b.Amount})
				break
			}
		}
	}
	// 4.3.3: the two faces add up to exactly 7.
	if t.Craps.Dice[0]+t.Craps.Dice[1] == 7 {
		dst = append(dst, Win{Craps, 0, t.Craps.Amount})
	}
	// 4.4.4: at least one card strictly above the bank; paid once; a tie loses.
	for _, c := range t.Duel.Cards {
		if c > t.Duel.Bank {
			dst = append(dst, Win{Duel, 0, t.Duel.Amount})
			break
		}
	}
	// 4.5.3: three identical symbols on a line win that line's amount.
	for i, l := range t.Jackpot {
		if l.Symbols[0] == l.Symbols[1] && l.Symbols[1] == l.Symbols[2] {
			dst = append(dst, Win{Jackpot, i, l.Amount})
		}
	}
	// 4.6.3: any amount other than 0 €.
	if t.Bonus != 0 {
		dst = append(dst, Win{Bonus, 0, t.Bonus})
	}
	return dst
}
