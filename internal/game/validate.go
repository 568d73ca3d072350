package game

import "fmt"

// Validate checks a ticket against every constraint of the regulation and
// rules.md (numbers, no repeat within a zone, dice, card values, bank never
// AS, symbols, amounts) and returns every fault as Errors, or nil.
func Validate(t *Ticket) error {
	var es Errors
	bad := func(field string, v any, problem string) {
		es = append(es, &FieldError{Field: field, Value: fmt.Sprint(v), Problem: problem})
	}
	checkNumbers := func(zone string, nums []int) {
		for i, n := range nums {
			if !IsRouletteNumber(n) {
				bad(fmt.Sprintf(zone, i), n, "is not a roulette number")
			}
			for j := 0; j < i; j++ {
				if nums[j] == n {
					bad(fmt.Sprintf(zone, i), n, "repeats a number of the same zone")
				}
			}
		}
	}
	checkNumbers("roulette.winning[%d]", t.Roulette.Winning[:])
	var bets [3]int
	for i, b := range t.Roulette.Bets {
		bets[i] = b.Number
		if !IsAmount(b.Amount) {
			bad(fmt.Sprintf("roulette.bets[%d].amount", i), b.Amount, "is not an amount of the game")
		}
	}
	checkNumbers("roulette.bets[%d].number", bets[:])
	for i, d := range t.Craps.Dice {
		if d < 1 || d > 6 {
			bad(fmt.Sprintf("craps.dice[%d]", i), d, "is not a die face")
		}
	}
	if !IsAmount(t.Craps.Amount) {
		bad("craps.amount", t.Craps.Amount, "is not an amount of the game")
	}
	for i, c := range t.Duel.Cards {
		if c >= NumCards {
			bad(fmt.Sprintf("duel.cards[%d]", i), c, "is not a card value")
		}
	}
	if t.Duel.Bank >= As {
		bad("duel.bank", t.Duel.Bank, "cannot be the bank's card")
	}
	if !IsAmount(t.Duel.Amount) {
		bad("duel.amount", t.Duel.Amount, "is not an amount of the game")
	}
	for i, l := range t.Jackpot {
		for j, s := range l.Symbols {
			if s >= NumSymbols {
				bad(fmt.Sprintf("jackpot[%d].symbols[%d]", i, j), s, "is not a jackpot symbol")
			}
		}
		if !IsAmount(l.Amount) {
			bad(fmt.Sprintf("jackpot[%d].amount", i), l.Amount, "is not an amount of the game")
		}
	}
	if t.Bonus != 0 && !IsAmount(t.Bonus) {
		bad("bonus", t.Bonus, "is not an amount of the game")
	}
	if len(es) > 0 {
		return es
	}
	return nil
}
