package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/ledgertest"
	"vegas-desk/internal/ledger/postgres"
	"vegas-desk/internal/pgtest"
)

// load on a demonstration ledger: counters of its own claim, it says how
// fast, and the journal it leaves verifies with nothing waiting; run again,
// its desks get new passwords. It refuses a real ledger unless told, and a
// file.
func TestLoadCLI(t *testing.T) {
	db := pg.NewDatabaseFrom(t, pgFixture(t, ledgertest.Demo))
	url := pg.URL(pgtest.Owner, db)
	for run := range 2 {
		out, errs, code := vd(t, url, "", "load", "--counters", "3", "--seconds", "1", "--json")
		var r struct {
			Counters                            int
			Answers, Paid                       int
			ClaimsPerS                          float64 `json:"claims_per_s"`
			P50, P99, Max, ChainDelay, ChainMax float64
		}
		if code != 0 || json.Unmarshal([]byte(out), &r) != nil {
			t.Fatalf("load, run %d: exit %d\n%s%s", run, code, out, errs)
		}
		if r.Counters != 3 || r.Answers == 0 || r.Paid == 0 || r.ClaimsPerS <= 0 || !strings.Contains(errs, "load-1 … load-3") ||
			!strings.Contains(errs, "answers/s") {
			t.Errorf("load, run %d: %+v\n%s", run, r, errs)
		}
	}
	out, errs, code := vd(t, url, "", "verify", "--json")
	if code != 0 || !strings.Contains(out, `"ok": true`) {
		t.Errorf("verify after the load: exit %d\n%s%s", code, out, errs)
	}

	// desks password: the login's new one, the old one no longer.
	pw := filepath.Join(t.TempDir(), "pw")
	os.WriteFile(pw, []byte("a-new-counter-password\n"), 0o600)
	if out, errs, code := vd(t, url, "", "desks", "password", "load-1", "--password-file", pw); code != 0 || !strings.Contains(out, "new password") {
		t.Fatalf("desks password: exit %d\n%s%s", code, out, errs)
	}
	t.Setenv("PGPASSWORD", "a-new-counter-password")
	l, err := ledger.Open(pg.URLWithout(postgres.DeskRole(db, "load-1"), db))
	if err != nil || l.CounterDesk() != "load-1" {
		t.Fatalf("the login with its new password: %v", err)
	}
	l.Close()
	os.WriteFile(pw, []byte("short\n"), 0o600)
	if _, errs, code := vd(t, url, "", "desks", "password", "load-1", "--password-file", pw); code == 0 || !strings.Contains(errs, "12 characters") {
		t.Errorf("a short password: exit %d %s", code, errs)
	}

	real := pg.NewDatabaseFrom(t, pgFixture(t, ledgertest.Block))
	if _, errs, code := vd(t, pg.URL(pgtest.Owner, real), "", "load", "--seconds", "1"); code != 2 || !strings.Contains(errs, "--yes-this-is-a-test") {
		t.Errorf("load on a real ledger: exit %d %s", code, errs)
	}
	if out, errs, code := vd(t, pg.URL(pgtest.Owner, real), "", "load", "--counters", "1", "--seconds", "0.5", "--yes-this-is-a-test"); code != 0 || !strings.Contains(out, "answers/s") {
		t.Errorf("load on a real ledger, told: exit %d\n%s%s", code, out, errs)
	}
	if _, errs, code := vd(t, ledgertest.Copy(t, ledgertest.Demo), "", "load"); code != 2 || !strings.Contains(errs, "shared ledger") {
		t.Errorf("load on a file: exit %d %s", code, errs)
	}
}
