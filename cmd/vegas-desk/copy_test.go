package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"vegas-desk/internal/ledger"

	"vegas-desk/internal/ledger/ledgertest"
	"vegas-desk/internal/pgtest"
	"vegas-desk/internal/server"
)

// Issue 29's attack: copy postgres://… backup.db, serve the copy, and
// pay with an old desk file a ticket already paid on PostgreSQL. A copy
// is a new ledger: the original's authority does not serve it, and a
// server of its own refuses the old desk file at the handshake. A
// restore (copy --restore) replaces the original: the desk file pays
// there (the ticket paid before stays paid), and the original, which
// answered, serves no more: refused at start, and its running server
// answers no desk.
func TestCopyIsANewLedger(t *testing.T) {
	url := pg.URL(pgtest.Owner, pg.NewDatabase(t))
	t.Setenv("PGPASSWORD", pg.Password) // the back office's login, as libpq finds it (a copy names no password)
	file := ledgertest.Copy(t, ledgertest.Block)
	if _, errs, code := vd(t, file, "", "copy", file, url); code != 0 {
		t.Fatalf("copy into PostgreSQL: %s", errs)
	}
	dir, srv := serveOf(t, url)
	d1 := filepath.Join(t.TempDir(), "D1.desk")
	if _, errs, code := vd(t, url, "", "desks", "add", "D1", "--limit", "150", "--out", d1, "--dir", dir); code != 0 {
		t.Fatalf("desks add: %s", errs)
	}
	ws := serials(t).Winners[50]
	paid, other := ws[0], ws[1]
	desk := func(srv string, args ...string) (string, string, int) {
		return vd(t, url, "", append([]string{"--server", srv, "--desk-cert", d1}, args...)...)
	}
	if _, errs, code := desk(srv, "claim", paid, "--operator", "ann"); code != 0 {
		t.Fatalf("pay on PostgreSQL: %s", errs)
	}

	backup := filepath.Join(t.TempDir(), "backup.db")
	out, errs, code := vd(t, url, "", "copy", url, backup)
	if code != 0 || !strings.Contains(out, "a new ledger") {
		t.Fatalf("copy: exit %d\n%s%s", code, out, errs)
	}
	// Served with the original's authority: refused.
	if _, errs, code := vd(t, backup, "", "serve", "--dir", dir, "--listen", "127.0.0.1:0"); code == 0 || !strings.Contains(errs, "authority of another ledger") {
		t.Errorf("serve the copy with the original's authority: exit %d %s", code, errs)
	}
	// With an authority of its own: the old desk file pays nothing.
	_, copySrv := serveOf(t, backup)
	if _, errs, code := desk(copySrv, "claim", paid, "--operator", "mallory"); code == 0 {
		t.Fatalf("the copy paid a ticket paid on PostgreSQL with the original's desk file")
	} else if !strings.Contains(errs, "certificate") && !strings.Contains(errs, "ledger") {
		t.Errorf("the refusal: %s", errs)
	}
	if _, errs, code := desk(copySrv, "claim", other, "--operator", "mallory"); code == 0 {
		t.Errorf("the copy took the original's desk file: %s", errs)
	}

	// The restore replaces the original, which answers: marked replaced.
	restored := filepath.Join(t.TempDir(), "restored.db")
	out, errs, code = vd(t, backup, "", "copy", "--restore", backup, restored)
	if code != 0 || !strings.Contains(out, "REPLACES ledger") || !strings.Contains(out, "was marked replaced") {
		t.Fatalf("copy --restore: exit %d\n%s%s", code, out, errs)
	}
	if _, errs, code := vd(t, url, "", "serve", "--dir", dir, "--listen", "127.0.0.1:0"); code != 1 || !strings.Contains(errs, "was replaced") {
		t.Errorf("serve the original after the restore: exit %d %s", code, errs)
	}
	// Its server, started before the restore, answers no desk from its
	// next question on (issue 36: it asks before every question).
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, errs, code := desk(srv, "lookup", other)
		if code != 0 && strings.Contains(errs, "was replaced") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the original's running server still answers after the restore: exit %d %s", code, errs)
		}
		time.Sleep(50 * time.Millisecond) // between two questions of the poll
	}
	if _, errs, code := desk(srv, "claim", other, "--operator", "mallory"); code == 0 || !strings.Contains(errs, "was replaced") {
		t.Errorf("the original's running server paid after the restore: exit %d %s", code, errs)
	}
	_, _, restoredSrv := startServer(t, restored, dir)
	if _, errs, code := desk(restoredSrv, "claim", paid, "--operator", "mallory"); code != 1 || !strings.Contains(errs, "already claimed") {
		t.Errorf("the restore paid a ticket paid before: exit %d %s", code, errs)
	}
	if out, errs, code := desk(restoredSrv, "claim", other, "--operator", "ann"); code != 0 {
		t.Errorf("the desk file on the restore: exit %d\n%s%s", code, out, errs)
	}
}

// backupOf takes a backup of the ledger at db into a new folder (backup
// --dir) and returns its file.
func backupOf(t *testing.T, db string) string {
	t.Helper()
	out, errs, code := vd(t, db, "", "backup", "--dir", filepath.Join(t.TempDir(), "backups"), "--json")
	var b struct{ File string }
	if code != 0 || json.Unmarshal([]byte(out), &b) != nil || b.File == "" {
		t.Fatalf("backup of %s: exit %d\n%s%s", db, code, out, errs)
	}
	return b.File
}

// ledgerID is the id of the ledger at db.
func ledgerID(t *testing.T, db string) string {
	t.Helper()
	l, err := ledger.OpenReadOnly(db)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.ID()
}

// servable is ledger.CheckServable of the ledger at db.
func servable(t *testing.T, db string) error {
	t.Helper()
	l, err := ledger.OpenReadOnly(db)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return ledger.CheckServable(context.Background(), l)
}

// Issue 44 item 3: a backup of a copy, restored, took the name of the
// copy's original: it said it REPLACES the original, marked it replaced
// (its server then refused every desk), and the original's desk file paid
// a ticket again on the restore. A restore replaces the ledger its backup
// was taken of: on a copy, a copy of a copy, and a copy in PostgreSQL.
func TestRestoreOfACopysBackup(t *testing.T) {
	orig := ledgertest.Copy(t, ledgertest.Block)
	copy1 := filepath.Join(t.TempDir(), "copy.db")
	copy2 := filepath.Join(t.TempDir(), "copy2.db")
	if _, errs, code := vd(t, orig, "", "copy", orig, copy1); code != 0 {
		t.Fatalf("copy: %s", errs)
	}
	if _, errs, code := vd(t, copy1, "", "copy", copy1, copy2); code != 0 {
		t.Fatalf("copy of the copy: %s", errs)
	}
	b1, b2 := backupOf(t, copy1), backupOf(t, copy2)

	// The original serves; its desk file pays a ticket after the backups.
	dir, srv := serveOf(t, orig)
	d1 := filepath.Join(t.TempDir(), "D1.desk")
	if _, errs, code := vd(t, orig, "", "desks", "add", "D1", "--limit", "150", "--out", d1, "--dir", dir); code != 0 {
		t.Fatalf("desks add: %s", errs)
	}
	x := serials(t).Winners[50][0]
	if _, errs, code := vd(t, orig, "", "--server", srv, "--desk-cert", d1, "claim", x, "--operator", "ann"); code != 0 {
		t.Fatalf("pay on the original: %s", errs)
	}

	for _, c := range []struct{ name, backup, of string }{{"copy", b1, copy1}, {"copy of a copy", b2, copy2}} {
		restored := filepath.Join(t.TempDir(), "restored.db")
		out, errs, code := vd(t, c.backup, "", "copy", "--restore", c.backup, restored)
		t.Logf("%s: restore said:\n%s%s", c.name, out, errs)
		if code != 0 || !strings.Contains(out, "REPLACES ledger "+ledgerID(t, c.of)+" (at "+c.of+")") {
			t.Errorf("%s: the restore of its backup: exit %d\n%s%s", c.name, code, out, errs)
		}
		if got := ledgerID(t, restored); got != ledgerID(t, c.of) {
			t.Errorf("%s: the restore is ledger %s, not the backed-up %s", c.name, got, ledgerID(t, c.of))
		}
		if err := servable(t, orig); err != nil {
			t.Errorf("%s: the copy's original was marked: %v", c.name, err)
		}
		if err := servable(t, c.of); err == nil {
			t.Errorf("%s: the ledger backed up was not marked replaced", c.name)
		}
		// The original's authority does not serve the restore, and the
		// original's desk file pays nothing there.
		l, err := ledger.Open(restored)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := server.New(l, server.Config{Dir: dir}); err == nil || !strings.Contains(err.Error(), "authority of another ledger") {
			t.Errorf("%s: the original's authority serves the restore: %v", c.name, err)
		}
		l.Close()
		_, rsrv := serveOf(t, restored)
		if _, errs, code := vd(t, orig, "", "--server", rsrv, "--desk-cert", d1, "claim", x, "--operator", "mallory"); code == 0 {
			t.Errorf("%s: the original's desk file paid %s again on the restore", c.name, x)
		} else {
			t.Logf("%s: the original's desk file on the restore: %s", c.name, errs)
		}
	}
	// The original still serves its desk.
	if _, errs, code := vd(t, orig, "", "--server", srv, "--desk-cert", d1, "lookup", serials(t).Winners[50][1]); code != 0 {
		t.Errorf("the original after the restores: %s", errs)
	}

	// PostgreSQL: a copy of the file in a database, backed up, restored.
	url := pg.URL(pgtest.Owner, pg.NewDatabase(t))
	t.Setenv("PGPASSWORD", pg.Password)
	if _, errs, code := vd(t, orig, "", "copy", orig, url); code != 0 {
		t.Fatalf("copy into PostgreSQL: %s", errs)
	}
	bp := backupOf(t, url)
	restored := filepath.Join(t.TempDir(), "restored-pg.db")
	out, errs, code := vd(t, bp, "", "copy", "--restore", bp, restored)
	t.Logf("PostgreSQL: restore said:\n%s%s", out, errs)
	if code != 0 || !strings.Contains(out, "REPLACES ledger "+ledgerID(t, url)) || !strings.Contains(out, "was marked replaced") {
		t.Errorf("PostgreSQL: the restore of its backup: exit %d\n%s%s", code, out, errs)
	}
	if err := servable(t, orig); err != nil {
		t.Errorf("PostgreSQL: the copy's original file was marked: %v", err)
	}
	if err := servable(t, url); err == nil {
		t.Errorf("PostgreSQL: the database backed up was not marked replaced")
	}
}

// paymentsOf counts the payments of serial in the ledger at db (a
// served PostgreSQL ledger: chained ones).
func paymentsOf(t *testing.T, db, serial string) int {
	t.Helper()
	l, err := ledger.OpenReadOnly(db)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	cs, err := l.Claims(context.Background(), ledger.ClaimFilter{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range cs {
		if c.Serial == serial && !c.Voided {
			n++
		}
	}
	return n
}

// Issue 36 item 2: a backup restored while the original still served:
// the restore marked nothing the original's servers read (it named the
// backup file as the original), both servers took the same desk file, and
// one ticket was paid on each. On a file and on PostgreSQL, both servers
// running, 20 claims of one ticket spread over both: one payment. Then a
// restore that cannot reach its original: refused unless --original-gone;
// with it, the restore refuses the original's desk files (a new one per
// desk), and the original brought back refuses a desk that moved on, and
// from then every desk.
func TestRestoreFencesTheOriginal(t *testing.T) {
	t.Setenv("PGPASSWORD", pg.Password)
	url := pg.URL(pgtest.Owner, pg.NewDatabaseFrom(t, pgFixture(t, ledgertest.Block))) // the fixture's block in PostgreSQL, a copy of the tests' template
	ws := serials(t).Winners[50]
	for _, kind := range []struct{ name, orig string }{{"file", ledgertest.Copy(t, ledgertest.Block)}, {"PostgreSQL", url}} {
		orig := kind.orig
		dir, srv := serveOf(t, orig)
		d1 := filepath.Join(t.TempDir(), "D1.desk")
		if _, errs, code := vd(t, orig, "", "desks", "add", "D1", "--limit", "150", "--out", d1, "--dir", dir); code != 0 {
			t.Fatalf("%s: desks add: %s", kind.name, errs)
		}
		claim := func(srv, desk, serial, who string) (string, int) {
			_, errs, code := vd(t, orig, "", "--server", srv, "--desk-cert", desk, "claim", serial, "--operator", who)
			return errs, code
		}
		backup := backupOf(t, orig)
		restored := filepath.Join(t.TempDir(), "restored.db")
		if kind.orig == url {
			// The database's login refused: it cannot be marked, so the
			// restore is refused, nothing written.
			t.Setenv("PGPASSWORD", "not-the-password")
			_, errs, code := vd(t, backup, "", "copy", "--restore", backup, restored)
			t.Setenv("PGPASSWORD", pg.Password)
			if _, err := os.Stat(restored); code == 0 || err == nil || !strings.Contains(errs, "--original-gone") {
				t.Errorf("%s: a restore whose original refuses its login: exit %d %s", kind.name, code, errs)
			}
			t.Logf("%s: login refused, the restore refused: %s", kind.name, errs)
		}
		out, errs, code := vd(t, backup, "", "copy", "--restore", backup, restored)
		t.Logf("%s: the restore said: exit %d\n%s%s", kind.name, code, out, errs)
		if code != 0 {
			t.Fatalf("%s: restore", kind.name)
		}
		_, _, rsrv := startServer(t, restored, dir)
		x := ws[0]
		paid := 0
		for i := range 20 {
			s := []string{srv, rsrv}[i%2]
			if errs, code := claim(s, d1, x, fmt.Sprint("op", i)); code == 0 {
				paid++
			} else if i < 2 {
				t.Logf("%s: claim %d on %s: %s", kind.name, i, s, errs)
			}
		}
		if n := paymentsOf(t, orig, x) + paymentsOf(t, restored, x); paid != 1 || n != 1 {
			t.Errorf("%s: 20 claims of %s over the original's server and the restore's: %d paid, %d payments in the two ledgers; one wanted", kind.name, x, paid, n)
		}

		// A restore that cannot reach its original (its file moved away,
		// its database's login refused): refused, nothing written.
		backup = backupOf(t, restored)
		again := filepath.Join(t.TempDir(), "again.db")
		hidden := restored + ".away"
		if err := os.Rename(restored, hidden); err != nil {
			t.Fatal(err)
		}
		out, errs, code = vd(t, backup, "", "copy", "--restore", backup, again)
		if _, err := os.Stat(again); code == 0 || err == nil || !strings.Contains(errs, "--original-gone") {
			t.Errorf("%s: a restore whose original does not answer: exit %d\n%s%s", kind.name, code, out, errs)
		}
		t.Logf("%s: unreachable original, refused: %s", kind.name, errs)
		out, errs, code = vd(t, backup, "", "copy", "--restore", "--original-gone", backup, again)
		if code != 0 || !strings.Contains(out, "takes no earlier desk file") {
			t.Fatalf("%s: restore --original-gone: exit %d\n%s%s", kind.name, code, out, errs)
		}
		if err := os.Rename(hidden, restored); err != nil { // the original brought back
			t.Fatal(err)
		}
		_, _, asrv := startServer(t, again, dir)
		y := ws[1]
		if errs, code := claim(asrv, d1, y, "old"); code == 0 || !strings.Contains(errs, "incarnation") {
			t.Errorf("%s: the original's desk file on a restore that did not fence it: exit %d %s", kind.name, code, errs)
		}
		d1b := filepath.Join(t.TempDir(), "D1b.desk")
		if _, errs, code := vd(t, again, "", "desks", "cert", "D1", "--out", d1b, "--dir", dir); code != 0 {
			t.Fatalf("%s: desks cert on the restore: %s", kind.name, errs)
		}
		paid = 0
		for i := range 20 {
			s := []string{rsrv, asrv}[i%2]
			if errs, code := claim(s, d1b, y, fmt.Sprint("op", i)); code == 0 {
				paid++
			} else if i < 2 {
				t.Logf("%s: claim %d on %s: %s", kind.name, i, s, errs)
			}
		}
		if n := paymentsOf(t, restored, y) + paymentsOf(t, again, y); paid != 1 || n != 1 {
			t.Errorf("%s: 20 claims of %s over the original brought back and the restore: %d paid, %d payments; one wanted", kind.name, y, paid, n)
		}
		// The original brought back, shown a desk file that moved on, is
		// replaced: the old desk file pays nothing there either.
		if errs, code := claim(rsrv, d1, ws[2], "old"); code == 0 || !strings.Contains(errs, "replaced") {
			t.Errorf("%s: the old desk file on the original brought back: exit %d %s", kind.name, code, errs)
		}
	}
}
