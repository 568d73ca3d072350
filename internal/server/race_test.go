package server_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
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

// A desk guesses serials and contents on two servers of one PostgreSQL
// database at once, many questions in flight: it is locked out at its
// 20th guess, whichever server asked and whatever the question (a lookup,
// a claim, a search by contents), and no more than 20 guesses are
// answered or recorded (a guess is counted with its desk's row, locked).
func TestLockOutTwoServersOnePostgres(t *testing.T) {
	office, servers := twoServers(t, server.Config{MaxConnsPerDesk: 128})
	lockOutBurst(t, office, servers)
}

// The same on one server of a SQLite file: a guess is counted in the
// file's one write transaction.
func TestLockOutOneServerFile(t *testing.T) {
	o, _ := office(t)
	lockOutBurst(t, o, []*servertest.Served{servertest.Start(t, o, server.Config{MaxConnsPerDesk: 128})})
}

// lockOutBurst has desk G1 ask 80 questions at once through the servers
// in turn, three times (unlocked between): 20 wrong serials looked up, 20
// claimed, 20 unknown winning contents searched, and 20 claims of a right
// serial (a losing ticket's: each answered not a winner, and recorded).
// Each time exactly 20 guesses are answered unknown and recorded, the
// other 40 locked; and every right claim is either answered and recorded
// before the 20th guess, or locked: no verdict after the lock-out.
func lockOutBurst(t *testing.T, office *ledger.Ledger, servers []*servertest.Served) {
	ctx := context.Background()
	if _, err := office.AddDesk(ctx, "G1", 100, bo); err != nil {
		t.Fatal(err)
	}
	var desks []*ledger.Ledger
	for _, s := range servers {
		desks = append(desks, s.Open(t, "G1"))
	}
	serials := ledgertest.SerialsOf(t, ledgertest.Block)
	win, err := game.ParseSerial(serials.Winners[50][4])
	if err != nil {
		t.Fatal(err)
	}
	loser := serials.Losers[3]
	// Winning contents no ticket shows: a winner's, a losing zone changed.
	wt, err := office.Lookup(ctx, win.String(), bo, ledger.NoLimit)
	if err != nil {
		t.Fatal(err)
	}
	unknown := wt.Ticket
	for _, dice := range [][2]int{{1, 1}, {2, 2}} {
		if unknown.Craps.Dice = dice; game.Prize(&unknown) == wt.Prize && unknown != wt.Ticket {
			break
		}
	}
	if game.Prize(&unknown) != wt.Prize || unknown == wt.Ticket {
		t.Fatalf("no losing craps to change on %+v", wt.Ticket)
	}
	who := ledger.Identity{Operator: "mallory"}
	const each, lockRefusals = 20, 20 // core.LockRefusals
	seen := map[int64]bool{}          // the attempts of earlier rounds
	for round := range 3 {
		errs := make([]error, 4*each)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range errs {
			wrong := win
			wrong.Secret = (win.Secret + 1 + int64(round*len(errs)+i)) % game.SecretModulus
			d := desks[i%len(desks)]
			wg.Go(func() {
				<-start
				switch i % 4 {
				case 0:
					_, errs[i] = d.Lookup(ctx, wrong.String(), who, ledger.NoLimit)
				case 1:
					_, errs[i] = d.Claim(ctx, ledger.ClaimRequest{Serial: wrong.String(), Method: ledger.MethodSerial, Who: who, Limit: ledger.NoLimit})
				case 2:
					_, errs[i] = d.FindByContents(ctx, &unknown, who, ledger.NoLimit)
				case 3:
					_, errs[i] = d.Claim(ctx, ledger.ClaimRequest{Serial: loser, Method: ledger.MethodSerial, Who: who, Limit: ledger.NoLimit})
				}
			})
		}
		close(start)
		wg.Wait()
		guessed, locked, answered := 0, 0, 0
		for i, err := range errs {
			switch {
			case errors.Is(err, ledger.ErrLocked):
				locked++
			case i%4 != 3 && (errors.Is(err, ledger.ErrUnknownSerial) || errors.Is(err, ledger.ErrUnknownContents)):
				guessed++
			case i%4 == 3 && errors.Is(err, ledger.ErrNotWinner):
				answered++
			default:
				t.Errorf("round %d, question %d: %v", round, i, err)
			}
		}
		if guessed != lockRefusals || locked != 3*each-lockRefusals+each-answered {
			t.Errorf("round %d: %d guesses answered unknown, %d questions locked, %d right claims answered; want %d guesses and the other %d locked",
				round, guessed, locked, answered, lockRefusals, 4*each-lockRefusals-answered)
		}
		as, err := office.Attempts(ctx, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		var guesses, verdicts []int64
		for _, a := range as {
			if a.Desk != "G1" || seen[a.Entry] {
				continue
			}
			seen[a.Entry] = true
			if a.Reason == ledger.NotWinner {
				verdicts = append(verdicts, a.Entry)
			} else {
				guesses = append(guesses, a.Entry)
			}
		}
		if len(guesses) != lockRefusals || len(verdicts) != answered {
			t.Fatalf("round %d: %d guesses recorded, want %d; %d right claims recorded, %d answered", round, len(guesses), lockRefusals, len(verdicts), answered)
		}
		for _, v := range verdicts {
			if v > slices.Max(guesses) {
				t.Errorf("round %d: a right claim answered after the lock-out (entry %d, the 20th guess %d)", round, v, slices.Max(guesses))
			}
		}
		d, _, err := office.DeskState(ctx, "G1", nil)
		if err != nil || d.LockedUntil.IsZero() {
			t.Errorf("desk G1 after the guesses: %+v %v", d, err)
		}
		// The right serial now answers as a wrong one: locked.
		if _, err := desks[0].Lookup(ctx, win.String(), who, ledger.NoLimit); !errors.Is(err, ledger.ErrLocked) {
			t.Errorf("the right serial after the lock-out: %v", err)
		}
		if err := office.UnlockDesk(ctx, "G1", bo); err != nil {
			t.Fatal(err)
		}
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
