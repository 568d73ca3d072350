package ledger

import (
	"bufio"
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"vegas-desk/internal/game"
	"vegas-desk/internal/pgtest"
)

// BenchmarkPostgresFigures measures the shared ledger's figures (issue 7)
// beside references measured in the same run on the same server, a
// server of its own with the durable settings (fsync on):
//
//   - loading a block of 2,000,000 tickets, against psql's \copy of
//     2,000,000 rows (id bigint, prize smallint, code bytea);
//   - a counter's lookup latency over loopback, median and 99th percentile.
//
// (Claims per second are the load command's: cmd/vegas-desk's
// BenchmarkLoad.) make bench runs it once (-benchtime 1x) and prints the
// table.
func BenchmarkPostgresFigures(b *testing.B) {
	for b.Loop() {
		postgresFigures(b)
	}
}

func postgresFigures(b *testing.B) {
	ctx := context.Background()
	pg, err := pgtest.StartDurable()
	if err != nil {
		b.Fatal(err)
	}
	defer pg.Stop()
	psql := pg.Bin("psql")
	line := func(name string, ours, ref float64, unit, goal string) {
		fmt.Printf("%-40s %10.3f %-9s reference %10.3f %-9s ratio %5.2f  goal %s\n", name, ours, unit, ref, unit, ours/ref, goal)
	}

	// (1) Loading a block, and the reference \copy of as many rows.
	loadDB := pg.NewDatabase(b)
	l, err := Open(pg.URL(pgtest.Owner, loadDB))
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	if _, err := l.Generate(ctx, 531, game.Seed{42}, GenerateOptions{}); err != nil {
		b.Fatal(err)
	}
	load := time.Since(start).Seconds()
	l.Close()
	rows := filepath.Join(b.TempDir(), "rows.txt")
	f, _ := os.Create(rows)
	w := bufio.NewWriterSize(f, 1<<20)
	code := make([]byte, 14)
	for i := range game.BlockSize {
		rand.Read(code)
		fmt.Fprintf(w, "%d\t%d\t\\\\x%x\n", i, i%4*3, code)
	}
	w.Flush()
	f.Close()
	refDB := pg.NewDatabase(b)
	start = time.Now()
	out, err := exec.Command(psql, pg.URL(pgtest.Owner, refDB), "-v", "ON_ERROR_STOP=1", "-q",
		"-c", "CREATE TABLE t (id bigint PRIMARY KEY, prize smallint NOT NULL, code bytea NOT NULL)",
		"-c", `\copy t FROM '`+rows+`'`).CombinedOutput()
	copyRef := time.Since(start).Seconds()
	if err != nil {
		b.Fatalf("psql \\copy: %v\n%s", err, out)
	}

	// (2) A counter's lookups over loopback, decided in Go.
	template, err := FixturePostgres(pg, "block")
	if err != nil {
		b.Fatal(err)
	}
	db := pg.NewDatabaseFrom(b, template)
	bo, err := Open(pg.URL(pgtest.Owner, db))
	if err != nil {
		b.Fatal(err)
	}
	defer bo.Close()
	blk := mustBlock(b, bo)
	if _, err := bo.AddDesk(ctx, "B0", 100, Identity{Desk: "BO", Operator: "bench"}); err != nil {
		b.Fatal(err)
	}
	// As a validation server asks for its counter B0 (the server's round
	// trip: BenchmarkServerLookup, package server).
	var lat []time.Duration
	for i := range 2000 {
		serial := serialOf(blk, (i*7919)%game.BlockSize)
		start := time.Now()
		if _, err := bo.Lookup(ctx, serial, Identity{Desk: "B0", Operator: "bench"}, NoLimit); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	slices.Sort(lat)
	median, p99 := lat[len(lat)/2], lat[len(lat)*99/100]

	fmt.Printf("\n== PostgreSQL %d on loopback, fsync on; same server, same run\n", pg.Version())
	line("(7) load a block into PostgreSQL", load, copyRef, "s", "<= 1.0x (psql \\copy of 2,000,000 rows)")
	fmt.Printf("%-40s median %.2f ms, 99th percentile %.2f ms\n", "(9) a lookup (the back office's login)", ms(median), ms(p99))
	b.ReportMetric(load/copyRef, "load/copy")
	b.ReportMetric(ms(median), "lookup-ms-p50")
	b.ReportMetric(ms(p99), "lookup-ms-p99")
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
