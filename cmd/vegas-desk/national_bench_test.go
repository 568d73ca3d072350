package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"vegas-desk/internal/ledger/ledgertest"
	"vegas-desk/internal/pgtest"
)

// BenchmarkNational is make bench-national (issue 38 item 4): a national
// network on one vegas-desk serve over PostgreSQL, every part a process of
// its own, as in production:
//
//   - a demonstration ledger on a PostgreSQL server of the tests' own
//     (pgtest, fsync on) with enough blocks for a winner a claim (generate
//     --demo, 524,722 winners a block);
//   - 30,000 desks and their desk files made by one desks add --count
//     process (its time printed);
//   - serve of that ledger, and load --server --desks --winners claiming
//     1,000,000 winners, each once, each claim by the next of the 30,000
//     desks on a new connection (a point of sale pays a ticket now and
//     then: its connection is long closed by its next claim), 16 counters
//     at once;
//   - goals: the claims in at most an hour, and flat: the answers a
//     second of the last 10 minutes (of the last sixth, for a shorter run)
//     within 15 % of the first's;
//   - printed: serve's memory (RSS, and its peak), PostgreSQL's size a desk
//     and a million claims, the CPU an answer of serve, PostgreSQL and the
//     load's counters, the load average through the run.
//
// VEGAS_NATIONAL_DESKS, VEGAS_NATIONAL_CLAIMS and VEGAS_NATIONAL_COUNTERS
// change its size (a smaller run checks the mechanics);
// VEGAS_NATIONAL_SECONDS stops the claims sooner than the hour.
func BenchmarkNational(b *testing.B) {
	for b.Loop() {
		nationalFigures(b)
	}
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// loadAverage is /proc/loadavg's first figure (the last minute's).
func loadAverage() float64 {
	data, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(data))
	if len(f) == 0 {
		return math.NaN()
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}

// procStatus is field (VmRSS, VmHWM) of process pid in kB.
func procStatus(pid int, field string) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}

// procCPU is the processor time process pid used so far (itself).
func procCPU(pid int) time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+2:]))
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+s) * (time.Second / 100)
}

func nationalFigures(b *testing.B) {
	desks := envInt("VEGAS_NATIONAL_DESKS", 30_000)
	claims := envInt("VEGAS_NATIONAL_CLAIMS", 1_000_000)
	counters := envInt("VEGAS_NATIONAL_COUNTERS", 16)
	maxSeconds := envInt("VEGAS_NATIONAL_SECONDS", 3600) // load's time at most
	const winnersPerBlock = 524_722
	blocks := (claims + winnersPerBlock - 1) / winnersPerBlock
	b.Setenv("VEGAS_DESK_PASSPHRASE", ledgertest.Passphrase)
	b.Setenv("LANG", "C")
	loads := []float64{loadAverage()}
	fmt.Printf("\n== national scale (issue 38): %d desks, %d claims of %d blocks' winners, %d counters at once, through one vegas-desk serve on PostgreSQL; load average %.2f at start, 2 cores shared\n",
		desks, claims, blocks, counters, loads[0])

	tmp := b.TempDir()
	bin := filepath.Join(tmp, "vegas-desk")
	if out, err := exec.Command("go", "build", "-tags", "nogui", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	vd := func(args ...string) (string, time.Duration) {
		t0 := time.Now()
		cmd := exec.Command(bin, args...)
		var out, errs bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errs
		if err := cmd.Run(); err != nil {
			b.Fatalf("vegas-desk %s: %v\n%s%s", strings.Join(args, " "), err, out.String(), errs.String())
		}
		return out.String(), time.Since(t0)
	}

	srv, err := pgtest.StartDurable()
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Stop()
	db := srv.NewDatabase(b)
	url := srv.URL(pgtest.Owner, db)
	size := func() int64 {
		out, err := exec.Command(srv.Bin("psql"), "-X", "-tAc", "SELECT pg_database_size(current_database())", url).CombinedOutput()
		if err != nil {
			b.Fatalf("psql: %v\n%s", err, out)
		}
		n, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
		if err != nil {
			b.Fatalf("pg_database_size: %q", out)
		}
		return n
	}
	mb := func(n int64) float64 { return float64(n) / (1 << 20) }

	var gen time.Duration
	for range blocks {
		_, took := vd("--db", url, "generate", "--demo", "--json")
		gen += took
	}
	ca := filepath.Join(tmp, "ca")
	vd("--db", url, "serve", "--init", "--dir", ca, "--host", "127.0.0.1")
	sizeLedger := size()
	fmt.Printf("ledger: %d blocks generated (generate --demo) in %.1f s; PostgreSQL database %.1f MB\n", blocks, gen.Seconds(), mb(sizeLedger))

	deskDir := filepath.Join(tmp, "desks")
	loads = append(loads, loadAverage())
	out, took := vd("--db", url, "desks", "add", "--count", strconv.Itoa(desks), "--prefix", "PV", "--limit", "1000000",
		"--out", deskDir, "--dir", ca)
	sizeDesks := size()
	loadDesks := loadAverage()
	fmt.Printf("desks: %s", out)
	fmt.Printf("desks: %d desks and their desk files in %.1f s (%.2f ms a desk; load average %.2f); PostgreSQL +%.1f MB, %.0f bytes a desk\n",
		desks, took.Seconds(), float64(took)/float64(time.Millisecond)/float64(desks), loadDesks, mb(sizeDesks-sizeLedger),
		float64(sizeDesks-sizeLedger)/float64(desks))
	b.ReportMetric(took.Seconds(), "s-desks-add")

	// serve, a process of its own on a free port; ready when it accepts.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	serveLog, err := os.Create(filepath.Join(tmp, "serve.log"))
	if err != nil {
		b.Fatal(err)
	}
	defer serveLog.Close()
	serve := exec.Command(bin, "--db", url, "serve", "--listen", addr, "--dir", ca)
	serve.Stdout, serve.Stderr = serveLog, serveLog
	if err := serve.Start(); err != nil {
		b.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- serve.Wait() }()
	defer func() {
		serve.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			serve.Process.Kill()
			<-exited
		}
	}()
	for deadline := time.Now().Add(60 * time.Second); ; {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			break
		}
		select {
		case err := <-exited:
			log, _ := os.ReadFile(serveLog.Name())
			b.Fatalf("serve exited: %v\n%s", err, log)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			b.Fatalf("serve does not accept on %s after a minute", addr)
		}
	}
	pid := serve.Process.Pid
	rssIdle := procStatus(pid, "VmRSS")

	// load, a process of its own; serve's memory and the load average
	// sampled every 10 s meanwhile.
	load := exec.Command(bin, "--db", url, "load", "--server", "https://"+addr, "--desks", deskDir, "--winners",
		"--claims", strconv.Itoa(claims), "--counters", strconv.Itoa(counters), "--seconds", strconv.Itoa(min(maxSeconds, 3600)), "--json")
	var loadOut bytes.Buffer
	load.Stdout = &loadOut
	stderr, err := load.StderrPipe()
	if err != nil {
		b.Fatal(err)
	}
	var progress []string
	var mu sync.Mutex
	var rssMax int64
	var rssSamples []int64
	stop := make(chan struct{})
	var sampled sync.WaitGroup
	sampled.Go(func() {
		tick := time.NewTicker(10 * time.Second)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				r := procStatus(pid, "VmRSS")
				mu.Lock()
				rssMax = max(rssMax, r)
				rssSamples = append(rssSamples, r)
				loads = append(loads, loadAverage())
				mu.Unlock()
			}
		}
	})
	serveCPU0, pgCPU0 := procCPU(pid), mustCPU(srv)
	if err := load.Start(); err != nil {
		b.Fatal(err)
	}
	// Each whole second's answers, and serve's and PostgreSQL's CPU so far
	// when its line came: the CPU an answer of a window, which the other
	// work of a shared machine does not change as it changes answers/s.
	type second struct {
		rate float64
		cpu  time.Duration
	}
	var seconds []second
	whole := regexp.MustCompile(`^\s*\d+ s\s+(\d+) answers/s`)
	sc := bufio.NewScanner(stderr)
	perSecond := regexp.MustCompile(`^\s*[0-9.]+ s\s+\d+ answers/s`)
	var tail []string
	for sc.Scan() {
		line := sc.Text()
		if perSecond.MatchString(line) {
			progress = append(progress, line)
			if m := whole.FindStringSubmatch(line); m != nil {
				v, _ := strconv.ParseFloat(m[1], 64)
				seconds = append(seconds, second{v, procCPU(pid) + mustCPU(srv)})
			}
			if len(progress)%60 == 0 {
				fmt.Printf("  %s (load average %.2f)\n", strings.TrimSpace(line), loadAverage())
			}
		} else {
			fmt.Printf("  %s\n", line)
			tail = append(tail, line)
		}
	}
	loadErr := load.Wait()
	loadCPU := time.Duration(0)
	if load.ProcessState != nil {
		loadCPU = load.ProcessState.UserTime() + load.ProcessState.SystemTime()
	}
	serveCPU, pgCPU := procCPU(pid)-serveCPU0, mustCPU(srv)-pgCPU0
	close(stop)
	sampled.Wait()
	if loadErr != nil {
		b.Fatalf("load: %v\n%s\n%s", loadErr, loadOut.String(), strings.Join(tail, "\n"))
	}
	var r map[string]float64
	if err := json.Unmarshal(loadOut.Bytes(), &r); err != nil {
		b.Fatalf("load --json: %v\n%s", err, loadOut.String())
	}
	rssEnd, rssPeak := procStatus(pid, "VmRSS"), procStatus(pid, "VmHWM")
	sizeClaims := size()

	// Flatness: the answers a second of the first and last windows of
	// whole seconds, 10 minutes each, or a sixth of a shorter run.
	var rates []float64
	for _, x := range seconds {
		rates = append(rates, x.rate)
	}
	w := min(600, (len(rates)-1)/6)
	if w < 1 {
		b.Fatalf("load ran %d whole seconds: too short to compare its first and last windows", len(rates))
	}
	n := len(seconds)
	// CPU an answer of whole seconds 1 … w and n-w … n-1 (from the line
	// before each window's first).
	cpuOf := func(from, to int) float64 {
		var a float64
		for _, x := range seconds[from+1 : to+1] {
			a += x.rate
		}
		return float64(seconds[to].cpu-seconds[from].cpu) / float64(time.Millisecond) / max(a, 1)
	}
	cpuFirst, cpuLast := cpuOf(0, w), cpuOf(n-w-1, n-1)
	mean := func(xs []float64) float64 {
		s := 0.0
		for _, x := range xs {
			s += x
		}
		return s / float64(len(xs))
	}
	first, last := mean(rates[1:w+1]), mean(rates[n-w:])
	mu.Lock()
	ls := append([]float64(nil), loads...)
	mu.Unlock()
	ls = append(ls, loadAverage())
	lmin, lmax := math.Inf(1), math.Inf(-1)
	for _, l := range ls {
		lmin, lmax = min(lmin, l), max(lmax, l)
	}
	answers := r["answers"]
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) / max(answers, 1) }
	fmt.Printf("claims: %.0f answers (%.0f paid) in %.1f s (%.1f min), %.0f answers/s; latency p50 %.2f ms, p99 %.2f ms, max %.1f ms; chain delay p99 %.2f ms  goal: %d in <= 60 min\n",
		answers, r["paid"], r["seconds"], r["seconds"]/60, r["claims_per_s"], r["p50_ms"], r["p99_ms"], r["max_ms"], r["chain_delay_ms"], claims)
	fmt.Printf("flatness: answers/s of the first %d s %.0f, of the last %d s %.0f: last/first %.3f  goal: within 15 %%\n", w, first, w, last, last/first)
	fmt.Printf("flatness by CPU: serve and PostgreSQL's CPU an answer, first %d s %.3f ms, last %d s %.3f ms: last/first %.3f (what a shared machine's other work does not change)\n",
		w, cpuFirst, w, cpuLast, cpuLast/cpuFirst)
	b.ReportMetric(cpuLast/cpuFirst, "cpu-last/first")
	fmt.Printf("serve's memory: RSS %.1f MB idle (30,000 desks in the ledger), %.1f MB at the end, peak %.1f MB (sampled max %.1f MB): %.1f kB a desk at the peak\n",
		float64(rssIdle)/1024, float64(rssEnd)/1024, float64(rssPeak)/1024, float64(rssMax)/1024, float64(rssPeak)/float64(desks))
	fmt.Printf("PostgreSQL: %.1f MB after the ledger, %.1f MB after the desks, %.1f MB after the claims: %.0f bytes a desk, %.1f MB a million claims\n",
		mb(sizeLedger), mb(sizeDesks), mb(sizeClaims), float64(sizeDesks-sizeLedger)/float64(desks), mb(sizeClaims-sizeDesks)/answers*1e6)
	fmt.Printf("CPU an answer: serve %.3f ms, PostgreSQL %.3f ms, load's counters %.3f ms (TLS handshake at both ends included)\n",
		ms(serveCPU), ms(pgCPU), ms(loadCPU))
	fmt.Printf("load average (1 min) during the run: min %.2f, max %.2f, mean %.2f of %d samples, on 2 cores shared with other work\n",
		lmin, lmax, mean(ls), len(ls))
	b.ReportMetric(r["claims_per_s"], "answers/s")
	b.ReportMetric(last/first, "last/first")
	b.ReportMetric(float64(rssPeak)/1024, "serve-peak-MB")
	if int(answers) != claims {
		b.Errorf("%.0f answers, want %d", answers, claims)
	}
	if r["seconds"] > 3600 {
		b.Errorf("%.0f s for the claims: more than an hour", r["seconds"])
	}
	if last/first < 0.85 || last/first > 1.15 {
		b.Errorf("not flat: the last window's answers/s are %.3f× the first's (goal: within 15 %%)", last/first)
	}
}

// mustCPU is PostgreSQL's processor time so far (pgtest.Server.CPU).
func mustCPU(srv *pgtest.Server) time.Duration {
	d, err := srv.CPU()
	if err != nil {
		panic(err)
	}
	return d
}
