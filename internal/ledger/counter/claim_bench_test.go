package counter_test

import (
	"context"
	"errors"
	"testing"

	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/ledgertest"
)

// BenchmarkClaim is one claim in process, as the app and the command line
// ask it (Ledger.Claim: prepared, read, decided, written and synced), on a
// back office's file and on a sealed counter ledger: the winners of 3 €
// in turn, paid the first time, refused as already paid (and recorded)
// after. make claim-files counts the files such a claim enters; this says
// what it costs.
func BenchmarkClaim(b *testing.B) {
	for _, c := range []struct{ name, fixture, file, desk string }{
		{"sqlite-file", ledgertest.Block, "", "BO"},
		{"sealed-counter", ledgertest.Sealed, "C1.db", "C1"},
	} {
		b.Run(c.name, func(b *testing.B) {
			var path string
			if c.file == "" {
				path = ledgertest.Copy(b, c.fixture)
			} else {
				path = ledgertest.Copy(b, c.fixture, c.file)
			}
			l, err := ledger.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			defer l.Close()
			winners := ledgertest.SerialsOf(b, ledgertest.Block).Winners[3]
			ctx := context.Background()
			i := 0
			for b.Loop() {
				req := ledger.ClaimRequest{Serial: winners[i%len(winners)], Method: ledger.MethodSerial,
					Who: ledger.Identity{Desk: c.desk, Operator: "op"}, Limit: ledger.NoLimit}
				i++
				var r *ledger.Refusal
				if _, err := l.Claim(ctx, req); err != nil && !errors.As(err, &r) {
					b.Fatal(err)
				}
			}
		})
	}
}
