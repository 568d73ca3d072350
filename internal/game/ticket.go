// Package game implements the VEGAS instant-lottery game: the ticket's five
// surfaces, the rules of articles 4.2–4.8 of the regulation, the validation of
// typed-in contents, the French words printed on a ticket, serial numbers and
// the generation of exact 2,000,000-ticket blocks.
//
// The package is pure: no SQL, no user interface, deterministic given a seed.
package game

import "fmt"

// BlockSize is the number of tickets in a block (article 2).
const BlockSize = 2_000_000

// Price is the sale price of one ticket in euros (article 2).
const Price = 3

// Surface names one of the five surfaces, in the settled order of rules.md.
type Surface uint8

// The five surfaces of a ticket.
const (
	Roulette Surface = iota
	Craps
	Duel
	Jackpot
	Bonus
)

// Surfaces lists the five surfaces in ticket order.
var Surfaces = [5]Surface{Roulette, Craps, Duel, Jackpot, Bonus}

var surfaceNames = [5]string{"ROULETTE", "CRAPS", "DUEL", "JACKPOT", "BONUS"}

// String returns the surface's name in capitals, as printed on the ticket.
func (s Surface) String() string {
	if int(s) < len(surfaceNames) {
		return surfaceNames[s]
	}
	return fmt.Sprintf("Surface(%d)", uint8(s))
}

// Tier is one line of the prize table of article 3.
type Tier struct {
	Prize int // euros
	Count int // tickets per block
}

// PrizeTable is the prize table of article 3, highest prize first.
var PrizeTable = [8]Tier{
	{50000, 2},
	{1000, 20},
	{100, 300},
	{50, 14400},
	{15, 50000},
	{9, 100000},
	{6, 200000},
	{3, 160000},
}

// Winners is the number of winning tickets of a block (article 3).
const Winners = 524_722

// Payout is the sum of all prizes of a block in euros (article 3).
const Payout = 4_200_000

// Amounts are the amounts a zone may show, in ascending order: the eight
// prizes of the table (rules.md, "The amounts printed in zones"). BONUS may
// also show 0 €.
var Amounts = [8]int{3, 6, 9, 15, 50, 100, 1000, 50000}

// amountIndex returns the index of a in Amounts, or -1.
func amountIndex(a int) int {
	switch a {
	case 3:
		return 0
	case 6:
		return 1
	case 9:
		return 2
	case 15:
		return 3
	case 50:
		return 4
	case 100:
		return 5
	case 1000:
		return 6
	case 50000:
		return 7
	}
	return -1
}

// IsAmount reports whether a is an amount a zone may show (0 excluded).
// The amounts differ in their last four bits (amountByLowBits): one load
// and a comparison, where amountIndex's switch mispredicted its branches
// on every zone of a block's 2,000,000 tickets that verify validates.
func IsAmount(a int) bool { return a > 0 && amountByLowBits[a&15] == a }

// amountByLowBits holds each amount at its last four bits (TestIsAmount).
var amountByLowBits = func() (t [16]int) {
	for _, a := range Amounts {
		t[a&15] = a
	}
	return t
}()

// IsPrize reports whether p is the whole prize of a genuine ticket: 0 or one
// of the eight prizes of the table.
func IsPrize(p int) bool { return p == 0 || IsAmount(p) }

// TierOf returns the index in PrizeTable of prize p, or -1 for 0 or any
// amount that is not a prize.
func TierOf(p int) int {
	for i, t := range PrizeTable {
		if t.Prize == p {
			return i
		}
	}
	return -1
}

// RouletteNumbers are the 32 numbers the roulette may show (article 4.2.2).
var RouletteNumbers = [32]int{1, 2, 4, 5, 7, 8, 10, 11, 12, 13, 14, 16, 17, 18, 19, 20,
	21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36}

// rouletteIndex maps a number 0..36 to its index in RouletteNumbers, or -1.
var rouletteIndex = func() (idx [37]int8) {
	for i := range idx {
		idx[i] = -1
	}
	for i, n := range RouletteNumbers {
		idx[n] = int8(i)
	}
	return idx
}()

// IsRouletteNumber reports whether n may appear on the roulette.
func IsRouletteNumber(n int) bool { return n >= 0 && n <= 36 && rouletteIndex[n] >= 0 }

// Card is a card value, by rank: Card(0) is "2" and Card(12) is "AS".
type Card uint8

// Card values, lowest to highest (article 4.4.2).
const (
	Two Card = iota
	Three
	Four
	Five
	Six
	Seven
	Eight
	Nine
	Ten
	Valet
	Dame
	Roi
	As
)

// NumCards is the number of card values.
const NumCards = 13

var cardNames = [NumCards]string{"2", "3", "4", "5", "6", "7", "8", "9", "10", "V", "D", "R", "AS"}

// String returns the card's value as printed: "2" … "10", "V", "D", "R", "AS".
func (c Card) String() string {
	if c < NumCards {
		return cardNames[c]
	}
	return fmt.Sprintf("Card(%d)", uint8(c))
}

// ParseCard reads a card value as written in the interchange format.
func ParseCard(s string) (Card, bool) {
	for i, n := range cardNames {
		if n == s {
			return Card(i), true
		}
	}
	return 0, false
}

// Symbol is a jackpot symbol (rules.md settles the set).
type Symbol uint8

// The jackpot symbols.
const (
	Sept Symbol = iota
	Bar
	Cerise
	Cloche
	Trefle
	Citron
	Pasteque
	Diamant
)

// NumSymbols is the number of jackpot symbols.
const NumSymbols = 8

var symbolNames = [NumSymbols]string{"7", "BAR", "CERISE", "CLOCHE", "TREFLE", "CITRON", "PASTEQUE", "DIAMANT"}

// String returns the symbol's name in capitals, as in the interchange format.
func (s Symbol) String() string {
	if s < NumSymbols {
		return symbolNames[s]
	}
	return fmt.Sprintf("Symbol(%d)", uint8(s))
}

// symbolLabels are the symbols' names as a person reads them, accents and
// all.
var symbolLabels = [NumSymbols]string{"7", "BAR", "CERISE", "CLOCHE", "TRÈFLE", "CITRON", "PASTÈQUE", "DIAMANT"}

// Label returns the symbol's name as printed on a ticket and shown to a
// person, with its accents ("TRÈFLE", "PASTÈQUE"); String is the
// interchange format's, without.
func (s Symbol) Label() string {
	if s < NumSymbols {
		return symbolLabels[s]
	}
	return s.String()
}

// ParseSymbol reads a symbol name as written in the interchange format.
func ParseSymbol(s string) (Symbol, bool) {
	for i, n := range symbolNames {
		if n == s {
			return Symbol(i), true
		}
	}
	return 0, false
}

// Bet is one chip of the roulette's VOS MISES zone.
type Bet struct {
	Number int
	Amount int
}

// RouletteSurface is the 1st surface (article 4.2).
type RouletteSurface struct {
	Winning [4]int // NUMÉROS GAGNANTS
	Bets    [3]Bet // VOS MISES
}

// CrapsSurface is the 2nd surface (article 4.3).
type CrapsSurface struct {
	Dice   [2]int // 1..6 pips each
	Amount int
}

// DuelSurface is the 3rd surface (article 4.4).
type DuelSurface struct {
	Cards  [3]Card // VOS CARTES
	Bank   Card    // BANQUE, never AS
	Amount int
}

// Line is one line of the jackpot (article 4.5).
type Line struct {
	Symbols [3]Symbol
	Amount  int
}

// Ticket is the contents of a ticket under its scratch layer.
type Ticket struct {
	Roulette RouletteSurface
	Craps    CrapsSurface
	Duel     DuelSurface
	Jackpot  [3]Line
	Bonus    int // 0 or an amount
}
