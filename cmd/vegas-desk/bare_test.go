package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/text/language"

	"vegas-desk/internal/benchref"
	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/ledgertest"
	"vegas-desk/internal/pgtest"
)

// BenchmarkBare is make bench's measure of serve against the limit of its
// own stack (issue 38): vegas-desk serve and a bare validation server
// (package benchref: net/http over TLS 1.3 with client certificates, a
// JSON {"serial": …} body, one autocommit UPDATE … SET paid_at = now()
// WHERE serial = $1 AND paid_at IS NULL RETURNING prize through a pgxpool;
// on a file, one SQLite writer in WAL mode with synchronous=FULL), each in
// a process of its own, their load clients in this one, alternating at 1,
// 4 and 16 counters, on one PostgreSQL server (fsync and synchronous_commit
// on: both sides' answers durable) and on a file. Each line: answers a
// second, p50 and p99, and the server side's processor time an answer
// (the server's process, from /proc/PID/stat, plus PostgreSQL's
// processes, pgtest.Server.CPU) apart from the clients' (this process's
// getrusage), with pgbench -N beside for the record. Goal: serve at least
// 0.7× the bare server's answers a second, and at most 1.5× its server
// side's processor time an answer. On PostgreSQL a second reference,
// "bare+chain" (benchref.Chained): the bare server that also appends each
// payment's entry to a hash-chained journal in the payment's commit, and
// answers once it is durable: the least serve's promises need.
//
// VEGAS_BARE_SECONDS sets each phase's length (default 5);
// VEGAS_BARE_PROFILE=DIR writes each server process's CPU profile there
// (serve-PostgreSQL.pprof, bare-PostgreSQL.pprof, …: go tool pprof).
func BenchmarkBare(b *testing.B) {
	for b.Loop() {
		bareFigures(b)
	}
}

// benchChildEnv names the server a re-executed test binary runs (serve,
// bare) instead of the tests: the server side in a process of its own.
const benchChildEnv = "VEGAS_BENCH_CHILD"

func init() {
	if kind := os.Getenv(benchChildEnv); kind != "" {
		os.Exit(benchChild(kind, os.Args[1:]))
	}
}

// benchChild runs a server of BenchmarkBare until SIGTERM: serve with its
// command line (args), or the bare server (args: its directory, its
// database, the address to listen on); with a CPU profile when
// VEGAS_BENCH_PROFILE names its file.
func benchChild(kind string, args []string) int {
	if p := os.Getenv("VEGAS_BENCH_PROFILE"); p != "" {
		f, err := os.Create(p)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer f.Close()
		defer pprof.StopCPUProfile()
	}
	switch kind {
	case "serve":
		return run(args, nil, os.Stdout, os.Stderr)
	case "bare":
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
		defer stop()
		ln, err := net.Listen("tcp", args[2])
		if err == nil {
			err = benchref.Serve(ctx, ln, args[0], args[1])
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return 0
	}
	fmt.Fprintf(os.Stderr, "%s=%s: no such server\n", benchChildEnv, kind)
	return 2
}

// serverProcess is a server of BenchmarkBare in a process of its own.
type serverProcess struct {
	cmd  *exec.Cmd
	url  string
	log  string // its standard error's file
	done chan error
}

// startServerProcess runs server kind (benchChild) with args, listening on addr,
// and waits until it accepts connections.
func startServerProcess(b *testing.B, kind, addr, profile string, env []string, args ...string) *serverProcess {
	b.Helper()
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	p := &serverProcess{url: "https://" + addr, log: filepath.Join(b.TempDir(), kind+".log"), done: make(chan error, 1)}
	logf, err := os.Create(p.log)
	if err != nil {
		b.Fatal(err)
	}
	defer logf.Close()
	p.cmd = exec.Command(exe, args...)
	p.cmd.Env = append(append(os.Environ(), env...), benchChildEnv+"="+kind)
	if profile != "" {
		p.cmd.Env = append(p.cmd.Env, "VEGAS_BENCH_PROFILE="+profile)
	}
	p.cmd.Stdout, p.cmd.Stderr = logf, logf
	if err := p.cmd.Start(); err != nil {
		b.Fatal(err)
	}
	go func() { p.done <- p.cmd.Wait() }()
	// Ready when it accepts a connection (or failed when it ended).
	deadline := time.Now().Add(2 * time.Minute)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return p
		}
		select {
		case err := <-p.done:
			log, _ := os.ReadFile(p.log)
			b.Fatalf("%s ended before it served: %v\n%s", kind, err, log)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			p.cmd.Process.Kill()
			b.Fatalf("%s does not accept connections on %s after 2 minutes", kind, addr)
		}
	}
}

// cpu is the processor time the process used so far (/proc/PID/stat's
// utime and stime, at the kernel's 100 ticks a second).
func (p *serverProcess) cpu(b *testing.B) time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid))
	if err != nil {
		b.Fatal(err)
	}
	f := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+2:]))
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+s) * 10 * time.Millisecond
}

// stop ends the process as a service manager does (SIGTERM) and waits.
func (p *serverProcess) stop(b *testing.B) {
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-p.done:
		if err != nil {
			log, _ := os.ReadFile(p.log)
			b.Errorf("%v at its end: %v\n%s", p.cmd.Args, err, tail(string(log), 2000))
		}
	case <-time.After(time.Minute):
		p.cmd.Process.Kill()
		b.Errorf("%v still running a minute after SIGTERM", p.cmd.Args)
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// loopbackAddr is a free address of the loopback.
func loopbackAddr(b *testing.B) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// phase is what one side measured at one number of counters.
type phase struct {
	perSecond, p50, p99 float64
	answers             int
	server, pg, clients time.Duration // processor time an answer
	load                string        // the load average after it
}

func bareSeconds() float64 {
	if v, err := strconv.ParseFloat(os.Getenv("VEGAS_BARE_SECONDS"), 64); err == nil && v > 0 {
		return v
	}
	return 5
}

func bareFigures(b *testing.B) {
	b.Setenv("VEGAS_DESK_PASSPHRASE", ledgertest.Passphrase)
	ctx := context.Background()
	d := time.Duration(bareSeconds() * float64(time.Second))
	profiles := os.Getenv("VEGAS_BARE_PROFILE")
	var settings []string
	if profiles != "" { // PostgreSQL's side of the profile: its statements' counts and times (those the servers send: track=top)
		settings = append(settings, "shared_preload_libraries=pg_stat_statements", "pg_stat_statements.track=top", "pg_stat_statements.track_planning=on")
	}
	srv, err := pgtest.StartDurableWith(settings...)
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Stop()
	if profiles != "" {
		if err := srv.Exec("postgres", "CREATE EXTENSION pg_stat_statements"); err != nil {
			b.Fatal(err)
		}
	}
	demo, err := ledgertest.Postgres(srv, ledgertest.Demo)
	if err != nil {
		b.Fatal(err)
	}
	// The bare server's table: the same block's tickets (game 531, block
	// 1 of ledgertest.Seed), as many, as many winners.
	file := benchref.Fixture(b)
	bareName := srv.NewDatabase(b)
	bareURL := srv.URL(pgtest.Owner, bareName)
	if err := benchref.CreatePostgres(ctx, bareURL, benchref.FileTickets(ctx, file)); err != nil {
		b.Fatal(err)
	}
	tickets, winners, err := benchref.Count(ctx, benchref.FileTickets(ctx, file))
	if err != nil {
		b.Fatal(err)
	}
	pgbenchDB := srv.NewDatabase(b)
	if out, err := exec.Command(srv.Bin("pgbench"), "-i", "-q", "-s", "10", srv.URL(pgtest.Owner, pgbenchDB)).CombinedOutput(); err != nil {
		b.Fatalf("pgbench -i: %v\n%s", err, out)
	}
	self := func() time.Duration {
		var r syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &r)
		return time.Duration(r.Utime.Nano() + r.Stime.Nano())
	}
	children := func() time.Duration {
		var r syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_CHILDREN, &r)
		return time.Duration(r.Utime.Nano() + r.Stime.Nano())
	}
	// measure runs load against the server process p and says what the
	// server side and the clients spent an answer.
	measure := func(p *serverProcess, load func() (answers int, perSecond, p50, p99 float64)) phase {
		pg0, err := srv.CPU()
		if err != nil {
			b.Fatal(err)
		}
		s0, c0 := p.cpu(b), self()
		var ph phase
		ph.answers, ph.perSecond, ph.p50, ph.p99 = load()
		s1, c1 := p.cpu(b), self()
		pg1, err := srv.CPU()
		if err != nil {
			b.Fatal(err)
		}
		n := time.Duration(max(ph.answers, 1))
		ph.server, ph.pg, ph.clients, ph.load = (s1-s0)/n, (pg1-pg0)/n, (c1-c0)/n, fmt.Sprintf("%.2f", loadAverage())
		return ph
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

	fmt.Printf("\n== vegas-desk serve against a bare validation server (benchref: net/http, TLS 1.3 client certificates, one autocommit UPDATE … RETURNING"+
		" through pgxpool; on a file one SQLite writer, WAL, synchronous=FULL), each in its own process, their clients in the bench's, alternating, %.0f s each;"+
		" PostgreSQL %d, one server for both (fsync on, synchronous_commit on: every answer durable on both sides: serve's PAID flushed, issue 43;"+
		" the bare's autocommit waits for its WAL flush); the bare's table %d tickets, %d winners, as serve's ledger (generate --demo)\n",
		bareSeconds(), srv.Version(), tickets, winners)
	fmt.Printf("%-26s %-11s %10s %8s %8s   %-36s %9s  %s\n", "", "", "answers/s", "p50 ms", "p99 ms", "server side CPU ms/answer", "clients'", "load avg")
	kinds := []string{"PostgreSQL", "SQLite file"}
	if only := os.Getenv("VEGAS_BARE_ONLY"); only != "" { // a look at one engine
		kinds = strings.Split(only, ",")
	}
	for _, kind := range kinds {
		if kind == "PostgreSQL" && profiles != "" {
			if err := srv.Exec("postgres", "SELECT pg_stat_statements_reset()"); err != nil {
				b.Fatal(err)
			}
		}
		serveDB, bareDB := srv.URL(pgtest.Owner, demo), bareURL
		if kind == "SQLite file" {
			serveDB, bareDB = ledgertest.Copy(b, ledgertest.Demo), file
		}
		tag := strings.Fields(kind)[0]
		// serve: serve --init's authority, then serve in its own process.
		dir := filepath.Join(b.TempDir(), "ca")
		var out, errs bytes.Buffer
		if code := run([]string{"--db", serveDB, "serve", "--init", "--dir", dir, "--host", "127.0.0.1"}, nil, &out, &errs); code != 0 {
			b.Fatalf("serve --init: exit %d\n%s%s", code, out.String(), errs.String())
		}
		bo, err := ledger.Open(serveDB)
		if err != nil {
			b.Fatal(err)
		}
		if bs, err := bo.Blocks(ctx); err != nil || len(bs) != 1 || bs[0].Tickets != tickets || bs[0].Winners != winners {
			b.Fatalf("serve's ledger: blocks %+v (%v); the bare's table: %d tickets, %d winners", bs, err, tickets, winners)
		}
		all, blk, err := onSale(ctx, bo)
		if err != nil {
			b.Fatal(err)
		}
		profile := func(side string) string {
			if profiles == "" {
				return ""
			}
			return filepath.Join(profiles, side+"-"+tag+".pprof")
		}
		serveAddr := loopbackAddr(b)
		sp := startServerProcess(b, "serve", serveAddr, profile("serve"), nil, "--db", serveDB, "serve", "--dir", dir, "--listen", serveAddr)
		// An experiment (VEGAS_BARE_AB=NAME=VALUE,…): a second serve of the
		// same ledger, its environment changed so, measured beside.
		var spB *serverProcess
		if ab := os.Getenv("VEGAS_BARE_AB"); ab != "" {
			addr := loopbackAddr(b)
			spB = startServerProcess(b, "serve", addr, profile("serveB"), strings.Split(ab, ","), "--db", serveDB, "serve", "--dir", dir, "--listen", addr)
		}
		bareDir := b.TempDir()
		pki, err := benchref.MakePKI(bareDir, 16)
		if err != nil {
			b.Fatal(err)
		}
		bareAddr := loopbackAddr(b)
		bp := startServerProcess(b, "bare", bareAddr, profile("bare"), nil, bareDir, bareDB, bareAddr)
		// On PostgreSQL, a second reference: the bare server that also
		// chains each payment's entry in its commit (benchref.Chained:
		// the least serve's promises need), on the same table.
		var cp *serverProcess
		if kind == "PostgreSQL" {
			addr := loopbackAddr(b)
			cp = startServerProcess(b, "bare", addr, profile("barechain"), nil, bareDir, benchref.Chained+bareDB, addr)
		}
		serial := func(rng *mrand.Rand) string {
			pos := all[rng.IntN(len(all))]*game.PackSize + rng.IntN(game.PackSize)
			return game.Serial{Game: blk.Game, Block: blk.Number, Position: pos, Secret: blk.Key.Secret(pos)}.String()
		}
		c := &cli{stdout: io.Discard, stderr: io.Discard, ctx: ctx, lang: language.English}
		serveSide := func(sp *serverProcess, n int) phase {
			logins, err := serverDesks(c, bo, n, sp.url, dir, "")
			if err != nil {
				b.Fatal(err)
			}
			defer func() {
				for _, l := range logins {
					l.Close()
				}
			}()
			packs := make([][]int, n)
			for i := range packs {
				packs[i] = all
			}
			return measure(sp, func() (int, float64, float64, float64) {
				r := runLoad(ctx, len(logins), packsSource(logins, blk, packs), d, io.Discard)
				if r.err != nil {
					b.Fatal(r.err)
				}
				s := r.summary(n)
				return len(r.latency), s["claims_per_s"].(float64), s["p50_ms"].(float64), s["p99_ms"].(float64)
			})
		}
		bareSide := func(bp *serverProcess, n int) phase {
			return measure(bp, func() (int, float64, float64, float64) {
				r, err := benchref.Load(ctx, bp.url, &benchref.PKI{Roots: pki.Roots, Counters: pki.Counters[:n]}, serial, d)
				if err != nil {
					b.Fatal(err)
				}
				return r.Answers(), r.PerSecond(), r.Ms(50), r.Ms(99)
			})
		}
		row := func(label, side string, ph phase) {
			split := ""
			if kind == "PostgreSQL" {
				split = fmt.Sprintf(" (process %.3f + PostgreSQL %.3f)", ms(ph.server), ms(ph.pg))
			}
			fmt.Printf("%-26s %-11s %10.1f %8.2f %8.2f   %-36s %9.3f  %s\n", label, side, ph.perSecond, ph.p50, ph.p99,
				fmt.Sprintf("%.3f%s", ms(ph.server+ph.pg), split), ms(ph.clients), ph.load)
		}
		served, bared := 0, 0 // answers in all, by side (the bare's with the chained one's: one database)
		for i, n := range []int{1, 4, 16} {
			var sv, svB, bare, chain phase
			sides := []func(){func() { sv = serveSide(sp, n) }, func() { bare = bareSide(bp, n) }}
			if cp != nil {
				sides = append(sides, func() { chain = bareSide(cp, n) })
			}
			if spB != nil {
				sides = append(sides, func() { svB = serveSide(spB, n) })
			}
			for k := range sides { // alternating: which goes first too
				sides[(i+k)%len(sides)]()
			}
			served, bared = served+sv.answers, bared+bare.answers+chain.answers
			label := fmt.Sprintf("%s, %d counter(s)", kind, n)
			row(label, "serve", sv)
			row("", "bare", bare)
			if cp != nil {
				row("", "bare+chain", chain)
			}
			if spB != nil {
				row("", "serve B", svB)
				fmt.Printf("%-26s %-11s %9.2fx answers/s, %.2fx server side CPU an answer (%s)\n", "", "B/serve",
					svB.perSecond/sv.perSecond, float64(svB.server+svB.pg)/float64(sv.server+sv.pg), os.Getenv("VEGAS_BARE_AB"))
			}
			speed, cost := sv.perSecond/bare.perSecond, float64(sv.server+sv.pg)/float64(bare.server+bare.pg)
			fmt.Printf("%-26s %-11s %9.2fx answers/s (goal >= 0.7x), %.2fx server side CPU an answer (goal <= 1.5x)\n", "", "serve/bare", speed, cost)
			b.ReportMetric(speed, fmt.Sprintf("%s-serve/bare-answers@%d", tag, n))
			b.ReportMetric(cost, fmt.Sprintf("%s-serve/bare-cpu@%d", tag, n))
			if cp != nil {
				fmt.Printf("%-26s %-11s %9.2fx answers/s, %.2fx server side CPU an answer; the chain's own cost: %.2fx the bare's answers/s, %.2fx its CPU\n", "", "serve/chain",
					sv.perSecond/chain.perSecond, float64(sv.server+sv.pg)/float64(chain.server+chain.pg),
					chain.perSecond/bare.perSecond, float64(chain.server+chain.pg)/float64(bare.server+bare.pg))
			}
			if kind == "PostgreSQL" {
				tps, pgPerTx, clientPerTx, load := pgbenchN(b, srv, pgbenchDB, n, d, children)
				fmt.Printf("%-26s %-11s %10.1f tps; PostgreSQL's CPU %.3f ms a transaction, pgbench's %.3f ms  %s\n", "", "pgbench -N", tps, ms(pgPerTx), ms(clientPerTx), load)
			}
		}
		sp.stop(b)
		bp.stop(b)
		if cp != nil {
			cp.stop(b)
		}
		if spB != nil {
			spB.stop(b)
		}
		bo.Close()
		if kind == "PostgreSQL" && profiles != "" {
			statements(b, srv, filepath.Join(profiles, "statements.txt"), map[string]int{demo: served, bareName: bared})
		}
	}
}

// statements writes PostgreSQL's statements by database, the most time
// first (pg_stat_statements), to file, and prints the top, and the
// statements an answer of each database of answers (its answers in all).
func statements(b *testing.B, srv *pgtest.Server, file string, answers map[string]int) {
	db, err := srv.Open("postgres", "postgres")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	for name, n := range answers {
		var calls int64
		var total, plan float64
		if err := db.QueryRow(`SELECT coalesce(sum(s.calls), 0)::bigint, coalesce(sum(s.total_exec_time), 0), coalesce(sum(s.total_plan_time), 0)
			FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = $1`, name).Scan(&calls, &total, &plan); err != nil {
			b.Fatal(err)
		}
		fmt.Printf("database %s: %d answers, %.2f statements an answer (begin and commit included), %.3f ms of their execution and %.3f ms of their planning an answer\n",
			name, n, float64(calls)/float64(max(n, 1)), total/float64(max(n, 1)), plan/float64(max(n, 1)))
	}
	rows, err := db.Query(`SELECT d.datname, s.calls, s.total_exec_time, s.total_plan_time, s.rows, regexp_replace(s.query, '\s+', ' ', 'g')
		FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid ORDER BY s.total_exec_time + s.total_plan_time DESC LIMIT 40`)
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	var out strings.Builder
	fmt.Fprintf(&out, "%-28s %9s %10s %9s %9s  %s\n", "database", "calls", "total ms", "plan ms", "rows", "statement")
	for rows.Next() {
		var name, q string
		var calls, n int64
		var total, plan float64
		if err := rows.Scan(&name, &calls, &total, &plan, &n, &q); err != nil {
			b.Fatal(err)
		}
		if len(q) > 200 {
			q = q[:100] + " … " + q[len(q)-100:]
		}
		fmt.Fprintf(&out, "%-28s %9d %10.1f %9.1f %9d  %s\n", name, calls, total, plan, n, q)
	}
	if err := rows.Err(); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(out.String()), 0o600); err != nil {
		b.Fatal(err)
	}
	fmt.Printf("PostgreSQL's statements (pg_stat_statements), by time:\n%s", out.String())
}

// pgbenchN runs pgbench -N with n clients for d on db of srv: its
// transactions a second, PostgreSQL's and pgbench's processor time a
// transaction, and the load average after.
func pgbenchN(b *testing.B, srv *pgtest.Server, db string, n int, d time.Duration, children func() time.Duration) (float64, time.Duration, time.Duration, string) {
	tps := regexp.MustCompile(`tps = ([0-9.]+) \(without initial connection time\)`)
	done := regexp.MustCompile(`number of transactions actually processed: ([0-9]+)`)
	pg0, _ := srv.CPU()
	c0 := children()
	out, err := exec.Command(srv.Bin("pgbench"), "-N", "-c", strconv.Itoa(n), "-j", strconv.Itoa(min(n, 2)), "-T", strconv.Itoa(max(1, int(d.Seconds()))),
		srv.URL(pgtest.Owner, db)).CombinedOutput()
	c1 := children()
	pg1, _ := srv.CPU()
	m, k := tps.FindSubmatch(out), done.FindSubmatch(out)
	if err != nil || m == nil || k == nil {
		b.Fatalf("pgbench -N: %v\n%s", err, out)
	}
	v, _ := strconv.ParseFloat(string(m[1]), 64)
	txs, _ := strconv.ParseFloat(string(k[1]), 64)
	per := time.Duration(max(txs, 1))
	return v, (pg1 - pg0) / per, (c1 - c0) / per, fmt.Sprintf("%.2f", loadAverage())
}
