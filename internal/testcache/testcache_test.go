package testcache

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// A fixture is built once, whoever asks at the same time, and then read
// from the cache; a build that fails leaves nothing and is tried again.
func TestGet(t *testing.T) {
	t.Setenv("VEGAS_TEST_CACHE", t.TempDir())
	var builds atomic.Int32
	build := func(dir string) error {
		builds.Add(1)
		return os.WriteFile(filepath.Join(dir, "f"), []byte("made"), 0o600)
	}
	var wg sync.WaitGroup
	dirs := make([]string, 8)
	for i := range dirs {
		wg.Go(func() {
			d, err := Get("one", build)
			if err != nil {
				t.Error(err)
			}
			dirs[i] = d
		})
	}
	wg.Wait()
	if builds.Load() != 1 {
		t.Errorf("built %d times", builds.Load())
	}
	for _, d := range dirs {
		if b, err := os.ReadFile(filepath.Join(d, "f")); err != nil || string(b) != "made" || d != dirs[0] {
			t.Errorf("%s: %q %v", d, b, err)
		}
	}

	fail := errors.New("disk full")
	if _, err := Get("two", func(dir string) error {
		os.WriteFile(filepath.Join(dir, "half"), nil, 0o600)
		return fail
	}); !errors.Is(err, fail) {
		t.Errorf("a failed build: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(Dir(), "*two*")); len(left) != 1 || filepath.Ext(left[0]) != ".lock" {
		t.Errorf("a failed build left %v", left)
	}
	if _, err := Get("two", build); err != nil || builds.Load() != 2 {
		t.Errorf("built again after a failure: %v, %d builds", err, builds.Load())
	}
}

// The digest covers what makes fixtures, not the screens, the command line
// or the other tests.
func TestCounts(t *testing.T) {
	for rel, want := range map[string]bool{
		"go.sum": true, "schema.sql": true, "internal/ledger/postgres.sql": true, "internal/game/generate.go": true,
		"internal/ledger/ledgertest/ledgertest.go": true, "internal/ledger/fixture_hooks_test.go": true,
		"internal/ledger/ledger_test.go": false, "internal/ui/app.go": false, "cmd/vegas-desk/main.go": false,
		"internal/testlog/main.go": false, "README.md": false, "internal/ledger/conformance/cases.txt": true,
		"internal/paper/testdata/day.txt": false, "docs/reglement-vegas.txt": false,
		"internal/server/server.go": false, "internal/mrz/mrz.go": true, "internal/ledger/postgres/question.go": true,
	} {
		if got := counts(rel); got != want {
			t.Errorf("counts(%s) = %v, want %v", rel, got, want)
		}
	}
	k, err := Key()
	if err != nil || len(k) != 16 {
		t.Errorf("key %q, %v", k, err)
	}
	// What the digest leaves out makes no fixture: no package of those
	// directories is a dependency of ledgertest, which makes them all.
	out, err := exec.Command("go", "list", "-deps", "vegas-desk/internal/ledger/ledgertest").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		rel, ok := strings.CutPrefix(pkg, "vegas-desk/")
		if ok && !counts(rel+"/x.go") {
			t.Errorf("ledgertest depends on %s, which the digest leaves out (notFixtures)", pkg)
		}
	}
}

// TestMain runs the test binary as a run of another checkout when
// helperEnv names one (TestConcurrentRuns): it takes fixture "fx" there,
// prints its directory, waits for its standard input to close, and prints
// what the fixture holds then.
func TestMain(m *testing.M) {
	if mod := os.Getenv(helperEnv); mod != "" {
		os.Exit(helper(mod))
	}
	os.Exit(m.Run())
}

const helperEnv = "VEGAS_TESTCACHE_HELPER"

func helper(mod string) int {
	if err := os.Chdir(mod); err != nil {
		fmt.Println(err)
		return 1
	}
	dir, err := Get("fx", func(dir string) error {
		return os.WriteFile(filepath.Join(dir, "f"), []byte(filepath.Base(mod)), 0o600)
	})
	if err != nil {
		fmt.Println(err)
		return 1
	}
	fmt.Println(dir)
	io.Copy(io.Discard, os.Stdin)
	b, err := os.ReadFile(filepath.Join(dir, "f"))
	if err != nil {
		fmt.Println(err)
		return 1
	}
	fmt.Println(string(b))
	return 0
}

// run is a run of another checkout (a module of its own, whose sources
// make another digest), holding fixture fx until finish.
type run struct {
	dir    string
	stdin  io.WriteCloser
	out    *bufio.Reader
	finish func() string // what the run read from its fixture at the end
}

func startRun(t *testing.T, cache, name string) *run {
	t.Helper()
	mod := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(mod, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module "+name+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), helperEnv+"="+mod, "VEGAS_TEST_CACHE="+cache)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := &run{stdin: stdin, out: bufio.NewReader(stdout)}
	line, err := r.out.ReadString('\n')
	if err != nil || !strings.HasPrefix(line, cache) {
		t.Fatalf("run %s: %q %v", name, line, err)
	}
	r.dir = strings.TrimSpace(line)
	r.finish = func() string {
		stdin.Close()
		rest, _ := io.ReadAll(r.out)
		if err := cmd.Wait(); err != nil {
			return fmt.Sprintf("%s: %v", strings.TrimSpace(string(rest)), err)
		}
		return strings.TrimSpace(string(rest))
	}
	return r
}

// Runs of checkouts whose sources differ, at once, on one cache: each
// reads its own fixture to the end while the others build theirs (the
// cache once removed a fixture as stale while another run read it), and
// the cache keeps the Keep versions most recently used, not every one.
func TestConcurrentRuns(t *testing.T) {
	cache := t.TempDir()
	a := startRun(t, cache, "a")
	var others []string
	for _, name := range []string{"b", "c", "d", "e", "f"} {
		r := startRun(t, cache, name)
		if r.dir == a.dir {
			t.Fatalf("runs a and %s share %s: the digest ignores the sources", name, r.dir)
		}
		if got := r.finish(); got != name {
			t.Errorf("run %s read %q from its fixture", name, got)
		}
		others = append(others, r.dir)
	}
	if got := a.finish(); got != "a" {
		t.Errorf("run a read %q from its fixture while the others built theirs, want a", got)
	}
	var left []string
	for _, d := range append([]string{a.dir}, others...) {
		if _, err := os.Stat(d); err == nil {
			left = append(left, filepath.Base(d))
		}
	}
	// a, read throughout, beside the Keep most recent of the others.
	want := []string{filepath.Base(a.dir)}
	for _, d := range others[len(others)-Keep:] {
		want = append(want, filepath.Base(d))
	}
	if !slices.Equal(left, want) {
		t.Errorf("the cache kept %v, want %v", left, want)
	}
}

// A fixture the sources do not make (an earlier commit's build) is named
// by its own key, not by the sources' digest: a change of today's sources
// does not build it again.
func TestGetFor(t *testing.T) {
	t.Setenv("VEGAS_TEST_CACHE", t.TempDir())
	builds := 0
	build := func(dir string) error { builds++; return os.WriteFile(filepath.Join(dir, "bin"), nil, 0o600) }
	d, err := GetFor("old", "0123456789abcdef", build)
	if err != nil || filepath.Base(d) != "old-0123456789abcdef" {
		t.Fatalf("%s %v", d, err)
	}
	if d2, err := GetFor("old", "0123456789abcdef", build); err != nil || d2 != d || builds != 1 {
		t.Errorf("asked again: %s %v, %d builds", d2, err, builds)
	}
	if _, err := GetFor("old", "../../etc", build); err == nil {
		t.Error("a key that is a path was taken")
	}
}

// A build whose process died (its temporary directory left) leaves
// nothing once the fixture is next built; a fixture made whole before
// readers locked it (no .use) is read, not built again.
func TestLeftovers(t *testing.T) {
	t.Setenv("VEGAS_TEST_CACHE", t.TempDir())
	dead := filepath.Join(Dir(), ".fx-123456")
	if err := os.MkdirAll(dead, 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dead, "half"), nil, 0o600)
	other := filepath.Join(Dir(), ".fx-other-99") // (another fixture's, fx-other)
	os.MkdirAll(other, 0o700)
	builds := 0
	build := func(dir string) error { builds++; return os.WriteFile(filepath.Join(dir, "f"), nil, 0o600) }
	if _, err := GetFor("fx", "0123456789abcdef", build); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dead); err == nil {
		t.Error("a dead build's directory was left")
	}
	if _, err := os.Stat(other); err != nil {
		t.Error("another fixture's build directory was removed")
	}
	old := filepath.Join(Dir(), "fx-fedcba9876543210")
	os.MkdirAll(old, 0o700)
	os.WriteFile(filepath.Join(old, "f"), nil, 0o600)
	if d, err := GetFor("fx", "fedcba9876543210", build); err != nil || d != old || builds != 1 {
		t.Errorf("a fixture without .use: %s %v, %d builds", d, err, builds)
	}
}
