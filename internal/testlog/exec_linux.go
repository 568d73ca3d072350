package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// cpuMark starts the lines that runTest adds to a test binary's output:
// "testlog-cpu TestX 12.34" for each top-level test, "testlog-cpu  56.78"
// (no name) for the whole binary.
const cpuMark = "testlog-cpu "

// runTest runs a test binary as go test -exec does (argv: the binary and
// its arguments), copies its output, and measures the CPU it costs: its
// own, that of every process it starts (the commands it runs, the
// PostgreSQL servers it starts and leaves to init: runTest is their
// subreaper, and reaps them as they end, as init would), per top-level
// test (the CPU spent between one test's "=== RUN" and the next's) and in
// all. Those figures are added to the output, for summarize. It returns
// the binary's exit code.
func runTest(argv []string) int {
	if len(argv) == 0 {
		fmt.Fprintln(os.Stderr, "testlog -exec: no test binary")
		return 2
	}
	// Orphans (a server that daemonizes) become ours, not init's.
	unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	base := treeCPU()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stderr = os.Stdin, os.Stderr // files: no copying goroutine, so the reaper below may wait for the binary
	out, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "testlog -exec:", err)
		return 2
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGQUIT)
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "testlog -exec:", err)
		return 2
	}
	go func() {
		for s := range sigs {
			cmd.Process.Signal(s)
		}
	}()
	// Every child is reaped here as it ends, the binary and the orphans
	// alike (a test that waits for a killed server's processes to be gone
	// sees them gone, as under init); wait4 adds each one's CPU to this
	// process's RUSAGE_CHILDREN.
	code, exited, reaped := 0, make(chan struct{}), make(chan struct{})
	go func() {
		defer close(reaped)
		for {
			var ws syscall.WaitStatus
			pid, err := syscall.Wait4(-1, &ws, 0, nil)
			if err == syscall.EINTR {
				continue
			}
			if err != nil {
				return // ECHILD: none left
			}
			if pid == cmd.Process.Pid {
				if code = ws.ExitStatus(); ws.Signaled() {
					code = 128 + int(ws.Signal())
				}
				close(exited)
			}
		}
	}()
	var per []string // "TestX seconds", in order
	test, at := "", base
	r := bufio.NewReader(out)
	for {
		line, err := r.ReadBytes('\n')
		os.Stdout.Write(line)
		if name, ok := topLevelRun(line); ok {
			now := treeCPU()
			if test != "" {
				per = append(per, fmt.Sprintf("%s %.2f", test, (now-at).Seconds()))
			}
			test, at = name, now
		}
		if err != nil {
			break
		}
	}
	<-exited
	// The servers the binary stopped as it ended, exiting: a few seconds
	// at most; one that lives on is counted for what it used so far.
	select {
	case <-reaped:
	case <-time.After(5 * time.Second):
	}
	total := treeCPU()
	if test != "" {
		per = append(per, fmt.Sprintf("%s %.2f", test, (total-at).Seconds()))
	}
	for _, p := range per {
		fmt.Println(cpuMark + p)
	}
	fmt.Printf("%s %.2f\n", cpuMark, (total - base).Seconds())
	return code
}

// topLevelRun reports the test a "=== RUN   TestX" line starts, if it is a
// top-level one (go test -json's binary marks the line with ^V).
func topLevelRun(line []byte) (string, bool) {
	line = bytes.TrimPrefix(line, []byte{0x16})
	rest, ok := bytes.CutPrefix(line, []byte("=== RUN   "))
	if !ok {
		return "", false
	}
	name := strings.TrimSpace(string(rest))
	return name, name != "" && !strings.Contains(name, "/")
}

// treeCPU is the CPU (user and system) of this process's children: those
// reaped (getrusage) and those alive, each with the children it reaped
// (/proc/PID/stat's utime, stime, cutime, cstime).
func treeCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru)
	total := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	self := os.Getpid()
	parent := map[int]int{}
	ticks := map[int]int64{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid … utime(14) stime cutime cstime
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 15 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		parent[pid] = ppid
		var t int64
		for _, s := range f[11:15] {
			n, _ := strconv.ParseInt(s, 10, 64)
			t += n
		}
		ticks[pid] = t
	}
	const hz = 100 // USER_HZ, the unit of /proc/PID/stat on Linux
	for pid, t := range ticks {
		for p, depth := parent[pid], 0; p > 1 && depth < 64; p, depth = parent[p], depth+1 {
			if p == self {
				total += time.Duration(t) * time.Second / hz
				break
			}
		}
	}
	return total
}
