package printertest

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Server is a real CUPS scheduler (Debian's cups-daemon) that a test
// starts for itself: cupsd in the foreground, its files in a directory of
// the test's, listening on a free port of 127.0.0.1 only, with no queue
// until AddQueue. The real lp and lpstat (cups-client) reach it through
// CUPS_SERVER.
type Server struct {
	Addr string // host:port, as CUPS_SERVER takes it
	dir  string
	cmd  *exec.Cmd
}

// sbin finds a CUPS administration tool, which Debian puts in /usr/sbin,
// often off a test's PATH.
func sbin(t testing.TB, name string) string {
	t.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	p := filepath.Join("/usr/sbin", name)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s not found: install cups-daemon and cups-client (make deps-test does)", name)
	}
	return p
}

// FreeAddr is an address of 127.0.0.1 nothing listens on: a scheduler
// that is not running.
func FreeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// StartCUPS starts a scheduler, points this test's CUPS clients at it
// (CUPS_SERVER, for the rest of the test) and stops it when the test ends.
// It waits, up to 30 s, until lpstat -r says the scheduler is running.
func StartCUPS(t testing.TB) *Server {
	t.Helper()
	cupsd := sbin(t, "cupsd")
	s := &Server{Addr: FreeAddr(t), dir: t.TempDir()}
	for _, d := range []string{"spool", "tmp", "cache", "state", "log"} {
		if err := os.Mkdir(filepath.Join(s.dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.Chmod(filepath.Join(s.dir, "tmp"), 0o1777)
	conf := fmt.Sprintf(`Listen %s
LogLevel warn
Browsing No
WebInterface No
DefaultAuthType None
<Location />
  Order allow,deny
  Allow from 127.0.0.1
</Location>
<Location /admin>
  Order allow,deny
  Allow from 127.0.0.1
</Location>
<Policy default>
  <Limit All>
    Order deny,allow
  </Limit>
</Policy>
`, s.Addr)
	files := fmt.Sprintf("ServerRoot %[1]s\nRequestRoot %[1]s/spool\nTempDir %[1]s/tmp\nCacheDir %[1]s/cache\nStateDir %[1]s/state\n"+
		"ErrorLog %[1]s/log/error_log\nAccessLog %[1]s/log/access_log\nPageLog %[1]s/log/page_log\nFileDevice Yes\n", s.dir)
	for name, text := range map[string]string{"cupsd.conf": conf, "cups-files.conf": files} {
		if err := os.WriteFile(filepath.Join(s.dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	s.cmd = exec.Command(cupsd, "-f", "-c", filepath.Join(s.dir, "cupsd.conf"), "-s", filepath.Join(s.dir, "cups-files.conf"))
	s.cmd.Stdout, s.cmd.Stderr = &out, &out
	if err := s.cmd.Start(); err != nil {
		t.Fatalf("cupsd: %v", err)
	}
	t.Cleanup(s.Stop)
	t.Setenv("CUPS_SERVER", s.Addr)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if r := Run("lpstat", "-r"); r.Stdout == "scheduler is running\n" {
			return s
		}
		if time.Now().After(deadline) || s.cmd.ProcessState != nil {
			log, _ := os.ReadFile(filepath.Join(s.dir, "log", "error_log"))
			t.Fatalf("cupsd on %s did not start in 30 s:\n%s%s", s.Addr, out.String(), log)
		}
	}
}

// Stop ends the scheduler; its clients then find none running.
func (s *Server) Stop() {
	if s.cmd.Process != nil && s.cmd.ProcessState == nil {
		s.cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { s.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			s.cmd.Process.Kill()
			<-done
		}
	}
}

// admin runs a CUPS administration tool against the server.
func (s *Server) admin(t testing.TB, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(sbin(t, name), append([]string{"-h", s.Addr}, args...)...)
	cmd.Env = cEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

// AddQueue adds a queue that takes jobs (a raw queue printing to
// /dev/null).
func (s *Server) AddQueue(t testing.TB, name string) {
	s.admin(t, "lpadmin", "-p", name, "-v", "file:///dev/null", "-E")
}

// Reject makes queue refuse jobs (cupsreject).
func (s *Server) Reject(t testing.TB, queue string) { s.admin(t, "cupsreject", queue) }

// Output is what a CUPS client wrote and its exit status.
type Output struct {
	Stdout, Stderr string
	Status         int
}

// cEnv is the environment with CUPS's clients in the C locale, as the
// printer package runs them.
func cEnv() []string { return append(os.Environ(), "LC_ALL=C", "LANG=C", "LANGUAGE=C") }

// Run runs a CUPS client (the one first on the PATH) in the C locale.
func Run(name string, args ...string) Output {
	cmd := exec.Command(name, args...)
	cmd.Env = cEnv()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	o := Output{Stdout: out.String(), Stderr: errb.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		o.Status = ee.ExitCode()
	} else if err != nil {
		o.Status, o.Stderr = -1, err.Error()
	}
	return o
}
