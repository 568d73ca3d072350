package ledger

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/jmoiron/sqlx"
)

// alterUnderTrigger runs statements on a ledger file outside the app, as
// whoever can write it: the trigger that forbids them is dropped first and
// made again after with its exact text, so that the schema check passes.
func alterUnderTrigger(tb testing.TB, path, trigger string, stmts ...string) {
	tb.Helper()
	db, err := sqlx.Open("sqlite", "file:"+path)
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	var text string
	if err := db.Get(&text, "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?", trigger); err != nil {
		tb.Fatalf("trigger %s: %v", trigger, err)
	}
	for _, s := range append(append([]string{"DROP TRIGGER " + trigger}, stmts...), text) {
		if _, err := db.Exec(s); err != nil {
			tb.Fatalf("%s: %v", s, err)
		}
	}
}

// A counter ledger altered with ordinary tools is refused untouched, like a
// back-office ledger (TestHostileFiles): its sqlite_master must be exactly
// counter.sql's. Swapping the application ids of the two kinds does not get
// one kind's file read as the other's.
func TestHostileCounterFiles(t *testing.T) {
	tool, err := exec.LookPath("sqlite3")
	if err != nil {
		t.Fatal("the sqlite3 tool is not installed: make test installs it (make deps-test)")
	}
	for _, tc := range []struct{ name, script string }{
		{"a trigger that unpays big claims", `CREATE TRIGGER eat AFTER INSERT ON journal WHEN NEW.amount >= 1000
BEGIN DELETE FROM paid WHERE ticket = NEW.ticket; END;`},
		{"a trigger that answers every lookup", `CREATE TRIGGER spy AFTER INSERT ON journal BEGIN SELECT 1; END;`},
		{"a view", `CREATE VIEW everything AS SELECT * FROM serials;`},
		{"a table", `CREATE TABLE notes (x);`},
		{"an index", `CREATE INDEX by_amount ON journal (amount);`},
		{"a dropped trigger", `DROP TRIGGER serials_no_delete;`},
		{"a back office's application id", `PRAGMA application_id = 1447511123;`},
		// user_version 0 is a new file's: it must not skip the check (nor
		// be switched to WAL before its refusal).
		{"a trigger and user_version 0", `CREATE TRIGGER spy AFTER INSERT ON journal BEGIN SELECT 1; END;
PRAGMA user_version = 0;`},
		// The same row twice passes a comparison of sets: here an index's
		// second row that points at another index's pages.
		{"an index row twice in sqlite_master", `PRAGMA writable_schema = ON;
INSERT INTO sqlite_master (type, name, tbl_name, rootpage, sql)
SELECT type, name, tbl_name, (SELECT rootpage FROM sqlite_master WHERE name = 'journal_by_kind'), sql
FROM sqlite_master WHERE name = 'sqlite_autoindex_paid_1';`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, counters := counterCopies(t)
			path := counters[0]
			if out, err := exec.Command(tool, path, tc.script).CombinedOutput(); err != nil {
				t.Fatalf("sqlite3: %v\n%s", err, out)
			}
			refusedAltered(t, path)
		})
	}
	t.Run("a back office's file with a counter's application id", func(t *testing.T) {
		path := copyFixture(t)
		if out, err := exec.Command(tool, path, "PRAGMA application_id = 1447511107;").CombinedOutput(); err != nil {
			t.Fatalf("sqlite3: %v\n%s", err, out)
		}
		before := fileSum(t, path)
		if l, err := Open(path); err == nil || !errors.Is(err, ErrNotLedger) {
			if l != nil {
				l.Close()
			}
			t.Fatalf("opened: %v", err)
		}
		if fileSum(t, path) != before {
			t.Error("the file changed")
		}
	})
}

// refusedAltered checks that both Open and OpenReadOnly refuse the file at
// path as altered, and leave it as it was, without a WAL beside it.
func refusedAltered(t *testing.T, path string) {
	t.Helper()
	before := fileSum(t, path)
	for name, open := range map[string]func(string) (*Ledger, error){"Open": Open, "OpenReadOnly": OpenReadOnly} {
		l, err := open(path)
		if err == nil {
			l.Close()
			t.Fatalf("%s opened it", name)
		}
		if !errors.Is(err, ErrNotLedger) || !strings.Contains(err.Error(), "altered") {
			t.Errorf("%s: %v", name, err)
		}
	}
	if fileSum(t, path) != before {
		t.Error("the file changed")
	}
	if _, err := os.Stat(path + "-wal"); err == nil {
		t.Error("a WAL was made beside it")
	}
}
