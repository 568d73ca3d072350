package game

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// EncodedSize is the size in bytes of a ticket's compact encoding.
const EncodedSize = 14

// ErrEncoding reports bytes that are not the compact encoding of a ticket.
var ErrEncoding = errors.New("not a ticket encoding")

// The compact encoding packs a ticket into 112 bits, most significant bit
// first, each field an index into the game's lists:
//
//	roulette winning  4 × 5 bits  index in RouletteNumbers
//	roulette bets     3 × (5 bits number index, 3 bits amount index)
//	craps             2 × 3 bits  pips−1, 3 bits amount index
//	duel              3 × 4 bits  card rank, 4 bits bank rank, 3 bits amount index
//	jackpot           3 × (3 × 3 bits symbol, 3 bits amount index)
//	bonus             4 bits      0 for 0 €, else 1 + amount index
//
// The amount index is the index in Amounts (3, 6, 9, 15, 50, 100, 1000, 50000).
// Only a ticket that passes Validate can be encoded faithfully.

// bits is a 128-bit accumulator; the encoding uses its low 112 bits.
type bits struct{ hi, lo uint64 }

func (b *bits) put(v uint, n int) {
	b.hi = b.hi<<uint(n) | b.lo>>uint(64-n)
	b.lo = b.lo<<uint(n) | uint64(v)&(1<<uint(n)-1)
}

func (b *bits) get(n int) uint {
	// Reading takes the top n of the remaining bits, which sit left-aligned
	// at bit 111 downwards.
	v := uint(b.hi >> uint(48-n))
	b.hi = (b.hi<<uint(n) | b.lo>>uint(64-n)) & (1<<48 - 1)
	b.lo <<= uint(n)
	return v & (1<<uint(n) - 1)
}

// Encode packs a valid ticket into its compact encoding. Fields out of range
// are masked, so encode only validated tickets.
func Encode(t *Ticket) (out [EncodedSize]byte) {
	var w bits
	for _, n := range t.Roulette.Winning {
		w.put(num(n), 5)
	}
	for _, b := range t.Roulette.Bets {
		w.put(num(b.Number), 5)
		w.put(amt(b.Amount), 3)
	}
	w.put(uint(t.Craps.Dice[0]-1), 3)
	w.put(uint(t.Craps.Dice[1]-1), 3)
	w.put(amt(t.Craps.Amount), 3)
	for _, c := range t.Duel.Cards {
		w.put(uint(c), 4)
	}
	w.put(uint(t.Duel.Bank), 4)
	w.put(amt(t.Duel.Amount), 3)
	for _, l := range t.Jackpot {
		for _, s := range l.Symbols {
			w.put(uint(s), 3)
		}
		w.put(amt(l.Amount), 3)
	}
	var bonus uint
	if t.Bonus != 0 {
		bonus = 1 + amt(t.Bonus)
	}
	w.put(bonus, 4)
	var hi [8]byte
	binary.BigEndian.PutUint64(hi[:], w.hi)
	copy(out[0:6], hi[2:])
	binary.BigEndian.PutUint64(out[6:14], w.lo)
	return out
}

func amt(a int) uint { return uint(amountIndex(a)) & 7 }

func num(n int) uint {
	if n < 0 || n > 36 {
		return 0
	}
	return uint(rouletteIndex[n]) & 31
}

// Decode unpacks a compact encoding. It fails on a wrong length and on any
// field out of range; it does not check the rules of distinct numbers (see
// Validate).
func Decode(b []byte) (Ticket, error) {
	var t Ticket
	if len(b) != EncodedSize {
		return t, fmt.Errorf("%d bytes, want %d: %w", len(b), EncodedSize, ErrEncoding)
	}
	var r bits
	var hi [8]byte
	copy(hi[2:], b[0:6])
	r.hi = binary.BigEndian.Uint64(hi[:])
	r.lo = binary.BigEndian.Uint64(b[6:14])
	amt := func() int { return Amounts[r.get(3)] }
	for i := range t.Roulette.Winning {
		t.Roulette.Winning[i] = RouletteNumbers[r.get(5)]
	}
	for i := range t.Roulette.Bets {
		t.Roulette.Bets[i].Number = RouletteNumbers[r.get(5)]
		t.Roulette.Bets[i].Amount = amt()
	}
	for i := range t.Craps.Dice {
		t.Craps.Dice[i] = int(r.get(3)) + 1
		if t.Craps.Dice[i] > 6 {
			return t, fmt.Errorf("craps.dice[%d]: %d pips: %w", i, t.Craps.Dice[i], ErrEncoding)
		}
	}
	t.Craps.Amount = amt()
	for i := range t.Duel.Cards {
		t.Duel.Cards[i] = Card(r.get(4))
		if t.Duel.Cards[i] >= NumCards {
			return t, fmt.Errorf("duel.cards[%d]: rank %d: %w", i, t.Duel.Cards[i], ErrEncoding)
		}
	}
	t.Duel.Bank = Card(r.get(4))
	if t.Duel.Bank >= As {
		return t, fmt.Errorf("duel.bank: rank %d: %w", t.Duel.Bank, ErrEncoding)
	}
	t.Duel.Amount = amt()
	for i := range t.Jackpot {
		for j := range t.Jackpot[i].Symbols {
			t.Jackpot[i].Symbols[j] = Symbol(r.get(3))
		}
		t.Jackpot[i].Amount = amt()
	}
	switch bonus := r.get(4); {
	case bonus == 0:
	case bonus <= 8:
		t.Bonus = Amounts[bonus-1]
	default:
		return t, fmt.Errorf("bonus: code %d: %w", bonus, ErrEncoding)
	}
	return t, nil
}
