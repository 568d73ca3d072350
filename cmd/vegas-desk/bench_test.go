package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/ledgertest"
	"vegas-desk/internal/pgtest"
)

// BenchmarkLoad is make bench's measure of a shared ledger's capacity
// (issue 16), on a server of its own with the durable settings, each
// figure beside its reference measured in the same run on the same
// server:
//
//   - answers per second of vegas-desk load with 1, 4 and 16 counters,
//     beside pgbench -N's transactions per second with as many clients
//     (goal: at least 0.5× at 4 and 16);
//   - the chain's delay, 99th percentile, at 16 counters (goal: under
//     100 ms);
//   - a payment's latency, the largest, while counters sleep in each way
//     of holding a counter's call open (goal: within 1 s), beside the same
//     with none.
func BenchmarkLoad(b *testing.B) {
	for b.Loop() {
		loadFigures(b)
	}
}

func loadFigures(b *testing.B) {
	srv, err := pgtest.StartDurable()
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Stop()
	demo, err := ledgertest.Postgres(srv, ledgertest.Demo)
	if err != nil {
		b.Fatal(err)
	}
	url := srv.URL(pgtest.Owner, demo)
	load := func(counters int, seconds string) map[string]float64 {
		var out, errs bytes.Buffer
		code := run([]string{"--db", url, "load", "--counters", strconv.Itoa(counters), "--seconds", seconds, "--json"}, nil, &out, &errs)
		r := map[string]float64{}
		if code != 0 || json.Unmarshal(out.Bytes(), &r) != nil {
			b.Fatalf("load: exit %d\n%s%s", code, out.String(), errs.String())
		}
		return r
	}
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
	line := func(name string, ours, ref float64, unit, goal string) {
		fmt.Printf("%-46s %10.2f %-9s reference %10.2f %-9s ratio %5.2f  goal %s\n", name, ours, unit, ref, unit, ours/ref, goal)
	}
	fmt.Printf("\n== vegas-desk load on PostgreSQL %d, loopback, fsync on; pgbench -N on the same server, same run\n", srv.Version())
	var at16 map[string]float64
	for _, n := range []int{1, 4, 16} {
		r := load(n, "5")
		line(fmt.Sprintf("(8) answers/s, %d counter(s)", n), r["claims_per_s"], pgbench(n), "/s", ">= 0.5x (pgbench -N tps) at 4 and 16")
		at16 = r
	}
	line("(10) chain delay p99, 16 counters", at16["chain_delay_ms"], 100, "ms", "< 100 ms (the reference is the goal)")

	// A payment while counters sleep in each way of holding a call open.
	quiet := load(1, "3")
	stop := holdCalls(b, srv, demo)
	held := load(1, "3")
	stop()
	line("(11) payment latency max, counters sleeping", held["max_ms"], quiet["max_ms"], "ms", "<= 1000 ms (reference: none sleeping)")
	b.ReportMetric(at16["claims_per_s"], "answers/s@16")
	b.ReportMetric(at16["chain_delay_ms"], "chain-ms-p99@16")
	b.ReportMetric(held["max_ms"], "held-max-ms")
}

// holdCalls has a counter of its own sleep in each way it could hold a
// counter's call open (see the ledger's TestCounterCannotHoldTheJournal),
// and returns what stops them.
func holdCalls(b *testing.B, srv *pgtest.Server, db string) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	l, err := ledger.Open(srv.URL(pgtest.Owner, db))
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	if _, err := l.AddDesk(ctx, "sleeper", 100, ledger.DefaultIdentity("BO", "bench")); err != nil {
		b.Fatal(err)
	}
	u := strings.Replace(srv.URLWithout("vd_"+db+"_sleeper", db), "@", ":a-sleeper-password@", 1) // counters' logins are retired: branch perf rewrites this benchmark through serve
	calls := []string{
		"CALL vegas.lookup(531, 1, 0, 1, '', 'z', NULL)",
		"CALL vegas.claim(531, 1, 0, 1, 'serial', '', 'z', '', NULL, NULL, NULL, NULL, NULL)",
		"CALL vegas.find('no such ticket'::bytea, '', 'z', NULL)",
	}
	done := make(chan struct{})
	n := 0
	for _, call := range calls {
		for _, stmts := range [][]string{
			{"SELECT *, pg_sleep(600) FROM " + strings.TrimPrefix(call, "CALL ")},
			{"BEGIN", call, "SELECT pg_sleep(600)"},
			{"BEGIN", "SELECT * FROM vegas.whoami()", "SELECT pg_sleep(600)"},
			nil, // pipelined: the call, then a sleep
		} {
			conn, err := pgx.Connect(ctx, u)
			if err != nil {
				b.Fatal(err)
			}
			n++
			go func() {
				defer func() { conn.Close(context.Background()); done <- struct{}{} }()
				if stmts == nil {
					batch := &pgx.Batch{}
					batch.Queue(call)
					batch.Queue("SELECT pg_sleep(600)")
					conn.SendBatch(ctx, batch).Close()
					return
				}
				for _, q := range stmts {
					if _, err := conn.Exec(ctx, q); err != nil {
						return
					}
				}
			}()
		}
	}
	return func() {
		cancel()
		for range n {
			<-done
		}
	}
}
