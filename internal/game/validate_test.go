package game

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Validate answers first with valid, its check without names, and names
// the faults (faults) only when valid finds one: the two must agree on
// every ticket, or a fault valid misses is a ticket verify accepts. Every
// field of a valid ticket set in turn to each value of its range and just
// beyond it, then a million tickets of several fields changed at once.
func TestValidFaultsAgree(t *testing.T) {
	ints := []int{-1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 15, 16, 27, 35, 36, 37, 40, 50, 63, 64, 100, 999, 1000, 50000, -50000}
	var small []int
	for v := range 20 {
		small = append(small, v)
	}
	small = append(small, 255)
	// Each field of a ticket, as a setter taking any value of its kind.
	type field struct {
		name   string
		values []int
		set    func(*Ticket, int)
	}
	var fields []field
	add := func(name string, values []int, set func(*Ticket, int)) {
		fields = append(fields, field{name, values, set})
	}
	for i := range 4 {
		add("winning", ints, func(t *Ticket, v int) { t.Roulette.Winning[i] = v })
	}
	for i := range 3 {
		add("bet number", ints, func(t *Ticket, v int) { t.Roulette.Bets[i].Number = v })
		add("bet amount", ints, func(t *Ticket, v int) { t.Roulette.Bets[i].Amount = v })
		add("card", small, func(t *Ticket, v int) { t.Duel.Cards[i] = Card(v) })
		add("line amount", ints, func(t *Ticket, v int) { t.Jackpot[i].Amount = v })
		for j := range 3 {
			add("symbol", small, func(t *Ticket, v int) { t.Jackpot[i].Symbols[j] = Symbol(v) })
		}
	}
	for i := range 2 {
		add("die", ints, func(t *Ticket, v int) { t.Craps.Dice[i] = v })
	}
	add("craps amount", ints, func(t *Ticket, v int) { t.Craps.Amount = v })
	add("bank", small, func(t *Ticket, v int) { t.Duel.Bank = Card(v) })
	add("duel amount", ints, func(t *Ticket, v int) { t.Duel.Amount = v })
	add("bonus", ints, func(t *Ticket, v int) { t.Bonus = v })

	agree := func(tk *Ticket, what string) {
		t.Helper()
		if ok, err := valid(tk), faults(tk); ok != (err == nil) {
			t.Fatalf("%s: valid says %v, faults says %v\n%+v", what, ok, err, *tk)
		}
	}
	base := losing()
	agree(&base, "the losing ticket")
	if !valid(&base) {
		t.Fatal("the losing ticket is not valid")
	}
	invalid := 0
	for _, f := range fields {
		for _, v := range f.values {
			tk := base
			f.set(&tk, v)
			agree(&tk, f.name)
			if !valid(&tk) {
				invalid++
			}
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 1_000_000 {
		tk := base
		for range 1 + r.IntN(3) {
			f := fields[r.IntN(len(fields))]
			f.set(&tk, f.values[r.IntN(len(f.values))])
		}
		agree(&tk, "several fields")
		if !valid(&tk) {
			invalid++
		}
	}
	if invalid < 100_000 {
		t.Errorf("only %d of the tickets tried were invalid", invalid)
	}
}

// IsAmount looks the amount up by its last four bits: the same answer as
// the list's, for every integer around and between the amounts, and each
// amount at a slot of its own.
func TestIsAmount(t *testing.T) {
	seen := map[int]bool{}
	for _, a := range Amounts {
		if seen[a&15] {
			t.Fatalf("two amounts end in the same four bits: %d", a)
		}
		seen[a&15] = true
	}
	for a := -70_000; a <= 70_000; a++ {
		if got, want := IsAmount(a), amountIndex(a) >= 0; got != want {
			t.Fatalf("IsAmount(%d) = %v, want %v", a, got, want)
		}
	}
	for _, a := range []int{math.MinInt, math.MinInt + 3, math.MaxInt, 1<<32 + 3, -(1 << 40) + 50} {
		if IsAmount(a) {
			t.Errorf("IsAmount(%d)", a)
		}
	}
}
