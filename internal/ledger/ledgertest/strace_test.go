package ledgertest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A sync that another thread's call cuts in two ("<unfinished ...>", then
// "<... fsync resumed>") counts once it returns 0; an answer before it
// returns, after it failed, or without it, is refused.
func TestCheckSyncedUnfinished(t *testing.T) {
	const (
		write   = `7 pwrite64(14</l.db-wal>, "x", 1, 0) = 1`
		cut     = `7 fsync(18</l.db-wal> <unfinished ...>`
		other   = `8 write(7<anon_inode:[eventfd]>, "\1", 8) = 8`
		resumed = `7 <... fsync resumed>)              = 0`
		failed  = `7 <... fsync resumed>)              = -1 EIO (Input/output error)`
		answer  = `5 write(1<pipe:[1]>, "PAY\303\211 shown\n", 12) = 12`
	)
	for _, tc := range []struct {
		name  string
		lines []string
		ok    bool
	}{
		{"synced by a cut fsync", []string{write, cut, other, resumed, answer}, true},
		{"not synced", []string{write, answer}, false},
		{"the cut fsync failed", []string{write, cut, other, failed, answer}, false},
		{"answered before the cut fsync returned", []string{write, cut, answer, resumed}, false},
	} {
		trace := filepath.Join(t.TempDir(), "trace")
		if err := os.WriteFile(trace, []byte(strings.Join(tc.lines, "\n")+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := CheckSynced(trace, func(p string) bool { return p == "/l.db-wal" }, func(fd int, _ string) bool { return fd == 1 })
		if (err == nil) != tc.ok {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}
