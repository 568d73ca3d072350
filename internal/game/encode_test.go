package game

import (
	"errors"
	"testing"
)

func TestEncodeRoundTripEveryWay(t *testing.T) {
	rng := NewRand([32]byte{1, 2})
	for i := range Catalogue {
		for range 200 {
			var tk Ticket
			Build(rng, &Catalogue[i], &tk)
			code := Encode(&tk)
			back, err := Decode(code[:])
			if err != nil || back != tk {
				t.Fatalf("way %v: round trip %+v → %x → %+v, %v", Catalogue[i], tk, code, back, err)
			}
		}
	}
}

// Extreme values of every field survive the encoding.
func TestEncodeExtremes(t *testing.T) {
	tk := Ticket{
		Roulette: RouletteSurface{[4]int{36, 1, 35, 2}, [3]Bet{{36, 50000}, {1, 3}, {34, 1000}}},
		Craps:    CrapsSurface{[2]int{6, 1}, 50000},
		Duel:     DuelSurface{[3]Card{As, As, Two}, Roi, 50000},
		Jackpot:  [3]Line{{[3]Symbol{Diamant, Diamant, Sept}, 50000}, {[3]Symbol{Sept, Sept, Sept}, 3}, {[3]Symbol{Bar, Diamant, Bar}, 100}},
		Bonus:    50000,
	}
	code := Encode(&tk)
	if back, err := Decode(code[:]); err != nil || back != tk {
		t.Fatalf("round trip: %+v, %v", back, err)
	}
}

func TestDecodeRefuses(t *testing.T) {
	if _, err := Decode(make([]byte, 13)); !errors.Is(err, ErrEncoding) {
		t.Errorf("13 bytes: %v", err)
	}
	base := Encode(&Ticket{Craps: CrapsSurface{[2]int{1, 1}, 3}})
	// Bit offsets (from the most significant bit) of fields that can hold
	// an out-of-range value.
	tests := []struct {
		name  string
		off   int
		width int
		value uint
	}{
		{"die of 7 pips", 44, 3, 6},
		{"die of 8 pips", 47, 3, 7},
		{"card rank 13", 53, 4, 13},
		{"bank AS", 65, 4, 12},
		{"bonus code 9", 108, 4, 9},
	}
	for _, tt := range tests {
		code := base
		for i := 0; i < tt.width; i++ {
			bit := tt.off + i
			code[bit/8] &^= 0x80 >> (bit % 8)
			if tt.value>>(tt.width-1-i)&1 == 1 {
				code[bit/8] |= 0x80 >> (bit % 8)
			}
		}
		if _, err := Decode(code[:]); !errors.Is(err, ErrEncoding) {
			t.Errorf("%s: err = %v, want ErrEncoding", tt.name, err)
		}
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(make([]byte, EncodedSize))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		tk, err := Decode(b)
		if err != nil {
			return
		}
		code := Encode(&tk)
		if string(code[:]) != string(b) {
			t.Fatalf("Decode(%x) re-encodes to %x", b, code)
		}
	})
}

func TestValidate(t *testing.T) {
	tk := losing()
	if err := Validate(&tk); err != nil {
		t.Fatalf("valid ticket: %v", err)
	}
	// verify validates every ticket of a block: a genuine one costs no
	// allocation (formatting its fields' paths once made verify 4× slower).
	if n := testing.AllocsPerRun(100, func() { Validate(&tk) }); n != 0 {
		t.Errorf("Validate of a valid ticket allocates %v times", n)
	}
	tk.Roulette.Winning[3] = 4
	tk.Roulette.Bets[0] = Bet{9, 7}
	tk.Craps.Dice[1] = 0
	tk.Duel.Bank = As
	tk.Jackpot[1].Symbols[0] = NumSymbols
	tk.Bonus = 1
	var es Errors
	if !errors.As(Validate(&tk), &es) {
		t.Fatal("invalid ticket accepted")
	}
	// Every fault in ticket order, with its kind: the commit that gave
	// every fault a kind left Validate's out.
	want := []struct {
		msg  string
		kind Kind
	}{
		{"roulette.winning[3]: 4 repeats roulette.winning[0]; a number appears once in NUMÉROS GAGNANTS", KindRepeat},
		{"roulette.bets[0].number: 9 is not a roulette number; the roulette shows 1 to 36 except 3, 6, 9 and 15", KindValue},
		{"roulette.bets[0].amount: 7 is not an amount of the game; give one of 3, 6, 9, 15, 50, 100, 1000, 50000 (euros)", KindValue},
		{"craps.dice[1]: 0 is not a die face; give 1 to 6 pips", KindValue},
		{"duel.bank: AS cannot be the bank's card; the bank shows 2 to R, never AS", KindValue},
		{"jackpot[1].symbols[0]: Symbol(8) is not a jackpot symbol; give one of 7 BAR CERISE CLOCHE TREFLE CITRON PASTEQUE DIAMANT", KindValue},
		{"bonus: 1 is not an amount of the game; BONUS shows 0 or one of 3, 6, 9, 15, 50, 100, 1000, 50000 (euros)", KindValue},
	}
	if len(es) != len(want) {
		t.Fatalf("errors:\n%v\nwant %d", es, len(want))
	}
	for i, w := range want {
		if es[i].Error() != w.msg || es[i].Kind != w.kind {
			t.Errorf("error %d = %q of kind %d, want %q of kind %d", i, es[i], es[i].Kind, w.msg, w.kind)
		}
	}
	// A number off the roulette is not also a repeat.
	tk = losing()
	tk.Roulette.Winning[0], tk.Roulette.Winning[1] = 15, 15
	if !errors.As(Validate(&tk), &es) || len(es) != 2 || es[0].Kind != KindValue || es[1].Kind != KindValue {
		t.Errorf("two 15s: %v", es)
	}
}
