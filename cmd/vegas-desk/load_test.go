package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"vegas-desk/internal/game"
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
		if r.Counters != 3 || r.Answers == 0 || r.Paid == 0 || r.ClaimsPerS <= 0 || !strings.Contains(errs, "_load-1 … _load-3") ||
			!strings.Contains(errs, "answers/s") {
			t.Errorf("load, run %d: %+v\n%s", run, r, errs)
		}
	}
	out, errs, code := vd(t, url, "", "verify", "--json")
	if code != 0 || !strings.Contains(out, `"ok": true`) {
		t.Errorf("verify after the load: exit %d\n%s%s", code, out, errs)
	}

	for _, db := range []string{url, ledgertest.Copy(t, ledgertest.Demo)} {
		if _, errs, code := vd(t, db, "", "load"); code != 2 || !strings.Contains(errs, "give --server") {
			t.Errorf("load without --server on %s: exit %d %s", db, code, errs)
		}
	}

	// A real ledger whose packs are all on sale at the shops: nothing of
	// its own to claim, so refused, and nothing written.
	real := pg.URL(pgtest.Owner, pg.NewDatabaseFrom(t, pgFixture(t, ledgertest.Block)))
	realDir, realSrv := serveOf(t, real)
	if _, errs, code := vd(t, real, "", "load", "--server", realSrv, "--dir", realDir, "--seconds", "1"); code != 2 || !strings.Contains(errs, "--yes-this-is-a-test") {
		t.Errorf("load on a real ledger: exit %d %s", code, errs)
	}
	if _, errs, code := vd(t, real, "", "load", "--server", realSrv, "--dir", realDir, "--counters", "1", "--seconds", "0.5", "--yes-this-is-a-test"); code != 2 ||
		!strings.Contains(errs, "no block has 1 packs in stock") {
		t.Errorf("load on a real ledger with no stock: exit %d %s", code, errs)
	}
	if out, _, _ := vd(t, real, "", "desks", "list"); strings.Contains(out, "load-") {
		t.Errorf("a refused load added its desks:\n%s", out)
	}
}

// load --yes-this-is-a-test on a real ledger (its packs in stock, a shop's
// packs on sale) claims only tickets of stock packs it delivers to its own
// desks, never a shop's; it says what it leaves behind: those packs
// destroyed, its desks disabled; run again, it enables its desks and takes
// the next packs; the journal verifies. Its desks are _load-1 …, names no
// real desk can take: the shop here is named load-1 (as load's desks were
// once), and its desk file still opens the server after every load.
func TestLoadRealLedger(t *testing.T) {
	ctx := context.Background()
	real := pg.URL(pgtest.Owner, pg.NewDatabaseFrom(t, pgFixture(t, ledgertest.Stock)))
	dir, srv := serveOf(t, real)
	shopFile := filepath.Join(t.TempDir(), "load-1.desk")
	for _, args := range [][]string{{"desks", "add", "load-1", "--out", shopFile, "--dir", dir}, {"packs", "deliver", "--block", "1", "--packs", "0-9", "--desk", "load-1"},
		{"packs", "receive", "--block", "1", "0-9"}, {"packs", "activate", "--block", "1", "0-9"}} {
		if out, errs, code := vd(t, real, "", args...); code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", args, code, out, errs)
		}
	}
	shopAsks := func(when string) {
		t.Helper()
		if out, errs, code := vd(t, "", "", "--server", srv, "--desk-cert", shopFile, "lookup", serials(t).Losers[0]); code > 1 || strings.Contains(errs, "revoked") || strings.Contains(errs, "disabled") {
			t.Errorf("%s, the shop load-1's desk file: exit %d\n%s%s", when, code, out, errs)
		}
	}
	shopAsks("before any load")
	// No real desk can take a load test's name.
	for _, id := range []string{"_load-1", "_load-64"} {
		if _, errs, code := vd(t, real, "", "desks", "add", id); code == 0 || !strings.Contains(errs, "are the desks a load test makes for itself") {
			t.Errorf("desks add %s: exit %d %s", id, code, errs)
		}
	}
	// A load that fails (the server of another ledger) leaves its desks
	// disabled and moves no pack.
	_, otherSrv := serveOf(t, ledgertest.Copy(t, ledgertest.Stock))
	if _, errs, code := vd(t, real, "", "load", "--server", otherSrv, "--dir", dir, "--counters", "2", "--seconds", "1", "--yes-this-is-a-test"); code == 0 ||
		!strings.Contains(errs, "left behind: no pack (none was delivered); desks _load-1 … _load-2 disabled") {
		t.Errorf("load through another ledger's server: exit %d\n%s", code, errs)
	}
	if out, _, _ := vd(t, real, "", "packs", "list", "--block", "1"); strings.Contains(out, "_load-") {
		t.Errorf("a failed load moved packs:\n%s", out)
	}
	shopAsks("after a failed load")
	l, err := ledger.Open(real)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	seen := 0
	for run, want := range []struct{ first, last int }{{10, 24}, {25, 39}} {
		out, errs, code := vd(t, real, "", "load", "--server", srv, "--dir", dir, "--counters", "3", "--seconds", "1", "--yes-this-is-a-test", "--json")
		if code != 0 || !strings.Contains(out, `"paid"`) {
			t.Fatalf("load %d: exit %d\n%s%s", run, code, out, errs)
		}
		left := fmt.Sprintf("left behind: packs %d–%d of block 531/1, delivered from the stock to desks _load-1 … _load-3", want.first, want.last)
		if !strings.Contains(errs, left) || !strings.Contains(errs, "now destroyed") || !strings.Contains(errs, "desks _load-1 … _load-3 disabled") {
			t.Errorf("load %d does not say what it leaves behind (%s):\n%s", run, left, errs)
		}
		cs, err := l.Claims(ctx, ledger.ClaimFilter{})
		if err != nil {
			t.Fatal(err)
		}
		if len(cs) <= seen {
			t.Fatalf("load %d paid nothing", run)
		}
		for _, c := range cs {
			pack := c.Position / game.PackSize
			if !strings.HasPrefix(c.Desk, "_load-") || pack < 10 || pack > want.last {
				t.Errorf("load %d paid a ticket of pack %d at desk %s", run, pack, c.Desk)
			}
		}
		seen = len(cs)
		runs, err := l.Packs(ctx, ledger.PackFilter{Game: 531, Block: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range runs {
			switch {
			case r.Last < 10 && (r.State != "on-sale" || r.Desk != "load-1"):
				t.Errorf("load %d moved the shop's packs %d–%d: %s", run, r.First, r.Last, r.State)
			case r.First >= 10 && r.Last <= want.last && r.State != "destroyed":
				t.Errorf("load %d left its packs %d–%d %s", run, r.First, r.Last, r.State)
			case r.First > want.last && r.State != "stock":
				t.Errorf("load %d moved packs %d–%d of the stock: %s", run, r.First, r.Last, r.State)
			}
		}
		ds, err := l.Desks(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range ds {
			if strings.HasPrefix(d.ID, "_load-") != d.Disabled {
				t.Errorf("after load %d, desk %s disabled: %v", run, d.ID, d.Disabled)
			}
		}
		shopAsks(fmt.Sprintf("after load %d", run))
	}
	if out, errs, code := vd(t, real, "", "verify", "--json"); code != 0 || !strings.Contains(out, `"ok": true`) {
		t.Errorf("verify after the loads: exit %d\n%s%s", code, out, errs)
	}
}

// load's progress: a line a second, each second once (the answers in
// flight at the end went on a second "1 s" line of their own), and its
// summary in words: "1 counter", not "1 counters" (issue 39 item 3).
func TestLoadProgressLines(t *testing.T) {
	db := ledgertest.Copy(t, ledgertest.Demo)
	dir, srv := serveOf(t, db)
	out, errs, code := vd(t, db, "", "load", "--server", srv, "--dir", dir, "--counters", "1", "--seconds", "2")
	if code != 0 {
		t.Fatalf("load: exit %d\n%s%s", code, out, errs)
	}
	seen := map[string]bool{}
	lines := 0
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 2 && f[1] == "s" && f[3] == "answers/s" {
			lines++
			if seen[f[0]] {
				t.Errorf("two progress lines of second %s:\n%s", f[0], out)
			}
			seen[f[0]] = true
		}
	}
	if lines < 2 || !strings.Contains(out, "\n1 counter, ") {
		t.Errorf("load's progress and summary:\n%s", out)
	}
}

// A counter given several servers (--server A,B): one that does not
// answer is passed over for the next; given only that one, the counter
// says the ledger is unreachable (issue 40, item 3).
func TestCounterSeveralServers(t *testing.T) {
	url := pg.URL(pgtest.Owner, pg.NewDatabaseFrom(t, pgFixture(t, ledgertest.Block)))
	dir, srv := serveOf(t, url)
	_, _, srv2 := startServer(t, url, dir)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "https://" + ln.Addr().String() // nobody answers there
	ln.Close()
	d1 := filepath.Join(t.TempDir(), "D1.desk")
	if out, errs, code := vd(t, url, "", "desks", "add", "D1", "--out", d1, "--dir", dir); code != 0 {
		t.Fatalf("desks add: exit %d\n%s%s", code, out, errs)
	}
	winners := serials(t).Winners[50]
	counter := func(servers string, args ...string) (string, string, int) {
		return vd(t, url, "", append([]string{"--server", servers, "--desk-cert", d1}, args...)...)
	}
	for i, servers := range []string{dead + "," + srv, srv2 + "," + dead, dead + "," + srv2 + "," + srv} {
		if out, errs, code := counter(servers, "claim", winners[i], "--operator", "ann", "--json"); code != 0 || !strings.Contains(out, `"desk": "D1"`) {
			t.Errorf("claim through --server %s: exit %d\n%s%s", servers, code, out, errs)
		}
	}
	if _, errs, code := counter(dead, "lookup", winners[5]); code != 1 || !strings.Contains(errs, "unreachable") {
		t.Errorf("lookup through a server that does not answer: exit %d, %s", code, errs)
	}
	if _, errs, code := counter(srv+",ftp://x", "lookup", winners[5]); code == 0 || !strings.Contains(errs, "several separated by commas") {
		t.Errorf("lookup through --server %s,ftp://x: exit %d, %s", srv, code, errs)
	}
}
