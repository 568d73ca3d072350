// Package testcache builds the tests' expensive fixtures (a generated
// 2,000,000-ticket block, a sealed counter ledger…) once, and shares them
// between the test binaries of a run and between runs: each fixture is a
// directory of the cache, named after the fixture and a digest of the
// sources that make it, built under an exclusive file lock, so that the
// test binaries that `go test ./...` runs side by side build it once and
// every later one copies it.
//
// The cache is $VEGAS_TEST_CACHE, else vegas-desk-test-cache in the
// system's temporary directory (make test's too): like Go's build cache,
// it serves every checkout of the machine, a clean clone included, and
// runs of several checkouts at once. A fixture is built again when any
// source that could change it changes (Key): every non-test .go file of
// the module (but those of notFixtures, which no fixture is made with),
// the .sql and .txt files they embed (every one but a test's testdata), go.mod and
// go.sum, and the test files named *fixture*_test.go. The cache keeps the
// Keep versions of a fixture most recently used, and never removes one a
// process reads (Get).
package testcache

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Dir is the cache's directory.
func Dir() string {
	if d := os.Getenv("VEGAS_TEST_CACHE"); d != "" {
		return d
	}
	return filepath.Join(os.TempDir(), "vegas-desk-test-cache")
}

var (
	keyOnce sync.Once
	key     string
	keyErr  error
)

// Key is the digest of the module's sources that make fixtures, in hex (16
// digits), computed once per process.
func Key() (string, error) {
	keyOnce.Do(func() { key, keyErr = sourcesDigest() })
	return key, keyErr
}

// moduleRoot is the directory of go.mod, from the working directory up (a
// test runs in its package's directory).
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("testcache: no go.mod above the working directory")
		}
		dir = parent
	}
}

// notFixtures are the module's directories whose code no fixture is made
// with (none is a dependency of internal/ledger/ledgertest, which makes
// them: TestCounts checks it with go list): the app's screens, the command
// line, the validation server, the papers and printers, the ticket's
// picture, make test's log reader and its fixtures command (which asks
// ledgertest for them). A change there builds no fixture again.
var notFixtures = []string{"cmd/", "internal/ui/", "internal/testlog/", "internal/testcache/fixtures/", "internal/server/", "internal/paper/",
	"internal/printer/", "internal/ticketart/", "internal/mrz/mrztest/"}

// counts reports whether the file at rel (slash-separated, from the module
// root) is one of the sources Key covers.
func counts(rel string) bool {
	name := pathBase(rel)
	for _, dir := range notFixtures {
		if strings.HasPrefix(rel, dir) {
			return false
		}
	}
	switch {
	case rel == "go.mod" || rel == "go.sum", strings.HasSuffix(name, ".sql"):
		return true
	case strings.HasSuffix(name, ".txt"): // the conformance table, which its world is built from
		return !strings.Contains(rel, "testdata/") && strings.HasPrefix(rel, "internal/")
	case strings.HasSuffix(name, "_test.go"):
		return strings.Contains(name, "fixture")
	}
	return strings.HasSuffix(name, ".go")
}

func pathBase(rel string) string {
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		return rel[i+1:]
	}
	return rel
}

// sourcesDigest hashes the path and contents of every file counts selects,
// in path order.
func sourcesDigest() (string, error) {
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	var files []string
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, root+string(filepath.Separator)))
		if d.IsDir() {
			if p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "bin") {
				return filepath.SkipDir
			}
			return nil
		}
		if counts(rel) {
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("testcache: %w", err)
	}
	slices.Sort(files)
	h := sha256.New()
	for _, rel := range files {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			return "", fmt.Errorf("testcache: %w", err)
		}
		fmt.Fprintf(h, "%s %d\n", rel, len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// Get returns the directory of fixture name, which build makes (in the
// empty directory it is given) when the cache does not hold it yet. The
// build runs under an exclusive lock of the fixture's name: two processes
// asking for one fixture build it once, into a temporary directory renamed
// to its name when whole, so that no one sees it half made. A build that
// fails leaves nothing behind, and the next Get tries again. The directory
// and its files are the cache's: copy a file before writing to it.
//
// The directory stays whole until the process ends, whatever other runs
// do: Get holds a shared lock of it (its file .use) for the process's
// life, and a fixture is removed only under an exclusive lock of it taken
// without waiting, so never while a process reads it (two runs at once,
// of two checkouts whose sources differ, once saw a fixture vanish under
// them: each removed the other's as stale).
func Get(name string, build func(dir string) error) (string, error) {
	k, err := Key()
	if err != nil {
		return "", err
	}
	return GetFor(name, k, build)
}

// GetFor is Get for a fixture that the module's sources do not make, named
// by key instead of their digest (an earlier commit's vegas-desk, built
// from the repository's history, is the same whatever the sources of
// today: its key is its commit and the Go that builds it). key is 16
// characters, as Key's digest.
func GetFor(name, k string, build func(dir string) error) (string, error) {
	if len(k) != 16 || strings.ContainsAny(k, "/\\") {
		return "", fmt.Errorf("testcache: key %q of fixture %s is not 16 characters", k, name)
	}
	root := Dir()
	if err := os.MkdirAll(root, 0o700); err != nil {
		return "", fmt.Errorf("testcache: %w", err)
	}
	final := filepath.Join(root, name+"-"+k)
	if ok, err := use(final); ok || err != nil {
		return final, err
	}
	unlock, err := lock(filepath.Join(root, name+".lock"))
	if err != nil {
		return "", err
	}
	defer unlock()
	if ok, err := use(final); ok || err != nil {
		return final, err // built by another process while this one waited
	}
	dropUnfinished(root, name)
	tmp, err := os.MkdirTemp(root, "."+name+"-")
	if err != nil {
		return "", fmt.Errorf("testcache: %w", err)
	}
	if err := build(tmp); err != nil {
		os.RemoveAll(tmp)
		return "", fmt.Errorf("fixture %s: %w", name, err)
	}
	if err := os.WriteFile(filepath.Join(tmp, useFile), nil, 0o600); err != nil {
		os.RemoveAll(tmp)
		return "", fmt.Errorf("testcache: %w", err)
	}
	if err := os.Rename(tmp, final); err != nil {
		os.RemoveAll(tmp)
		return "", fmt.Errorf("testcache: %w", err)
	}
	if ok, err := use(final); !ok || err != nil {
		return "", fmt.Errorf("testcache: %s vanished once built: %v", final, err)
	}
	prune(root, name, final)
	return final, nil
}

// dropUnfinished removes the directories where a build of fixture name
// was under way when its process died (killed, or its machine stopped):
// called under the name's build lock, which no live build is without.
func dropUnfinished(root, name string) {
	tmps, _ := filepath.Glob(filepath.Join(root, "."+name+"-*"))
	for _, d := range tmps {
		rest := strings.TrimPrefix(filepath.Base(d), "."+name+"-")
		if rest != "" && strings.Trim(rest, "0123456789") == "" { // os.MkdirTemp's
			os.RemoveAll(d)
		}
	}
}

// useFile is the file of a fixture's directory that its readers lock.
const useFile = ".use"

// Keep is how many versions of a fixture (made by different sources) the
// cache keeps, the most recently used: checkouts of different sources
// that take turns (two branches, a clean clone beside a worktree) do not
// rebuild each other's.
const Keep = 4

var (
	usedMu sync.Mutex
	used   = map[string]*os.File{} // the fixtures this process reads, locked shared
)

// use reports whether the fixture directory dir exists, and then holds a
// shared lock of it until the process ends (and marks it used now).
func use(dir string) (bool, error) {
	usedMu.Lock()
	defer usedMu.Unlock()
	if used[dir] != nil {
		return true, nil
	}
	path := filepath.Join(dir, useFile)
	for {
		f, err := os.Open(path)
		if errors.Is(err, fs.ErrNotExist) {
			if _, derr := os.Stat(dir); derr != nil {
				return false, nil
			}
			// Made whole by a testcache before .use: given one.
			if f, err = os.OpenFile(path, os.O_RDONLY|os.O_CREATE, 0o600); errors.Is(err, fs.ErrNotExist) {
				return false, nil // removed meanwhile
			}
		}
		if err != nil {
			return false, fmt.Errorf("testcache: %w", err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH); err != nil {
			f.Close()
			return false, fmt.Errorf("testcache: lock %s: %w", path, err)
		}
		// Still the fixture's: not removed while this process waited
		// for the lock (a removal renames the directory away first).
		held, _ := f.Stat()
		now, err := os.Stat(path)
		if err == nil && os.SameFile(held, now) {
			t := time.Now()
			os.Chtimes(path, t, t) // (most recently used: prune keeps it)
			used[dir] = f          // held until the process ends
			return true, nil
		}
		f.Close()
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return false, nil // removed
		case err != nil:
			return false, fmt.Errorf("testcache: %w", err)
		} // removed and made again: the new one's
	}
}

// prune removes the versions of fixture name but the Keep most recently
// used (keep, just built, among them), each only when no process reads it:
// renamed away under an exclusive lock taken without waiting, then
// removed.
func prune(root, name, keep string) {
	dirs, _ := filepath.Glob(filepath.Join(root, name+"-*"))
	type version struct {
		dir  string
		used time.Time
	}
	var vs []version
	for _, d := range dirs {
		if d == keep || len(filepath.Base(d)) != len(filepath.Base(keep)) {
			continue // (another fixture whose name begins with name-)
		}
		fi, err := os.Stat(filepath.Join(d, useFile))
		if err != nil {
			vs = append(vs, version{d, time.Time{}}) // made before .use: stale
			continue
		}
		vs = append(vs, version{d, fi.ModTime()})
	}
	slices.SortFunc(vs, func(a, b version) int { return b.used.Compare(a.used) })
	for i, v := range vs {
		if i < Keep-1 {
			continue
		}
		remove(v.dir)
	}
}

// remove removes the fixture directory dir unless a process reads it.
func remove(dir string) {
	f, err := os.Open(filepath.Join(dir, useFile))
	if err == nil {
		defer f.Close()
		if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
			return // read by a process: kept
		}
	}
	trash, err := os.MkdirTemp(filepath.Dir(dir), ".removed-")
	if err != nil {
		return
	}
	gone := filepath.Join(trash, "fixture")
	if os.Rename(dir, gone) == nil {
		os.RemoveAll(trash)
	} else {
		os.Remove(trash)
	}
}

// lock takes an exclusive flock of path, waiting for it.
func lock(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("testcache: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("testcache: lock %s: %w", path, err)
	}
	return func() { syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
}

// CopyFile copies src to dst, a new file (mode 0600).
func CopyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
