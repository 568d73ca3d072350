package paper

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"vegas-desk/internal/game"
)

// Pack names a pack of tickets (a "carnet", the unit a retailer receives
// and sells): its game, its block and its number in the block.
type Pack struct {
	Game, Block, Pack int
}

// String prints a pack as its code, with its check digit, as it is
// scanned or typed at a counter: "531-0001-2283-2".
func (p Pack) String() string {
	return game.PackCode{Game: p.Game, Block: p.Block, Pack: p.Pack}.String()
}

// distinctPacks returns the packs sorted by game, block and number, each
// once.
func distinctPacks(ps []Pack) []Pack {
	out := slices.Clone(ps)
	slices.SortFunc(out, func(a, b Pack) int {
		return cmp.Or(cmp.Compare(a.Game, b.Game), cmp.Compare(a.Block, b.Block), cmp.Compare(a.Pack, b.Pack))
	})
	return slices.Compact(out)
}

// packList prints packs in order, each once, a run of consecutive packs of
// one block as its first and last: "531-0001-2280-3 à 531-0001-2299-1,
// 531-0001-2301-6". A run holds together across a line break; "aucun" for
// no pack.
func packList(ps []Pack) string {
	ps = distinctPacks(ps)
	if len(ps) == 0 {
		return "aucun"
	}
	var items []string
	for len(ps) > 0 {
		n := 1
		for n < len(ps) && ps[n].Game == ps[0].Game && ps[n].Block == ps[0].Block && ps[n].Pack == ps[0].Pack+n {
			n++
		}
		items = append(items, span(ps[0].String(), ps[n-1].String(), n))
		ps = ps[n:]
	}
	return strings.Join(items, ", ")
}

// positionList prints ticket positions in order like packList, seven
// digits as in the serial: "0456600 à 0456603, 0456800".
func positionList(ns []int) string {
	ns = slices.Clone(ns)
	slices.Sort(ns)
	ns = slices.Compact(ns)
	var items []string
	for len(ns) > 0 {
		n := 1
		for n < len(ns) && ns[n] == ns[0]+n {
			n++
		}
		items = append(items, span(fmt.Sprintf("%07d", ns[0]), fmt.Sprintf("%07d", ns[n-1]), n))
		ns = ns[n:]
	}
	return strings.Join(items, ", ")
}

// span prints a run of n consecutive numbers from first to last.
func span(first, last string, n int) string {
	if n == 1 {
		return first
	}
	return first + nbsp + "à" + nbsp + last
}
