//go:generate go run maketables.go > tables.go

package confusables

import (
	"bytes"
	"sort"

	"golang.org/x/text/unicode/norm"
)

// confusable is a source rune and its target.
type confusable struct {
	r rune
	s string
}

// lookup is r's target, if it has one. The table is a sorted array the
// linker lays out as data, where upstream's map was built at every
// program's start (patch of vegas-desk, see third_party/README.md).
func lookup(r rune) (string, bool) {
	i := sort.Search(len(confusables), func(i int) bool { return confusables[i].r >= r })
	if i < len(confusables) && confusables[i].r == r {
		return confusables[i].s, true
	}
	return "", false
}

// TODO: document casefolding approaches
// (suggest to force casefold strings; explain how to catch paypal - pAypal)
// TODO: DOC you might want to store the Skeleton and check against it later
// TODO: implement xidmodifications.txt restricted characters

func mapConfusableRunes(ss string) string {
	var buffer bytes.Buffer
	for _, r := range ss {
		replacement, replacementExists := lookup(r)
		if replacementExists {
			buffer.WriteString(replacement)
		} else {
			buffer.WriteRune(r)
		}
	}
	return buffer.String()
}

// Skeleton converts a string to it's "skeleton" form
// as descibed in http://www.unicode.org/reports/tr39/#Confusable_Detection
//  1. Converting X to NFD format
//  2. Successively mapping each source character in X to the target string
//     according to the specified data table
//  3. Reapplying NFD
func Skeleton(s string) string {
	return norm.NFD.String(
		mapConfusableRunes(
			norm.NFD.String(s)))
}

func Confusable(x, y string) bool {
	return Skeleton(x) == Skeleton(y)
}
