package sqlite_test

import (
	"bytes"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	msqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"vegas-desk/internal/ledger/backoffice"
	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/ledger/ledgertest"
	"vegas-desk/internal/ledger/sqlite"
	"vegas-desk/internal/testcache"
)

// opens are the two ways a back office's file is opened: to write and
// read only.
var opens = map[string]func(string) (*sqlite.Backend, error){
	"Open": func(path string) (*sqlite.Backend, error) {
		return sqlite.OpenLedger(path, false, backoffice.Creation{}, zeroTime)
	},
	"OpenReadOnly": func(path string) (*sqlite.Backend, error) {
		return sqlite.OpenLedger(path, true, backoffice.Creation{}, zeroTime)
	},
}

func zeroTime() time.Time { return time.Time{} }

func fileSum(tb testing.TB, path string) [32]byte {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return sha256.Sum256(b)
}

// SQLite's "not a database" is told by its result code, not its message.
func TestClassifyByResultCode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.db")
	os.WriteFile(path, append([]byte("SQLite format 3\x00"), make([]byte, 200)...), 0o644)
	db, _ := sql.Open("sqlite", sqlite.DSN(path, "mode=ro"))
	defer db.Close()
	var n int
	err := db.QueryRow("SELECT count(*) FROM sqlite_master").Scan(&n)
	var se *msqlite.Error
	if !errors.As(err, &se) || se.Code() != sqlite3.SQLITE_NOTADB {
		t.Fatalf("reading a garbled file: %v, want SQLITE_NOTADB", err)
	}
	if !errors.Is(sqlite.Classify(err), core.ErrNotLedger) {
		t.Errorf("classify(%v): not core.ErrNotLedger", err)
	}
	if errors.Is(sqlite.Classify(errors.New("file is not a database")), core.ErrNotLedger) {
		t.Error("a plain message is taken for SQLITE_NOTADB")
	}
}

// A ledger file changed to work against its reader is refused, untouched:
// the attack of the security review (a trigger that deletes every claim of
// 1,000 € or more as it is written), and any object or definition a
// ledger does not have.
func TestHostileFiles(t *testing.T) {
	tool, err := exec.LookPath("sqlite3")
	if err != nil {
		t.Fatal("the sqlite3 tool is not installed: make test installs it (make deps-test)")
	}
	for _, tc := range []struct{ name, script string }{
		{"a trigger that deletes big claims", `CREATE TRIGGER eat AFTER INSERT ON journal WHEN NEW.amount >= 1000
BEGIN DELETE FROM paid WHERE ticket = NEW.ticket; END;`},
		{"a view", `CREATE VIEW winners AS SELECT * FROM packs;`},
		{"a table", `CREATE TABLE notes (x);`},
		{"an index", `CREATE INDEX by_amount ON journal (amount);`},
		{"a dropped trigger", `DROP TRIGGER journal_no_delete;`},
		{"a changed trigger", `DROP TRIGGER journal_no_delete; CREATE TRIGGER journal_no_delete BEFORE DELETE ON journal WHEN 0
BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END;`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := ledgertest.Copy(t, ledgertest.Block)
			if out, err := exec.Command(tool, path, tc.script).CombinedOutput(); err != nil {
				t.Fatalf("sqlite3: %v\n%s", err, out)
			}
			refusedAltered(t, path)
		})
	}
}

// refusedAltered checks that both Open and OpenReadOnly refuse the file at
// path as altered, and leave it as it was, without a WAL beside it.
func refusedAltered(t *testing.T, path string) {
	t.Helper()
	before := fileSum(t, path)
	for name, open := range opens {
		l, err := open(path)
		if err == nil {
			l.Close()
			t.Fatalf("%s opened it", name)
		}
		if !errors.Is(err, core.ErrNotLedger) || !strings.Contains(err.Error(), "altered") {
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

// hotJournal writes beside clean the rollback journal that SQLite would
// play back into it to make it evil again: the pages of evil that differ
// from clean's, as a transaction that crashed before its commit leaves
// them (the format of sqlite.org/fileformat2.html#the_rollback_journal).
func hotJournal(tb testing.TB, clean, evil string) {
	tb.Helper()
	c, err := os.ReadFile(clean)
	if err != nil {
		tb.Fatal(err)
	}
	e, err := os.ReadFile(evil)
	if err != nil {
		tb.Fatal(err)
	}
	page := int(binary.BigEndian.Uint16(e[16:]))
	if page == 1 {
		page = 65536
	}
	const sector, nonce = 512, 0x5eed
	var recs []byte
	n := 0
	for p := 0; p*page < len(e); p++ {
		data := e[p*page : (p+1)*page]
		if (p+1)*page <= len(c) && bytes.Equal(c[p*page:(p+1)*page], data) {
			continue
		}
		sum := uint32(nonce)
		for i := page - 200; i > 0; i -= 200 {
			sum += uint32(data[i])
		}
		recs = binary.BigEndian.AppendUint32(recs, uint32(p+1))
		recs = append(recs, data...)
		recs = binary.BigEndian.AppendUint32(recs, sum)
		n++
	}
	hdr := make([]byte, sector)
	copy(hdr, "\xd9\xd5\x05\xf9\x20\xa1\x63\xd7")
	binary.BigEndian.PutUint32(hdr[8:], uint32(n))
	binary.BigEndian.PutUint32(hdr[12:], nonce)
	binary.BigEndian.PutUint32(hdr[16:], uint32(len(e)/page))
	binary.BigEndian.PutUint32(hdr[20:], sector)
	binary.BigEndian.PutUint32(hdr[24:], uint32(page))
	if err := os.WriteFile(clean+"-journal", append(hdr, recs...), 0o600); err != nil {
		tb.Fatal(err)
	}
}

// A clean ledger handed over with a hot rollback journal that holds a
// trigger's pages: SQLite's first write connection would play it into the
// file after the checks read it without it. Both are refused untouched.
func TestHotJournalRefused(t *testing.T) {
	tool, err := exec.LookPath("sqlite3")
	if err != nil {
		t.Fatal("the sqlite3 tool is not installed: make test installs it (make deps-test)")
	}
	clean := ledgertest.Copy(t, ledgertest.Block)
	evil := filepath.Join(t.TempDir(), "evil.db")
	if err := testcache.CopyFile(clean, evil); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(tool, evil, `CREATE TRIGGER eat AFTER INSERT ON journal WHEN NEW.amount >= 1000
BEGIN DELETE FROM paid WHERE ticket = NEW.ticket; END;`).CombinedOutput(); err != nil {
		t.Fatalf("sqlite3: %v\n%s", err, out)
	}
	hotJournal(t, clean, evil)
	before, journal := fileSum(t, clean), fileSum(t, clean+"-journal")
	for name, open := range opens {
		l, err := open(clean)
		if err == nil {
			l.Close()
			t.Fatalf("%s opened it", name)
		}
		if !errors.Is(err, core.ErrNotLedger) || !strings.Contains(err.Error(), "-journal is beside") {
			t.Errorf("%s: %v", name, err)
		}
	}
	if fileSum(t, clean) != before || fileSum(t, clean+"-journal") != journal {
		t.Error("the file or its journal changed")
	}
	// What the journal would have done: played back, it is the evil file.
	if out, err := exec.Command(tool, clean, "SELECT name FROM sqlite_master WHERE name = 'eat'").CombinedOutput(); err != nil || strings.TrimSpace(string(out)) != "eat" {
		t.Errorf("the journal played back: %q %v", out, err)
	}
}
