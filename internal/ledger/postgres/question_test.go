package postgres_test

import (
	"context"
	"errors"
	"os"
	"sync"
	"testing"
	"time"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/backoffice"
	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/ledger/ledgertest"
	"vegas-desk/internal/ledger/postgres"
	"vegas-desk/internal/pgtest"
)

var shared struct {
	once sync.Once
	s    *pgtest.Server
	tmpl string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	shared.s.Stop()
	os.Exit(code)
}

var bo = core.Identity{Desk: "bureau", Operator: "boss"}

// office is a new copy of the block fixture in PostgreSQL, opened as the
// back office's (a validation server's) login, locking out desk G1.
func office(t *testing.T) (*postgres.Backend, ledgertest.Serials) {
	t.Helper()
	shared.once.Do(func() {
		if shared.s, shared.err = pgtest.Start(); shared.err == nil {
			shared.tmpl, shared.err = ledgertest.Postgres(shared.s, ledgertest.Block)
		}
	})
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	l, err := postgres.Open(shared.s.URL(pgtest.Owner, shared.s.NewDatabaseFrom(t, shared.tmpl)), false, backoffice.Creation{},
		func() time.Time { return time.Time{} })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	b := l.(*postgres.Backend)
	b.LockOutGuesses()
	if _, err := b.AddDesk(context.Background(), "G1", 100, bo); err != nil {
		t.Fatal(err)
	}
	return b, ledgertest.SerialsOf(t, ledgertest.Block)
}

func serial(t *testing.T, s string) game.Serial {
	t.Helper()
	g, err := game.ParseSerial(s)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func claimOf(who core.Identity, request string) core.ClaimRequest {
	return core.ClaimRequest{Method: "serial", Who: who, Request: request, Limit: core.NoLimit}
}

// The read is one statement of the back office's tables and of what waits
// to be chained: the ticket's facts (none for a wrong secret part), the
// desk's limit and lock-out, a request id's prior use, chained or waiting.
func TestSnapshot(t *testing.T) {
	ctx := context.Background()
	b, serials := office(t)
	s := serial(t, serials.Winners[50][0])
	sn, err := b.Snapshot(ctx, s, "G1", "r1", time.Now())
	if err != nil || sn.Facts == nil || sn.Facts.Prize != 50 || sn.Rules.Limit != 100 || sn.Prior != nil || !sn.Desk.On {
		t.Fatalf("a winner: %+v %+v %+v, %v", sn.Facts, sn.Rules, sn.Desk, err)
	}
	wrong := s
	wrong.Secret = (s.Secret + 1) % game.SecretModulus
	if sn, err := b.Snapshot(ctx, wrong, "G1", "", time.Now()); err != nil || sn.Facts != nil || !sn.Desk.On {
		t.Errorf("a wrong secret part: %+v, %v", sn, err)
	}
	if sn, err := b.Snapshot(ctx, s, "bureau", "", time.Now()); err != nil || sn.Desk.On || sn.Rules.Limit != core.NoLimit {
		t.Errorf("the back office's own question: %+v, %v", sn, err)
	}
	c, err := b.Claim(ctx, s, claimOf(core.Identity{Desk: "G1", Operator: "ann"}, "r1"), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	sn, err = b.Snapshot(ctx, s, "G1", "r1", time.Now())
	if err != nil || sn.Prior == nil || sn.PriorClaim == nil || sn.PriorClaim.Serial != s.String() || sn.Facts.Paid == nil {
		t.Errorf("after its payment %d: %+v, %v", c.Entry, sn, err)
	}
}

// The write checks again, in its one statement, what may have changed
// since the read: the ticket paid since, the request id used since, the
// desk locked out since: it undoes itself (ErrRaced), and the question
// asked again answers what changed.
func TestWriteChecksAgain(t *testing.T) {
	ctx := context.Background()
	b, serials := office(t)
	g1 := core.Identity{Desk: "G1", Operator: "mallory"}
	check := func(what string, s game.Serial, request string, between func(), want error) {
		t.Helper()
		sn, err := b.Snapshot(ctx, s, g1.Desk, request, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		out := core.DecideClaim(sn, s, claimOf(g1, request), time.Now())
		if out.Record == nil || !out.Pay {
			t.Fatalf("%s: decided %+v", what, out)
		}
		between()
		head, _ := b.Head(ctx)
		if err := b.Write(ctx, sn, &out); !errors.Is(err, want) {
			t.Errorf("%s: %v, want %v", what, err, want)
		}
		if h, _ := b.Head(ctx); h != head {
			t.Errorf("%s: the journal moved", what)
		}
	}
	paid := serial(t, serials.Winners[50][1])
	check("paid since the read", paid, "", func() {
		if _, err := b.Claim(ctx, paid, claimOf(bo, ""), time.Time{}); err != nil {
			t.Fatal(err)
		}
	}, postgres.ErrRaced)
	if _, err := b.Claim(ctx, paid, claimOf(g1, ""), time.Time{}); !errors.Is(err, core.ErrAlreadyClaimed) {
		t.Errorf("asked again: %v", err)
	}
	check("the request id used since the read", serial(t, serials.Winners[50][2]), "q", func() {
		if _, err := b.Claim(ctx, serial(t, serials.Losers[0]), claimOf(g1, "q"), time.Time{}); !errors.Is(err, core.ErrNotWinner) {
			t.Fatal(err)
		}
	}, postgres.ErrRaced)
	first, second := serial(t, serials.Winners[50][4]), serial(t, serials.Winners[50][5])
	check("the request id paid another ticket since the read", second, "same", func() {
		if _, err := b.Claim(ctx, first, claimOf(g1, "same"), time.Time{}); err != nil {
			t.Fatal(err)
		}
	}, postgres.ErrRaced)
	if _, err := b.Claim(ctx, second, claimOf(g1, "same"), time.Time{}); !errors.Is(err, core.ErrRequestReused) {
		t.Errorf("asked again: %v", err)
	}
	win := serial(t, serials.Winners[50][3])
	check("the desk locked out since the read", win, "", func() {
		for i := range core.LockRefusals {
			w := win
			w.Secret = (w.Secret + 1 + int64(i)) % game.SecretModulus
			if _, err := b.Lookup(ctx, w, g1, core.NoLimit, time.Time{}); !errors.Is(err, core.ErrUnknownSerial) {
				t.Fatalf("guess %d: %v", i, err)
			}
		}
	}, postgres.ErrRaced)
	if _, err := b.Claim(ctx, win, claimOf(g1, ""), time.Time{}); !errors.Is(err, core.ErrLocked) {
		t.Errorf("asked again: %v", err)
	}
	if rep, err := b.VerifyJournal(ctx); err != nil || len(rep.Problems) > 0 || rep.Waiting > 0 {
		t.Errorf("verify the journal: %v %+v", err, rep)
	}
}

// The sequencer's rounds: claims at once, each recorded in its own
// transaction, are chained in rounds (or by a question's own chain when
// none runs) and each answers once its entry is chained: distinct
// entries, payment numbers without gaps, each answer's hash the journal's,
// nothing left waiting, the chain whole.
func TestSequencerRounds(t *testing.T) {
	ctx := context.Background()
	b, serials := office(t)
	var tickets []game.Serial
	for prize, ws := range serials.Winners {
		for _, w := range ws {
			if prize < core.DefaultIdentityThreshold { // no identity to give
				tickets = append(tickets, serial(t, w))
			}
		}
	}
	tickets = tickets[:min(len(tickets), 48)]
	claims := make([]core.Claim, len(tickets))
	errs := make([]error, len(tickets))
	var wg sync.WaitGroup
	for i, s := range tickets {
		wg.Go(func() { claims[i], errs[i] = b.Claim(ctx, s, claimOf(bo, ""), time.Time{}) })
	}
	wg.Wait()
	numbers := map[int64]bool{}
	for i, c := range claims {
		if errs[i] != nil || c.Entry <= 0 || numbers[c.Number] {
			t.Fatalf("claim %d: %+v, %v", i, c, errs[i])
		}
		numbers[c.Number] = true
		kept, err := b.ClaimByNumber(ctx, c.Number)
		if err != nil || kept.Hash != c.Hash || kept.Entry != c.Entry {
			t.Errorf("payment %d answered %+v; the journal holds %+v (%v)", c.Number, c, kept, err)
		}
	}
	for n := int64(1); n <= int64(len(claims)); n++ {
		if !numbers[n] {
			t.Errorf("payment number %d is missing: %v", n, numbers)
		}
	}
	if rep, err := b.VerifyJournal(ctx); err != nil || len(rep.Problems) > 0 || rep.Waiting > 0 {
		t.Errorf("verify the journal: %v %+v", err, rep)
	}
}
