package game

import (
	"errors"
	"fmt"
	"strings"
)

// A pack code names a pack (carnet) of PackSize tickets: it is printed on
// the pack's wrapping with its barcode (Code 128 of the 12 digits), so
// that a counter scans a pack to receive or activate it. 12 digits, in
// four groups:
//
//	GGG-BBBB-PPPP-C        e.g. 531-0001-2283-2
//
//	GGG   game code (100–999)
//	BBBB  block number within the game (1–9999)
//	PPPP  the pack's number in its block (0000–9999): its tickets are the
//	      positions PPPP × PackSize … PPPP × PackSize + PackSize − 1
//	C     Damm check digit over the 11 digits before it, as in a serial
//
// Nothing in it is secret: it is printed outside the packs. Its length
// tells it from a serial (31 digits) and from a bare pack number (at most
// 4).
const PackCodeDigits = 12

// PackCodeLayout is how a pack code is printed, for messages and hints.
const PackCodeLayout = "GGG-BBBB-PPPP-C"

// ErrPackCodeFormat: not a pack code. A wrong check digit is ErrCheckDigit,
// as for a serial.
var ErrPackCodeFormat = errors.New("not a pack code")

// PackCode names one pack.
type PackCode struct{ Game, Block, Pack int }

func (p PackCode) digits() string { return fmt.Sprintf("%03d%04d%04d", p.Game, p.Block, p.Pack) }

// String prints the code in groups with its check digit: "531-0001-2283-2".
func (p PackCode) String() string {
	d := p.digits()
	return d[0:3] + "-" + d[3:7] + "-" + d[7:11] + "-" + string(dammDigit(d))
}

// Compact prints the 12 digits without separators (the barcode).
func (p PackCode) Compact() string {
	d := p.digits()
	return d + string(dammDigit(d))
}

// Valid reports whether every field of p is in range.
func (p PackCode) Valid() bool {
	return p.Game >= MinGameCode && p.Game <= MaxGameCode && p.Block >= 1 && p.Block <= MaxBlock &&
		p.Pack >= 0 && p.Pack < Packs
}

// First is the position of the pack's first ticket in its block.
func (p PackCode) First() int { return p.Pack * PackSize }

// LooksLikePackCode reports whether in has the digits of a pack code (12,
// spaces and dashes aside), so that a field that takes a pack number or a
// pack code knows which it was given before parsing it.
func LooksLikePackCode(in string) bool {
	n := 0
	for _, r := range in {
		switch {
		case r == ' ' || r == '-' || r == '\t':
		case r >= '0' && r <= '9':
			n++
		default:
			return false
		}
	}
	return n == PackCodeDigits
}

// ParsePackCode reads a pack code as typed or scanned. Spaces and dashes
// are ignored. A wrong check digit is reported as ErrCheckDigit before
// anything else is looked at; any other fault wraps ErrPackCodeFormat.
func ParsePackCode(in string) (PackCode, error) {
	var b strings.Builder
	for _, r := range in {
		switch {
		case r == ' ' || r == '-' || r == '\t':
		case r >= '0' && r <= '9':
			b.WriteRune(r)
		default:
			return PackCode{}, fmt.Errorf("pack code: %q is not a digit; type the %d digits printed under the pack's barcode (spaces and dashes allowed): %w",
				r, PackCodeDigits, ErrPackCodeFormat)
		}
	}
	d := b.String()
	if len(d) != PackCodeDigits {
		return PackCode{}, fmt.Errorf("pack code: %d digits, want %d (%s): %w", len(d), PackCodeDigits, PackCodeLayout, ErrPackCodeFormat)
	}
	if dammDigit(d[:PackCodeDigits-1]) != d[PackCodeDigits-1] {
		return PackCode{}, fmt.Errorf("pack code: the check digit does not match, a digit was mistyped; scan or type the code again: %w", ErrCheckDigit)
	}
	p := PackCode{Game: atoi(d[0:3]), Block: atoi(d[3:7]), Pack: atoi(d[7:11])}
	switch {
	case p.Game < MinGameCode:
		return PackCode{}, fmt.Errorf("pack code: game code %03d is not a game code (%d to %d): %w", p.Game, MinGameCode, MaxGameCode, ErrPackCodeFormat)
	case p.Block < 1:
		return PackCode{}, fmt.Errorf("pack code: block 0000 does not exist, blocks start at 0001: %w", ErrPackCodeFormat)
	case p.Pack >= Packs:
		return PackCode{}, fmt.Errorf("pack code: pack %d is past the block's %d packs: %w", p.Pack, Packs, ErrPackCodeFormat)
	}
	return p, nil
}
