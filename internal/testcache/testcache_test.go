package testcache

import (
	"errors"
	"os"
	"path/filepath"
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
	} {
		if got := counts(rel); got != want {
			t.Errorf("counts(%s) = %v, want %v", rel, got, want)
		}
	}
	k, err := Key()
	if err != nil || len(k) != 16 {
		t.Errorf("key %q, %v", k, err)
	}
}
