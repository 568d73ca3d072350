package ledger

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
