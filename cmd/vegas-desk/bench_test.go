package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/ledger/ledgertest"
	"vegas-desk/internal/pgtest"
	"vegas-desk/internal/server"
)

// BenchmarkLoad is make bench's measure of a pilot's capacity through the
// validation server (issue 22), each figure beside its reference measured
// in the same run:
//
//   - answers per second of vegas-desk load --server with 1, 4 and 16
//     counters, against vegas-desk serve of a demonstration ledger on a
//     PostgreSQL server of its own (fsync on), beside pgbench -N's
//     transactions per second with as many clients on the same server
//     (goal: at least 0.5× at 4 and 16);
//   - their latency, p50 and p99, and how long a payment's entry waited to
//     be chained, 99th percentile (goal: under 100 ms);
//   - PostgreSQL's processor time an answer, beside a pgbench -N
//     transaction's (its processes' CPU time, pgtest.Server.CPU);
//   - the same through serve of a SQLite demonstration ledger (no
//     reference of its own: each claim is one write transaction of the
//     file).
//
// Each side is a ledger made by generate --demo, served as serve does (serve
// --init's authority, server.New, a loopback listener) in this process,
// and load --server's counters are desks with desk files: no database
// login of a counter anywhere.
func BenchmarkLoad(b *testing.B) {
	for b.Loop() {
		loadFigures(b)
	}
}

func loadFigures(b *testing.B) {
	b.Setenv("VEGAS_DESK_PASSPHRASE", ledgertest.Passphrase)
	srv, err := pgtest.StartDurable()
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Stop()
	demo, err := ledgertest.Postgres(srv, ledgertest.Demo)
	if err != nil {
		b.Fatal(err)
	}
	pgbenchDB := srv.NewDatabase(b)
	if out, err := exec.Command(srv.Bin("pgbench"), "-i", "-q", "-s", "10", srv.URL(pgtest.Owner, pgbenchDB)).CombinedOutput(); err != nil {
		b.Fatalf("pgbench -i: %v\n%s", err, out)
	}
	tps := regexp.MustCompile(`tps = ([0-9.]+) \(without initial connection time\)`)
	done := regexp.MustCompile(`number of transactions actually processed: ([0-9]+)`)
	// cpu is the server's processor time spent by f, per unit of the
	// work f says it did.
	cpu := func(f func() float64) (float64, time.Duration) {
		before, err := srv.CPU()
		if err != nil {
			b.Fatal(err)
		}
		work := f()
		after, err := srv.CPU()
		if err != nil {
			b.Fatal(err)
		}
		return work, time.Duration(float64(after-before) / max(work, 1))
	}
	// goCPU is this process's processor time (serve and load's counters,
	// TLS and JSON at both ends, both in it) and its children's (pgbench,
	// once waited for): with PostgreSQL's, where an answer's time goes.
	goCPU := func() (self, children time.Duration) {
		var s, c syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &s)
		syscall.Getrusage(syscall.RUSAGE_CHILDREN, &c)
		of := func(r *syscall.Rusage) time.Duration { return time.Duration(r.Utime.Nano() + r.Stime.Nano()) }
		return of(&s), of(&c)
	}
	var pgbenchTx float64
	pgbench := func(clients int) float64 {
		out, err := exec.Command(srv.Bin("pgbench"), "-N", "-c", strconv.Itoa(clients), "-j", strconv.Itoa(min(clients, 2)), "-T", "5",
			srv.URL(pgtest.Owner, pgbenchDB)).CombinedOutput()
		m, n := tps.FindSubmatch(out), done.FindSubmatch(out)
		if err != nil || m == nil || n == nil {
			b.Fatalf("pgbench -N: %v\n%s", err, out)
		}
		v, _ := strconv.ParseFloat(string(m[1]), 64)
		pgbenchTx, _ = strconv.ParseFloat(string(n[1]), 64)
		return v
	}

	fmt.Printf("\n== vegas-desk load --server against vegas-desk serve, loopback; PostgreSQL %d (fsync on) and pgbench -N on the same server, same run\n", srv.Version())
	pg := serveForLoad(b, srv.URL(pgtest.Owner, demo))
	refs := map[int]float64{}
	for _, n := range []int{1, 4, 16} {
		var r map[string]float64
		self0, _ := goCPU()
		_, perAnswer := cpu(func() float64 { r = pg.load(b, n, 5); return r["answers"] })
		self1, children0 := goCPU()
		_, perTx := cpu(func() float64 { refs[n] = pgbench(n); return pgbenchTx })
		_, children1 := goCPU()
		goPerAnswer := (self1 - self0) / time.Duration(max(r["answers"], 1))
		clientPerTx := (children1 - children0) / time.Duration(max(pgbenchTx, 1))
		fmt.Printf("%-40s %9.1f /s  reference pgbench -N %9.1f tps  ratio %5.2f  goal >= 0.5x at 4 and 16\n",
			fmt.Sprintf("(8) PostgreSQL, %d counter(s)", n), r["claims_per_s"], refs[n], r["claims_per_s"]/refs[n])
		fmt.Printf("%-40s %9.2f ms p50, %.2f ms p99; chain delay p99 %.2f ms, max %.2f ms  goal < 100 ms\n",
			"", r["p50_ms"], r["p99_ms"], r["chain_delay_ms"], r["chain_delay_max_ms"])
		ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
		fmt.Printf("%-40s PostgreSQL's CPU %.2f ms an answer; a pgbench -N transaction's %.2f ms\n", "", ms(perAnswer), ms(perTx))
		// On 2 cores held busy, answers a second are about 2 cores over
		// the whole CPU an answer: the ratio of the two totals bounds the
		// ratio to pgbench -N.
		fmt.Printf("%-40s CPU an answer in all: %.2f ms (PostgreSQL %.2f, serve and the counters %.2f); a pgbench -N transaction: %.2f ms (PostgreSQL %.2f, pgbench %.2f); ratio of the totals %.2f\n",
			"", ms(perAnswer+goPerAnswer), ms(perAnswer), ms(goPerAnswer), ms(perTx+clientPerTx), ms(perTx), ms(clientPerTx),
			float64(perTx+clientPerTx)/float64(perAnswer+goPerAnswer))
		b.ReportMetric(ms(goPerAnswer), fmt.Sprintf("go-cpu-ms/answer@%d", n))
		b.ReportMetric(float64(perAnswer)/float64(time.Millisecond), fmt.Sprintf("pg-cpu-ms/answer@%d", n))
		b.ReportMetric(r["claims_per_s"], fmt.Sprintf("pg-answers/s@%d", n))
		b.ReportMetric(r["claims_per_s"]/refs[n], fmt.Sprintf("pg-x-pgbench@%d", n))
		b.ReportMetric(r["chain_delay_ms"], fmt.Sprintf("pg-chain-ms-p99@%d", n))
	}
	pg.stop()

	lite := serveForLoad(b, ledgertest.Copy(b, ledgertest.Demo))
	for _, n := range []int{1, 4, 16} {
		r := lite.load(b, n, 5)
		fmt.Printf("%-40s %9.1f /s  (pgbench -N above: %.1f tps)  p50 %.2f ms, p99 %.2f ms\n",
			fmt.Sprintf("(13) SQLite file, %d counter(s)", n), r["claims_per_s"], refs[n], r["p50_ms"], r["p99_ms"])
		b.ReportMetric(r["claims_per_s"], fmt.Sprintf("sqlite-answers/s@%d", n))
	}
	lite.stop()
}

// BenchmarkLoadHistory is make bench's measure that a question's cost
// does not grow with the ledger's history (issue 28): load --server with 4
// counters for 60 s, through serve of a demonstration ledger that already
// holds 200,000 claims and 100,000 refusals of the same desks
// (ledgertest.AddHistory), on PostgreSQL (fsync on) and on a SQLite file;
// the answers a second of each 10 s window, the last within 15 % of the
// first (goal).
func BenchmarkLoadHistory(b *testing.B) {
	for b.Loop() {
		historyFigures(b)
	}
}

// historySeconds is how long BenchmarkLoadHistory's load runs
// (VEGAS_HISTORY_SECONDS changes it, for a shorter look).
func historySeconds() int {
	if v, err := strconv.Atoi(os.Getenv("VEGAS_HISTORY_SECONDS")); err == nil && v >= 10 {
		return v
	}
	return 60
}

func historyFigures(b *testing.B) {
	b.Setenv("VEGAS_DESK_PASSPHRASE", ledgertest.Passphrase)
	const counters, claims, refusals = 4, 200_000, 100_000
	var desks []string
	for i := range counters {
		desks = append(desks, core.TestDesk(i+1)) // load's own
	}
	srv, err := pgtest.StartDurable()
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Stop()
	demo, err := ledgertest.Postgres(srv, ledgertest.Demo)
	if err != nil {
		b.Fatal(err)
	}
	seconds := historySeconds()
	fmt.Printf("\n== vegas-desk load --server, %d counters, %d s, after %d claims and %d refusals of the same desks; answers a second by 10 s window\n",
		counters, seconds, claims, refusals)
	for _, kind := range []string{"PostgreSQL", "SQLite file"} {
		db := srv.URL(pgtest.Owner, demo)
		if kind == "SQLite file" {
			db = ledgertest.Copy(b, ledgertest.Demo)
		}
		t0 := time.Now()
		if err := ledgertest.AddHistory(context.Background(), db, desks, claims, refusals); err != nil {
			b.Fatal(err)
		}
		built := time.Since(t0)
		sv := serveForLoad(b, db)
		_, progress := sv.loadLines(b, counters, seconds)
		sv.stop()
		windows := tenSecondWindows(b, progress)
		first, last := windows[0], windows[len(windows)-1]
		fmt.Printf("%-14s history built in %.1f s; answers/s by 10 s: %v  last/first %.2f  goal >= 0.85\n",
			kind, built.Seconds(), windows, last/first)
		b.ReportMetric(last/first, "last/first-"+strings.Fields(kind)[0])
	}
}

// tenSecondWindows reads load's progress lines (one a second: its answers
// that second) and averages them by 10 s.
func tenSecondWindows(b *testing.B, progress string) []float64 {
	line := regexp.MustCompile(`(?m)^\s*\d+ s\s+(\d+) answers/s`)
	var windows []float64
	var sum, n float64
	for _, m := range line.FindAllStringSubmatch(progress, -1) {
		v, _ := strconv.ParseFloat(m[1], 64)
		sum, n = sum+v, n+1
		if n == 10 {
			windows = append(windows, sum/n)
			sum, n = 0, 0
		}
	}
	if len(windows) == 0 || windows[0] == 0 {
		b.Fatalf("load's progress has no 10 s window:\n%s", progress)
	}
	return windows
}

// served is a ledger served for the load test.
type served struct {
	db, dir, url string
	l            *ledger.Ledger
	s            *server.Server
	done         chan error
	restoreGC    func()
}

// serveForLoad makes db's authority (serve --init) and serves db as serve
// does (its garbage collector's target too: serveGC, which the load's
// counters in this process then share), on a loopback port of its own.
func serveForLoad(b *testing.B, db string) *served {
	dir := filepath.Join(b.TempDir(), "ca")
	var out, errs bytes.Buffer
	if code := run([]string{"--db", db, "serve", "--init", "--dir", dir, "--host", "127.0.0.1"}, nil, &out, &errs); code != 0 {
		b.Fatalf("serve --init: exit %d\n%s%s", code, out.String(), errs.String())
	}
	l, err := ledger.Open(db)
	if err != nil {
		b.Fatal(err)
	}
	s, err := server.New(l, server.Config{Dir: dir})
	if err != nil {
		b.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	sv := &served{db: db, dir: dir, url: "https://" + ln.Addr().String(), l: l, s: s, done: make(chan error, 1), restoreGC: serveGC()}
	go func() { sv.done <- s.Serve(ln) }()
	return sv
}

// load runs load --server with n counters for seconds, and reads its
// --json.
func (sv *served) load(b *testing.B, n, seconds int) map[string]float64 {
	r, _ := sv.loadLines(b, n, seconds)
	return r
}

// loadLines is load, and its progress lines.
func (sv *served) loadLines(b *testing.B, n, seconds int) (map[string]float64, string) {
	var out, errs bytes.Buffer
	code := run([]string{"--db", sv.db, "load", "--server", sv.url, "--dir", sv.dir, "--counters", strconv.Itoa(n),
		"--seconds", strconv.Itoa(seconds), "--json"}, nil, &out, &errs)
	r := map[string]float64{}
	if code != 0 || json.Unmarshal(out.Bytes(), &r) != nil {
		b.Fatalf("load --server: exit %d\n%s%s", code, out.String(), errs.String())
	}
	return r, errs.String()
}

func (sv *served) stop() {
	sv.s.Close()
	<-sv.done
	sv.restoreGC()
	sv.l.Close()
}
