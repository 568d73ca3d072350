package game

import "testing"

func TestWords(t *testing.T) {
	tests := []struct {
		n    int
		want string
	}{
		{0, "ZÉRO"}, {1, "UN"}, {2, "DEUX"}, {4, "QUATRE"}, {7, "SEPT"}, {10, "DIX"}, {11, "ONZE"},
		{16, "SEIZE"}, {17, "DIX-SEPT"}, {19, "DIX-NEUF"}, {20, "VINGT"}, {21, "VINGT ET UN"},
		{22, "VINGT-DEUX"}, {30, "TRENTE"}, {31, "TRENTE ET UN"}, {36, "TRENTE-SIX"},
		{41, "QUARANTE ET UN"}, {50, "CINQUANTE"}, {61, "SOIXANTE ET UN"}, {70, "SOIXANTE-DIX"},
		{71, "SOIXANTE ET ONZE"}, {72, "SOIXANTE-DOUZE"}, {79, "SOIXANTE-DIX-NEUF"},
		{80, "QUATRE-VINGTS"}, {81, "QUATRE-VINGT-UN"}, {90, "QUATRE-VINGT-DIX"},
		{91, "QUATRE-VINGT-ONZE"}, {99, "QUATRE-VINGT-DIX-NEUF"}, {100, "CENT"}, {101, "CENT UN"},
		{200, "DEUX CENTS"}, {280, "DEUX CENT QUATRE-VINGTS"}, {1000, "MILLE"}, {1001, "MILLE UN"},
		{2000, "DEUX MILLE"}, {50000, "CINQUANTE MILLE"}, {80000, "QUATRE-VINGT MILLE"},
		{200000, "DEUX CENT MILLE"}, {999999, "NEUF CENT QUATRE-VINGT-DIX-NEUF MILLE NEUF CENT QUATRE-VINGT-DIX-NEUF"},
		{-1, ""}, {1000000, ""},
	}
	for _, tt := range tests {
		if got := Words(tt.n); got != tt.want {
			t.Errorf("Words(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

// Every number and amount the game can print has its words (rules.md).
func TestWordsOfEverythingPrinted(t *testing.T) {
	for _, n := range RouletteNumbers {
		if Words(n) == "" {
			t.Errorf("roulette number %d has no words", n)
		}
	}
	amounts := map[int]string{
		0: "ZÉRO EURO", 3: "TROIS EUROS", 6: "SIX EUROS", 9: "NEUF EUROS", 15: "QUINZE EUROS",
		50: "CINQUANTE EUROS", 100: "CENT EUROS", 1000: "MILLE EUROS", 50000: "CINQUANTE MILLE EUROS",
	}
	for a, want := range amounts {
		if got := AmountWords(a); got != want {
			t.Errorf("AmountWords(%d) = %q, want %q", a, got, want)
		}
	}
	figures := map[int]string{3: "3 €", 1000: "1 000 €", 50000: "50 000 €", 4200000: "4 200 000 €"}
	for a, want := range figures {
		if got := FormatAmount(a); got != want {
			t.Errorf("FormatAmount(%d) = %q, want %q", a, got, want)
		}
	}
	cards := []string{"DEUX", "TROIS", "QUATRE", "CINQ", "SIX", "SEPT", "HUIT", "NEUF", "DIX", "VALET", "DAME", "ROI", "AS"}
	for c := Card(0); c < NumCards; c++ {
		if got := c.Words(); got != cards[c] {
			t.Errorf("Card %v words = %q, want %q", c, got, cards[c])
		}
	}
	dice := []string{"", "UN", "DEUX", "TROIS", "QUATRE", "CINQ", "SIX", ""}
	for p, want := range dice {
		if got := DieWords(p); got != want {
			t.Errorf("DieWords(%d) = %q, want %q", p, got, want)
		}
	}
}

// A symbol is read by a person with its accents, and written in the
// interchange format without: each label folds back to its symbol.
func TestSymbolLabels(t *testing.T) {
	want := map[Symbol]string{Trefle: "TRÈFLE", Pasteque: "PASTÈQUE", Cerise: "CERISE", Sept: "7"}
	for s := Symbol(0); s < NumSymbols; s++ {
		if w, ok := want[s]; ok && s.Label() != w {
			t.Errorf("%s: label %q, want %q", s, s.Label(), w)
		}
		if got, ok := ParseSymbol(foldSymbol(s.Label())); !ok || got != s {
			t.Errorf("the label %q reads as %v, %v", s.Label(), got, ok)
		}
	}
}
