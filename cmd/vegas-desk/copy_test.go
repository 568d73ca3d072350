package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vegas-desk/internal/ledger/ledgertest"
	"vegas-desk/internal/pgtest"
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
	// Its server, started before the restore, answers no desk within a
	// second (it asks again at most once a second).
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
