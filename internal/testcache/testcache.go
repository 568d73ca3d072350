// Package testcache builds the tests' expensive fixtures (a generated
// 2,000,000-ticket block, a sealed counter ledger…) once, and shares them
// between the test binaries of a run and between runs: each fixture is a
// directory of the cache, named after the fixture and a digest of the
// sources that make it, built under an exclusive file lock, so that the
// test binaries that `go test ./...` runs side by side build it once and
// every later one copies it.
//
// The cache is $VEGAS_TEST_CACHE (make test sets it to .testcache in the
// repository), else vegas-desk-test-cache in the system's temporary
// directory. A fixture is built again when any source that could change it
// changes (Key): every non-test .go file of the module (but the app's
// screens, the command line and make test's log reader), the .sql and
// .txt files they embed (every one but a test's testdata), go.mod and
// go.sum, and the test files named *fixture*_test.go. A fixture
// of another digest is removed when its successor is built.
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
// with: the app's screens, the command line and make test's log reader.
var notFixtures = []string{"cmd/", "internal/ui/", "internal/testlog/"}

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
// build runs under an exclusive lock of the cache: two processes asking for
// one fixture build it once. A build that fails leaves nothing behind, and
// the next Get tries again. The directory and its files are the cache's:
// copy a file before writing to it.
func Get(name string, build func(dir string) error) (string, error) {
	k, err := Key()
	if err != nil {
		return "", err
	}
	root := Dir()
	if err := os.MkdirAll(root, 0o700); err != nil {
		return "", fmt.Errorf("testcache: %w", err)
	}
	final := filepath.Join(root, name+"-"+k)
	if _, err := os.Stat(final); err == nil {
		return final, nil
	}
	unlock, err := lock(filepath.Join(root, name+".lock"))
	if err != nil {
		return "", err
	}
	defer unlock()
	if _, err := os.Stat(final); err == nil {
		return final, nil // built by another process while this one waited
	}
	tmp, err := os.MkdirTemp(root, "."+name+"-")
	if err != nil {
		return "", fmt.Errorf("testcache: %w", err)
	}
	if err := build(tmp); err != nil {
		os.RemoveAll(tmp)
		return "", fmt.Errorf("fixture %s: %w", name, err)
	}
	if err := os.Rename(tmp, final); err != nil {
		os.RemoveAll(tmp)
		return "", fmt.Errorf("testcache: %w", err)
	}
	// The same fixture made by other sources is stale.
	stale, _ := filepath.Glob(filepath.Join(root, name+"-*"))
	for _, s := range stale {
		if s != final && len(filepath.Base(s)) == len(filepath.Base(final)) {
			os.RemoveAll(s)
		}
	}
	return final, nil
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
