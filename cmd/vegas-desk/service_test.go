package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"vegas-desk/internal/ledger/ledgertest"
)

// serveProc is a serve process of a test: its JSON log lines as they come.
type serveProc struct {
	cmd   *exec.Cmd
	lines chan map[string]any
	seen  []map[string]any
}

// startServe runs bin serve with args as a process until the test ends.
func startServe(t *testing.T, bin, db string, args ...string) *serveProc {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"--db", db, "serve", "--log-format", "json"}, args...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &serveProc{cmd: cmd, lines: make(chan map[string]any, 100)}
	go func() {
		defer close(s.lines)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) != nil {
				m = map[string]any{"msg": "not JSON", "line": sc.Text()}
			}
			s.lines <- m
		}
	}()
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return s
}

// wait is the next line of msg, the lines before it kept in seen.
func (s *serveProc) wait(t *testing.T, msg string) map[string]any {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case m, ok := <-s.lines:
			if !ok {
				t.Fatalf("serve ended before a %q line: %v", msg, s.seen)
			}
			s.seen = append(s.seen, m)
			if m["msg"] == msg {
				return m
			}
			if m["msg"] == "not JSON" {
				t.Errorf("a log line that is not JSON: %v", m)
			}
		case <-timeout:
			t.Fatalf("no %q line within 30 s: %v", msg, s.seen)
		}
	}
}

// httpGet is an answer's status and body.
func httpGet(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// Running a pilot's serve as the binary runs, as a service does: JSON log
// lines on the standard error (the start with the ledger and the
// addresses, a line per question, the stop), the monitor on --metrics
// (healthz without a desk certificate, the metrics after a payment), and
// SIGTERM ending it cleanly (exit 0).
func TestServeProcess(t *testing.T) {
	t.Setenv("VEGAS_DESK_PASSPHRASE", ledgertest.Passphrase)
	bin := build(t, "0", "nogui")
	file := ledgertest.Copy(t, ledgertest.Block)
	dir := filepath.Join(t.TempDir(), "ca")
	desk := filepath.Join(t.TempDir(), "C1.desk")
	for _, args := range [][]string{{"serve", "--init", "--dir", dir, "--host", "127.0.0.1"},
		{"desks", "add", "C1", "--limit", "100", "--out", desk, "--dir", dir}} {
		if out, errs, code := vd(t, file, "", args...); code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", args, code, out, errs)
		}
	}
	if _, errs, code := vd(t, file, "", "serve", "--dir", dir, "--log-format", "xml"); code != 2 || !strings.Contains(errs, "give text or json") {
		t.Errorf("--log-format xml: exit %d %s", code, errs)
	}
	s := startServe(t, bin, file, "--dir", dir, "--listen", "127.0.0.1:0", "--metrics", "127.0.0.1:0")
	mon := s.wait(t, "monitor")
	start := s.wait(t, "serving")
	if start["ledger"] == "" || start["location"] != file {
		t.Errorf("the start line: %v", start)
	}
	healthz, _ := mon["healthz"].(string)
	if st, body := httpGet(t, healthz); st != http.StatusOK || !strings.Contains(body, `"ok":true`) {
		t.Errorf("healthz: %d %s", st, body)
	}
	url := "https://" + start["listen"].(string)
	win := serials(t).Winners[50][5]
	if out, errs, code := vd(t, file, "", "--server", url, "--desk-cert", desk, "claim", win); code != 0 {
		t.Fatalf("claim: exit %d\n%s%s", code, out, errs)
	}
	if line := s.wait(t, "answer"); line["question"] != "hello" {
		t.Errorf("the first question: %v", line)
	}
	if line := s.wait(t, "answer"); line["question"] != "claim" || line["verdict"] != "paid" || line["desk"] != "C1" {
		t.Errorf("the claim's line: %v", line)
	}
	metrics := strings.TrimSuffix(healthz, "healthz") + "metrics"
	if st, body := httpGet(t, metrics); st != http.StatusOK || !strings.Contains(body, "vegas_payments_total 1\n") ||
		!strings.Contains(body, "vegas_paid_euros_total 50\n") {
		t.Errorf("metrics: %d\n%s", st, body)
	}
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	s.wait(t, "stopping: the questions in flight end")
	s.wait(t, "stopped")
	if err := s.cmd.Wait(); err != nil {
		t.Errorf("serve after SIGTERM: %v", err)
	}
}
