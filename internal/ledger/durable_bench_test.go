package ledger_test

import (
	"context"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"sync"
	"testing"
	"time"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/ledgertest"
	"vegas-desk/internal/server"
	"vegas-desk/internal/server/servertest"
)

// BenchmarkDurableClaims is what a payment's sync costs (issue 32): claims
// a second on a SQLite file, in-process (1 and 4 claimers: one back
// office's app or command line) and through serve of the file (1, 4 and 16
// counters, each a desk of its own over loopback TLS), with the writer's
// synchronous=FULL that every ledger file runs with, beside the same with
// NORMAL (the WAL synced only at checkpoints: what a power cut could take
// back), in the same run, each pair measured back to back on fresh copies
// of the demonstration ledger. Every answer counts, as in GoClaims.
func BenchmarkDurableClaims(b *testing.B) {
	for b.Loop() {
		durableFigures(b)
	}
}

func durableFigures(b *testing.B) {
	const d = 3 * time.Second
	fmt.Printf("\n== claims a second on a SQLite file, synchronous=FULL (the WAL synced before each answer) beside NORMAL, same run\n")
	for _, served := range []bool{false, true} {
		counts := []int{1, 4}
		if served {
			counts = []int{1, 4, 16}
		}
		for _, n := range counts {
			var r [2]float64
			for i, mode := range []string{"FULL", "NORMAL"} {
				r[i] = durableClaims(b, mode, served, n, d)
			}
			where := "in-process"
			if served {
				where = "through serve"
			}
			fmt.Printf("%-40s %9.1f /s  reference NORMAL %9.1f /s  ratio %5.2f\n",
				fmt.Sprintf("file, %s, %d claimer(s)", where, n), r[0], r[1], r[0]/r[1])
			b.ReportMetric(r[0]/r[1], fmt.Sprintf("full-x-normal-%s@%d", map[bool]string{false: "file", true: "serve"}[served], n))
		}
	}
}

// durableClaims has n claimers claim random tickets on sale for d, on a
// copy of the demonstration ledger whose writer runs with synchronous
// mode, in-process or through serve (a desk each), and is the claims a
// second.
func durableClaims(b *testing.B, mode string, served bool, n int, d time.Duration) float64 {
	ctx := context.Background()
	l, err := ledger.Open(ledgertest.Copy(b, ledgertest.Demo))
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	want := map[string]int{"NORMAL": 1, "FULL": 2}[mode]
	if v, err := ledger.Synchronous(l, mode); err != nil || v != want {
		b.Fatalf("synchronous %s: %d %v", mode, v, err)
	}
	blk, packs := onSalePacks(b, l)
	claimers := make([]*ledger.Ledger, n)
	for i := range claimers {
		claimers[i] = l
	}
	if served {
		s := servertest.Start(b, l, server.Config{})
		for i := range claimers {
			desk := fmt.Sprint("B", i)
			if _, err := l.AddDesk(ctx, desk, 0, ledger.Identity{Desk: "BO", Operator: "bench"}); err != nil {
				b.Fatal(err)
			}
			claimers[i] = s.Open(b, desk)
		}
	}
	stop, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var mu sync.Mutex
	answers := 0
	var failed error
	start := time.Now()
	var wg sync.WaitGroup
	for i, c := range claimers {
		wg.Go(func() {
			rng := mrand.New(mrand.NewPCG(uint64(i), uint64(time.Now().UnixNano())))
			for stop.Err() == nil {
				pos := packs[rng.IntN(len(packs))]*game.PackSize + rng.IntN(game.PackSize)
				s := game.Serial{Game: blk.Game, Block: blk.Number, Position: pos, Secret: blk.Key.Secret(pos)}
				_, err := c.Claim(ctx, ledger.ClaimRequest{Serial: s.String(), Method: ledger.MethodSerial,
					Who: ledger.Identity{Desk: fmt.Sprint("B", i), Operator: "bench"}, Limit: ledger.NoLimit})
				var r *ledger.Refusal
				mu.Lock()
				if err != nil && !errors.As(err, &r) {
					failed = err
					cancel()
				}
				answers++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	if failed != nil {
		b.Fatal(failed)
	}
	if v, err := ledger.Synchronous(l, ""); err != nil || v != want {
		b.Fatalf("synchronous after the claims: %d %v, want %d", v, err, want)
	}
	return float64(answers) / elapsed.Seconds()
}
