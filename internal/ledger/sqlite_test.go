package ledger

import (
	"bytes"
	"context"
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

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/sqlite"
)

func fileSum(tb testing.TB, path string) [32]byte {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return sha256.Sum256(b)
}

func TestOpenRefuses(t *testing.T) {
	dir := t.TempDir()
	notSQLite := filepath.Join(dir, "notes.txt")
	os.WriteFile(notSQLite, []byte("shopping list: eggs, milk\n"), 0o644)

	// Bytes that start like SQLite but are not: SQLITE_NOTADB.
	garbled := filepath.Join(dir, "garbled.db")
	os.WriteFile(garbled, append([]byte("SQLite format 3\x00"), make([]byte, 200)...), 0o644)

	other := filepath.Join(dir, "other.db")
	db, err := sql.Open("sqlite", other)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE contacts (name TEXT); INSERT INTO contacts VALUES ('ann')"); err != nil {
		t.Fatal(err)
	}
	db.Close()

	otherApp := filepath.Join(dir, "otherapp.db")
	db, _ = sql.Open("sqlite", otherApp)
	if _, err := db.Exec("PRAGMA application_id = 1234; PRAGMA user_version = 1; CREATE TABLE x (y)"); err != nil {
		t.Fatal(err)
	}
	db.Close()

	version := func(name string, v int) string {
		path := filepath.Join(dir, name)
		db, _ := sql.Open("sqlite", path)
		if _, err := db.Exec("PRAGMA application_id = 1447511123; CREATE TABLE blocks (id INTEGER PRIMARY KEY); PRAGMA user_version = " + string(rune('0'+v))); err != nil {
			t.Fatal(err)
		}
		db.Close()
		return path
	}
	newer := version("newer.db", 9)
	v1 := version("v1.db", 1)

	for _, tc := range []struct {
		name, path string
		want       error
	}{
		{"not SQLite", notSQLite, ErrNotLedger},
		{"a garbled SQLite header", garbled, ErrNotLedger},
		{"another application's SQLite file", other, ErrNotLedger},
		{"another application_id", otherApp, ErrNotLedger},
		{"newer user_version", newer, ErrTooNew},
		{"schema version 1", v1, ErrTooOld},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := fileSum(t, tc.path)
			for _, open := range []func(string) (*Ledger, error){Open, OpenReadOnly} {
				l, err := open(tc.path)
				if err == nil {
					l.Close()
					t.Fatal("opened")
				}
				if !errors.Is(err, tc.want) {
					t.Fatalf("err = %v, want %v", err, tc.want)
				}
				if !strings.Contains(err.Error(), tc.path) {
					t.Errorf("error %q does not name the file", err)
				}
			}
			if fileSum(t, tc.path) != before {
				t.Error("file changed")
			}
		})
	}
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
	if !errors.Is(sqlite.Classify(err), ErrNotLedger) {
		t.Errorf("classify(%v): not ErrNotLedger", err)
	}
	if errors.Is(sqlite.Classify(errors.New("file is not a database")), ErrNotLedger) {
		t.Error("a plain message is taken for SQLITE_NOTADB")
	}
}

func TestOpenNew(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "dir", "l.db")
	l := mustOpen(t, path)
	var app uint32
	var v int
	rdb(l).Get(&app, "PRAGMA application_id")
	rdb(l).Get(&v, "PRAGMA user_version")
	if app != sqlite.ApplicationID || v != SchemaVersion {
		t.Errorf("application_id %#x user_version %d", app, v)
	}
	games, err := l.Games(context.Background())
	if err != nil || games[531] != "VEGAS" {
		t.Errorf("games = %v, %v", games, err)
	}
	var mode string
	wdb(l).Get(&mode, "PRAGMA journal_mode")
	if mode != "wal" {
		t.Errorf("journal_mode %q", mode)
	}
	if len(l.ID()) != 32 || l.Demo() {
		t.Errorf("id %q demo %v", l.ID(), l.Demo())
	}
	// A new ledger is for its owner's eyes.
	for p, want := range map[string]os.FileMode{path: 0o600, filepath.Dir(path): 0o700, filepath.Dir(filepath.Dir(path)): 0o700} {
		st, err := os.Stat(p)
		if err != nil || st.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v (%v)", p, st.Mode().Perm(), want, err)
		}
	}
	id := l.ID()
	l.Close()
	l2 := mustOpen(t, path)
	if bs, err := l2.Blocks(context.Background()); err != nil || len(bs) != 0 || l2.ID() != id {
		t.Errorf("blocks = %v, %v; id %s, was %s", bs, err, l2.ID(), id)
	}
}

func TestReadOnly(t *testing.T) {
	ctx := context.Background()
	path := copyFixture(t)
	os.Chmod(path, 0o444)
	os.Chmod(filepath.Dir(path), 0o555)
	t.Cleanup(func() { os.Chmod(filepath.Dir(path), 0o755) })
	l, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	b := mustBlock(t, l)
	w := ticketsWith(t, l, b, 100, 1)[0]
	got, err := l.Lookup(ctx, serialOf(b, w), Identity{}, NoLimit)
	if err != nil || got.Prize != 100 {
		t.Fatalf("lookup: %+v, %v", got, err)
	}
	if _, err := l.FindByContents(ctx, &got.Ticket, Identity{}, NoLimit); err != nil {
		t.Errorf("find: %v", err)
	}
	wrong := game.Serial{Game: 531, Block: 1, Position: 1, Secret: 0}
	if wrong.Secret == b.Key.Secret(1) {
		wrong.Secret++
	}
	if _, err := l.Lookup(ctx, wrong.String(), Identity{Desk: "D1", Operator: "ann"}, NoLimit); !errors.Is(err, ErrUnknownSerial) {
		t.Errorf("wrong secret on a read-only ledger: %v, want ErrUnknownSerial", err)
	}
	if rs, err := l.Attempts(ctx, time.Time{}); err != nil || len(rs) != 0 {
		t.Errorf("a read-only ledger recorded refusals: %v, %v", rs, err)
	}
	if _, err := l.Claim(ctx, claimReq(serialOf(b, w), Identity{Desk: "D1", Operator: "ann"})); !errors.Is(err, ErrReadOnly) {
		t.Errorf("claim: %v, want ErrReadOnly", err)
	}
	if _, err := l.Generate(ctx, 531, game.Seed{}, GenerateOptions{}); !errors.Is(err, ErrReadOnly) {
		t.Errorf("generate: %v, want ErrReadOnly", err)
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
			path := copyFixture(t)
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
	clean := copyFixture(t)
	evil := filepath.Join(t.TempDir(), "evil.db")
	if err := copyFile(clean, evil); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(tool, evil, `CREATE TRIGGER eat AFTER INSERT ON journal WHEN NEW.amount >= 1000
BEGIN DELETE FROM paid WHERE ticket = NEW.ticket; END;`).CombinedOutput(); err != nil {
		t.Fatalf("sqlite3: %v\n%s", err, out)
	}
	hotJournal(t, clean, evil)
	before, journal := fileSum(t, clean), fileSum(t, clean+"-journal")
	for name, open := range map[string]func(string) (*Ledger, error){"Open": Open, "OpenReadOnly": OpenReadOnly} {
		l, err := open(clean)
		if err == nil {
			l.Close()
			t.Fatalf("%s opened it", name)
		}
		if !errors.Is(err, ErrNotLedger) || !strings.Contains(err.Error(), "-journal is beside") {
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
