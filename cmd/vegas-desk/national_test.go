package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/ledgertest"
	"vegas-desk/internal/ledger/protocol"
	"vegas-desk/internal/pgtest"
)

// nationalLedgers are a demonstration ledger on PostgreSQL and one in a
// SQLite file, each with its authority (serve --init): the engines desks
// add --count writes.
func nationalLedgers(t *testing.T) map[string][2]string {
	t.Setenv("VEGAS_DESK_PASSPHRASE", ledgertest.Passphrase)
	out := map[string][2]string{}
	for kind, db := range map[string]string{
		"postgres": pg.URL(pgtest.Owner, pg.NewDatabaseFrom(t, pgFixture(t, ledgertest.Demo))),
		"sqlite":   ledgertest.Copy(t, ledgertest.Demo),
	} {
		ca := filepath.Join(t.TempDir(), "ca")
		if o, errs, code := vd(t, db, "", "serve", "--init", "--dir", ca, "--host", "127.0.0.1"); code != 0 {
			t.Fatalf("%s: serve --init: exit %d\n%s%s", kind, code, o, errs)
		}
		out[kind] = [2]string{db, ca}
	}
	return out
}

// desksOf lists the ledger's desks and the serials of the certificates
// each accepts.
func desksOf(t *testing.T, db string) map[string][]string {
	t.Helper()
	out, errs, code := vd(t, db, "", "desks", "list", "--json")
	var list []struct {
		ID           string
		Certificates []struct{ Serial string }
	}
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil {
		t.Fatalf("desks list: exit %d\n%s%s", code, out, errs)
	}
	m := map[string][]string{}
	for _, d := range list {
		m[d.ID] = []string{}
		for _, c := range d.Certificates {
			m[d.ID] = append(m[d.ID], c.Serial)
		}
	}
	return m
}

// desks add --count N --prefix P --out DIR: N desks, each accepting the
// certificate of its desk file alone, the files 0600 in a new folder 0700,
// one journal entry each for the desk and its certificate; the desk files
// open the server.
func TestDesksAddCount(t *testing.T) {
	for kind, lc := range nationalLedgers(t) {
		t.Run(kind, func(t *testing.T) {
			db, ca := lc[0], lc[1]
			dir := filepath.Join(t.TempDir(), "desks")
			out, errs, code := vd(t, db, "", "desks", "add", "--count", "12", "--prefix", "PV", "--limit", "500", "--out", dir, "--dir", ca)
			if code != 0 || !strings.Contains(out, "12 desks added, PV1 … PV12") {
				t.Fatalf("desks add --count: exit %d\n%s%s", code, out, errs)
			}
			if st, err := os.Stat(dir); err != nil || st.Mode().Perm() != 0o700 {
				t.Fatalf("%s: %v, mode %v; want a folder 0700", dir, err, st.Mode())
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != 12 {
				t.Fatalf("%d files in %s, want 12", len(entries), dir)
			}
			desks := desksOf(t, db)
			for i := 1; i <= 12; i++ {
				id := "PV" + strconv.Itoa(i)
				file := filepath.Join(dir, id+".desk")
				st, err := os.Stat(file)
				if err != nil || st.Mode().Perm() != 0o600 {
					t.Fatalf("%s: %v; want a file 0600", file, err)
				}
				d, err := protocol.ReadDeskFile(file)
				if err != nil {
					t.Fatal(err)
				}
				if d.ID != id || !slices.Equal(desks[id], []string{protocol.CertSerial(d.Cert.Leaf)}) {
					t.Errorf("%s: desk %s, certificate %s; the ledger's desk %s accepts %v", file, d.ID, protocol.CertSerial(d.Cert.Leaf), id, desks[id])
				}
			}
			_, _, url := startServer(t, db, ca)
			l, err := ledger.OpenServer(url, filepath.Join(dir, "PV7.desk"))
			if err != nil {
				t.Fatalf("PV7's desk file does not open the server: %v", err)
			}
			defer l.Close()
			if l.CounterDesk() != "PV7" || int(l.CounterLimit()) != 500 {
				t.Errorf("the server answers for desk %s, limit %v; want PV7, 500 €", l.CounterDesk(), l.CounterLimit())
			}
			if out, errs, code := vd(t, db, "", "verify", "--json"); code != 0 || !strings.Contains(out, `"ok": true`) {
				t.Errorf("verify after desks add --count: exit %d\n%s%s", code, out, errs)
			}
		})
	}
}

// All or nothing: a desks add --count whose transaction fails after every
// desk file is written (a desk of its range exists already: the
// transaction has added the ones before it) leaves no desk, no desk file
// and no folder; so does one whose files cannot be written; bad input is
// refused before anything is made, with what to do.
func TestDesksAddCountAllOrNothing(t *testing.T) {
	for kind, lc := range nationalLedgers(t) {
		t.Run(kind, func(t *testing.T) {
			db, ca := lc[0], lc[1]
			if out, errs, code := vd(t, db, "", "desks", "add", "PV4"); code != 0 {
				t.Fatalf("desks add PV4: exit %d\n%s%s", code, out, errs)
			}
			before := desksOf(t, db)
			head := func() string {
				l, err := ledger.OpenReadOnly(db)
				if err != nil {
					t.Fatal(err)
				}
				defer l.Close()
				h, err := l.Head(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				return h
			}
			entries := head()
			dir := filepath.Join(t.TempDir(), "desks")
			out, errs, code := vd(t, db, "", "desks", "add", "--count", "6", "--prefix", "PV", "--out", dir, "--dir", ca)
			if code == 0 || !strings.Contains(errs, "desk PV4 exists already") || !strings.Contains(errs, "no desk added, no desk file left") {
				t.Errorf("desks add --count over an existing desk: exit %d\n%s%s", code, out, errs)
			}
			if _, err := os.Lstat(dir); !os.IsNotExist(err) {
				t.Errorf("%s is left behind (%v)", dir, err)
			}
			if after := desksOf(t, db); len(after) != len(before) {
				t.Errorf("desks after the failed desks add --count: %v; before: %v", after, before)
			}
			if h := head(); h != entries {
				t.Errorf("the journal's head is %s after the failed desks add --count, %s before", h, entries)
			}

			// The folder cannot be made (its parent is missing): nothing is.
			missing := filepath.Join(t.TempDir(), "missing", "desks")
			_, errs, code = vd(t, db, "", "desks", "add", "--count", "3", "--prefix", "Q", "--out", missing, "--dir", ca)
			if code == 0 || !strings.Contains(errs, "the folder of the desk files") {
				t.Errorf("desks add --count into a missing folder: exit %d\n%s", code, errs)
			}
			ro := t.TempDir()
			for _, c := range []struct {
				args []string
				want string
			}{
				{[]string{"--count", "0", "--prefix", "Q", "--out", dir}, "--count 0: give 1 to 100000 desks"},
				{[]string{"--count", "3", "--out", dir}, "--count needs --prefix P"},
				{[]string{"--count", "3", "--prefix", "Q"}, "--count needs --out DIR"},
				{[]string{"--count", "3", "--prefix", "Q", "--out", ro}, "--out " + ro + " exists"},
				{[]string{"--count", "3", "--prefix", "Q!", "--out", dir}, "--prefix Q!: desk id \"Q!1\""},
				{[]string{"--count", "3", "--prefix", "_load-", "--out", dir}, "--prefix _load-"},
				{[]string{"--count", "3", "--prefix", strings.Repeat("Q", 32), "--out", dir}, "use 1 to 32 letters"},
				{[]string{"Q1", "--count", "3", "--prefix", "Q", "--out", dir}, "no desk ID with --count"},
			} {
				_, errs, code := vd(t, db, "", append([]string{"desks", "add", "--dir", ca}, c.args...)...)
				if code != 2 || !strings.Contains(errs, c.want) {
					t.Errorf("desks add %v: exit %d, want 2 and %q\n%s", c.args, code, c.want, errs)
				}
			}
			if _, err := os.Lstat(dir); !os.IsNotExist(err) {
				t.Errorf("%s is left behind (%v)", dir, err)
			}
			if h := head(); h != entries {
				t.Errorf("the journal's head is %s after refused desks add --count, %s before", h, entries)
			}
		})
	}
}

// load --server --desks DIR --winners --claims N: N answers, each a
// payment of a winner of its own, spread over every desk of DIR.
func TestLoadDesksWinners(t *testing.T) {
	lc := nationalLedgers(t)["postgres"]
	db, ca := lc[0], lc[1]
	dir := filepath.Join(t.TempDir(), "desks")
	if out, errs, code := vd(t, db, "", "desks", "add", "--count", "7", "--prefix", "PV", "--limit", "1000000", "--out", dir, "--dir", ca); code != 0 {
		t.Fatalf("desks add --count: exit %d\n%s%s", code, out, errs)
	}
	_, _, url := startServer(t, db, ca)
	out, errs, code := vd(t, db, "", "load", "--server", url, "--desks", dir, "--winners", "--claims", "70", "--counters", "4", "--seconds", "120", "--json")
	var r struct{ Answers, Paid int }
	if code != 0 || json.Unmarshal([]byte(out), &r) != nil {
		t.Fatalf("load --desks --winners: exit %d\n%s%s", code, out, errs)
	}
	if r.Answers != 70 || r.Paid != 70 || !strings.Contains(errs, "7 desks of "+dir) || !strings.Contains(errs, "unpaid winners on sale, each claimed once") {
		t.Errorf("load --desks --winners --claims 70: %+v\n%s", r, errs)
	}
	l, err := ledger.OpenReadOnly(db)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	claims, err := l.Claims(context.Background(), ledger.ClaimFilter{})
	if err != nil {
		t.Fatal(err)
	}
	serials, byDesk := map[string]bool{}, map[string]int{}
	for _, c := range claims {
		serials[c.Serial] = true
		byDesk[c.Desk]++
	}
	if len(claims) != 70 || len(serials) != 70 || len(byDesk) != 7 {
		t.Errorf("%d claims of %d tickets by %d desks (%v); want 70 of 70 by the 7", len(claims), len(serials), len(byDesk), byDesk)
	}
	for d, n := range byDesk {
		if n != 10 {
			t.Errorf("desk %s made %d claims; want the 70 spread evenly, 10 each (%v)", d, n, byDesk)
		}
	}
	// On a ledger that is not a demonstration ledger: refused, with why.
	real := pg.URL(pgtest.Owner, pg.NewDatabaseFrom(t, pgFixture(t, ledgertest.Block)))
	if _, errs, code := vd(t, real, "", "load", "--server", url, "--desks", dir, "--yes-this-is-a-test"); code != 2 || !strings.Contains(errs, "--desks and --winners are for a demonstration ledger") {
		t.Errorf("load --desks of a real ledger: exit %d\n%s", code, errs)
	}
	empty := t.TempDir()
	if _, errs, code := vd(t, db, "", "load", "--server", url, "--desks", empty); code != 2 || !strings.Contains(errs, "holds no desk file") {
		t.Errorf("load --desks of an empty folder: exit %d\n%s", code, errs)
	}
}
