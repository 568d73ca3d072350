package ledger

import (
	"crypto/sha256"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func fileSum(tb testing.TB, path string) [32]byte {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return sha256.Sum256(b)
}

// Open and OpenReadOnly choose the kind of ledger by what the location
// holds: a file that is not SQLite is refused before any kind opens it
// (package sqlite's TestOpenRefuses tests the files a back office's
// ledger refuses), naming the file and leaving it as it was; a new path is
// a new back office's file.
func TestOpenChoosesKind(t *testing.T) {
	notSQLite := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(notSQLite, []byte("shopping list: eggs, milk\n"), 0o644)
	before := fileSum(t, notSQLite)
	for name, open := range map[string]func(string) (*Ledger, error){"Open": Open, "OpenReadOnly": OpenReadOnly} {
		l, err := open(notSQLite)
		if err == nil {
			l.Close()
			t.Fatalf("%s opened a text file", name)
		}
		if !errors.Is(err, ErrNotLedger) || !strings.Contains(err.Error(), notSQLite) {
			t.Errorf("%s: %v, want ErrNotLedger naming the file", name, err)
		}
	}
	if fileSum(t, notSQLite) != before {
		t.Error("file changed")
	}
	l := mustOpen(t, filepath.Join(t.TempDir(), "l.db"))
	if l.Kind() != "back-office" || l.CounterDesk() != "" || len(l.ID()) != 32 {
		t.Errorf("a new file: kind %q desk %q id %q", l.Kind(), l.CounterDesk(), l.ID())
	}
}
