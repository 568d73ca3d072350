package counter

import (
	"math"
	"testing"

	"vegas-desk/internal/game"
)

// The cost of learning a ticket's prize or full serial from a sealed
// counter ledger without its serial or contents, in SHA-256 evaluations,
// for every way to win of the catalogue: at least 2^56 (README, "Trust
// model").
//
// Serial records: a guess names a game, block, position and secret part,
// and costs SerialIterations evaluations to test; for one position the
// secret part is one of 10^16 values, each at most ceil(2^64/10^16)/2^64
// likely (the reduction modulo 10^16), so the best search tests half of
// them on average.
//
// Contents records: a guess names a block and whole contents, and costs
// ContentsIterations evaluations; it hits a ticket of the block with
// probability at most count_w × p_w for its way w (p_w, the largest
// probability the generator gives one contents of that way: game.
// MaxContentsProbability). After n distinct guesses the chance of a hit is
// at most n × max(count_w × p_w), so on average at least 1 / (2 max(…))
// guesses are needed.
func TestSealCost(t *testing.T) {
	const target = 56.0
	// Serial records.
	pmax := math.Ceil(math.Exp2(64)/game.SecretModulus) / math.Exp2(64)
	serialBits := math.Log2(1/pmax/2) + math.Log2(SerialIterations)
	t.Logf("serial records: %.2f bits of secret part, %d SHA-256 a guess: 2^%.2f SHA-256 on average for one ticket",
		math.Log2(1/pmax), SerialIterations, serialBits)
	if serialBits < target {
		t.Errorf("serial records: 2^%.2f SHA-256, want at least 2^%.0f", serialBits, target)
	}
	// Contents records.
	weakest, weakestBits := "", math.Inf(1)
	for i := range game.Catalogue[1:] {
		w := &game.Catalogue[i+1]
		contents := -math.Log2(game.MaxContentsProbability(w))
		perGuess := contents - math.Log2(float64(w.Count))
		bits := perGuess - 1 + math.Log2(ContentsIterations)
		if bits < weakestBits {
			weakest, weakestBits = w.String(), bits
		}
		t.Logf("| %s | %d | %.2f | %.2f | 2^%.2f |", w, w.Count, contents, perGuess, bits)
		if bits < target {
			t.Errorf("contents of %s: 2^%.2f SHA-256, want at least 2^%.0f", w, bits, target)
		}
	}
	t.Logf("weakest: %s, 2^%.2f SHA-256 on average", weakest, weakestBits)
}
