package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/ledgertest"
	"vegas-desk/internal/pgtest"
)

var pg *pgtest.Server

func TestMain(m *testing.M) {
	runChild() // a command line run as its own process (access_test.go)
	// The command line's messages in English, whatever the machine's
	// locale (TestFrench sets its own).
	os.Unsetenv("LC_ALL")
	os.Unsetenv("LC_MESSAGES")
	os.Setenv("LANG", "C")
	var err error
	// The fixtures the tests copy in PostgreSQL loaded already (a copy of
	// a server's data directory saved once per state of the sources, the
	// same as internal/ledger's tests start): each test process of the
	// package (make test runs two) loaded a 2,000,000-ticket block, a
	// demonstration ledger and the conformance world itself, seconds each.
	pg, err = ledgertest.StartPostgres(pgFixtureNames...)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	pg.Stop()
	removeBuilds()
	os.Exit(code)
}

// pgFixtures are ledgertest's fixtures loaded into the tests' server, by
// name: templates that tests copy. The server starts with those of
// pgFixtureNames (internal/ledger's list: one saved server for both).
var pgFixtures sync.Map // name → func() (string, error)

var pgFixtureNames = []string{ledgertest.Block, ledgertest.Stock, ledgertest.Demo, ledgertest.Sealed, ledgertest.Conformance}

// pgFixture is the template database of ledgertest's fixture name.
func pgFixture(t *testing.T, name string) string {
	t.Helper()
	load, _ := pgFixtures.LoadOrStore(name, sync.OnceValues(func() (string, error) { return ledgertest.Postgres(pg, name) }))
	db, err := load.(func() (string, error))()
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// A pilot's day on a shared ledger, from the command line: a file copied
// into PostgreSQL, counters added (rows, and a desk file), a counter
// through the validation server paying, refused what is not its own, and
// the copy verified like its source.
func TestSharedLedgerCLI(t *testing.T) {
	file := ledgertest.Copy(t, ledgertest.Block)
	winner := serials(t).Winners[50][0]
	db := pg.NewDatabase(t)
	url := pg.URL(pgtest.Owner, db)
	out, errs, code := vd(t, file, "", "copy", file, url, "--json")
	var copied struct{ Head string }
	if code != 0 || json.Unmarshal([]byte(out), &copied) != nil || len(copied.Head) != 64 {
		t.Fatalf("copy: exit %d\n%s\n%s", code, out, errs)
	}
	vf, _, _ := vd(t, file, "", "verify", "--json")
	vp, errs, code := vd(t, url, "", "verify", "--json")
	var a, b struct {
		OK   bool
		Head string
	}
	json.Unmarshal([]byte(vf), &a)
	json.Unmarshal([]byte(vp), &b)
	if code != 0 || !a.OK || !b.OK || a.Head != b.Head || b.Head != copied.Head {
		t.Fatalf("verify: file %s, database %s (%s)", vf, vp, errs)
	}

	dir, srv := serveOf(t, url)
	d1 := filepath.Join(t.TempDir(), "D1.desk")
	out, errs, code = vd(t, url, "", "desks", "add", "D1", "--limit", "150", "--out", d1, "--dir", dir, "--json")
	if code != 0 || !strings.Contains(out, `"id": "D1"`) {
		t.Fatalf("desks add: exit %d\n%s\n%s", code, out, errs)
	}
	if _, errs, code := vd(t, url, "", "desks", "add", "D2"); code != 0 {
		t.Errorf("desks add without a desk file: exit %d, %s", code, errs)
	}
	if _, errs, code := vd(t, url, "", "desks", "add", "D3", "--password-file", d1); code != 2 || !strings.Contains(errs, "password-file") {
		t.Errorf("desks add --password-file (counters have no login): exit %d, %s", code, errs)
	}
	if _, errs, code := vd(t, url, "", "desks", "password", "D1"); code != 2 || !strings.Contains(errs, "want add") {
		t.Errorf("desks password (counters have no login): exit %d, %s", code, errs)
	}
	if out, _, code := vd(t, url, "", "desks", "list", "--json"); code != 0 || !strings.Contains(out, `"id": "D1"`) || strings.Contains(out, "role") {
		t.Errorf("desks list: %s", out)
	}

	// The counter, through the ledger's validation server.
	counter := func(args ...string) (string, string, int) {
		return vd(t, url, "", append([]string{"--server", srv, "--desk-cert", d1}, args...)...)
	}
	for _, tc := range []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{[]string{"lookup", winner}, 0, "payable", ""},
		{[]string{"claim", winner, "--desk", "D9", "--operator", "ann"}, 1, "", "desk"},
		{[]string{"claim", winner, "--operator", "ann", "--json"}, 0, `"desk": "D1"`, ""},
		{[]string{"claim", winner, "--operator", "ann"}, 1, "", "already claimed"},
		{[]string{"claims", "--json"}, 0, `"operator": "ann"`, ""},
		{[]string{"generate"}, 2, "", "back office"},
		{[]string{"verify"}, 1, "", "back office"},
		{[]string{"export", "--block", "1"}, 1, "", "back office"},
		{[]string{"desks", "list"}, 1, "", "back office"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			out, errs, code := counter(tc.args...)
			if code != tc.code || !strings.Contains(out, tc.stdout) || !strings.Contains(errs, tc.stderr) {
				t.Errorf("exit %d (want %d)\nstdout %s\nstderr %s", code, tc.code, out, errs)
			}
		})
	}

	// PostgreSQL does not answer behind the server: exit 1, saying so —
	// that the server answers and its ledger does not, in the counter's
	// language, and never the database's role, name or address (issue 36
	// item 4: "failed to connect to `user=… database=…` 127.0.0.1:…").
	start, err := pg.Stopped()
	if err != nil {
		t.Fatal(err)
	}
	_, errs, code = counter("lookup", winner)
	t.Setenv("LANG", "fr_FR.UTF-8")
	_, errsFR, codeFR := counter("lookup", winner)
	t.Setenv("LANG", "C")
	if err := start(); err != nil {
		t.Fatal(err)
	}
	if code != 1 || !strings.Contains(errs, "unreachable") || !strings.Contains(errs, "answers, but its ledger") {
		t.Errorf("lookup with the server away: exit %d, %s", code, errs)
	}
	if codeFR != 1 || !strings.Contains(errsFR, "REGISTRE INJOIGNABLE") || !strings.Contains(errsFR, "mais pas son registre (ce n'est pas le réseau)") {
		t.Errorf("lookup with the server away, in French: exit %d, %s", codeFR, errsFR)
	}
	port := strconv.Itoa(pg.Port)
	for _, told := range []string{"user=", "database=", db, port, "failed to connect", "dial"} {
		if strings.Contains(errs+errsFR, told) {
			t.Errorf("a counter is told %q:\n%s%s", told, errs, errsFR)
		}
	}

	// Twenty wrong secret parts lock the counter out; desks list says
	// until when, and why.
	s, err := game.ParseSerial(winner)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		s.Secret = (s.Secret + 1 + int64(i)) % game.SecretModulus
		if _, errs, code := counter("lookup", s.String()); code != 1 || !strings.Contains(errs, "unknown serial") {
			t.Fatalf("guess %d: exit %d, %s", i, code, errs)
		}
	}
	if _, errs, code := counter("lookup", winner); code != 1 || !strings.Contains(errs, "locked") {
		t.Errorf("the 21st question: exit %d, %s", code, errs)
	}
	if out, _, code := vd(t, url, "", "desks", "list"); code != 0 || !regexp.MustCompile(`D1 .* locked until \d{4}-\d\d-\d\d \d\d:\d\d: 20 refused serials or contents within 10 minutes \(desks unlock D1\)`).MatchString(out) {
		t.Errorf("desks list of a locked desk:\n%s", out)
	}
}
