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
	if valid(t) {
		return nil
	}
	return faults(t)
}

// valid reports whether t breaks none of Validate's rules, at no cost
// beyond the comparisons: verify validates every ticket of a block (2
// million), and the complete check (faults), which names each field, cost
// a third of a verify's CPU. TestValidFaultsAgree checks that the two
// agree.
func valid(t *Ticket) bool {
	var seen uint64
	for _, n := range t.Roulette.Winning {
		if !IsRouletteNumber(n) || seen&(1<<n) != 0 {
			return false
		}
		seen |= 1 << n
	}
	seen = 0
	for _, b := range t.Roulette.Bets {
		if !IsRouletteNumber(b.Number) || seen&(1<<b.Number) != 0 || !IsAmount(b.Amount) {
			return false
		}
		seen |= 1 << b.Number
	}
	for _, d := range t.Craps.Dice {
		if d < 1 || d > 6 {
			return false
		}
	}
	if !IsAmount(t.Craps.Amount) || t.Duel.Bank >= As || !IsAmount(t.Duel.Amount) {
		return false
	}
	for _, c := range t.Duel.Cards {
		if c >= NumCards {
			return false
		}
	}
	for _, l := range t.Jackpot {
		for _, s := range l.Symbols {
			if s >= NumSymbols {
				return false
			}
		}
		if !IsAmount(l.Amount) {
			return false
		}
	}
	return t.Bonus == 0 || IsAmount(t.Bonus)
}

// faults is Validate's complete check: every fault, named.
func faults(t *Ticket) error {
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
