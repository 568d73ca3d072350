package main

import (
	"bytes"
	"crypto/sha256"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	vegasdesk "vegas-desk"
	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/ledgertest"
	"vegas-desk/internal/ledger/sqlite"
)

// Attacks on the command line's files (issue 15): each test performs one.

// digestOf is the SHA-256 of the regular file at path ("" for anything
// else, or a file that cannot be read).
func digestOf(t *testing.T, path string) string {
	t.Helper()
	if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
		return ""
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%x", sha256.Sum256(data))
}

// No -o writes over a ledger: not the one the command opens, nor its -wal
// or -shm, nor another SQLite file or what lies beside one, nor a key file,
// whether named, reached through a symbolic link or a hard link; nor over a
// directory or a named pipe. Each is refused before any work (exit 2) and
// left as it was; a document still goes to a new file, or over a document.
func TestOutputNeverOverwritesALedger(t *testing.T) {
	db := ledgertest.Copy(t, ledgertest.Block)
	winner := serials(t).Winners[15][0]
	if _, errs, code := vd(t, db, "", "claim", winner, "--desk", "D1", "--operator", "ann"); code != 0 {
		t.Fatalf("claim: %s", errs)
	}
	dir := privateDir(t)
	other := ledgertest.Copy(t, ledgertest.Stock)
	mustDo := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, name string) string {
		p := filepath.Join(dir, name)
		mustDo(os.Symlink(target, p))
		return p
	}
	hard := filepath.Join(dir, "hard.pdf")
	mustDo(os.Link(db, hard))
	mustDo(os.WriteFile(other+"-shm", bytes.Repeat([]byte{1}, 32768), 0o600))
	key := filepath.Join(dir, "bo.key")
	mustDo(os.WriteFile(key, []byte("vegas-desk signing key 1\nkdf=pbkdf2-hmac-sha256\n"), 0o600))
	fifo := filepath.Join(dir, "fifo.pdf")
	mustDo(syscall.Mkfifo(fifo, 0o600))
	targets := map[string]string{
		"the ledger":                      db,
		"the ledger by another name":      filepath.Join(filepath.Dir(db), ".", filepath.Base(db)),
		"the ledger's -wal":               db + "-wal",
		"the ledger's -shm":               db + "-shm",
		"a symbolic link to the ledger":   link(db, "link.pdf"),
		"a link to the ledger's -wal":     link(db+"-wal", "wal.pdf"),
		"a link to a link to the ledger":  link(filepath.Join(dir, "link.pdf"), "link2.pdf"),
		"the ledger through a linked dir": filepath.Join(link(filepath.Dir(db), "dir"), filepath.Base(db)),
		"a hard link to the ledger":       hard,
		"another ledger":                  other,
		"the -shm beside another ledger":  other + "-shm",
		"a signing key file":              key,
		"a named pipe":                    fifo,
		"a directory":                     dir,
	}
	before := map[string]string{}
	for _, p := range targets {
		before[p] = digestOf(t, p)
	}
	ledgerDigest := digestOf(t, db)
	today := time.Now().Format(time.DateOnly)
	kf := filepath.Join(ledgertest.MustDir(t, ledgertest.Sealed), "key")
	commands := [][]string{
		{"receipt", "1"},
		{"daily", "--desk", "D1", "--day", today},
		{"settlement", "--desk", "D1", "--since", today, "--until", today},
		{"print", "--block", "1", "--packs", "0"},
		{"packs", "labels", "--block", "1", "--packs", "0"},
		{"render", winner},
		{"certificate", "--block", "1", "--key-file", kf},
		{"checkpoint", "--key-file", kf},
		{"keygen"},
		{"counter-ledger", "--desk", "C9", "--key-file", kf},
	}
	for what, target := range targets {
		for _, cmd := range commands {
			_, errs, code := vd(t, db, "", append(cmd, "-o", target)...)
			if code != 2 || !strings.Contains(errs, "-o "+target) || !strings.Contains(errs, "give another file name") {
				t.Errorf("%s -o %s: exit %d, %s", cmd[0], what, code, errs)
			}
		}
		if got := digestOf(t, target); got != before[target] {
			t.Errorf("%s changed", what)
		}
	}
	if digestOf(t, db) != ledgerDigest {
		t.Fatal("the ledger changed")
	}
	// What -o is for.
	pdf := filepath.Join(dir, "recu.pdf")
	for range 2 { // a new file, then over the document
		if _, errs, code := vd(t, db, "", "receipt", "1", "-o", pdf); code != 0 {
			t.Fatalf("receipt -o a new file: exit %d %s", code, errs)
		}
		if data, _ := os.ReadFile(pdf); !bytes.HasPrefix(data, []byte("%PDF")) {
			t.Fatal("the receipt is not a PDF")
		}
	}
	if out, errs, code := vd(t, db, "", "blocks"); code != 0 || !strings.Contains(out, "531/1") {
		t.Errorf("the ledger after it all: exit %d %s", code, errs)
	}
}

// A command that only reads, on an empty file (a ledger yet to be made, or
// a mistyped name that exists), makes no ledger of it: it says so and
// leaves the file empty, with nothing beside it.
func TestReadOnlyCommandsMakeNoLedger(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.db")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	doc := docLine(t, ledgertest.Copy(t, ledgertest.Block), serials(t).Losers[0])
	for _, cmd := range [][]string{{"blocks"}, {"blocks", "--json"}, {"lookup", serials(t).Losers[0]}, {"verify"}, {"claims"}, {"report", "--block", "1"}, {"export", "--block", "1"}, {"check", "-"}} {
		_, errs, code := vd(t, empty, doc, cmd...)
		if code != 2 || !strings.Contains(errs, empty+" is empty") || !strings.Contains(errs, "generate") {
			t.Errorf("%v on an empty file: exit %d, %s", cmd, code, errs)
		}
	}
	if st, err := os.Stat(empty); err != nil || st.Size() != 0 {
		t.Errorf("the empty file: %v, %v", st.Size(), err)
	}
	if es, _ := os.ReadDir(dir); len(es) != 1 {
		t.Errorf("%d files beside the empty one", len(es)-1)
	}
}

// A command that writes makes no ledger of a mistyped --db either (a
// payment recorded in a new, empty ledger would be a payment nobody
// sees): only generate makes one.
func TestWritesMakeNoLedger(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "mistyped.db")
	for _, cmd := range [][]string{{"claim", serials(t).Winners[50][0], "--operator", "ann"}, {"desks", "add", "D1"}, {"void", "1", "--reason", "x"},
		{"settings", "--identity-threshold", "100"}, {"emission", "--on-sale", "2025-01-01"}} {
		_, errs, code := vd(t, missing, "", cmd...)
		if code != 2 || !strings.Contains(errs, "no ledger at "+missing) || !strings.Contains(errs, "generate") {
			t.Errorf("%v on a missing file: exit %d, %s", cmd, code, errs)
		}
	}
	if es, _ := os.ReadDir(dir); len(es) != 0 {
		t.Errorf("%d files made", len(es))
	}
	if _, errs, code := vd(t, missing, "", "generate", "--seed", strings.Repeat("cd", 32)); code != 0 {
		t.Errorf("generate on a missing file: exit %d, %s", code, errs)
	}
}

// --db naming what cannot be a ledger file (a named pipe, which a plain
// open waits on for ever, a directory, a device) is refused at once,
// untouched, by a command that reads and by one that writes.
func TestDBNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "ledger.db")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ db, kind string }{{fifo, "a named pipe"}, {dir, "a directory"}, {os.DevNull, "a device"}} {
		for _, cmd := range [][]string{{"blocks"}, {"lookup", serials(t).Losers[0]}, {"generate", "--seed", strings.Repeat("ab", 32)}} {
			type result struct {
				errs string
				code int
			}
			done := make(chan result, 1)
			go func() {
				_, errs, code := vd(t, tc.db, "", cmd...)
				done <- result{errs, code}
			}()
			var r result
			select {
			case r = <-done:
			case <-time.After(20 * time.Second):
				// Release a command waiting on the pipe, then fail.
				if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
					f.Close()
				}
				t.Fatalf("%v on %s: still waiting after 20 s", cmd, tc.kind)
			}
			if r.code != 1 || !strings.Contains(r.errs, tc.kind) || !strings.Contains(r.errs, "not a regular file") {
				t.Errorf("%v on %s: exit %d, %s", cmd, tc.kind, r.code, r.errs)
			}
		}
	}
	if es, _ := os.ReadDir(dir); len(es) != 1 {
		t.Errorf("%d files beside the pipe", len(es)-1)
	}
}

// A SQLite file that is not a ledger (another application's, or a ledger
// whose schema was altered), in WAL mode, read by a command that only
// reads: refused, and left without a -wal or -shm file beside it.
func TestRefusedFilesLeftAlone(t *testing.T) {
	for what, script := range map[string]string{
		"another application's database": "PRAGMA application_id = 42; CREATE TABLE notes (x)",
		"an altered ledger":              vegasdesk.Schema() + fmt.Sprintf("; CREATE TRIGGER eat AFTER INSERT ON journal BEGIN DELETE FROM paid; END; PRAGMA application_id = %d; PRAGMA user_version = %d", sqlite.ApplicationID, ledger.SchemaVersion),
	} {
		dir := t.TempDir()
		path := filepath.Join(dir, "l.db")
		db, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec("PRAGMA journal_mode = WAL; " + script); err != nil {
			t.Fatal(err)
		}
		db.Close() // the last connection: the -wal and -shm go
		before := digestOf(t, path)
		if _, errs, code := vd(t, path, "", "blocks"); code != 1 || !strings.Contains(errs, "not a vegas-desk ledger") {
			t.Errorf("%s: exit %d, %s", what, code, errs)
		}
		if es, _ := os.ReadDir(dir); len(es) != 1 || digestOf(t, path) != before {
			t.Errorf("%s: %d files in the directory, or the file changed", what, len(es))
		}
	}
}
