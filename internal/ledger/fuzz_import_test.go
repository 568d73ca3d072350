package ledger

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// FuzzImportClaims hands random and mutated counters' exports to a back
// office's import-claims, as anyone may: never a panic, and a file refused
// (an error, or rejected as a whole) pays no ticket. The seeds are two
// genuine exports, one with a payment; the back office is the same through
// the run (an input that imports changes it, as a real import would).
func FuzzImportClaims(f *testing.F) {
	ctx := context.Background()
	bo, c1, c2 := openCounterCopies(f)
	b := mustBlock(f, bo)
	if _, err := c1.Claim(ctx, claimReq(serialOf(b, ticketsWith(f, bo, b, 15, 1)[0]), Identity{Desk: "C1", Operator: "ann"})); err != nil {
		f.Fatal(err)
	}
	f.Add(exportOf(f, c1))
	f.Add(exportOf(f, c2))
	f.Add([]byte(`{"format":"x"}` + "\n"))
	paid := func(t *testing.T) int {
		var n int
		if err := get(ctx, rdb(bo), &n, "SELECT count(*) FROM paid"); err != nil {
			t.Fatal(err)
		}
		return n
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		before := paid(t)
		rep, err := bo.ImportClaims(ctx, bytes.NewReader(data), Identity{Desk: "BO", Operator: "clerk"})
		if err != nil && strings.TrimSpace(err.Error()) == "" {
			t.Fatal("an error that says nothing")
		}
		if (err != nil || rep.Rejected) && paid(t) != before {
			t.Fatalf("a refused file paid %d tickets: %v", paid(t)-before, err)
		}
	})
}
