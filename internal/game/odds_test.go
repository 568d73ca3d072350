package game

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The derived odds (odds.go) against the generator itself: for a few ways,
// Build is sampled 300,000 times and the most frequent surface's share
// is compared with the derived largest probability of that surface.
func TestMaxContentsProbability(t *testing.T) {
	if testing.Short() {
		t.Skip("samples millions of tickets")
	}
	wayOf := func(name string) *Way {
		for i := range Catalogue {
			if Catalogue[i].String() == name {
				return &Catalogue[i]
			}
		}
		t.Fatalf("no way %q", name)
		return nil
	}
	const n = 300_000
	type surface struct {
		name string
		key  func(t *Ticket) string
		want float64
	}
	for _, tc := range []struct {
		way      string
		surfaces []surface
	}{
		{"JACKPOT 3 + JACKPOT 3 + JACKPOT 3", []surface{
			{"jackpot", func(t *Ticket) string { return fmt.Sprint(t.Jackpot) }, maxJackpot([]int{3, 3, 3})},
			{"craps (loses)", func(t *Ticket) string { return fmt.Sprint(t.Craps) }, maxCraps(0)},
			{"duel (loses)", func(t *Ticket) string { return fmt.Sprint(t.Duel) }, maxDuel(0)},
		}},
		{"JACKPOT 6 + JACKPOT 6 + JACKPOT 3", []surface{
			{"jackpot", func(t *Ticket) string { return fmt.Sprint(t.Jackpot) }, maxJackpot([]int{6, 6, 3})},
		}},
		{"DUEL 3", []surface{
			{"duel (wins)", func(t *Ticket) string { return fmt.Sprint(t.Duel) }, maxDuel(3)},
			{"a losing jackpot line", func(t *Ticket) string { return fmt.Sprint(t.Jackpot[0]) }, maxDecoyLine() * maxDecoy()},
			{"a losing chip's amount", func(t *Ticket) string { return fmt.Sprint(t.Roulette.Bets[0].Amount) }, maxDecoy()},
		}},
		{"CRAPS 3", []surface{
			{"craps (wins)", func(t *Ticket) string { return fmt.Sprint(t.Craps) }, maxCraps(3)},
		}},
	} {
		w := wayOf(tc.way)
		counts := make([]map[string]int, len(tc.surfaces))
		for i := range counts {
			counts[i] = map[string]int{}
		}
		r := NewRand([32]byte{byte(len(tc.way)), 5})
		var tk Ticket
		for range n {
			Build(r, w, &tk)
			for i, s := range tc.surfaces {
				counts[i][s.key(&tk)]++
			}
		}
		for i, s := range tc.surfaces {
			best := 0
			for _, c := range counts[i] {
				best = max(best, c)
			}
			got := float64(best) / n
			// The most frequent of many outcomes of equal odds comes out
			// a little above them.
			sd := math.Sqrt(s.want * (1 - s.want) / n)
			if got < s.want-4*sd || got > s.want+6*sd {
				t.Errorf("%s, %s: the most frequent comes out %.6f of the time, the derivation says %.6f", tc.way, s.name, got, s.want)
			}
		}
	}
}

// Every way has a largest contents probability below 2^-60, and the table
// of docs/trust-model.md is this one: each row read back from
// docs/trust-model.md and compared, figure by figure as printed, with the values
// computed from the generator's tables; a way missing from the table, a
// row of no way, or a table out of order fails.
func TestContentsOddsTable(t *testing.T) {
	rows := readmeOddsTable(t)
	want := map[string]string{}
	for i := range Catalogue[1:] {
		w := &Catalogue[i+1]
		p := MaxContentsProbability(w)
		if p <= 0 || p > math.Exp2(-60) {
			t.Errorf("%s: most likely contents %.3g", w, p)
		}
		bits := -math.Log2(p)
		guess := bits - math.Log2(float64(w.Count))
		// On average half of 2^guess guesses, 128 SHA-256 each.
		want[w.String()] = fmt.Sprintf("| %s | %d | %.2f | %.2f | 2^%.2f |", w, w.Count, bits, guess, guess+math.Log2(128)-1)
	}
	seen := map[string]bool{}
	last := 0.0
	for _, row := range rows {
		name := strings.TrimSpace(strings.Split(row, "|")[1])
		if seen[name] {
			t.Errorf("docs/trust-model.md: %s has two rows", name)
		}
		seen[name] = true
		switch w, ok := want[name]; {
		case !ok:
			t.Errorf("docs/trust-model.md: a row for %q, which is no way of the catalogue", name)
		case row != w:
			t.Errorf("docs/trust-model.md's row\n  %s\ncomputed\n  %s", row, w)
		}
		var cost float64
		if _, err := fmt.Sscanf(row[strings.LastIndex(row, "2^")+2:], "%g", &cost); err != nil || cost < last {
			t.Errorf("docs/trust-model.md: %s out of order (cost %v after %v, %v)", name, cost, last, err)
		}
		last = cost
	}
	for name := range want {
		if !seen[name] {
			t.Errorf("docs/trust-model.md: no row for %s", name)
		}
	}
}

// readmeOddsTable returns the rows of docs/trust-model.md's table of the odds by
// contents, each as written.
func readmeOddsTable(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "trust-model.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(b), "| way to win (contents records) | per block | bits of the likeliest contents | bits a guess | SHA-256 on average |\n")
	if !ok {
		t.Fatal("docs/trust-model.md: no table of the odds by contents (its header changed?)")
	}
	var rows []string
	for _, line := range strings.Split(table, "\n") {
		switch {
		case strings.HasPrefix(line, "|---"):
		case strings.HasPrefix(line, "| "):
			rows = append(rows, line)
		default:
			return rows
		}
	}
	return rows
}
