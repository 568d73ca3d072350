//go:build linux

package main

import (
	"bufio"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"vegas-desk/internal/ledger/ledgertest"
)

// A payment answered is on disk (issue 32): the vegas-desk binary is traced
// (strace, ledgertest.CheckSynced) and nothing is answered while what it
// wrote to the ledger's WAL is not synced: a claim on a back office's file
// and on a sealed counter ledger (PAY on stdout); a void, an import, a
// pack move, a desk added and changed, a setting; a claim through serve
// of a file (the 200 on the counter's connection); and the issue of a
// sealed counter ledger (its file and its folder synced before the issue
// is recorded and said). Under synchronous=NORMAL each failed: the WAL was
// synced only as the process closed, after the answer.
func TestDurableAnswers(t *testing.T) {
	if _, err := exec.LookPath("strace"); err != nil {
		t.Fatal("strace is needed (make deps-test installs it)")
	}
	t.Setenv("VEGAS_DESK_PASSPHRASE", ledgertest.Passphrase)
	bin := build(t, "0", "nogui")
	out := func(fd int, _ string) bool { return fd == 1 || fd == 2 }

	t.Run("claim", func(t *testing.T) {
		for _, tc := range []struct{ name, file string }{
			{"back office's file", ledgertest.Copy(t, ledgertest.Block)},
			{"sealed counter ledger", ledgertest.Copy(t, ledgertest.Sealed, "C1.db")},
		} {
			trace := filepath.Join(t.TempDir(), "trace")
			got, err := ledgertest.Strace(trace, bin, "--db", tc.file, "claim", serials(t).Winners[50][7]).CombinedOutput()
			if err != nil || !strings.HasPrefix(string(got), "PAY ") {
				t.Fatalf("%s: claim: %v\n%s", tc.name, err, got)
			}
			checkSynced(t, trace, wal(t, tc.file), out)
		}
	})

	// The other writes: each said done only once it is synced.
	t.Run("writes", func(t *testing.T) {
		bo := ledgertest.Copy(t, ledgertest.Sealed)
		c1 := ledgertest.Copy(t, ledgertest.Sealed, "C1.db")
		if out, errs, code := vd(t, c1, "", "claim", serials(t).Winners[50][8]); code != 0 {
			t.Fatalf("claim on C1: exit %d\n%s%s", code, out, errs)
		}
		jsonl, _, code := vd(t, c1, "", "claims", "--jsonl")
		if code != 0 {
			t.Fatalf("claims --jsonl: exit %d", code)
		}
		imported := filepath.Join(t.TempDir(), "C1.jsonl")
		if err := os.WriteFile(imported, []byte(jsonl), 0o600); err != nil {
			t.Fatal(err)
		}
		if out, errs, code := vd(t, bo, "", "claim", serials(t).Winners[50][9]); code != 0 {
			t.Fatalf("claim: exit %d\n%s%s", code, out, errs)
		}
		for _, args := range [][]string{
			{"void", "1", "--reason", "paid by mistake"},
			{"import-claims", imported},
			{"packs", "stolen", "--block", "1", "7"},
			{"desks", "add", "D9", "--limit", "100"},
			{"desks", "limit", "D9", "50"},
			{"settings", "--identity-threshold", "2000"},
		} {
			trace := filepath.Join(t.TempDir(), "trace")
			if got, err := ledgertest.Strace(trace, bin, append([]string{"--db", bo}, args...)...).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", args[0], err, got)
			}
			checkSynced(t, trace, wal(t, bo), out)
		}
	})

	t.Run("serve", func(t *testing.T) {
		file, dir, desk := servedCopy(t)
		trace := filepath.Join(t.TempDir(), "trace")
		cmd := ledgertest.Strace(trace, bin, "--db", file, "serve", "--dir", dir, "--listen", "127.0.0.1:0")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // strace and serve stopped together
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		stopped := false
		stop := func() {
			if !stopped {
				stopped = true
				syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
				cmd.Wait()
			}
		}
		defer stop()
		lines := bufio.NewScanner(stderr)
		var url string
		// serve's "serving" line names its address (listen=); a serve that
		// never says it is stopped, and the scan ends.
		silent := time.AfterFunc(time.Minute, func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
		for url == "" && lines.Scan() {
			if m := regexp.MustCompile(`msg=serving .*listen=(\S+)`).FindStringSubmatch(lines.Text()); m != nil {
				url = "https://" + m[1]
			}
		}
		silent.Stop()
		if url == "" {
			t.Fatal("serve said no address")
		}
		go func() {
			for lines.Scan() {
			}
		}()
		got, errs, code := vd(t, file, "", "--server", url, "--desk-cert", desk, "claim", serials(t).Winners[50][7])
		if code != 0 || !strings.HasPrefix(got, "PAY ") {
			t.Fatalf("claim through serve: exit %d\n%s%s", code, got, errs)
		}
		stop()
		checkSynced(t, trace, wal(t, file), func(_ int, name string) bool { return strings.HasPrefix(name, "TCP") })
	})

	t.Run("counter ledger issued", func(t *testing.T) {
		bo := ledgertest.Copy(t, ledgertest.Sealed)
		tmp, err := filepath.EvalSymlinks(t.TempDir()) // as a trace names it
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(tmp, "usb")
		trace := filepath.Join(t.TempDir(), "trace")
		got, err := ledgertest.Strace(trace, bin, "--db", bo, "counter-ledger", "--desk", "C3", "--limit", "100",
			"--key-file", filepath.Join(ledgertest.MustDir(t, ledgertest.Sealed), "key"), "-o", filepath.Join(dir, "C3.db")).CombinedOutput()
		if err != nil || !strings.HasPrefix(string(got), "counter ledger ") {
			t.Fatalf("counter-ledger: %v\n%s", err, got)
		}
		w := wal(t, bo)
		rep, err := ledgertest.CheckSynced(trace, func(p string) bool { return p == w || p == dir || strings.HasPrefix(p, dir+"/") }, out)
		if err != nil {
			t.Fatal(err)
		}
		// The file, its folder, the back office's WAL.
		if rep.Syncs < 3 {
			t.Fatalf("%d syncs, want the counter ledger's file, its folder and the back office's WAL: %+v", rep.Syncs, rep)
		}
		// The folder is synced before the back office's journal records
		// the issue: no journal names a file that a cut took back.
		data, err := os.ReadFile(trace)
		if err != nil {
			t.Fatal(err)
		}
		dirSync, record := -1, -1
		for i, l := range strings.Split(string(data), "\n") {
			if dirSync < 0 && regexp.MustCompile(`sync\(\d+<`+regexp.QuoteMeta(dir)+`>\) = 0`).MatchString(l) {
				dirSync = i
			}
			if strings.Contains(l, "pwrite64(") && strings.Contains(l, "<"+w+">") {
				record = i
			}
		}
		if dirSync < 0 || dirSync > record {
			t.Fatalf("the folder %s synced on line %d of the trace, the issue recorded on line %d: want the folder first", dir, dirSync+1, record+1)
		}
	})
}

// wal is the path of file's WAL as a trace names it.
func wal(t *testing.T, file string) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(filepath.Dir(file))
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, filepath.Base(file)+"-wal")
}

// checkSynced checks trace with ledgertest.CheckSynced, watching the WAL
// wal.
func checkSynced(t *testing.T, trace, wal string, answer func(int, string) bool) {
	t.Helper()
	rep, err := ledgertest.CheckSynced(trace, func(p string) bool { return p == wal }, answer)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Syncs == 0 {
		t.Fatalf("no sync of %s: %+v", wal, rep)
	}
}

// A failed sync is never answered PAID (issue 43). After a failed fsync
// the file's state on disk is unknown: the claim that waited for it fails
// and says to check the disk, and so does the same request asked again
// while the disk fails (before, the retry answered "PAY" from the commit
// its first attempt left in the WAL, with no sync since); asked again once
// the disk is well, it is paid, after a sync. On a back office's file and
// a sealed counter ledger, the k-th sync of the claim's process failing
// (and every one after it), k = 1, 2, 3; and on serve of a file, whose
// syncs fail while it runs: it answers unavailable, then refuses every
// question and says so at /healthz until it is restarted.
func TestFailedSyncNotPaid(t *testing.T) {
	if _, err := exec.LookPath("strace"); err != nil {
		t.Fatal("strace is needed (make deps-test installs it)")
	}
	t.Setenv("VEGAS_DESK_PASSPHRASE", ledgertest.Passphrase)
	t.Setenv("LANG", "C")
	bin := build(t, "0", "nogui")
	out := func(fd int, _ string) bool { return fd == 1 || fd == 2 }
	s := serials(t).Winners[50][7]
	for _, tc := range []struct{ name, fixture, file string }{
		{"back office's file", ledgertest.Block, ""},
		{"sealed counter ledger", ledgertest.Sealed, "C1.db"},
	} {
		for k := 1; k <= 3; k++ {
			t.Run(fmt.Sprintf("%s, sync %d failing", tc.name, k), func(t *testing.T) {
				var file string
				if tc.file != "" {
					file = ledgertest.Copy(t, tc.fixture, tc.file)
				} else {
					file = ledgertest.Copy(t, tc.fixture)
				}
				claim := []string{"--db", file, "claim", "--request", "r1", s}
				trace := filepath.Join(t.TempDir(), "trace")
				got, err := ledgertest.StraceFailing(trace, k, bin, claim...).CombinedOutput()
				paid := strings.Contains(string(got), "PAY ")
				switch {
				case paid:
					// Synced before its failed sync: the trace shows the
					// answer after a sync that succeeded.
					checkSynced(t, trace, wal(t, file), out)
				case err == nil || !strings.Contains(string(got), "check the disk"):
					t.Fatalf("claim with sync %d failing: %v\n%s", k, err, got)
				}
				got, err = ledgertest.StraceFailing(filepath.Join(t.TempDir(), "trace"), 1, bin, claim...).CombinedOutput()
				if err == nil || strings.Contains(string(got), "PAY ") || !strings.Contains(string(got), "check the disk") {
					t.Fatalf("the request asked again, every sync failing (first answer paid: %t): %v\n%s", paid, err, got)
				}
				trace = filepath.Join(t.TempDir(), "trace")
				got, err = ledgertest.Strace(trace, bin, claim...).CombinedOutput()
				if err != nil || !strings.Contains(string(got), "PAY ") {
					t.Fatalf("the request asked again, the disk well: %v\n%s", err, got)
				}
				// A payment recorded again, or the first one answered
				// again (no write then): after a sync, either way.
				w := wal(t, file)
				if rep, err := ledgertest.CheckSynced(trace, func(p string) bool { return p == w }, out); err != nil && rep.AfterWrite > 0 {
					t.Fatal(err)
				}
				syncedFirst(t, trace, w)
			})
		}
	}

	t.Run("serve", func(t *testing.T) {
		file, dir, desk := servedCopy(t)
		serve := func() (url, health string, stop func()) {
			cmd := exec.Command(bin, "--db", file, "serve", "--dir", dir, "--listen", "127.0.0.1:0", "--metrics", "127.0.0.1:0")
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			stop = func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() }
			lines := bufio.NewScanner(stderr)
			silent := time.AfterFunc(time.Minute, func() { cmd.Process.Kill() })
			for (url == "" || health == "") && lines.Scan() {
				if m := regexp.MustCompile(`msg=serving .*listen=(\S+)`).FindStringSubmatch(lines.Text()); m != nil {
					url = "https://" + m[1]
				}
				if m := regexp.MustCompile(`healthz=(\S+)`).FindStringSubmatch(lines.Text()); m != nil {
					health = m[1]
				}
			}
			silent.Stop()
			if url == "" || health == "" {
				stop()
				t.Fatalf("serve said no address (%q, %q)", url, health)
			}
			go func() {
				for lines.Scan() {
				}
			}()
			return url, health, stop
		}
		url, health, stop := serve()
		healthy := func() bool {
			r, err := http.Get(health)
			if err != nil {
				t.Fatal(err)
			}
			r.Body.Close()
			return r.StatusCode == http.StatusOK
		}
		if !healthy() {
			t.Fatal("serve unhealthy from its start")
		}
		pid := func() int {
			out, err := exec.Command("pgrep", "-f", "--newest", "serve --dir "+dir).Output()
			if err != nil {
				t.Fatal(err)
			}
			var n int
			fmt.Sscan(string(out), &n)
			return n
		}()
		detach, err := ledgertest.FailSyncs(pid)
		if err != nil {
			stop()
			t.Fatal(err)
		}
		claim := []string{"--server", url, "--desk-cert", desk, "claim", "--request", "r1", s}
		for _, what := range []string{"the claim", "its request id asked again"} {
			got, errs, code := vd(t, file, "", claim...)
			if code == 0 || strings.Contains(got, "PAY ") {
				detach()
				stop()
				t.Fatalf("%s, serve's syncs failing: exit %d\n%s%s", what, code, got, errs)
			}
		}
		detach()
		// The disk well again, serve still refuses: its file's state is
		// unknown until it reopens it.
		if got, errs, code := vd(t, file, "", claim...); code == 0 || strings.Contains(got, "PAY ") {
			stop()
			t.Fatalf("asked again after the failed sync, serve not restarted: exit %d\n%s%s", code, got, errs)
		}
		if healthy() {
			t.Error("/healthz says ok after a failed sync")
		}
		stop()
		url, _, stop = serve()
		defer stop()
		claim[1] = url
		if got, errs, code := vd(t, file, "", claim...); code != 0 || !strings.HasPrefix(got, "PAY ") {
			t.Fatalf("asked again after serve's restart: exit %d\n%s%s", code, got, errs)
		}
	})
}

// syncedFirst checks that the process traced answered PAY (a payment it
// read, recorded before) only after a sync of the ledger's WAL, begun and
// ended before the answer, succeeded.
func syncedFirst(t *testing.T, trace, wal string) {
	t.Helper()
	data, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	synced := false
	sync := regexp.MustCompile(`f(data)?sync\(\d+<` + regexp.QuoteMeta(wal) + `>\) += 0`)
	for _, l := range strings.Split(string(data), "\n") {
		switch {
		case sync.MatchString(l):
			synced = true
		case strings.Contains(l, `write(1<`) && strings.Contains(l, `"PAY `):
			if !synced {
				t.Fatalf("PAY answered before any sync of %s succeeded:\n%s", wal, data)
			}
			return
		}
	}
	t.Fatalf("no PAY in the trace:\n%s", data)
}

// servedCopy is a copy of the Block fixture, its server's authority
// (serve --init) in dir and desk C1's file.
func servedCopy(t *testing.T) (file, dir, desk string) {
	t.Helper()
	file = ledgertest.Copy(t, ledgertest.Block)
	dir = filepath.Join(t.TempDir(), "ca")
	desk = filepath.Join(t.TempDir(), "C1.desk")
	if out, errs, code := vd(t, file, "", "serve", "--init", "--dir", dir, "--host", "127.0.0.1"); code != 0 {
		t.Fatalf("serve --init: exit %d\n%s%s", code, out, errs)
	}
	if out, errs, code := vd(t, file, "", "desks", "add", "C1", "--limit", "100", "--out", desk, "--dir", dir); code != 0 {
		t.Fatalf("desks add: exit %d\n%s%s", code, out, errs)
	}
	return file, dir, desk
}
