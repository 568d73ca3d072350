package main

import (
	"encoding/json"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/ledgertest"
	"vegas-desk/internal/pgtest"
	"vegas-desk/internal/server"
)

// serveOf starts a validation server of the ledger at db, its authority
// made by serve --init in a directory of its own, until the test ends,
// and returns that directory and the server's URL.
func serveOf(t *testing.T, db string) (dir, url string) {
	t.Helper()
	t.Setenv("VEGAS_DESK_PASSPHRASE", ledgertest.Passphrase)
	dir = filepath.Join(t.TempDir(), "ca")
	if out, errs, code := vd(t, db, "", "serve", "--init", "--dir", dir, "--host", "127.0.0.1"); code != 0 {
		t.Fatalf("serve --init: exit %d\n%s%s", code, out, errs)
	}
	_, _, url = startServer(t, db, dir)
	return dir, url
}

// startServer serves the ledger at db with the authority of dir on a
// loopback port, until the test ends: the ledger, the server and its URL.
func startServer(t *testing.T, db, dir string) (*ledger.Ledger, *server.Server, string) {
	t.Helper()
	l, err := ledger.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	s, err := server.New(l, server.Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve(ln)
	t.Cleanup(func() { s.Close() })
	return l, s, "https://" + ln.Addr().String()
}

// load on a demonstration ledger on PostgreSQL, through its validation
// server: counters of its own claim, it says how fast, and the journal it
// leaves verifies with nothing waiting; run again, its desks get new desk
// files. It refuses a real ledger unless told, and a ledger without its
// server (counters have no database login).
func TestLoadCLI(t *testing.T) {
	url := pg.URL(pgtest.Owner, pg.NewDatabaseFrom(t, pgFixture(t, ledgertest.Demo)))
	dir, srv := serveOf(t, url)
	for run := range 2 {
		out, errs, code := vd(t, url, "", "load", "--server", srv, "--dir", dir, "--counters", "3", "--seconds", "1", "--json")
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

	real := pg.URL(pgtest.Owner, pg.NewDatabaseFrom(t, pgFixture(t, ledgertest.Block)))
	realDir, realSrv := serveOf(t, real)
	if _, errs, code := vd(t, real, "", "load", "--server", realSrv, "--dir", realDir, "--seconds", "1"); code != 2 || !strings.Contains(errs, "--yes-this-is-a-test") {
		t.Errorf("load on a real ledger: exit %d %s", code, errs)
	}
	if out, errs, code := vd(t, real, "", "load", "--server", realSrv, "--dir", realDir, "--counters", "1", "--seconds", "0.5", "--yes-this-is-a-test"); code != 0 || !strings.Contains(out, "answers/s") {
		t.Errorf("load on a real ledger, told: exit %d\n%s%s", code, out, errs)
	}
	for _, db := range []string{url, ledgertest.Copy(t, ledgertest.Demo)} {
		if _, errs, code := vd(t, db, "", "load"); code != 2 || !strings.Contains(errs, "give --server") {
			t.Errorf("load without --server on %s: exit %d %s", db, code, errs)
		}
	}
}
