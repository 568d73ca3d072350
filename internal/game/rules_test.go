package game

import (
	"reflect"
	"testing"
)

// losing is a ticket that loses on all five surfaces; tests change one
// surface at a time.
func losing() Ticket {
	return Ticket{
		Roulette: RouletteSurface{
			Winning: [4]int{4, 12, 27, 33},
			Bets:    [3]Bet{{5, 3}, {36, 50}, {1, 1000}},
		},
		Craps:   CrapsSurface{Dice: [2]int{3, 3}, Amount: 15},
		Duel:    DuelSurface{Cards: [3]Card{Two, Nine, Valet}, Bank: Dame, Amount: 9},
		Jackpot: [3]Line{{[3]Symbol{Cerise, Cerise, Bar}, 6}, {[3]Symbol{Sept, Bar, Sept}, 50}, {[3]Symbol{Cloche, Trefle, Bar}, 3}},
		Bonus:   0,
	}
}

func TestRules(t *testing.T) {
	tests := []struct {
		name  string
		edit  func(*Ticket)
		prize int
		wins  []Win
	}{
		{"4.8 no winning zone loses", func(*Ticket) {}, 0, nil},

		// 4.2 ROULETTE
		{"4.2.3 one bet among the winning numbers wins its amount",
			func(t *Ticket) { t.Roulette.Bets[0] = Bet{12, 6} }, 6, []Win{{Roulette, 0, 6}}},
		{"4.2.3 the last winning number matches too",
			func(t *Ticket) { t.Roulette.Bets[2] = Bet{33, 15} }, 15, []Win{{Roulette, 2, 15}}},
		{"4.2.3 several matching bets add up",
			func(t *Ticket) { t.Roulette.Bets = [3]Bet{{4, 3}, {20, 50}, {27, 6}} }, 9, []Win{{Roulette, 0, 3}, {Roulette, 2, 6}}},
		{"4.2.3 three matching bets add up",
			func(t *Ticket) { t.Roulette.Bets = [3]Bet{{4, 3}, {12, 3}, {27, 3}} }, 9, []Win{{Roulette, 0, 3}, {Roulette, 1, 3}, {Roulette, 2, 3}}},
		{"4.2.4 a bet next to a winning number loses",
			func(t *Ticket) { t.Roulette.Bets[0] = Bet{13, 100} }, 0, nil},

		// 4.3 CRAPS
		{"4.3.3 dice adding to 7 win the amount",
			func(t *Ticket) { t.Craps.Dice = [2]int{3, 4} }, 15, []Win{{Craps, 0, 15}}},
		{"4.3.3 6 + 1 is 7",
			func(t *Ticket) { t.Craps.Dice = [2]int{6, 1} }, 15, []Win{{Craps, 0, 15}}},
		{"4.3.4 dice adding to 8 lose",
			func(t *Ticket) { t.Craps.Dice = [2]int{4, 4} }, 0, nil},
		{"4.3.4 dice adding to 6 lose",
			func(t *Ticket) { t.Craps.Dice = [2]int{5, 1} }, 0, nil},

		// 4.4 DUEL
		{"4.4.4 one card above the bank wins",
			func(t *Ticket) { t.Duel.Bank = Ten }, 9, []Win{{Duel, 0, 9}}},
		{"4.4.4 several cards above the bank win once",
			func(t *Ticket) { t.Duel.Cards = [3]Card{Roi, As, As}; t.Duel.Bank = Two }, 9, []Win{{Duel, 0, 9}}},
		{"4.4.4 AS beats ROI",
			func(t *Ticket) { t.Duel.Cards = [3]Card{Two, Three, As}; t.Duel.Bank = Roi }, 9, []Win{{Duel, 0, 9}}},
		{"4.4.5 a tie loses",
			func(t *Ticket) { t.Duel.Bank = Valet }, 0, nil},
		{"4.4.5 all cards below the bank lose",
			func(t *Ticket) { t.Duel.Bank = Roi }, 0, nil},
		{"settled: cards in any order are accepted",
			func(t *Ticket) { t.Duel.Cards = [3]Card{Dame, Two, Three}; t.Duel.Bank = Valet }, 9, []Win{{Duel, 0, 9}}},
		{"settled: repeated card values",
			func(t *Ticket) { t.Duel.Cards = [3]Card{Valet, Valet, Valet}; t.Duel.Bank = Valet }, 0, nil},

		// 4.5 JACKPOT
		{"4.5.3 three identical symbols win the line",
			func(t *Ticket) { t.Jackpot[1].Symbols = [3]Symbol{Sept, Sept, Sept} }, 50, []Win{{Jackpot, 1, 50}}},
		{"4.5.3 several lines add up",
			func(t *Ticket) {
				t.Jackpot[0].Symbols = [3]Symbol{Cerise, Cerise, Cerise}
				t.Jackpot[2].Symbols = [3]Symbol{Bar, Bar, Bar}
			}, 9, []Win{{Jackpot, 0, 6}, {Jackpot, 2, 3}}},
		{"4.5.4 two identical symbols lose",
			func(t *Ticket) { t.Jackpot[0].Symbols = [3]Symbol{Bar, Cerise, Cerise} }, 0, nil},

		// 4.6 BONUS
		{"4.6.3 an amount other than 0 wins",
			func(t *Ticket) { t.Bonus = 100 }, 100, []Win{{Bonus, 0, 100}}},
		{"4.6.4 0 € loses",
			func(t *Ticket) { t.Bonus = 0 }, 0, nil},

		// 4.7 wins of all surfaces add up
		{"4.7 every surface wins and all add up",
			func(t *Ticket) {
				t.Roulette.Bets[0] = Bet{4, 3}
				t.Craps.Dice = [2]int{2, 5}
				t.Craps.Amount = 3
				t.Duel.Bank = Two
				t.Duel.Amount = 3
				t.Jackpot[2].Symbols = [3]Symbol{Diamant, Diamant, Diamant}
				t.Bonus = 3
			}, 15, []Win{{Roulette, 0, 3}, {Craps, 0, 3}, {Duel, 0, 3}, {Jackpot, 2, 3}, {Bonus, 0, 3}}},
		{"4.7 roulette and jackpot add up to 50 000",
			func(t *Ticket) {
				t.Roulette.Bets[1] = Bet{27, 50000}
				t.Jackpot[0].Symbols = [3]Symbol{Cerise, Cerise, Cerise}
			}, 50006, []Win{{Roulette, 1, 50000}, {Jackpot, 0, 6}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tk := losing()
			tt.edit(&tk)
			prize, wins := Evaluate(&tk)
			if prize != tt.prize {
				t.Errorf("prize = %d, want %d", prize, tt.prize)
			}
			if !reflect.DeepEqual(wins, tt.wins) {
				t.Errorf("wins = %v, want %v", wins, tt.wins)
			}
			if got := Prize(&tk); got != tt.prize {
				t.Errorf("Prize = %d, want %d", got, tt.prize)
			}
		})
	}
}

func TestWinZone(t *testing.T) {
	tests := []struct {
		w    Win
		want string
	}{
		{Win{Roulette, 1, 3}, "roulette.bets[1]"},
		{Win{Craps, 0, 3}, "craps"},
		{Win{Duel, 0, 3}, "duel"},
		{Win{Jackpot, 2, 3}, "jackpot[2]"},
		{Win{Bonus, 0, 3}, "bonus"},
	}
	for _, tt := range tests {
		if got := tt.w.Zone(); got != tt.want {
			t.Errorf("%v.Zone() = %q, want %q", tt.w, got, tt.want)
		}
	}
}

func TestPrizeTable(t *testing.T) {
	n, sum := 0, 0
	for _, tier := range PrizeTable {
		n += tier.Count
		sum += tier.Count * tier.Prize
	}
	if n != Winners || sum != Payout {
		t.Errorf("table: %d winners, %d €; article 3 says %d, %d €", n, sum, Winners, Payout)
	}
	if 10*Payout != 7*BlockSize*Price {
		t.Errorf("payout %d is not 70 %% of %d sales", Payout, BlockSize*Price)
	}
	for _, n := range []int{0, 3, 6, 9, 15} {
		if IsRouletteNumber(n) {
			t.Errorf("%d is a roulette number; article 4.2.2 leaves it out", n)
		}
	}
	if len(RouletteNumbers) != 32 {
		t.Errorf("%d roulette numbers, want 32", len(RouletteNumbers))
	}
}
