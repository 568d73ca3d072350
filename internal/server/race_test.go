package server_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"vegas-desk/internal/game"
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
	office, servers := twoServers(t, server.Config{})
	race(t, office, servers, ledgertest.SerialsOf(t, ledgertest.Block).Winners[50][2])
}

// A desk guesses serials on two servers of one PostgreSQL database at
// once, many questions in flight: it is locked out at its 20th refused
// serial, whichever server asked, and no more than 20 guesses are answered
// or recorded (the lock-out counts the guesses waiting to be chained, and
// a guess is recorded under its desk's lock).
func TestLockOutTwoServersOnePostgres(t *testing.T) {
	office, servers := twoServers(t, server.Config{MaxConnsPerDesk: 64})
	lockOutBurst(t, office, servers)
}

// The same on one server of a SQLite file: a guess is recorded in the
// file's one write transaction after the desk's guesses are counted again.
func TestLockOutOneServerFile(t *testing.T) {
	o, _ := office(t)
	lockOutBurst(t, o, []*servertest.Served{servertest.Start(t, o, server.Config{MaxConnsPerDesk: 64})})
}

// lockOutBurst has desk G1 guess 60 wrong serials at once through the
// servers in turn: 20 answered unknown and recorded, 40 locked.
func lockOutBurst(t *testing.T, office *ledger.Ledger, servers []*servertest.Served) {
	ctx := context.Background()
	if _, err := office.AddDesk(ctx, "G1", 100, bo); err != nil {
		t.Fatal(err)
	}
	var desks []*ledger.Ledger
	for _, s := range servers {
		desks = append(desks, s.Open(t, "G1"))
	}
	win, err := game.ParseSerial(ledgertest.SerialsOf(t, ledgertest.Block).Winners[50][4])
	if err != nil {
		t.Fatal(err)
	}
	const guesses, lockRefusals = 60, 20 // core.LockRefusals
	errs := make([]error, guesses)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range guesses {
		wrong := win
		wrong.Secret = (win.Secret + 1 + int64(i)) % game.SecretModulus
		wg.Go(func() {
			<-start
			_, errs[i] = desks[i%len(desks)].Lookup(ctx, wrong.String(), ledger.Identity{Operator: "mallory"}, ledger.NoLimit)
		})
	}
	close(start)
	wg.Wait()
	unknown, locked := 0, 0
	for i, err := range errs {
		switch {
		case errors.Is(err, ledger.ErrUnknownSerial):
			unknown++
		case errors.Is(err, ledger.ErrLocked):
			locked++
		default:
			t.Errorf("guess %d: %v", i, err)
		}
	}
	if unknown != lockRefusals || locked != guesses-lockRefusals {
		t.Errorf("%d guesses answered unknown, %d locked; want %d and %d", unknown, locked, lockRefusals, guesses-lockRefusals)
	}
	as, err := office.Attempts(ctx, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	recorded := 0
	for _, a := range as {
		if a.Desk == "G1" {
			recorded++
		}
	}
	if recorded != lockRefusals {
		t.Errorf("%d guesses recorded, want %d", recorded, lockRefusals)
	}
	if d, err := office.DeskState(ctx, "G1"); err != nil || d.LockedUntil.IsZero() {
		t.Errorf("desk G1 after the guesses: %+v %v", d, err)
	}
	// The right serial now answers as a wrong one: locked.
	if _, err := desks[0].Lookup(ctx, win.String(), ledger.Identity{Operator: "mallory"}, ledger.NoLimit); !errors.Is(err, ledger.ErrLocked) {
		t.Errorf("the right serial after the lock-out: %v", err)
	}
}

// twoServers are two servers of one new copy of the shared PostgreSQL
// server's block fixture, each with its own connection to it (as two
// serve processes), and one of their back offices' ledgers.
func twoServers(t *testing.T, cfg server.Config) (*ledger.Ledger, []*servertest.Served) {
	pg, tmpl := sharedPG(t)
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
		servers = append(servers, servertest.Start(t, l, cfg))
	}
	return office, servers
}
