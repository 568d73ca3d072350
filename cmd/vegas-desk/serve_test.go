package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/ledgertest"
	"vegas-desk/internal/pgtest"
	"vegas-desk/internal/server"
)

// A pilot from the command line: serve --init makes the authority, desks
// add --out a counter's desk file, and the counter, pointed at the server
// with --server and --desk-cert, pays once, is refused the second time,
// is refused once disabled, and says REGISTRE INJOIGNABLE — NE PAS PAYER
// (exit 1, nothing written) once the server is gone.
func TestServeCLI(t *testing.T) {
	t.Setenv("VEGAS_DESK_PASSPHRASE", ledgertest.Passphrase)
	file := ledgertest.Copy(t, ledgertest.Block)
	dir := filepath.Join(t.TempDir(), "ca")
	if out, errs, code := vd(t, file, "", "serve", "--init", "--dir", dir, "--host", "127.0.0.1"); code != 0 {
		t.Fatalf("serve --init: exit %d\n%s%s", code, out, errs)
	}
	for _, n := range []string{server.AuthorityKey, server.AuthorityCert, server.ServerKey, server.ServerCert} {
		if st, err := os.Stat(filepath.Join(dir, n)); err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v %v", n, st.Mode(), err)
		}
	}
	if _, errs, code := vd(t, file, "", "serve", "--init", "--dir", dir); code == 0 || !strings.Contains(errs, "exists already") {
		t.Errorf("serve --init again: exit %d %s", code, errs)
	}
	desk := filepath.Join(t.TempDir(), "C1.desk")
	if out, errs, code := vd(t, file, "", "desks", "add", "C1", "--limit", "100", "--out", desk, "--dir", dir); code != 0 {
		t.Fatalf("desks add --out: exit %d\n%s%s", code, out, errs)
	}
	if st, err := os.Stat(desk); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("the desk file: %v %v", st, err)
	}
	if _, errs, code := vd(t, file, "", "desks", "cert", "C1", "--out", desk, "--dir", dir); code != 2 {
		t.Errorf("desks cert over an existing file: exit %d %s", code, errs)
	}

	l, s, url := startServer(t, file, dir)
	counter := func(args ...string) (string, string, int) {
		return vd(t, file, "", append([]string{"--server", url, "--desk-cert", desk}, args...)...)
	}
	win := serials(t).Winners[50][3]
	out, errs, code := counter("claim", win, "--json")
	var paid struct{ Desk, Serial string }
	if code != 0 || json.Unmarshal([]byte(out), &paid) != nil || paid.Desk != "C1" {
		t.Fatalf("claim through the server: exit %d\n%s%s", code, out, errs)
	}
	out, _, code = counter("claim", win, "--json")
	if code != 1 || !strings.Contains(out, `"verdict": "already-claimed"`) {
		t.Errorf("second claim: exit %d %s", code, out)
	}
	out, _, code = counter("lookup", serials(t).Winners[1000][0], "--json")
	if code != 0 || !strings.Contains(out, `"verdict": "over-limit"`) {
		t.Errorf("1,000 € at 100 €: exit %d %s", code, out)
	}
	if _, errs, code := counter("void", "1", "--reason", "x"); code == 0 {
		t.Errorf("a counter voided: %s", errs)
	}
	if _, _, code := vd(t, file, "", "desks", "disable", "C1"); code != 0 {
		t.Fatal("desks disable")
	}
	if _, errs, code := counter("claim", serials(t).Winners[3][3]); code != 1 || !strings.Contains(errs, "disabled") {
		t.Errorf("a disabled desk's claim: exit %d %s", code, errs)
	}
	vd(t, file, "", "desks", "enable", "C1")
	// The server's capacity test on this real ledger, whose packs are all
	// on sale at the shops: it has none of its own to claim (TestLoadCLI
	// and TestLoadRealLedger run it).
	if _, errs, code := vd(t, file, "", "load", "--server", url, "--dir", dir, "--counters", "2", "--seconds", "1", "--json",
		"--yes-this-is-a-test"); code != 2 || !strings.Contains(errs, "packs in stock") {
		t.Errorf("load --server on a ledger without stock: exit %d\n%s", code, errs)
	}
	s.Close()
	before, _ := l.Claims(context.Background(), ledger.ClaimFilter{})
	_, errs, code = counter("claim", serials(t).Winners[3][3])
	if code != 1 || !strings.Contains(errs, "REGISTRE INJOIGNABLE — NE PAS PAYER") {
		t.Errorf("the server gone: exit %d %s", code, errs)
	}
	if after, _ := l.Claims(context.Background(), ledger.ClaimFilter{}); len(after) != len(before) {
		t.Error("a claim was written while the server was gone")
	}
}

// On a shared ledger, desks add --out adds the desk (a row: no database
// login) and writes its desk file.
func TestServeDeskWithoutLogin(t *testing.T) {
	t.Setenv("VEGAS_DESK_PASSPHRASE", ledgertest.Passphrase)
	url := pg.URL(pgtest.Owner, pg.NewDatabaseFrom(t, pgFixture(t, ledgertest.Block)))
	dir := filepath.Join(t.TempDir(), "ca")
	if out, errs, code := vd(t, url, "", "serve", "--init", "--dir", dir); code != 0 {
		t.Fatalf("serve --init: exit %d\n%s%s", code, out, errs)
	}
	desk := filepath.Join(t.TempDir(), "P1.desk")
	if out, errs, code := vd(t, url, "", "desks", "add", "P1", "--out", desk, "--dir", dir, "--json"); code != 0 || !strings.Contains(out, `"id": "P1"`) || strings.Contains(out, "role") {
		t.Fatalf("desks add --out on PostgreSQL: exit %d\n%s%s", code, out, errs)
	}
}
