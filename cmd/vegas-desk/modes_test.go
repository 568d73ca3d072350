//go:build !windows

package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"vegas-desk/internal/ledger/ledgertest"
	"vegas-desk/internal/ledger/sqlite"
	"vegas-desk/internal/pgtest"
)

// modeOf is the permission bits of path.
func modeOf(t *testing.T, path string) os.FileMode {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Mode().Perm()
}

// Issue 36 item 3: under umask 022, serve --backup-dir wrote its backups
// 0644 into a folder it accepted at 0755, backup --dir wrote 0644, and
// upgrade's copy of the file before it was 0644 beside a 0600 ledger. A
// backup is a whole ledger: it pays every unpaid winner. Every file that
// holds serials is 0600, in a folder made 0700 or refused with the chmod
// that makes it so (in French too).
func TestBackupsOwnerOnly(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	db := ledgertest.Copy(t, ledgertest.Block)

	// backup --dir, a folder made here: 0700, the backup and its JSON 0600.
	dir := filepath.Join(t.TempDir(), "new", "backups")
	out, errs, code := vd(t, db, "", "backup", "--dir", dir, "--json")
	var b struct{ File string }
	if code != 0 || json.Unmarshal([]byte(out), &b) != nil {
		t.Fatalf("backup: exit %d\n%s%s", code, out, errs)
	}
	for path, want := range map[string]os.FileMode{dir: 0o700, b.File: 0o600, b.File + ".json": 0o600} {
		if m := modeOf(t, path); m != want {
			t.Errorf("%s: mode %04o, %04o wanted", path, m, want)
		}
	}
	// PostgreSQL's backup (a copy into a file) likewise.
	t.Setenv("PGPASSWORD", pg.Password)
	url := pg.URL(pgtest.Owner, pg.NewDatabaseFrom(t, pgFixture(t, ledgertest.Block))) // a copy of the tests' template of the block
	if f := backupOf(t, url); modeOf(t, f) != 0o600 || modeOf(t, filepath.Dir(f)) != 0o700 {
		t.Errorf("PostgreSQL's backup %s: mode %04o in a folder %04o", f, modeOf(t, f), modeOf(t, filepath.Dir(f)))
	}
	// The copy before an upgrade (upgrade's backup) likewise.
	up := filepath.Join(t.TempDir(), "upgrades")
	if f, err := sqlite.Backup(context.Background(), db, up, "ledger.v2.db"); err != nil || modeOf(t, f) != 0o600 {
		t.Errorf("upgrade's copy: %v", err)
	}
	// A picture of a ticket (-o) shows its serial: 0600.
	png := filepath.Join(privateDir(t), "t.png")
	if _, errs, code := vd(t, db, "", "render", serials(t).Winners[50][0], "-o", png); code != 0 || modeOf(t, png) != 0o600 {
		t.Errorf("render -o: exit %d %s", code, errs)
	}

	// A folder others may read: refused, nothing written, the chmod said.
	loose := filepath.Join(t.TempDir(), "loose")
	if err := os.Mkdir(loose, 0o755); err != nil {
		t.Fatal(err)
	}
	empty := func(what string) {
		if es, _ := os.ReadDir(loose); len(es) != 0 {
			t.Errorf("%s left %d files in the folder it refused", what, len(es))
		}
	}
	if _, errs, code := vd(t, db, "", "backup", "--dir", loose); code == 0 || !strings.Contains(errs, "chmod 700 "+loose) {
		t.Errorf("backup into a 0755 folder: exit %d %s", code, errs)
	} else {
		t.Logf("backup --dir 0755: %s", errs)
	}
	empty("backup")
	if _, errs, code := vd(t, db, "", "serve", "--dir", t.TempDir(), "--backup-dir", loose, "--listen", "127.0.0.1:0"); code == 0 || !strings.Contains(errs, "chmod 700 "+loose) {
		t.Errorf("serve --backup-dir 0755: exit %d %s", code, errs)
	} else {
		t.Logf("serve --backup-dir 0755: %s", errs)
	}
	if _, err := sqlite.Backup(context.Background(), db, loose, "ledger.v2.db"); err == nil || !strings.Contains(err.Error(), "chmod 700 "+loose) {
		t.Errorf("upgrade's copy into a 0755 folder: %v", err)
	}
	empty("upgrade's copy")
	t.Setenv("LANG", "fr_FR.UTF-8")
	if _, errs, code := vd(t, db, "", "backup", "--dir", loose); code == 0 || !strings.Contains(errs, "chmod 700 "+loose) || !strings.Contains(errs, "sauvegarde de") || !strings.Contains(errs, "dossier") {
		t.Errorf("backup into a 0755 folder, in French: exit %d %s", code, errs)
	} else {
		t.Logf("backup --dir 0755, French: %s", errs)
	}
	empty("backup")
}

// Issue 36 item 3, the documents: a file a command writes with -o that
// holds serials (a ticket's picture, demonstration sheets, a receipt, a
// counter's day report; claim --receipt) goes, as a backup does, only into
// a folder its owner's alone. Under umask 022, into a 0755 folder: refused
// before any work, nothing written, the folder and the chmod named (in
// French too); into a 0700 folder: written, 0600 (like ledgers and keys,
// whatever the umask), and nothing else left there.
func TestSerialOutputsPrivateFolder(t *testing.T) {
	defer syscall.Umask(syscall.Umask(0o022))
	db := ledgertest.Copy(t, ledgertest.Demo)
	ss := serials(t)
	if _, errs, code := vd(t, db, "", "claim", ss.Winners[15][0], "--desk", "C1"); code != 0 {
		t.Fatalf("claim: %s", errs)
	}
	today := time.Now().Format(time.DateOnly)
	cases := []struct {
		name string
		args func(file string) []string
	}{
		{"render", func(f string) []string { return []string{"render", ss.Winners[50][0], "-o", f} }},
		{"print", func(f string) []string { return []string{"print", "--block", "1", "--packs", "0", "-o", f} }},
		{"receipt", func(f string) []string { return []string{"receipt", "1", "-o", f} }},
		{"daily", func(f string) []string { return []string{"daily", "--desk", "C1", "--day", today, "-o", f} }},
		{"claim --receipt", func(f string) []string { return []string{"claim", ss.Winners[15][1], "--desk", "C1", "--receipt", f} }},
	}
	loose := filepath.Join(t.TempDir(), "shared folder")
	if err := os.Mkdir(loose, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, lang := range []string{"C", "fr_FR.UTF-8"} {
		t.Setenv("LANG", lang)
		for _, tc := range cases {
			_, errs, code := vd(t, db, "", tc.args(filepath.Join(loose, "doc"))...)
			want := []string{"run chmod 700 " + shellWord(loose) + ",", "the folder " + loose + " is not its owner's alone (mode 0755)"}
			if lang != "C" {
				want = []string{"lancez chmod 700 " + shellWord(loose) + ",", "le dossier " + loose + " n'est pas à son seul propriétaire (mode 0755)"}
			}
			for _, w := range want {
				if code != exitUsage || !strings.Contains(errs, w) {
					t.Errorf("%s %s into a 0755 folder: exit %d, want %q in %s", lang, tc.name, code, w, errs)
				}
			}
			if es, _ := os.ReadDir(loose); len(es) != 0 {
				t.Fatalf("%s into a 0755 folder left %d files", tc.name, len(es))
			}
		}
	}
	t.Setenv("LANG", "C")
	private := privateDir(t)
	for _, tc := range cases {
		file := filepath.Join(private, strings.ReplaceAll(tc.name, " ", "")+".out")
		if tc.name == "print" {
			// Printed once for the tests that read it, as here: under
			// umask 022, into a folder of its own of mode 0700.
			demo := demoSheetsOf(t)
			if es, _ := os.ReadDir(demo.dir); len(es) != 1 {
				t.Errorf("print left %d files in its folder, want its PDF alone", len(es))
			}
			file = demo.pdf
		} else if _, errs, code := vd(t, db, "", tc.args(file)...); code != 0 {
			t.Errorf("%s into a 0700 folder: exit %d %s", tc.name, code, errs)
			continue
		}
		if m := modeOf(t, file); m != 0o600 {
			t.Errorf("%s: mode %04o, want 0600", tc.name, m)
		}
	}
	if es, _ := os.ReadDir(private); len(es) != len(cases)-1 {
		t.Errorf("%d files in the 0700 folder, want the %d written and nothing else", len(es), len(cases)-1)
	}
	// The rule is the folder's own: a 0700 folder under a 0755 one is one.
	inner := filepath.Join(loose, "mine")
	if err := os.Mkdir(inner, 0o700); err != nil {
		t.Fatal(err)
	}
	if _, errs, code := vd(t, db, "", "render", ss.Winners[50][1], "-o", filepath.Join(inner, "t.png")); code != 0 {
		t.Errorf("render into a 0700 folder under a 0755 one: exit %d %s", code, errs)
	}
}
