package postgres_test

import (
	"context"
	"database/sql"
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
	b := open(t, database(t))
	if _, err := b.AddDesk(context.Background(), "G1", 100, bo); err != nil {
		t.Fatal(err)
	}
	return b, ledgertest.SerialsOf(t, ledgertest.Block)
}

// database is the URL of a new copy of the block fixture in PostgreSQL.
func database(t *testing.T) string {
	t.Helper()
	shared.once.Do(func() {
		if shared.s, shared.err = ledgertest.StartPostgres(ledgertest.Block); shared.err == nil {
			shared.tmpl, shared.err = ledgertest.Postgres(shared.s, ledgertest.Block)
		}
	})
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.s.URL(pgtest.Owner, shared.s.NewDatabaseFrom(t, shared.tmpl))
}

// open opens the shared ledger at url as the back office's login (a
// validation server's), locking out desks.
func open(t *testing.T, url string) *postgres.Backend {
	t.Helper()
	l, err := postgres.Open(url, false, backoffice.Creation{}, func() time.Time { return time.Time{} })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	b := l.(*postgres.Backend)
	b.LockOutGuesses()
	return b
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
// transaction, are chained in rounds and each answers once its entry is
// chained: distinct entries, payment numbers without gaps, each answer's
// hash the journal's, nothing left waiting, the chain whole. The chainer's
// lock is held (as another process's chain holds it) until every claim is
// recorded: no question can then chain its own entry, so a round surely
// runs, and one round chains them all (a second, begun meanwhile, finds
// nothing left).
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
	hold, err := b.DB().BeginTxx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Rollback()
	if _, err := hold.ExecContext(ctx, "SELECT 1 FROM vegas.chainer FOR UPDATE"); err != nil {
		t.Fatal(err)
	}
	claims := make([]core.Claim, len(tickets))
	errs := make([]error, len(tickets))
	var wg sync.WaitGroup
	for i, s := range tickets {
		wg.Go(func() { claims[i], errs[i] = b.Claim(ctx, s, claimOf(bo, ""), time.Time{}) })
	}
	for deadline := time.Now().Add(30 * time.Second); ; {
		var n int
		if err := b.DB().GetContext(ctx, &n, "SELECT count(*) FROM vegas.waiting"); err != nil {
			t.Fatal(err)
		}
		if n == len(tickets) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d claims recorded", n, len(tickets))
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := hold.Rollback(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if r := b.Rounds(); r < 1 || r > 2 {
		t.Errorf("%d rounds of the sequencer ran for %d claims recorded while a chain held the lock: one (and one begun meanwhile) should chain them all", r, len(tickets))
	}
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

// The entries waiting to be chained, and their records' numbers, stay in
// package postgres: while a payment waits (the chainer's lock held), a
// question about its ticket or its request id waits for its chain rather
// than decide on an entry with no id; once chained, every answer names
// the payment by its journal id (a second claim's refusal, its ref, a
// retry). verify meanwhile replays the entry waiting, and a waiting entry
// or a paid row changed under it is caught.
func TestWaitingStaysInside(t *testing.T) {
	ctx := context.Background()
	b, serials := office(t)
	db := b.DB()
	hold, err := db.BeginTxx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Rollback()
	if _, err := hold.ExecContext(ctx, "SELECT 1 FROM vegas.chainer FOR UPDATE"); err != nil {
		t.Fatal(err)
	}
	g1 := core.Identity{Desk: "G1", Operator: "ann"}
	s := serial(t, serials.Winners[50][0])
	type answer struct {
		c   core.Claim
		err error
	}
	first := make(chan answer, 1)
	go func() {
		c, err := b.Claim(ctx, s, claimOf(g1, "r1"), time.Time{})
		first <- answer{c, err}
	}()
	for deadline := time.Now().Add(20 * time.Second); ; {
		var n int
		if err := db.GetContext(ctx, &n, "SELECT count(*) FROM vegas.waiting"); err != nil {
			t.Fatal(err)
		}
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the payment was not recorded")
		}
		time.Sleep(10 * time.Millisecond)
	}

	// Its chain cannot run: a question about it waits, until its context
	// ends, rather than answer with the payment it cannot name.
	short, cancel := context.WithTimeout(ctx, time.Second)
	sn, err := b.Snapshot(short, s, "bureau", "", time.Now())
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a read of the waiting payment's ticket: %v, %+v", err, sn)
	}
	short, cancel = context.WithTimeout(ctx, time.Second)
	sn, err = b.Snapshot(short, serial(t, serials.Losers[0]), "G1", "r1", time.Now())
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a read of the waiting payment's request id: %v, %+v", err, sn)
	}

	// verify replays it, and sees it changed.
	rep, err := b.VerifyJournal(ctx)
	if err != nil || len(rep.Problems) > 0 || rep.Waiting != 1 {
		t.Fatalf("verify with the payment waiting: %v %+v", err, rep)
	}
	for _, tamper := range []struct{ what, do, undo string }{
		{"its amount", "UPDATE vegas.waiting SET amount = amount + 1", "UPDATE vegas.waiting SET amount = amount - 1"},
		{"its paid row", "UPDATE vegas.paid SET claim = claim - 1 WHERE claim < 0", "UPDATE vegas.paid SET claim = claim + 1 WHERE claim < 0"},
	} {
		if _, err := db.ExecContext(ctx, tamper.do); err != nil {
			t.Fatal(err)
		}
		if rep, err := b.VerifyJournal(ctx); err != nil || len(rep.Problems) == 0 {
			t.Errorf("verify with %s changed: %v %+v", tamper.what, err, rep)
		}
		if _, err := db.ExecContext(ctx, tamper.undo); err != nil {
			t.Fatal(err)
		}
	}

	second, retry := make(chan answer, 1), make(chan answer, 1)
	go func() {
		c, err := b.Claim(ctx, s, claimOf(bo, ""), time.Time{})
		second <- answer{c, err}
	}()
	go func() {
		c, err := b.Claim(ctx, s, claimOf(g1, "r1"), time.Time{})
		retry <- answer{c, err}
	}()
	if err := hold.Rollback(); err != nil {
		t.Fatal(err)
	}
	paid := <-first
	if paid.err != nil || paid.c.Entry <= 0 || paid.c.Number != 1 {
		t.Fatalf("the payment: %+v, %v", paid.c, paid.err)
	}
	var r *core.Refusal
	if a := <-second; !errors.As(a.err, &r) || r.Verdict != core.AlreadyClaimed || r.First == nil || r.First.Entry != paid.c.Entry || r.Entry <= 0 {
		t.Errorf("a second claim: %+v, %v", a.c, a.err)
	} else {
		var ref int64
		if err := db.GetContext(ctx, &ref, "SELECT ref FROM vegas.journal WHERE id = $1", r.Entry); err != nil || ref != paid.c.Entry {
			t.Errorf("the refusal's entry names %d, not the payment %d: %v", ref, paid.c.Entry, err)
		}
	}
	if a := <-retry; a.err != nil || a.c.Entry != paid.c.Entry || a.c.Hash != paid.c.Hash {
		t.Errorf("the retry: %+v, %v; the payment %+v", a.c, a.err, paid.c)
	}
	sn, err = b.Snapshot(ctx, s, "G1", "r1", time.Now())
	if err != nil || sn.Facts.Paid == nil || sn.Facts.Paid.Entry != paid.c.Entry || sn.Prior == nil || sn.Prior.ID != paid.c.Entry || sn.PriorClaim.Entry != paid.c.Entry {
		t.Errorf("read once chained: %+v %+v, %v", sn, sn.Facts, err)
	}
	if rep, err := b.VerifyJournal(ctx); err != nil || len(rep.Problems) > 0 || rep.Waiting > 0 {
		t.Errorf("verify once chained: %v %+v", err, rep)
	}
}

// A ticket is paid once by the paid row's key, and that row is written
// once: by the question that pays, naming its payment by its record
// (-seq), which the chain gives the journal's entry and does not write
// into the row again. Claims of one ticket at once, through two backends
// on one database (two servers), pay it once; every other answers already
// paid, naming that payment; a void frees the ticket for a claim again.
func TestPaidOnce(t *testing.T) {
	ctx := context.Background()
	url := database(t)
	servers := []*postgres.Backend{open(t, url), open(t, url)}
	serials := ledgertest.SerialsOf(t, ledgertest.Block)
	for round, w := range serials.Winners[50][:4] {
		s := serial(t, w)
		const claims = 12
		answers := make([]core.Claim, claims)
		errs := make([]error, claims)
		var wg sync.WaitGroup
		for i := range claims {
			wg.Go(func() {
				answers[i], errs[i] = servers[i%2].Claim(ctx, s, claimOf(bo, ""), time.Time{})
			})
		}
		wg.Wait()
		var paid *core.Claim
		for i := range answers {
			if errs[i] == nil {
				if paid != nil {
					t.Fatalf("round %d: ticket %s paid twice: %+v and %+v", round, w, *paid, answers[i])
				}
				paid = &answers[i]
			}
		}
		if paid == nil || paid.Entry <= 0 {
			t.Fatalf("round %d: no payment: %v", round, errs)
		}
		for i, err := range errs {
			var r *core.Refusal
			if err != nil && (!errors.As(err, &r) || r.Verdict != core.AlreadyClaimed || r.First.Entry != paid.Entry) {
				t.Errorf("round %d, claim %d: %v, want already paid by entry %d", round, i, err, paid.Entry)
			}
		}
		// Its record's (-seq), or its entry's id when its question
		// chained it directly (direct.go: no record).
		var row struct {
			Claim int64
			Seq   sql.NullInt64
		}
		if err := servers[0].DB().GetContext(ctx, &row, `SELECT p.claim, j.seq FROM vegas.paid p JOIN vegas.journal j ON j.id = $1
			WHERE p.ticket = j.ticket`, paid.Entry); err != nil || row.Seq.Valid && (row.Claim != -row.Seq.Int64 || row.Seq.Int64 <= 0) ||
			!row.Seq.Valid && row.Claim != paid.Entry {
			t.Errorf("round %d: the paid row names %d, the payment's record is %v, its entry %d: %v", round, row.Claim, row.Seq, paid.Entry, err)
		}
		if round == 0 {
			if _, err := servers[1].Void(ctx, paid.Number, "test", bo); err != nil {
				t.Fatal(err)
			}
			again, err := servers[0].Claim(ctx, s, claimOf(bo, ""), time.Time{})
			if err != nil || again.Entry <= paid.Entry {
				t.Errorf("claimed again after its void: %+v, %v", again, err)
			}
		}
	}
	if rep, err := servers[0].VerifyJournal(ctx); err != nil || len(rep.Problems) > 0 || rep.Waiting > 0 {
		t.Errorf("verify the journal: %v %+v", err, rep)
	}
}

// A served question's read refuses its desk by itself: unknown, disabled,
// its certificate revoked (ledgertest.Gate, run on SQLite too).
func TestGate(t *testing.T) {
	b, serials := office(t)
	ledgertest.Gate(t, b, serials)
}
