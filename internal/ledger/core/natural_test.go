package core

import (
	"slices"
	"testing"
)

// Desk ids in the order a person reads them: digits by value.
func TestNaturalCompare(t *testing.T) {
	ids := []string{"load-10", "C10", "load-2", "C2", "c1", "C1", "load-1", "C01", "C9b", "C9", "C9a", "_load-10", "_load-9", "shop", "shop-1", "C1000000000000000000009", "C1000000000000000000010"}
	want := []string{"C01", "C1", "C2", "C9", "C9a", "C9b", "C10", "C1000000000000000000009", "C1000000000000000000010", "_load-9", "_load-10", "c1", "load-1", "load-2", "load-10", "shop", "shop-1"}
	slices.SortFunc(ids, NaturalCompare)
	if !slices.Equal(ids, want) {
		t.Errorf("natural order:\n got %q\nwant %q", ids, want)
	}
}
