package game

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
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
		return PackCode{}, fmt.Errorf("pack code: %w: a digit was mistyped; scan or type the code again", ErrCheckDigit)
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

// PackRange is packs First … Last of one block of a game.
type PackRange struct{ Game, Block, First, Last int }

// Count is the number of packs of the range.
func (r PackRange) Count() int { return r.Last - r.First + 1 }

// String names the range by its pack codes: "531-0001-0120-7" or
// "531-0001-0120-7 to 531-0001-0139-4".
func (r PackRange) String() string {
	first := PackCode{r.Game, r.Block, r.First}.String()
	if r.First == r.Last {
		return first
	}
	return first + " to " + PackCode{r.Game, r.Block, r.Last}.String()
}

// ParsePacks reads packs as typed or scanned, each item a pack number
// (0–9999) or a range A-B of block (gameCode, block), or a pack code, which
// names its own game and block (and must name this one when block is not
// 0). It returns the packs in order, each once, consecutive packs of a block
// as one range. An item that looks like a pack code (more than 9 digits, or
// two dashes) is read as one, so that a mistyped code says so.
func ParsePacks(items []string, gameCode, block int) ([]PackRange, error) {
	var codes []PackCode
	for _, a := range items {
		a = strings.TrimSpace(a)
		if a == "" {
			continue
		}
		if LooksLikePackCode(a) || strings.Count(a, "-") >= 2 || len(strings.ReplaceAll(a, "-", "")) > 9 {
			p, err := ParsePackCode(a)
			if err != nil {
				return nil, err
			}
			if block != 0 && (p.Game != gameCode || p.Block != block) {
				return nil, fmt.Errorf("pack %s is of block %d/%d, not of block %d/%d: %w", p, p.Game, p.Block, gameCode, block, ErrPackCodeFormat)
			}
			codes = append(codes, p)
			continue
		}
		lo, hi, isRange := strings.Cut(a, "-")
		if !isRange {
			hi = lo
		}
		first, err1 := strconv.Atoi(strings.TrimSpace(lo))
		last, err2 := strconv.Atoi(strings.TrimSpace(hi))
		if err1 != nil || err2 != nil || first < 0 || last < first || last >= Packs {
			return nil, fmt.Errorf("pack %q: want a pack number 0–%d, a range A-B or a pack code %s: %w", a, Packs-1, PackCodeLayout, ErrPackCodeFormat)
		}
		if block == 0 {
			return nil, fmt.Errorf("pack %q: a pack number needs its block (or scan the pack's code): %w", a, ErrPackCodeFormat)
		}
		for p := first; p <= last; p++ {
			codes = append(codes, PackCode{gameCode, block, p})
		}
	}
	if len(codes) == 0 {
		return nil, fmt.Errorf("no pack given: type pack numbers, ranges A-B or scan pack codes: %w", ErrPackCodeFormat)
	}
	slices.SortFunc(codes, func(a, b PackCode) int {
		return cmp.Or(cmp.Compare(a.Game, b.Game), cmp.Compare(a.Block, b.Block), cmp.Compare(a.Pack, b.Pack))
	})
	codes = slices.Compact(codes)
	var out []PackRange
	for _, p := range codes {
		if n := len(out); n > 0 && out[n-1].Game == p.Game && out[n-1].Block == p.Block && out[n-1].Last == p.Pack-1 {
			out[n-1].Last = p.Pack
			continue
		}
		out = append(out, PackRange{p.Game, p.Block, p.Pack, p.Pack})
	}
	return out, nil
}
