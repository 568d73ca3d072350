package ledger

import (
	"bufio"
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"vegas-desk/internal/game"
	"vegas-desk/internal/pgtest"
)

// BenchmarkPostgresFigures measures the shared ledger's figures (issue 7)
// beside references measured in the same run on the same server:
//
//   - loading a block of 2,000,000 tickets, against psql's \copy of
//     2,000,000 rows (id bigint, prize smallint, code bytea);
//   - claims per second with 1, 4 and 16 counters on their own
//     connections, against pgbench -N at the same client counts;
//   - a counter's lookup latency over loopback, median and 99th percentile.
//
// make bench runs it once (-benchtime 1x) and prints the table.
func BenchmarkPostgresFigures(b *testing.B) {
	for b.Loop() {
		postgresFigures(b)
	}
}

func postgresFigures(b *testing.B) {
	ctx := context.Background()
	psql, pgbench := "psql", filepath.Join(pgBin(), "pgbench")
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

	// (2) Claims per second, and pgbench -N.
	bo := mustOpen(b, pgCopy(b))
	bo.Now = nil
	blk := mustBlock(b, bo)
	var db string
	rdb(bo).Get(&db, "SELECT current_database()")
	winners := ticketsWith(b, bo, blk, 3, 60000)
	for i := range 16 {
		if _, err := bo.AddDesk(ctx, fmt.Sprintf("B%d", i), 100, counterPassword, Identity{Desk: "BO", Operator: "bench"}); err != nil {
			b.Fatal(err)
		}
	}
	os.Setenv("PGPASSWORD", counterPassword)
	defer os.Unsetenv("PGPASSWORD")
	next := 0
	claimsPerSecond := func(clients int) float64 {
		counters := make([]*Ledger, clients)
		for i := range counters {
			c, err := Open(pg.URLWithout(deskRole(db, fmt.Sprintf("B%d", i)), db))
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			counters[i] = c
		}
		const per = 400
		if next+clients*per > len(winners) {
			b.Fatal("not enough winners")
		}
		var wg sync.WaitGroup
		start := time.Now()
		for i, c := range counters {
			mine := winners[next+i*per : next+(i+1)*per]
			wg.Go(func() {
				for _, pos := range mine {
					if _, err := c.Claim(ctx, claimReq(serialOf(blk, pos), Identity{Operator: "bench"})); err != nil {
						b.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
		next += clients * per
		return float64(clients*per) / time.Since(start).Seconds()
	}
	pgbenchDB := pg.NewDatabase(b)
	if out, err := exec.Command(pgbench, "-i", "-q", "-s", "10", pg.URL(pgtest.Owner, pgbenchDB)).CombinedOutput(); err != nil {
		b.Fatalf("pgbench -i: %v\n%s", err, out)
	}
	tps := regexp.MustCompile(`tps = ([0-9.]+) \(without initial connection time\)`)
	pgbenchTPS := func(clients int) float64 {
		cmd := exec.Command(pgbench, "-N", "-c", strconv.Itoa(clients), "-j", strconv.Itoa(min(clients, 2)), "-T", "5",
			pg.URL(pgtest.Owner, pgbenchDB))
		out, err := cmd.CombinedOutput()
		m := tps.FindSubmatch(out)
		if err != nil || m == nil {
			b.Fatalf("pgbench -N: %v\n%s", err, out)
		}
		v, _ := strconv.ParseFloat(string(m[1]), 64)
		return v
	}
	type pair struct{ ours, ref float64 }
	claims := map[int]pair{}
	for _, c := range []int{1, 4, 16} {
		claims[c] = pair{claimsPerSecond(c), pgbenchTPS(c)}
	}

	// (3) A counter's lookups over loopback.
	c, err := Open(pg.URLWithout(deskRole(db, "B0"), db))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	var lat []time.Duration
	for i := range 2000 {
		serial := serialOf(blk, (i*7919)%game.BlockSize)
		start := time.Now()
		if _, err := c.Lookup(ctx, serial, Identity{Operator: "bench"}, NoLimit); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	slices.Sort(lat)
	median, p99 := lat[len(lat)/2], lat[len(lat)*99/100]

	fmt.Printf("\n== PostgreSQL %s on loopback, fsync on; same server, same run\n", pgVersion())
	line("(6) load a block into PostgreSQL", load, copyRef, "s", "<= 1.0x (psql \\copy of 2,000,000 rows)")
	for _, n := range []int{1, 4, 16} {
		line(fmt.Sprintf("(7) claims/s, %d counter(s)", n), claims[n].ours, claims[n].ref, "claims/s", ">= 0.5x (pgbench -N tps)")
	}
	fmt.Printf("%-40s median %.2f ms, 99th percentile %.2f ms\n", "(8) a counter's lookup", ms(median), ms(p99))
	b.ReportMetric(load/copyRef, "load/copy")
	b.ReportMetric(claims[16].ours, "claims/s@16")
	b.ReportMetric(ms(median), "lookup-ms-p50")
	b.ReportMetric(ms(p99), "lookup-ms-p99")
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// pgBin is the server's bin directory.
func pgBin() string {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin/postgres")
	slices.Sort(dirs)
	if len(dirs) == 0 {
		return ""
	}
	return filepath.Dir(dirs[len(dirs)-1])
}

func pgVersion() string {
	out, _ := exec.Command(filepath.Join(pgBin(), "postgres"), "--version").Output()
	return string(regexp.MustCompile(`[0-9]+\.[0-9]+`).Find(out))
}
