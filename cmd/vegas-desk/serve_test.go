package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

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

// A server's address given as --db makes no file named https:/HOST: it is
// refused (exit 2), naming --server, wherever --db is given (before the
// command, after it, VEGAS_DESK_DB), and the ledger facade refuses it too.
func TestDBOfAServerAddress(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, addr := range []string{"https://127.0.0.1:8443", "http://127.0.0.1:8443", "HTTPS://server.example:8443"} {
		for name, args := range map[string][]string{
			"before":        {"--db", addr, "generate", "--demo"},
			"after":         {"generate", "--demo", "--db", addr},
			"lookup":        {"--db", addr, "lookup", "531-0001-0000000-0000-0000-0000-0000-0"},
			"VEGAS_DESK_DB": {"generate", "--demo"},
		} {
			if name == "VEGAS_DESK_DB" {
				t.Setenv("VEGAS_DESK_DB", addr)
			} else {
				t.Setenv("VEGAS_DESK_DB", "")
			}
			var out, errb strings.Builder
			code := run(args, strings.NewReader(""), &out, &errb)
			if code != 2 || !strings.Contains(errb.String(), "--server "+addr) || !strings.Contains(errb.String(), "--desk-cert") {
				t.Errorf("%s %s: exit %d\n%s%s", addr, name, code, out.String(), errb.String())
			}
		}
		if _, err := ledger.Open(addr); !errors.Is(err, ledger.ErrInvalid) {
			t.Errorf("ledger.Open(%s): %v", addr, err)
		}
	}
	if left, _ := filepath.Glob("*"); len(left) != 0 {
		t.Errorf("files made: %v", left)
	}
}

// A terminal replaced, from the command line: desks cert writes a new desk
// file and the old one (stolen with the terminal) is refused as revoked,
// also after desks disable and enable; --keep-old keeps the earlier one;
// desks revoke --cert FILE or SERIAL refuses one; desks list shows each
// desk's certificates and their expiry.
func TestDeskCertRevokesTheOldFile(t *testing.T) {
	t.Setenv("VEGAS_DESK_PASSPHRASE", ledgertest.Passphrase)
	file := ledgertest.Copy(t, ledgertest.Block)
	dir := filepath.Join(t.TempDir(), "ca")
	if out, errs, code := vd(t, file, "", "serve", "--init", "--dir", dir, "--host", "127.0.0.1"); code != 0 {
		t.Fatalf("serve --init: exit %d\n%s%s", code, out, errs)
	}
	files := t.TempDir()
	old, replacement, spare := filepath.Join(files, "old.desk"), filepath.Join(files, "new.desk"), filepath.Join(files, "spare.desk")
	if out, errs, code := vd(t, file, "", "desks", "add", "C1", "--limit", "100", "--out", old, "--dir", dir); code != 0 {
		t.Fatalf("desks add --out: exit %d\n%s%s", code, out, errs)
	}
	_, _, url := startServer(t, file, dir)
	with := func(desk string, args ...string) (string, string, int) {
		return vd(t, file, "", append([]string{"--server", url, "--desk-cert", desk}, args...)...)
	}
	win := serials(t).Winners[3]
	if out, errs, code := with(old, "claim", win[0]); code != 0 {
		t.Fatalf("the first desk file: exit %d\n%s%s", code, out, errs)
	}
	if out, errs, code := vd(t, file, "", "desks", "cert", "C1", "--out", replacement, "--dir", dir); code != 0 || !strings.Contains(errs, "revoked") {
		t.Fatalf("desks cert: exit %d\n%s%s", code, out, errs)
	}
	for _, step := range []string{"after desks cert", "after disable and enable"} {
		if _, errs, code := with(old, "claim", win[1]); code == 0 || !strings.Contains(errs, "no longer accepts this desk file's certificate") {
			t.Errorf("the old desk file %s: exit %d %s", step, code, errs)
		}
		vd(t, file, "", "desks", "disable", "C1")
		vd(t, file, "", "desks", "enable", "C1")
	}
	if out, errs, code := with(replacement, "claim", win[1]); code != 0 {
		t.Fatalf("the new desk file: exit %d\n%s%s", code, out, errs)
	}
	if out, errs, code := vd(t, file, "", "desks", "cert", "C1", "--out", spare, "--dir", dir, "--keep-old"); code != 0 || strings.Contains(errs, "revoked") {
		t.Fatalf("desks cert --keep-old: exit %d\n%s%s", code, out, errs)
	}
	out, _, _ := vd(t, file, "", "desks", "list", "--json")
	var list []struct {
		ID    string
		Certs []struct {
			Serial   string
			NotAfter time.Time `json:"not_after"`
		} `json:"certificates"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list) != 1 || len(list[0].Certs) != 2 || list[0].Certs[0].NotAfter.Before(time.Now().AddDate(1, 0, 0)) {
		t.Fatalf("desks list --json: %v\n%s", err, out)
	}
	if out, _, _ := vd(t, file, "", "desks", "list"); !strings.Contains(out, "certificate "+list[0].Certs[0].Serial+" until ") {
		t.Errorf("desks list: %s", out)
	}
	if out, errs, code := vd(t, file, "", "desks", "revoke", "C1", "--cert", replacement); code != 0 {
		t.Fatalf("desks revoke --cert FILE: exit %d\n%s%s", code, out, errs)
	}
	if _, errs, code := with(replacement, "claim", win[2]); code == 0 || !strings.Contains(errs, "revoked") {
		t.Errorf("a revoked desk file: exit %d %s", code, errs)
	}
	if out, errs, code := with(spare, "claim", win[2]); code != 0 {
		t.Errorf("the desk file kept: exit %d\n%s%s", code, out, errs)
	}
	if _, errs, code := vd(t, file, "", "desks", "revoke", "C1", "--cert", "abc123"); code != 2 || !strings.Contains(errs, "accepts no certificate abc123") {
		t.Errorf("revoking a certificate the desk does not accept: exit %d %s", code, errs)
	}
	if out, errs, code := vd(t, file, "", "verify"); code != 0 {
		t.Errorf("verify: exit %d\n%s%s", code, out, errs)
	}
}

// Through the server, a counter is told of another desk's payment only
// that it was paid and when: lookup and claim name neither the desk nor
// the cashier; the desk that paid sees both.
func TestOtherDesksPaymentCLI(t *testing.T) {
	t.Setenv("VEGAS_DESK_PASSPHRASE", ledgertest.Passphrase)
	file := ledgertest.Copy(t, ledgertest.Block)
	dir := filepath.Join(t.TempDir(), "ca")
	if out, errs, code := vd(t, file, "", "serve", "--init", "--dir", dir, "--host", "127.0.0.1"); code != 0 {
		t.Fatalf("serve --init: exit %d\n%s%s", code, out, errs)
	}
	desks := map[string]string{}
	for _, id := range []string{"C1", "C2"} {
		desks[id] = filepath.Join(t.TempDir(), id+".desk")
		if out, errs, code := vd(t, file, "", "desks", "add", id, "--limit", "100", "--out", desks[id], "--dir", dir); code != 0 {
			t.Fatalf("desks add %s: exit %d\n%s%s", id, code, out, errs)
		}
	}
	_, _, url := startServer(t, file, dir)
	as := func(desk string, args ...string) (string, string, int) {
		return vd(t, file, "", append([]string{"--server", url, "--desk-cert", desks[desk]}, args...)...)
	}
	win := serials(t).Winners[50][7]
	if out, errs, code := as("C1", "claim", win, "--operator", "secret-cashier"); code != 0 {
		t.Fatalf("C1's claim: exit %d\n%s%s", code, out, errs)
	}
	day := time.Now().Format("2006-01-02")
	if out, _, _ := as("C1", "lookup", win); !strings.Contains(out, "at desk C1 by secret-cashier") {
		t.Errorf("the payer's lookup: %s", out)
	}
	out, _, _ := as("C2", "lookup", win)
	if !strings.Contains(out, "already paid on "+day+" at another desk") || strings.Contains(out, "C1") || strings.Contains(out, "secret-cashier") {
		t.Errorf("another desk's lookup: %s", out)
	}
	out, errs, code := as("C2", "claim", win)
	if code != 1 || !strings.Contains(out+errs, "already paid on "+day) || strings.Contains(out+errs, "C1") || strings.Contains(out+errs, "secret-cashier") {
		t.Errorf("another desk's claim: exit %d\n%s%s", code, out, errs)
	}
}

// TestServeGC: serve's garbage collector's target is serveGCPercent while
// it serves, the one before once it stops, and GOGC's when given.
func TestServeGC(t *testing.T) {
	percent := func() int { p := debug.SetGCPercent(-1); debug.SetGCPercent(p); return p }
	before := percent()
	for _, c := range []struct {
		gogc string
		want int
	}{{"", serveGCPercent}, {"50", before}} {
		t.Setenv("GOGC", c.gogc)
		restore := serveGC()
		if got := percent(); got != c.want {
			t.Errorf("GOGC=%q: serving with a target of %d, want %d", c.gogc, got, c.want)
		}
		restore()
		if got := percent(); got != before {
			t.Errorf("GOGC=%q: after serving, a target of %d, want %d as before", c.gogc, got, before)
		}
	}
}
