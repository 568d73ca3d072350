package game

import (
	"fmt"
	"strings"
)

// Part is one winning zone of a way to win.
type Part struct {
	Surface Surface
	Amount  int
}

// Way is one way to win a prize: the winning zones of the ticket and how
// many tickets of each block win this way. ROULETTE and JACKPOT parts may
// repeat (several chips, several lines); the other surfaces appear at most
// once. The loser's way has no parts.
type Way struct {
	Prize int
	Parts []Part
	Count int // tickets per block
}

// String names the way, e.g. "ROULETTE 3 + ROULETTE 3", or "loses" for the
// loser's way.
func (w Way) String() string {
	if len(w.Parts) == 0 {
		return "loses everywhere"
	}
	s := make([]string, len(w.Parts))
	for i, p := range w.Parts {
		s[i] = fmt.Sprintf("%s %s", p.Surface, GroupDigits(p.Amount))
	}
	return strings.Join(s, " + ")
}

func way(count int, parts ...any) Way {
	w := Way{Count: count}
	for i := 0; i < len(parts); i += 2 {
		p := Part{parts[i].(Surface), parts[i+1].(int)}
		w.Parts = append(w.Parts, p)
		w.Prize += p.Amount
	}
	return w
}

// Catalogue lists every way a ticket of a block can come out, with exact
// counts per block; Catalogue[0] is the loser's way. The counts of each
// prize add up to that prize's line of PrizeTable.
var Catalogue = []Way{
	{Count: BlockSize - Winners},

	way(48000, Roulette, 3),
	way(32000, Craps, 3),
	way(32000, Duel, 3),
	way(32000, Jackpot, 3),
	way(16000, Bonus, 3),

	way(30000, Roulette, 6),
	way(20000, Craps, 6),
	way(20000, Duel, 6),
	way(20000, Jackpot, 6),
	way(10000, Bonus, 6),
	way(30000, Roulette, 3, Roulette, 3),
	way(20000, Jackpot, 3, Jackpot, 3),
	way(20000, Craps, 3, Bonus, 3),
	way(20000, Duel, 3, Jackpot, 3),
	way(10000, Roulette, 3, Craps, 3),

	way(12000, Roulette, 9),
	way(10000, Craps, 9),
	way(10000, Duel, 9),
	way(10000, Jackpot, 9),
	way(5000, Bonus, 9),
	way(10000, Roulette, 6, Roulette, 3),
	way(10000, Craps, 6, Duel, 3),
	way(8000, Jackpot, 3, Jackpot, 3, Jackpot, 3),
	way(5000, Roulette, 3, Roulette, 3, Roulette, 3),
	way(10000, Duel, 6, Bonus, 3),
	way(10000, Roulette, 3, Jackpot, 6),

	way(7500, Roulette, 15),
	way(5000, Craps, 15),
	way(5000, Duel, 15),
	way(5000, Jackpot, 15),
	way(2500, Bonus, 15),
	way(5000, Roulette, 9, Roulette, 6),
	way(5000, Craps, 9, Bonus, 6),
	way(5000, Duel, 6, Jackpot, 9),
	way(2500, Jackpot, 6, Jackpot, 6, Jackpot, 3),
	way(2500, Roulette, 3, Craps, 3, Duel, 3, Jackpot, 3, Bonus, 3),
	way(2500, Roulette, 6, Roulette, 6, Roulette, 3),
	way(2500, Craps, 3, Duel, 6, Jackpot, 6),

	way(4320, Roulette, 50),
	way(2880, Craps, 50),
	way(2880, Duel, 50),
	way(2880, Jackpot, 50),
	way(1440, Bonus, 50),

	way(75, Roulette, 100),
	way(30, Craps, 100),
	way(45, Duel, 100),
	way(45, Jackpot, 100),
	way(30, Bonus, 100),
	way(15, Roulette, 50, Roulette, 50),
	way(30, Craps, 50, Duel, 50),
	way(30, Jackpot, 50, Bonus, 50),

	way(6, Roulette, 1000),
	way(3, Craps, 1000),
	way(4, Duel, 1000),
	way(4, Jackpot, 1000),
	way(3, Bonus, 1000),

	way(1, Roulette, 50000),
	way(1, Jackpot, 50000),
}

// CatalogueText prints the catalogue as a Markdown table, highest prize
// first, for docs/game.md and `vegas-desk catalogue`.
func CatalogueText() string {
	var b strings.Builder
	b.WriteString("| prize | way to win | tickets per block | share of the tier |\n|---:|---|---:|---:|\n")
	for _, tier := range PrizeTable {
		for _, w := range Catalogue {
			if w.Prize == tier.Prize && len(w.Parts) > 0 {
				fmt.Fprintf(&b, "| %s € | %s | %s | %.1f %% |\n", GroupDigits(w.Prize), w, GroupDigits(w.Count),
					100*float64(w.Count)/float64(tier.Count))
			}
		}
	}
	fmt.Fprintf(&b, "| 0 € | %s | %s | |\n", Catalogue[0], GroupDigits(Catalogue[0].Count))
	return b.String()
}
