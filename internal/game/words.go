package game

import "strings"

var units = [20]string{"ZÉRO", "UN", "DEUX", "TROIS", "QUATRE", "CINQ", "SIX", "SEPT", "HUIT", "NEUF",
	"DIX", "ONZE", "DOUZE", "TREIZE", "QUATORZE", "QUINZE", "SEIZE", "DIX-SEPT", "DIX-HUIT", "DIX-NEUF"}

var tens = [10]string{"", "", "VINGT", "TRENTE", "QUARANTE", "CINQUANTE", "SOIXANTE", "SOIXANTE", "QUATRE-VINGT", "QUATRE-VINGT"}

// Words returns the French transcription of n (0 ≤ n < 1,000,000) in
// capitals, in the traditional spelling printed on tickets: 21 VINGT ET UN,
// 71 SOIXANTE ET ONZE, 80 QUATRE-VINGTS, 1000 MILLE, 50000 CINQUANTE MILLE.
// A negative or larger n returns "".
func Words(n int) string {
	switch {
	case n < 0 || n >= 1_000_000:
		return ""
	case n == 0:
		return units[0]
	}
	var parts []string
	if th := n / 1000; th > 0 {
		if th > 1 {
			parts = append(parts, below1000(th, false))
		}
		parts = append(parts, "MILLE") // invariable
	}
	if r := n % 1000; r > 0 {
		parts = append(parts, below1000(r, true))
	}
	return strings.Join(parts, " ")
}

// below1000 spells 1..999. final says whether the number ends the whole
// numeral: "CENTS" and "QUATRE-VINGTS" take their s only then.
func below1000(n int, final bool) string {
	var parts []string
	h, r := n/100, n%100
	if h > 0 {
		c := "CENT"
		if h > 1 {
			c = units[h] + " CENT"
			if r == 0 && final {
				c += "S"
			}
		}
		parts = append(parts, c)
	}
	if r > 0 {
		parts = append(parts, below100(r, final))
	}
	return strings.Join(parts, " ")
}

func below100(n int, final bool) string {
	if n < 20 {
		return units[n]
	}
	t, u := n/10, n%10
	if t == 7 || t == 9 { // SOIXANTE-DIX…, QUATRE-VINGT-DIX…
		u += 10
	}
	switch {
	case u == 0 && t == 8:
		if final {
			return "QUATRE-VINGTS"
		}
		return "QUATRE-VINGT"
	case u == 0:
		return tens[t]
	case (u == 1 || u == 11) && t < 8: // VINGT ET UN … SOIXANTE ET ONZE
		return tens[t] + " ET " + units[u]
	}
	return tens[t] + "-" + units[u]
}

// AmountWords returns the words printed under an amount: "ZÉRO EURO",
// "TROIS EUROS", "MILLE EUROS", "CINQUANTE MILLE EUROS".
func AmountWords(euros int) string {
	w := Words(euros)
	if euros <= 1 {
		return w + " EURO"
	}
	return w + " EUROS"
}

// FormatAmount prints an amount in figures as on the ticket, with a thin
// group separator: "3 €", "1 000 €", "50 000 €".
func FormatAmount(euros int) string {
	return GroupDigits(euros) + " €"
}

// GroupDigits prints n with a space between groups of three digits.
func GroupDigits(n int) string {
	neg := n < 0
	if neg {
		n = -n
	}
	s := []byte(itoa(n))
	var out []byte
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ' ')
		}
		out = append(out, c)
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}

var cardWords = [NumCards]string{"DEUX", "TROIS", "QUATRE", "CINQ", "SIX", "SEPT", "HUIT", "NEUF", "DIX",
	"VALET", "DAME", "ROI", "AS"}

// Words returns the card's name in French capitals: "DEUX", "DIX", "VALET", "AS".
func (c Card) Words() string {
	if c < NumCards {
		return cardWords[c]
	}
	return ""
}

// DieWords returns the number of pips of a die face in words: "UN" … "SIX".
func DieWords(pips int) string {
	if pips < 1 || pips > 6 {
		return ""
	}
	return units[pips]
}
