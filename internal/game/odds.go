package game

import (
	"slices"
)

// The odds of guessing a ticket's contents: what a sealed counter ledger's
// contents records (internal/ledger/seal.go) cost an attacker who guesses
// whole contents. The figures come from the generator's own tables and
// builders (generate.go: decoyAmounts, sevens and notSevens, buildDuel,
// buildJackpot, buildRoulette); TestMaxContentsProbability checks them
// against the frequencies of tickets the generator makes.

// MaxContentsProbability returns the largest probability the generator
// gives any single contents (any one encoding) of a ticket of way w. The
// surfaces are drawn independently, so it is the product of each
// surface's largest probability.
func MaxContentsProbability(w *Way) float64 {
	roul, craps, duel, jack, _ := w.amounts()
	// BONUS shows the way's bonus amount (or 0 €): probability 1.
	return maxRoulette(len(roul)) * maxCraps(craps) * maxDuel(duel) * maxJackpot(jack)
}

// maxDecoy is the largest probability of one decoy amount.
func maxDecoy() float64 {
	counts := map[int]int{}
	best := 0
	for _, a := range decoyAmounts {
		counts[a]++
		best = max(best, counts[a])
	}
	return float64(best) / float64(len(decoyAmounts))
}

func factorial(n int) float64 {
	f := 1.0
	for i := 2; i <= n; i++ {
		f *= float64(i)
	}
	return f
}

// maxRoulette: the 4 winning numbers are an ordered draw from the 32; the
// chips that lose show further numbers, each drawn from those left (the
// draws buildRoulette skips do not change their odds), with decoy
// amounts; the winning chips' places and amounts are fixed by their
// numbers, and the losing chips' places are a random order of
// interchangeable draws, so (3-k)! of the 3! orders give one roulette.
func maxRoulette(k int) float64 {
	n := len(RouletteNumbers)
	p := 1.0
	for i := range 4 {
		p /= float64(n - i)
	}
	for j := range 3 - k {
		p /= float64(n - 4 - j)
	}
	return p * factorial(3-k) / 6 * pow(maxDecoy(), 3-k)
}

func pow(x float64, n int) float64 {
	p := 1.0
	for range n {
		p *= x
	}
	return p
}

// maxCraps: winning dice are one of the sevens with the win's amount;
// losing dice one of the others, with a decoy amount.
func maxCraps(win int) float64 {
	if win > 0 {
		return 1 / float64(len(sevens))
	}
	return 1 / float64(len(notSevens)) * maxDecoy()
}

// maxDuel enumerates buildDuel's draws: the bank, the player's cards
// (shown ascending) and, when the duel loses, a decoy amount.
func maxDuel(win int) float64 {
	odds := map[[4]Card]float64{}
	add := func(bank Card, cards [3]Card, p float64) {
		slices.Sort(cards[:])
		odds[[4]Card{cards[0], cards[1], cards[2], bank}] += p
	}
	if win > 0 {
		for bank := Card(0); bank < As; bank++ {
			pBank := 1 / float64(As)
			for c0 := bank + 1; c0 <= As; c0++ {
				p0 := pBank / float64(As-bank)
				for c1 := range Card(NumCards) {
					for c2 := range Card(NumCards) {
						add(bank, [3]Card{c0, c1, c2}, p0/NumCards/NumCards)
					}
				}
			}
		}
	} else {
		for bank := Five; bank < As; bank++ {
			pBank := 1 / float64(As-Five)
			n := float64(bank + 1)
			for c0 := Card(0); c0 <= bank; c0++ {
				for c1 := Card(0); c1 <= bank; c1++ {
					for c2 := Card(0); c2 <= bank; c2++ {
						add(bank, [3]Card{c0, c1, c2}, pBank/n/n/n)
					}
				}
			}
		}
	}
	best := 0.0
	for _, p := range odds {
		best = max(best, p)
	}
	if win == 0 {
		best *= maxDecoy()
	}
	return best
}

// maxDecoyLine enumerates buildJackpot's draws for a losing line: its
// three symbols (a near miss 45 times in 100, else any line but three of a
// kind).
func maxDecoyLine() float64 {
	odds := map[[3]Symbol]float64{}
	for a := range Symbol(NumSymbols) {
		for off := range Symbol(NumSymbols - 1) {
			b := (a + 1 + off) % NumSymbols
			p := 1.0 / NumSymbols / (NumSymbols - 1)
			for at := range 3 {
				l := [3]Symbol{a, a, a}
				l[at] = b
				odds[l] += p * 0.45 / 3
			}
			for c := range Symbol(NumSymbols) {
				odds[[3]Symbol{a, b, c}] += p * 0.55 / NumSymbols
			}
		}
	}
	best := 0.0
	for _, p := range odds {
		best = max(best, p)
	}
	return best
}

// maxJackpot: a winning line is three of one symbol with its amount; a
// losing line is never three of a kind, so the lines' roles show; lines
// that win the same amount, and the losing lines, are interchangeable
// draws in a random order of the three.
func maxJackpot(wins []int) float64 {
	p := pow(1/float64(NumSymbols), len(wins)) * pow(maxDecoyLine()*maxDecoy(), 3-len(wins))
	orders := factorial(3 - len(wins))
	same := map[int]int{}
	for _, a := range wins {
		same[a]++
	}
	for _, n := range same {
		orders *= factorial(n)
	}
	return p * orders / 6
}
