package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	neturl "net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"vegas-desk/internal/ledger/ledgertest"
	"vegas-desk/internal/pgtest"
	"vegas-desk/internal/server"
)

// serveProc is a serve process of a test: its JSON log lines as they come.
type serveProc struct {
	cmd   *exec.Cmd
	lines chan map[string]any
	seen  []map[string]any
}

// startServe runs argv (a serve with --log-format json) as a process
// until the test ends.
func startServe(t *testing.T, argv []string, env ...string) *serveProc {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
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
	if out, errs, code := vd(t, file, "", "serve", "--dir", dir, "--listen", "127.0.0.1:0", "--metrics", "127.0.0.1:0", "--check"); code != 0 || !strings.Contains(out, "ready to serve ledger") {
		t.Errorf("serve --check: exit %d\n%s%s", code, out, errs)
	}
	if _, errs, code := vd(t, file, "", "serve", "--dir", t.TempDir(), "--check"); code == 0 || !strings.Contains(errs, "serve --init") {
		t.Errorf("serve --check without an authority: exit %d %s", code, errs)
	}
	if _, errs, code := vd(t, file, "", "service", "install"); code != 2 || !strings.Contains(errs, "serve --install-unit") {
		t.Errorf("service install on Linux: exit %d %s", code, errs)
	}
	s := startServe(t, []string{bin, "--db", file, "serve", "--log-format", "json", "--dir", dir, "--listen", "127.0.0.1:0", "--metrics", "127.0.0.1:0"})
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

// serve --install-unit: a systemd unit that systemd-analyze verify takes
// without a word (no PID 1 systemd needed) and whose hardening
// systemd-analyze security scores at most 2.0 ("OK"); the server's key is
// the service's credential (LoadCredential=), never in the unit; run as
// systemd would run it (the key copied to a credentials directory, %d
// made that directory), its command serves and answers /healthz. A ledger
// on PostgreSQL gets its password from a pgpass credential, and a --db
// holding a password is refused.
func TestServeUnit(t *testing.T) {
	if _, err := exec.LookPath("systemd-analyze"); err != nil {
		t.Fatalf("systemd-analyze: %v (make deps-test installs systemd)", err)
	}
	t.Setenv("VEGAS_DESK_PASSPHRASE", ledgertest.Passphrase)
	bin := build(t, "0", "nogui")
	file := ledgertest.Copy(t, ledgertest.Block)
	dir := filepath.Join(t.TempDir(), "ca")
	if out, errs, code := vd(t, file, "", "serve", "--init", "--dir", dir, "--host", "127.0.0.1"); code != 0 {
		t.Fatalf("serve --init: exit %d\n%s%s", code, out, errs)
	}
	unitOf := func(db string, args ...string) (string, string, error) {
		var out, errs strings.Builder
		cmd := exec.Command(bin, append([]string{"--db", db, "serve", "--dir", dir, "--install-unit"}, args...)...)
		cmd.Stdout, cmd.Stderr = &out, &errs
		err := cmd.Run()
		return out.String(), errs.String(), err
	}
	backups := filepath.Join(t.TempDir(), "backups")
	if err := os.Mkdir(backups, 0o700); err != nil {
		t.Fatal(err)
	}
	// The account: one that exists, owns the ledger, --dir and the
	// backups' directory (refused before they are its), never one that
	// does not exist.
	account := unitAccount(t)
	if account != currentUser(t) {
		if _, errs, err := unitOf(file, "--unit-user", account); err == nil || !strings.Contains(errs, "is not "+account+"'s") {
			t.Errorf("a ledger the account does not own: %v %s", err, errs)
		}
		chownAll(t, account, filepath.Dir(file), dir, backups)
	}
	if _, errs, err := unitOf(file, "--unit-user", "vegas-no-such-account"); err == nil || !strings.Contains(errs, "--unit-user vegas-no-such-account: no such account") {
		t.Errorf("an account that does not exist: %v %s", err, errs)
	}
	// Every flag given is in the unit or refused by name.
	for flag, args := range map[string][]string{"--host": {"--host", "a.example"}, "--check": {"--check"}, "--init": {"--init"},
		"--passphrase-file": {"--passphrase-file", "/etc/passphrase"}} {
		if _, errs, err := unitOf(file, append([]string{"--unit-user", account}, args...)...); err == nil || !strings.Contains(errs, "--install-unit: "+flag+" ") {
			t.Errorf("%s with --install-unit: %v %s", flag, err, errs)
		}
	}
	if _, errs, err := unitOf(file, "--unit-user", account, "--backup-dir", filepath.Join(backups, "missing")); err == nil || !strings.Contains(errs, "is not a directory") {
		t.Errorf("a --backup-dir that is not there: %v %s", err, errs)
	}
	unit, errs, err := unitOf(file, "--listen", "0.0.0.0:443", "--metrics", "127.0.0.1:9464", "--unit-user", account, "--log-format", "json",
		"--backup-dir", backups, "--backup-every", "1h", "--backup-keep", "3", "--max-conns", "4")
	if err != nil {
		t.Fatalf("--install-unit: %v %s", err, errs)
	}
	key, err := os.ReadFile(filepath.Join(dir, server.ServerKey))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"User=" + account + "\n", "Restart=on-failure\n", "LoadCredential=server.key:" + filepath.Join(dir, server.ServerKey) + "\n",
		"ExecStart=" + bin + " --db " + file + " serve --dir " + dir + " --listen 0.0.0.0:443", " --key %d/server.key\n",
		" --backup-dir " + backups + " ", " --backup-every 1h0m0s ", " --backup-keep 3 ", " --log-format json ", " --max-conns 4 ", " --metrics 127.0.0.1:9464 ",
		"AmbientCapabilities=CAP_NET_BIND_SERVICE\n", "ReadWritePaths=" + filepath.Dir(file) + "\n", "ReadWritePaths=" + backups + "\n",
		"PrivateTmp=yes\n", "BindPaths=" + backups + "\n", "WantedBy=multi-user.target\n"} {
		if !strings.Contains(unit, want) {
			t.Errorf("the unit has no %q:\n%s", want, unit)
		}
	}
	if strings.Contains(unit, strings.Split(string(key), "\n")[1]) || strings.Contains(unit, "PRIVATE KEY") {
		t.Errorf("the unit holds the server's key")
	}
	path := writeUnit(t, unit)
	if out, err := exec.Command("systemd-analyze", "verify", path).CombinedOutput(); err != nil || len(out) > 0 {
		t.Errorf("systemd-analyze verify: %v\n%s\n%s", err, out, unit)
	}
	if out, err := exec.Command("systemd-analyze", "security", "--offline=true", "--threshold=20", path).CombinedOutput(); err != nil {
		t.Errorf("systemd-analyze security over 2.0: %v\n%s", err, out)
	}
	// The runbook's figure is the one of the runbook's example (no port
	// under 1024), as systemd-analyze measures it.
	readmeUnit, errs, err := unitOf(file, "--listen", "0.0.0.0:8443", "--metrics", "127.0.0.1:9464", "--unit-user", account, "--log-format", "json")
	if err != nil {
		t.Fatalf("--install-unit: %v %s", err, errs)
	}
	out, err := exec.Command("systemd-analyze", "security", "--offline=true", writeUnit(t, readmeUnit)).CombinedOutput()
	m := regexp.MustCompile(`Overall exposure level for \S+: (\d+\.\d+)`).FindSubmatch(out)
	if err != nil || m == nil {
		t.Fatalf("systemd-analyze security: %v\n%s", err, out)
	}
	readme, err := os.ReadFile("../../docs/runbook.md")
	if err != nil {
		t.Fatal(err)
	}
	if said := regexp.MustCompile("`systemd-analyze security` rates it (\\d+\\.\\d+)").FindSubmatch(readme); said == nil || string(said[1]) != string(m[1]) {
		t.Errorf("systemd-analyze security rates the runbook's unit %s; docs/runbook.md says %q", m[1], said)
	}
	// What verify catches: a key misspelt is a warning, a missing binary an error.
	if out, _ := exec.Command("systemd-analyze", "verify", writeUnit(t, strings.Replace(unit, "ProtectClock=", "ProtectClok=", 1))).CombinedOutput(); !strings.Contains(string(out), "Unknown key") {
		t.Errorf("verify let a misspelt key by: %s", out)
	}

	// The unit's command, as systemd runs it: the key in a credentials
	// directory (%d), and not where it was; the other settings on free
	// ports.
	if unit, _, err = unitOf(file, "--listen", "127.0.0.1:0", "--metrics", "127.0.0.1:0", "--unit-user", account, "--log-format", "json"); err != nil {
		t.Fatal(err)
	}
	creds := t.TempDir()
	if err := os.Rename(filepath.Join(dir, server.ServerKey), filepath.Join(creds, "server.key")); err != nil {
		t.Fatal(err)
	}
	var execStart []string
	for _, line := range strings.Split(unit, "\n") {
		if rest, ok := strings.CutPrefix(line, "ExecStart="); ok {
			execStart = strings.Fields(strings.ReplaceAll(rest, "%d", creds))
		}
	}
	s := startServe(t, execStart)
	mon := s.wait(t, "monitor")
	s.wait(t, "serving") // healthz is 503 until the desks' listener is open
	if st, body := httpGet(t, mon["healthz"].(string)); st != http.StatusOK {
		t.Errorf("the unit's serve: healthz %d %s", st, body)
	}

	// PostgreSQL: the password a credential (a pgpass file), never in the
	// unit; the unit's command logs in with it alone.
	withPassword := pg.URL(pgtest.Owner, pg.NewDatabaseFrom(t, pgFixture(t, ledgertest.Block)))
	u, err := neturl.Parse(withPassword)
	if err != nil {
		t.Fatal(err)
	}
	password, _ := u.User.Password()
	u.User = neturl.User(u.User.Username())
	url := u.String()
	if _, errs, err := unitOf(withPassword, "--unit-user", account); err == nil || !strings.Contains(errs, "holds a password") {
		t.Errorf("a --db with a password: %v %s", err, errs)
	}
	t.Setenv("PGPASSWORD", password) // for the commands of the test, not the service's
	dir = filepath.Join(t.TempDir(), "ca")
	if out, errs, code := vd(t, url, "", "serve", "--init", "--dir", dir); code != 0 {
		t.Fatalf("serve --init: exit %d\n%s%s", code, out, errs)
	}
	if account != currentUser(t) {
		chownAll(t, account, dir)
	}
	unit, errs, err = unitOf(url, "--unit-user", account, "--listen", "127.0.0.1:0", "--metrics", "127.0.0.1:0", "--log-format", "json",
		"--pgpass", "/etc/vegas-desk/pilot.pgpass")
	if err != nil || !strings.Contains(unit, "LoadCredential=pgpass:/etc/vegas-desk/pilot.pgpass\n") || !strings.Contains(unit, "Environment=PGPASSFILE=%d/pgpass\n") ||
		strings.Contains(unit, "ReadWritePaths") || strings.Contains(unit, password) {
		t.Errorf("a unit on PostgreSQL: %v %s\n%s", err, errs, unit)
	}
	if out, err := exec.Command("systemd-analyze", "verify", writeUnit(t, unit)).CombinedOutput(); err != nil || len(out) > 0 {
		t.Errorf("systemd-analyze verify, PostgreSQL: %v\n%s", err, out)
	}
	creds = t.TempDir()
	if err := os.Rename(filepath.Join(dir, server.ServerKey), filepath.Join(creds, "server.key")); err != nil {
		t.Fatal(err)
	}
	pgpass := fmt.Sprintf("%s:%s:%s:%s:%s\n", u.Hostname(), u.Port(), strings.TrimPrefix(u.Path, "/"), u.User.Username(), password)
	if err := os.WriteFile(filepath.Join(creds, "pgpass"), []byte(pgpass), 0o400); err != nil {
		t.Fatal(err)
	}
	os.Unsetenv("PGPASSWORD")
	for _, line := range strings.Split(unit, "\n") {
		if rest, ok := strings.CutPrefix(line, "ExecStart="); ok {
			execStart = strings.Fields(strings.ReplaceAll(rest, "%d", creds))
		}
	}
	if out, err := exec.Command(execStart[0], execStart[1:]...).CombinedOutput(); err == nil || !strings.Contains(string(out), "password") {
		t.Errorf("the unit's serve without its pgpass credential: %v %s", err, out)
	}
	s = startServe(t, execStart, "PGPASSFILE="+filepath.Join(creds, "pgpass"))
	mon = s.wait(t, "monitor")
	s.wait(t, "serving")
	if st, body := httpGet(t, mon["healthz"].(string)); st != http.StatusOK {
		t.Errorf("the unit's serve on PostgreSQL: healthz %d %s", st, body)
	}
	if _, errs, err := unitOf(file, "--unit-user", "root"); err == nil || !strings.Contains(errs, "as root") {
		t.Errorf("a service as root: %v %s", err, errs)
	}
}

// unitAccount is an account of this machine, not root, to run a test's
// unit as: the tester's, or when the tests run as root, daemon's.
func unitAccount(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		return currentUser(t)
	}
	if _, err := user.Lookup("daemon"); err != nil {
		t.Fatalf("no account daemon to run a unit as: %v", err)
	}
	return "daemon"
}

func currentUser(t *testing.T) string {
	t.Helper()
	me, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	return me.Username
}

// chownAll gives the files and directories under paths to account.
func chownAll(t *testing.T, account string, paths ...string) {
	t.Helper()
	u, err := user.Lookup(account)
	if err != nil {
		t.Fatal(err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	for _, p := range paths {
		err := filepath.WalkDir(p, func(path string, _ fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			return os.Lchown(path, uid, -1)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// writeUnit writes text to a unit file of the test's and returns its path.
func writeUnit(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "vegas-desk.service")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
