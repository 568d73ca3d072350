package game

import (
	"math"
	"testing"
)

// IntN is uniform: a chi-square test over many draws for a few bounds.
func TestRandUniform(t *testing.T) {
	r := NewRand([32]byte{9})
	for _, n := range []int{2, 3, 6, 7, 28, 32, 100} {
		const per = 20000
		counts := make([]int, n)
		for range n * per {
			v := r.IntN(n)
			if v < 0 || v >= n {
				t.Fatalf("IntN(%d) = %d", n, v)
			}
			counts[v]++
		}
		chi := 0.0
		for _, c := range counts {
			d := float64(c - per)
			chi += d * d / per
		}
		// Mean n-1, standard deviation sqrt(2(n-1)): 8 deviations is far
		// beyond any chance of a uniform generator.
		if df := float64(n - 1); chi > df+8*math.Sqrt(2*df) {
			t.Errorf("IntN(%d): chi² = %.1f over %d draws", n, chi, n*per)
		}
	}
}
