package game

import (
	"fmt"
	"strings"
)

// Validate checks a ticket against every constraint of the regulation and
// rules.md (numbers, no repeat within a zone, dice, card values, bank never
// AS, symbols, amounts) and returns every fault as Errors, in ticket order,
// or nil. Each fault names its field path in the interchange format, has the
// kind KindValue or KindRepeat, and says what the zone shows instead. It is
// the one statement of these rules: ParseDoc reports its faults too.
func Validate(t *Ticket) error {
	var es Errors
	bad := func(field string, v any, kind Kind, problem string) {
		es = append(es, &FieldError{Field: field, Value: fmt.Sprint(v), Kind: kind, Problem: problem})
	}
	// Field paths are formatted only for a fault: verify validates every
	// ticket of a block.
	amount := func(a int, field string, args ...any) {
		if !IsAmount(a) {
			bad(fmt.Sprintf(field, args...), a, KindValue, "is not an amount of the game; give one of "+amountList())
		}
	}
	// number checks the i-th number of a roulette zone; a number that is
	// not on the roulette is not also reported as a repeat.
	number := func(zone, name string, nums []int, i int) {
		n := nums[i]
		if !IsRouletteNumber(n) {
			bad(fmt.Sprintf(zone, i), n, KindValue, "is not a roulette number; the roulette shows 1 to 36 except 3, 6, 9 and 15")
			return
		}
		for j := range i {
			if nums[j] == n {
				bad(fmt.Sprintf(zone, i), n, KindRepeat, fmt.Sprintf("repeats %s; a number appears once in %s", fmt.Sprintf(zone, j), name))
				return
			}
		}
	}
	for i := range t.Roulette.Winning {
		number("roulette.winning[%d]", "NUMÉROS GAGNANTS", t.Roulette.Winning[:], i)
	}
	var bets [3]int
	for i, b := range t.Roulette.Bets {
		bets[i] = b.Number
	}
	for i, b := range t.Roulette.Bets {
		number("roulette.bets[%d].number", "VOS MISES", bets[:], i)
		amount(b.Amount, "roulette.bets[%d].amount", i)
	}
	for i, d := range t.Craps.Dice {
		if d < 1 || d > 6 {
			bad(fmt.Sprintf("craps.dice[%d]", i), d, KindValue, "is not a die face; give 1 to 6 pips")
		}
	}
	amount(t.Craps.Amount, "craps.amount")
	const cards = "is not a card value; give one of 2 3 4 5 6 7 8 9 10 V D R AS"
	for i, c := range t.Duel.Cards {
		if c >= NumCards {
			bad(fmt.Sprintf("duel.cards[%d]", i), c, KindValue, cards)
		}
	}
	switch {
	case t.Duel.Bank == As:
		bad("duel.bank", t.Duel.Bank, KindValue, "cannot be the bank's card; the bank shows 2 to R, never AS")
	case t.Duel.Bank > As:
		bad("duel.bank", t.Duel.Bank, KindValue, cards)
	}
	amount(t.Duel.Amount, "duel.amount")
	for i, l := range t.Jackpot {
		for j, s := range l.Symbols {
			if s >= NumSymbols {
				bad(fmt.Sprintf("jackpot[%d].symbols[%d]", i, j), s, KindValue, "is not a jackpot symbol; give one of "+strings.Join(symbolNames[:], " "))
			}
		}
		amount(l.Amount, "jackpot[%d].amount", i)
	}
	if t.Bonus != 0 && !IsAmount(t.Bonus) {
		bad("bonus", t.Bonus, KindValue, "is not an amount of the game; BONUS shows 0 or one of "+amountList())
	}
	if len(es) > 0 {
		return es
	}
	return nil
}
