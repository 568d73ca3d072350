package server_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/ledgertest"
	"vegas-desk/internal/pgtest"
	"vegas-desk/internal/server"
	"vegas-desk/internal/server/servertest"
)

// race has 20 counters, spread over the servers, claim one ticket at once:
// exactly one is paid, the others are told it is already claimed, and the
// back office holds one payment of it.
func race(t *testing.T, office *ledger.Ledger, servers []*servertest.Served, serial string) {
	ctx := context.Background()
	const counters = 20
	var desks []*ledger.Ledger
	for i := range counters {
		id := fmt.Sprintf("R%d", i+1)
		if _, err := office.AddDesk(ctx, id, 1000, bo); err != nil {
			t.Fatal(err)
		}
		desks = append(desks, servers[i%len(servers)].Open(t, id))
	}
	var wg sync.WaitGroup
	errs := make([]error, counters)
	start := make(chan struct{})
	for i, l := range desks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, errs[i] = l.Claim(ctx, ledger.ClaimRequest{Serial: serial, Method: ledger.MethodSerial,
				Who: ledger.Identity{Operator: "racer"}, Limit: ledger.NoLimit})
		}()
	}
	close(start)
	wg.Wait()
	paid := 0
	for i, err := range errs {
		switch {
		case err == nil:
			paid++
		case !errors.Is(err, ledger.ErrAlreadyClaimed):
			t.Errorf("counter R%d: %v", i+1, err)
		}
	}
	cs, err := office.Claims(ctx, ledger.ClaimFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if paid != 1 || len(cs) != 1 || cs[0].Serial != serial {
		t.Fatalf("%d answered paid, the ledger holds %d payments: %+v", paid, len(cs), cs)
	}
}

// Twenty counters on one server of a SQLite back office race on a ticket.
func TestRaceOneServer(t *testing.T) {
	o, serials := office(t)
	race(t, o, []*servertest.Served{servertest.Start(t, o, server.Config{MaxConnsPerDesk: 4})}, serials.Winners[50][1])
}

// Two servers on one PostgreSQL database, each with its own connection to
// it (as two serve processes), and twenty counters racing on one ticket.
func TestRaceTwoServersOnePostgres(t *testing.T) {
	pg, err := pgtest.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pg.Stop)
	tmpl, err := ledgertest.Postgres(pg, ledgertest.Block)
	if err != nil {
		t.Fatal(err)
	}
	url := pg.URL(pgtest.Owner, pg.NewDatabaseFrom(t, tmpl))
	var servers []*servertest.Served
	var office *ledger.Ledger
	for range 2 {
		l, err := ledger.Open(url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		office = l
		servers = append(servers, servertest.Start(t, l, server.Config{}))
	}
	race(t, office, servers, ledgertest.SerialsOf(t, ledgertest.Block).Winners[50][2])
}
