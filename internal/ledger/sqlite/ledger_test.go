package sqlite_test

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/backoffice"
	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/ledger/ledgertest"
	"vegas-desk/internal/ledger/sqlite"
)

// A file that is not a back office's ledger of this version is refused by
// both opens, naming the file, and left as it was.
func TestOpenRefuses(t *testing.T) {
	dir := t.TempDir()
	notSQLite := filepath.Join(dir, "notes.txt")
	os.WriteFile(notSQLite, []byte("shopping list: eggs, milk\n"), 0o644)

	// Bytes that start like SQLite but are not: SQLITE_NOTADB.
	garbled := filepath.Join(dir, "garbled.db")
	os.WriteFile(garbled, append([]byte("SQLite format 3\x00"), make([]byte, 200)...), 0o644)

	script := func(name, stmts string) string {
		t.Helper()
		path := filepath.Join(dir, name)
		db, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if _, err := db.Exec(stmts); err != nil {
			t.Fatal(err)
		}
		return path
	}
	other := script("other.db", "CREATE TABLE contacts (name TEXT); INSERT INTO contacts VALUES ('ann')")
	otherApp := script("otherapp.db", "PRAGMA application_id = 1234; PRAGMA user_version = 1; CREATE TABLE x (y)")
	version := func(name string, v int) string {
		return script(name, "PRAGMA application_id = "+strconv.Itoa(int(sqlite.ApplicationID))+"; CREATE TABLE blocks (id INTEGER PRIMARY KEY); PRAGMA user_version = "+strconv.Itoa(v))
	}
	newer := version("newer.db", core.SchemaVersion+1)
	v1 := version("v1.db", 1)

	for _, tc := range []struct {
		name, path string
		want       error
	}{
		{"not SQLite", notSQLite, core.ErrNotLedger},
		{"a garbled SQLite header", garbled, core.ErrNotLedger},
		{"another application's SQLite file", other, core.ErrNotLedger},
		{"another application_id", otherApp, core.ErrNotLedger},
		{"newer user_version", newer, core.ErrTooNew},
		{"schema version 1", v1, core.ErrTooOld},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := fileSum(t, tc.path)
			for name, open := range opens {
				l, err := open(tc.path)
				if err == nil {
					l.Close()
					t.Fatalf("%s opened it", name)
				}
				if !errors.Is(err, tc.want) {
					t.Fatalf("%s: err = %v, want %v", name, err, tc.want)
				}
				if !strings.Contains(err.Error(), tc.path) {
					t.Errorf("%s: error %q does not name the file", name, err)
				}
			}
			if fileSum(t, tc.path) != before {
				t.Error("file changed")
			}
		})
	}
}

// A new ledger: this application's id and schema version, WAL, the game
// known, an id that a second open keeps, no block; for its owner's eyes
// (the file 0600, the directories it made 0700).
func TestOpenNew(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sub", "dir", "l.db")
	l, err := sqlite.OpenLedger(path, false, backoffice.Creation{}, zeroTime)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var app uint32
	var v int
	var mode string
	f := l.File()
	if err := errors.Join(f.R.Get(&app, "PRAGMA application_id"), f.R.Get(&v, "PRAGMA user_version"), f.W.Get(&mode, "PRAGMA journal_mode")); err != nil {
		t.Fatal(err)
	}
	if app != sqlite.ApplicationID || v != core.SchemaVersion {
		t.Errorf("application_id %#x user_version %d", app, v)
	}
	if mode != "wal" {
		t.Errorf("journal_mode %q", mode)
	}
	games, err := l.Games(ctx)
	if err != nil || games[531] != "VEGAS" {
		t.Errorf("games = %v, %v", games, err)
	}
	info := l.Info()
	if len(info.ID) != 32 || info.Demo || info.Kind != "back-office" {
		t.Errorf("info %+v", info)
	}
	for p, want := range map[string]os.FileMode{path: 0o600, filepath.Dir(path): 0o700, filepath.Dir(filepath.Dir(path)): 0o700} {
		st, err := os.Stat(p)
		if err != nil || st.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v (%v)", p, st.Mode().Perm(), want, err)
		}
	}
	l.Close()
	l2, err := sqlite.OpenLedger(path, false, backoffice.Creation{}, zeroTime)
	if err != nil {
		t.Fatal(err)
	}
	defer l2.Close()
	if bs, err := l2.Blocks(ctx); err != nil || len(bs) != 0 || l2.Info().ID != info.ID {
		t.Errorf("blocks = %v, %v; id %s, was %s", bs, err, l2.Info().ID, info.ID)
	}
}

// A read-only file in a read-only directory opens read-only: it answers
// lookups and finds, records no refusal, and refuses every write.
func TestReadOnly(t *testing.T) {
	ctx := context.Background()
	path := ledgertest.Copy(t, ledgertest.Block)
	os.Chmod(path, 0o444)
	os.Chmod(filepath.Dir(path), 0o555)
	t.Cleanup(func() { os.Chmod(filepath.Dir(path), 0o755) })
	l, err := opens["OpenReadOnly"](path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	b, err := l.Block(ctx, 531, 1)
	if err != nil {
		t.Fatal(err)
	}
	s, err := game.ParseSerial(ledgertest.SerialsOf(t, ledgertest.Block).Winners[100][0])
	if err != nil {
		t.Fatal(err)
	}
	got, err := l.Questions().Lookup(ctx, s, core.Identity{}, core.NoLimit, time.Time{})
	if err != nil || got.Prize != 100 {
		t.Fatalf("lookup: %+v, %v", got, err)
	}
	code := game.Encode(&got.Ticket)
	if _, err := l.Questions().Find(ctx, code[:], core.Identity{}, core.NoLimit, time.Time{}); err != nil {
		t.Errorf("find: %v", err)
	}
	ann := core.Identity{Desk: "D1", Operator: "ann"}
	wrong := game.Serial{Game: 531, Block: 1, Position: 1, Secret: 0}
	if wrong.Secret == b.Key.Secret(1) {
		wrong.Secret++
	}
	if _, err := l.Questions().Lookup(ctx, wrong, ann, core.NoLimit, time.Time{}); !errors.Is(err, core.ErrUnknownSerial) {
		t.Errorf("wrong secret on a read-only ledger: %v, want ErrUnknownSerial", err)
	}
	if rs, err := l.Attempts(ctx, time.Time{}); err != nil || len(rs) != 0 {
		t.Errorf("a read-only ledger recorded refusals: %v, %v", rs, err)
	}
	if _, err := l.Questions().Claim(ctx, s, core.ClaimRequest{Method: core.MethodSerial, Who: ann, Limit: core.NoLimit}, time.Time{}); !errors.Is(err, core.ErrReadOnly) {
		t.Errorf("claim: %v, want ErrReadOnly", err)
	}
	if _, err := l.Generate(ctx, 531, game.Seed{}, core.GenerateOptions{}); !errors.Is(err, core.ErrReadOnly) {
		t.Errorf("generate: %v, want ErrReadOnly", err)
	}
}
