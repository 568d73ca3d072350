package server_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/ledgertest"
	"vegas-desk/internal/pgtest"
	"vegas-desk/internal/server"
	"vegas-desk/internal/server/servertest"
)

// A counter given two servers of one ledger (two serve on one database,
// issue 40 item 3): a claim whose answer the first lost is asked of the
// second with the same request id, which answers the payment the first
// made (paid once); with the first gone the counter goes on through the
// second; with both gone it is told the ledger is unreachable.
func TestCounterServers(t *testing.T) {
	ctx := context.Background()
	pg, tmpl := sharedPG(t)
	url := pg.URL(pgtest.Owner, pg.NewDatabaseFrom(t, tmpl))
	open := func() *ledger.Ledger {
		l, err := ledger.Open(url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		return l
	}
	o := open()
	if _, err := o.AddDesk(ctx, "D1", 1000, bo); err != nil {
		t.Fatal(err)
	}
	a := servertest.Start(t, o, server.Config{})
	b := a.Beside(t, open(), server.Config{})
	winners := ledgertest.SerialsOf(t, ledgertest.Block).Winners[9]
	paid := func() int {
		cs, err := o.Claims(ctx, ledger.ClaimFilter{})
		if err != nil {
			t.Fatal(err)
		}
		return len(cs)
	}
	p := newProxy(t, a.Addr, func() bool { return paid() > 0 })
	desk := a.DeskFile(t, "D1")
	c, err := ledger.OpenServer("https://"+p.ln.Addr().String()+", "+b.URL, desk)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if want := "https://" + p.ln.Addr().String() + "," + b.URL; c.Location() != want {
		t.Errorf("the counter's ledger is at %s, want %s", c.Location(), want)
	}

	p.drop.Store(true)
	cl, err := c.Claim(ctx, claimOf(winners[0], "ann"))
	if err != nil {
		t.Fatalf("a claim whose answer the first server lost: %v", err)
	}
	if !p.dropped.Load() {
		t.Fatal("no answer was dropped")
	}
	cs, err := o.Claims(ctx, ledger.ClaimFilter{})
	if err != nil || len(cs) != 1 || cs[0].Number != cl.Number || cs[0].Request != cl.Request || cl.Desk != "D1" {
		t.Errorf("the ledger holds %+v (%v); the counter was answered %+v", cs, err, cl)
	}

	// The first server gone: the counter goes on through the second.
	a.Server.Close()
	p.ln.Close()
	for _, serial := range winners[1:4] {
		if _, err := c.Claim(ctx, claimOf(serial, "ann")); err != nil {
			t.Errorf("claim %s with the first server gone: %v", serial, err)
		}
	}
	if _, err := c.Lookup(ctx, winners[5], ledger.Identity{Operator: "ann"}, ledger.NoLimit); err != nil {
		t.Errorf("a lookup with the first server gone: %v", err)
	}
	if n := paid(); n != 4 {
		t.Errorf("%d payments recorded, want 4", n)
	}
	// Both gone: unreachable, nothing paid.
	b.Server.Close()
	if _, err := c.Lookup(ctx, winners[5], ledger.Identity{Operator: "ann"}, ledger.NoLimit); !errors.Is(err, ledger.ErrUnreachable) {
		t.Errorf("a lookup with both servers gone: %v, want ErrUnreachable", err)
	}
	short, cancel := context.WithTimeout(ctx, 3*time.Second)
	_, err = c.Claim(short, claimOf(winners[6], "ann"))
	cancel()
	if !errors.Is(err, ledger.ErrUnreachable) {
		t.Errorf("a claim with both servers gone: %v, want ErrUnreachable", err)
	}
	if n := paid(); n != 4 {
		t.Errorf("%d payments recorded, want 4", n)
	}
	verified(t, o)

	// Addresses that are not servers' are refused, naming which.
	for _, bad := range []string{b.URL + ",http://" + a.Addr, b.URL + "," + b.URL, b.URL + ","} {
		if _, err := ledger.OpenServer(bad, desk); err == nil || !strings.Contains(err.Error(), "server") {
			t.Errorf("OpenServer(%q): %v, want refused", bad, err)
		}
	}
}
