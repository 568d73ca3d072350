package ledger_test

import (
	"context"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/ledgertest"
	"vegas-desk/internal/pgtest"
)

// BenchmarkGoClaims measures claims decided in Go on PostgreSQL (the back
// office's login, as a validation server asks them: one process, one
// pool), on a server of its own with the durable settings (fsync on):
// claims a second at 1, 4 and 16 claimers at once, each beside pgbench
// -N's transactions a second with as many clients on the same server in
// the same run (goal of issue 22: at least 0.5× at 4 and 16), and how
// long a payment's entry waited to be chained, 99th percentile (goal:
// under 100 ms). make bench runs it once (-benchtime 1x).
func BenchmarkGoClaims(b *testing.B) {
	for b.Loop() {
		goClaimFigures(b)
	}
}

func goClaimFigures(b *testing.B) {
	srv, err := pgtest.StartDurable()
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Stop()
	demo, err := ledgertest.Postgres(srv, ledgertest.Demo)
	if err != nil {
		b.Fatal(err)
	}
	l, err := ledger.Open(srv.URL(pgtest.Owner, demo))
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	blk, packs := onSalePacks(b, l)
	pgbenchDB := srv.NewDatabase(b)
	if out, err := exec.Command(srv.Bin("pgbench"), "-i", "-q", "-s", "10", srv.URL(pgtest.Owner, pgbenchDB)).CombinedOutput(); err != nil {
		b.Fatalf("pgbench -i: %v\n%s", err, out)
	}
	tps := regexp.MustCompile(`tps = ([0-9.]+) \(without initial connection time\)`)
	pgbench := func(clients int) float64 {
		out, err := exec.Command(srv.Bin("pgbench"), "-N", "-c", strconv.Itoa(clients), "-j", strconv.Itoa(min(clients, 2)), "-T", "5",
			srv.URL(pgtest.Owner, pgbenchDB)).CombinedOutput()
		m := tps.FindSubmatch(out)
		if err != nil || m == nil {
			b.Fatalf("pgbench -N: %v\n%s", err, out)
		}
		v, _ := strconv.ParseFloat(string(m[1]), 64)
		return v
	}
	fmt.Printf("\n== claims decided in Go on PostgreSQL %d (one back office's pool), loopback, fsync on; pgbench -N on the same server, same run\n", srv.Version())
	for _, n := range []int{1, 4, 16} {
		r := goClaims(b, l, blk, packs, n, 5*time.Second)
		ref := pgbench(n)
		fmt.Printf("%-34s %9.1f /s  reference pgbench -N %9.1f tps  ratio %5.2f  goal >= 0.5x at 4 and 16\n",
			fmt.Sprintf("claims/s, %d claimer(s)", n), r.perSecond, ref, r.perSecond/ref)
		fmt.Printf("%-34s %9.2f ms p50, %.2f ms p99; chain delay p99 %.2f ms, max %.2f ms  goal < 100 ms\n",
			"", r.p50, r.p99, r.chainP99, r.chainMax)
		b.ReportMetric(r.perSecond, fmt.Sprintf("claims/s@%d", n))
		b.ReportMetric(r.perSecond/ref, fmt.Sprintf("x-pgbench@%d", n))
		b.ReportMetric(r.chainP99, fmt.Sprintf("chain-ms-p99@%d", n))
	}
}

// onSalePacks are the packs on sale of l's first block.
func onSalePacks(tb testing.TB, l *ledger.Ledger) (ledger.Block, []int) {
	ctx := context.Background()
	blocks, err := l.Blocks(ctx)
	if err != nil || len(blocks) == 0 {
		tb.Fatal("no block", err)
	}
	runs, err := l.Packs(ctx, ledger.PackFilter{Game: blocks[0].Game, Block: blocks[0].Number, State: "on-sale"})
	if err != nil {
		tb.Fatal(err)
	}
	var packs []int
	for _, r := range runs {
		for p := r.First; p <= r.Last; p++ {
			packs = append(packs, p)
		}
	}
	if len(packs) == 0 {
		tb.Fatal("no pack on sale")
	}
	return blocks[0], packs
}

type claimFigures struct{ perSecond, p50, p99, chainP99, chainMax float64 }

// goClaims has n claimers claim random tickets on sale through l for d;
// every answer counts (a payment, or a verdict: a loser, already paid).
func goClaims(tb testing.TB, l *ledger.Ledger, blk ledger.Block, packs []int, n int, d time.Duration) claimFigures {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var mu sync.Mutex
	var latency, chained []time.Duration
	var failed error
	start := time.Now()
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			rng := mrand.New(mrand.NewPCG(uint64(i), uint64(time.Now().UnixNano())))
			for ctx.Err() == nil {
				pos := packs[rng.IntN(len(packs))]*game.PackSize + rng.IntN(game.PackSize)
				s := game.Serial{Game: blk.Game, Block: blk.Number, Position: pos, Secret: blk.Key.Secret(pos)}
				t0 := time.Now()
				c, err := l.Claim(context.WithoutCancel(ctx), ledger.ClaimRequest{Serial: s.String(), Method: ledger.MethodSerial,
					Who: ledger.Identity{Desk: fmt.Sprint("go-", i), Operator: "bench"}, Limit: ledger.NoLimit})
				took := time.Since(t0)
				var r *ledger.Refusal
				mu.Lock()
				switch {
				case err == nil:
					chained = append(chained, c.Chained)
				case !errors.As(err, &r):
					failed = err
					cancel()
				}
				latency = append(latency, took)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	if failed != nil {
		tb.Fatal(failed)
	}
	return claimFigures{perSecond: float64(len(latency)) / elapsed.Seconds(), p50: msAt(latency, 50), p99: msAt(latency, 99),
		chainP99: msAt(chained, 99), chainMax: msAt(chained, 100)}
}

// msAt is the p-th percentile of ds in milliseconds (100: the largest).
func msAt(ds []time.Duration, p int) float64 {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return float64(s[min(len(s)-1, len(s)*p/100)]) / float64(time.Millisecond)
}
