package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// capture runs f with os.Stdout sent to a pipe, and returns what it wrote.
func capture(t *testing.T, f func()) string {
	t.Helper()
	old := os.Stdout
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	os.Stdout = w
	var b bytes.Buffer
	done := make(chan struct{})
	go func() { b.ReadFrom(r); close(done) }()
	f()
	w.Close()
	os.Stdout = old
	<-done
	return b.String()
}

// A test binary's CPU, in all and per top-level test, counts the
// processes it starts, a server it leaves behind (daemonized, as pg_ctl
// leaves PostgreSQL) included: here a shell whose TestA burns CPU in a
// child and whose TestB leaves an orphan that burns as much after the
// shell has exited.
func TestExecCPU(t *testing.T) {
	const busy = `i=0; while [ $i -lt 150000 ]; do i=$((i+1)); done`
	// One loop's CPU, the least of three: on a shared machine a loop's
	// CPU time varies by half (make test's other packages beside it).
	loop := 0.0
	for i := range 3 {
		one := exec.Command("sh", "-c", busy)
		if err := one.Run(); err != nil {
			t.Fatal(err)
		}
		if c := (one.ProcessState.UserTime() + one.ProcessState.SystemTime()).Seconds(); i == 0 || c < loop {
			loop = c
		}
	}
	script := `echo "=== RUN   TestA"; sh -c '` + busy + `'; echo "=== RUN   TestA/sub"; printf '\026=== RUN   TestB\n'; (sh -c '` + busy + `' &) ; exit 3`
	var code int
	start := time.Now()
	out := capture(t, func() { code = runTest([]string{"sh", "-c", script}) })
	wall := time.Since(start).Seconds()
	if code != 3 {
		t.Errorf("exit %d, want the binary's 3", code)
	}
	cpu := map[string]float64{}
	for _, ln := range strings.Split(out, "\n") {
		if f := strings.Fields(strings.TrimPrefix(ln, cpuMark)); strings.HasPrefix(ln, cpuMark) && len(f) >= 1 {
			if len(f) == 1 {
				f = []string{"", f[0]}
			}
			cpu[f[0]], _ = strconv.ParseFloat(f[1], 64)
		}
	}
	if !strings.Contains(out, "=== RUN   TestA/sub\n") || len(cpu) != 3 {
		t.Fatalf("output:\n%s", out)
	}
	// Both loops, the orphan's included (counted once reaped); the tests'
	// shares add up to the whole (how it splits depends on when the
	// lines are read).
	if total := cpu[""]; total < 1.6*loop || total > 2*wall+0.1 || cpu["TestA"]+cpu["TestB"] < total-0.05 {
		t.Errorf("CPU %v in %.2fs of wall time, one loop %.2fs\n%s", cpu, wall, loop, out)
	}
}

// The summary gives each package's CPU and each test's, from those lines.
func TestSummaryCPU(t *testing.T) {
	f := filepath.Join(t.TempDir(), "pass.json")
	os.WriteFile(f, []byte(stream+`{"Action":"output","Package":"p","Output":"testlog-cpu TestA 4.25\n"}
{"Action":"output","Package":"p","Output":"testlog-cpu  7.50\n"}
`), 0o600)
	out := capture(t, func() { summarize([]string{f}, time.Now().Add(-time.Minute), 2) })
	for _, want := range []string{"7.5s of CPU", "3.1s     7.5s CPU  p\n", "1.0s  q\n", "2.5s     4.2s CPU  TestA p\n", "0.5s  TestB p\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
}

// make test runs one package in two processes (cmd.json and cmd-half.json):
// each keeps its own CPU and its own line, neither overwrites the other's.
func TestSummaryTwoHalves(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for _, h := range []struct{ name, cpu string }{{"cmd", "7.50"}, {"cmd-half", "3.00"}} {
		f := filepath.Join(dir, h.name+".json")
		os.WriteFile(f, []byte(stream+`{"Action":"output","Package":"p","Output":"testlog-cpu TestA 4.25\n"}
{"Action":"output","Package":"p","Output":"testlog-cpu  `+h.cpu+`\n"}
`), 0o600)
		files = append(files, f)
	}
	out := capture(t, func() { summarize(files, time.Now().Add(-time.Minute), 4) })
	for _, want := range []string{"10.5s of CPU", "3.1s     7.5s CPU  p (cmd)\n", "3.1s     3.0s CPU  p (cmd-half)\n", "2.5s     4.2s CPU  TestA p (cmd-half)\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
}
