package confusables

import (
	"fmt"
	"sort"
	"testing"
)

func TestSkeleton(t *testing.T) {
	s := "ρ⍺у𝓅𝒂ן"
	expected := "paypal"
	skeleton := Skeleton(s)

	if skeleton != expected {
		t.Error(fmt.Sprintf("Skeleton(%s) should result in %s", s, expected))
	}
}

func TestCompareEqual(t *testing.T) {
	vectors := [][]string{
		[]string{"ρ⍺у𝓅𝒂ן", "𝔭𝒶ỿ𝕡𝕒ℓ"},
		[]string{"𝖶", "W"},
		[]string{"so̷s", "søs"},
		[]string{"paypal", "paypal"},
		[]string{"scope", "scope"},
		[]string{"ø", "o̷"},
		[]string{"O", "0"},
		[]string{"ν", "v"},
		[]string{"Ι", "l"},
		[]string{"warning", "waming"},
	}

	for _, v := range vectors {
		s1, s2 := v[0], v[1]
		if !Confusable(s1, s2) {
			t.Errorf("Skeleton strings %+q and %+q were expected to be equal", s1, s2)
		}
	}
}

func TestCompareDifferent(t *testing.T) {
	s1 := "Paypal"
	s2 := "paypal"

	if Confusable(s1, s2) {
		t.Errorf("Skeleton strings %+q and %+q were expected to be different", s1, s2)
	}
}

func BenchmarkSkeletonNoop(b *testing.B) {
	s := "skeleton"

	for i := 0; i < b.N; i++ {
		Skeleton(s)
	}
}

func BenchmarkSkeleton(b *testing.B) {
	s := "ѕ𝗄℮|е𝗍ο𝔫"

	for i := 0; i < b.N; i++ {
		Skeleton(s)
	}
}

// The table is sorted by source rune, each once: lookup's binary search
// needs it (patch of vegas-desk).
func TestTableSorted(t *testing.T) {
	if len(confusables) != 6311 {
		t.Errorf("%d entries, want the 6311 of confusables.txt 13.0.0's MA table", len(confusables))
	}
	for i := 1; i < len(confusables); i++ {
		if confusables[i-1].r >= confusables[i].r {
			t.Fatalf("entry %d (%U) after %U", i, confusables[i].r, confusables[i-1].r)
		}
	}
	for _, c := range confusables {
		if s, ok := lookup(c.r); !ok || s != c.s {
			t.Fatalf("lookup(%U) = %q, %v; want %q", c.r, s, ok, c.s)
		}
		if _, ok := lookup(c.r + 1); ok && (c.r+1 != confusables[sort.Search(len(confusables), func(i int) bool { return confusables[i].r >= c.r+1 })].r) {
			t.Fatalf("lookup(%U) found a target it has not", c.r+1)
		}
	}
	if _, ok := lookup('a'); ok {
		t.Error("lookup('a') found a target")
	}
}
