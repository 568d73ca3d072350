package backoffice_test

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/backoffice"
	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/ledger/ledgertest"
	"vegas-desk/internal/ledger/sqlite"
)

var bo = core.Identity{Desk: "bureau", Operator: "boss"}

// office opens a copy of the block fixture's file, locking out desk G1.
func office(t *testing.T) (*sqlite.Backend, ledgertest.Serials) {
	t.Helper()
	b, err := sqlite.OpenLedger(ledgertest.Copy(t, ledgertest.Block), false, backoffice.Creation{}, func() time.Time { return time.Time{} })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
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

// A question's snapshot holds what the rule needs: the ticket's facts (none
// for a wrong secret part), the rules at the desk (its limit), the request
// id's prior use with its payment, the desk's lock-out (only for a desk
// the ledger lists, when it locks desks out).
func TestReadSnapshot(t *testing.T) {
	ctx := context.Background()
	b, serials := office(t)
	s := serial(t, serials.Winners[50][0])
	who := core.Identity{Desk: "G1", Operator: "ann"}
	read := func(s game.Serial, who core.Identity, request string) *core.Snapshot {
		tx, err := b.File().R.BeginTxx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		sn, err := b.ReadSnapshot(ctx, tx, backoffice.Tables{}, &core.Question{Serial: s, Claim: &core.ClaimRequest{Request: request}, Who: who, Asked: core.NoLimit, At: time.Now()})
		if err != nil {
			t.Fatal(err)
		}
		return sn
	}
	sn := read(s, who, "r1")
	if sn.Facts == nil || sn.Facts.Prize != 50 || sn.Facts.Paid != nil || sn.Rules.Limit != 100 || sn.Prior != nil || !sn.Desk.On || len(sn.Desk.Guesses) != 0 {
		t.Fatalf("a winner: %+v, rules %+v, desk %+v", sn.Facts, sn.Rules, sn.Desk)
	}
	if sn := read(s, bo, ""); sn.Desk.On || sn.Rules.Limit != core.NoLimit {
		t.Errorf("the back office's own question: desk %+v, rules %+v", sn.Desk, sn.Rules)
	}
	wrong := s
	wrong.Secret = (s.Secret + 1) % game.SecretModulus
	if sn := read(wrong, who, ""); sn.Facts != nil {
		t.Errorf("a wrong secret part has facts: %+v", sn.Facts)
	}
	c, err := b.Questions().Claim(ctx, s, core.ClaimRequest{Method: "serial", Who: who, Request: "r1", Limit: core.NoLimit}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	sn = read(s, who, "r1")
	if sn.Prior == nil || sn.Prior.ID != c.Entry || sn.PriorClaim == nil || sn.PriorClaim.Entry != c.Entry || sn.Facts.Paid == nil || sn.Facts.Paid.Entry != c.Entry {
		t.Errorf("after its payment: prior %+v, its claim %+v, paid %+v", sn.Prior, sn.PriorClaim, sn.Facts.Paid)
	}
	if _, err := b.Questions().Lookup(ctx, wrong, who, core.NoLimit, time.Time{}); !errors.Is(err, core.ErrUnknownSerial) {
		t.Fatal(err)
	}
	if sn := read(s, who, ""); len(sn.Desk.Guesses) != 1 {
		t.Errorf("after a guess, the desk keeps %d", len(sn.Desk.Guesses))
	}
}

// The write checks again what may have changed since its snapshot: a
// guess decided when its desk was not locked out is refused Locked, and
// not recorded, when the desk is locked out by then; a payment decided
// when its ticket was not paid fails on the paid row's key, and nothing of
// it stays.
func TestWriteOutcomeChecksAgain(t *testing.T) {
	ctx := context.Background()
	b, serials := office(t)
	who := core.Identity{Desk: "G1", Operator: "mallory"}
	s := serial(t, serials.Winners[50][1])
	wrong := s
	wrong.Secret = (s.Secret + 1) % game.SecretModulus
	tx, err := b.File().R.BeginTxx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	stale, err := b.ReadSnapshot(ctx, tx, backoffice.Tables{}, &core.Question{Serial: s, Who: who, Asked: core.NoLimit, At: time.Now()})
	tx.Rollback()
	if err != nil {
		t.Fatal(err)
	}
	for i := range core.LockRefusals {
		w := wrong
		w.Secret = (w.Secret + int64(i)) % game.SecretModulus
		if _, err := b.Questions().Lookup(ctx, w, who, core.NoLimit, time.Time{}); !errors.Is(err, core.ErrUnknownSerial) {
			t.Fatalf("guess %d: %v", i, err)
		}
	}
	head, err := b.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	guess := core.DecideLookup(&core.Snapshot{Desk: stale.Desk}, wrong, who, time.Now())
	if err := b.FileStorage(backoffice.Tables{}, nil).Write(ctx, nil, nil, stale, &guess); !errors.Is(err, core.ErrLocked) {
		t.Errorf("a guess decided before the lock-out, written after it: %v", err)
	}
	if h, _ := b.Head(ctx); h != head {
		t.Errorf("the refused guess moved the journal: %s, was %s", h, head)
	}
	pay := core.DecideClaim(stale, s, core.ClaimRequest{Method: "serial", Who: core.Identity{Desk: "bureau", Operator: "boss"}, Limit: core.NoLimit}, time.Now())
	if pay.Record == nil || !pay.Pay {
		t.Fatalf("the payment: %+v", pay)
	}
	if _, err := b.Questions().Claim(ctx, s, core.ClaimRequest{Method: "serial", Who: bo, Limit: core.NoLimit}, time.Time{}); err != nil {
		t.Fatal(err)
	}
	head, _ = b.Head(ctx)
	wtx, err := b.File().W.BeginTxx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = b.WriteOutcome(ctx, wtx, &pay, nil)
	wtx.Rollback()
	if err == nil {
		t.Error("a second payment of the ticket, decided before the first, was written")
	}
	if h, _ := b.Head(ctx); h != head {
		t.Errorf("the journal moved: %s, was %s", h, head)
	}
	d, _, err := b.DeskState(ctx, "G1", "")
	if err != nil || d.LockedUntil.IsZero() {
		t.Errorf("desk G1: %+v, %v", d, err)
	}
	if rep, err := b.VerifyJournal(ctx); err != nil || len(rep.Problems) > 0 {
		t.Errorf("verify the journal (the lock-out's entry replayed): %v %+v", err, rep.Problems)
	}
}

// A served question's read refuses its desk by itself: unknown, disabled,
// its certificate revoked (ledgertest.Gate, run on PostgreSQL too).
func TestGate(t *testing.T) {
	b, serials := office(t)
	ledgertest.Gate(t, b, serials)
}

// counting is a Querier that counts the statements run through it.
type counting struct {
	core.Querier
	n int
}

func (c *counting) QueryxContext(ctx context.Context, query string, args ...any) (*sqlx.Rows, error) {
	c.n++
	return c.Querier.QueryxContext(ctx, query, args...)
}

func (c *counting) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	c.n++
	return c.Querier.QueryContext(ctx, query, args...)
}

func (c *counting) QueryRowxContext(ctx context.Context, query string, args ...any) *sqlx.Row {
	c.n++
	return c.Querier.QueryRowxContext(ctx, query, args...)
}

// A file's questions read a block once (BlockCache): the second question
// about a block reads its ticket without the block's row; a block the
// ledger does not hold is not kept, so a block made later is found.
func TestBlockCache(t *testing.T) {
	ctx := context.Background()
	b, serials := office(t)
	s := serial(t, serials.Winners[50][0])
	q := &counting{Querier: b.File().R}
	var c backoffice.BlockCache
	for i, want := range []int{1, 0} {
		before := q.n
		blk, err := c.Get(ctx, q, s.Game, s.Block)
		if err != nil || !blk.Holds(s) {
			t.Fatalf("get %d: %v %v", i, blk, err)
		}
		if got := q.n - before; got != want {
			t.Errorf("get %d: %d statements, want %d", i, got, want)
		}
	}
	if _, err := c.Get(ctx, q, s.Game, s.Block+1); !errors.Is(err, core.ErrNotFound) {
		t.Fatalf("a block the ledger lacks: %v, want ErrNotFound", err)
	}
	before := q.n
	if _, err := c.Get(ctx, q, s.Game, s.Block+1); !errors.Is(err, core.ErrNotFound) || q.n == before {
		t.Errorf("a block the ledger lacks asked again: %v after %d statements; want ErrNotFound, read again", err, q.n-before)
	}
}

// A claim's read on a file (issue 38), once its block is kept, is four
// statements (it was six): the desk's row with the rules (one statement:
// it was two), the ticket's facts, its payment, and the request id's prior
// use with its payment and that payment's void (one: it was two). The prior payment read
// is the one the snapshot's paid row names, voided or not.
func TestClaimReadStatements(t *testing.T) {
	ctx := context.Background()
	b, serials := office(t)
	s := serial(t, serials.Winners[50][2])
	who := core.Identity{Desk: "G1", Operator: "ann"}
	c, err := b.Questions().Claim(ctx, s, core.ClaimRequest{Method: "serial", Who: who, Request: "r1", Limit: core.NoLimit}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	src := backoffice.Tables{Cache: &backoffice.BlockCache{}}
	read := func() (*core.Snapshot, int) {
		t.Helper()
		tx, err := b.File().R.BeginTxx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		q := &counting{Querier: tx}
		sn, err := b.ReadSnapshot(ctx, q, src, &core.Question{Serial: s, Claim: &core.ClaimRequest{Request: "r1"}, Who: who, Asked: core.NoLimit, At: time.Now()})
		if err != nil {
			t.Fatal(err)
		}
		return sn, q.n
	}
	read() // the block kept
	sn, n := read()
	if sn.Prior == nil || sn.Prior.ID != c.Entry || sn.PriorClaim == nil || sn.PriorClaim.Entry != c.Entry || sn.PriorClaim.Voided ||
		sn.PriorClaim.Amount != 50 || sn.PriorClaim.Serial != s.String() || sn.PriorClaim.At.IsZero() || sn.PriorClaim.Hash == "" {
		t.Fatalf("the request id's payment: prior %+v, its claim %+v", sn.Prior, sn.PriorClaim)
	}
	if *sn.PriorClaim != *sn.Facts.Paid {
		t.Errorf("the prior payment %+v is not the ticket's %+v", sn.PriorClaim, sn.Facts.Paid)
	}
	if n != 4 {
		t.Errorf("a paid ticket's claim asked again read in %d statements; want 4 (desk and rules, facts, payment, prior use)", n)
	}
	if _, err := b.Void(ctx, c.Number, "erreur de saisie", bo); err != nil {
		t.Fatal(err)
	}
	sn, _ = read()
	if sn.PriorClaim == nil || !sn.PriorClaim.Voided || sn.PriorClaim.VoidReason != "erreur de saisie" || sn.PriorClaim.VoidedBy != bo.Operator ||
		sn.PriorClaim.VoidDesk != bo.Desk || sn.PriorClaim.VoidedAt.IsZero() {
		t.Errorf("the request id's payment voided: %+v", sn.PriorClaim)
	}
}

// BenchmarkReadSnapshot is a claim's read on a file as serve asks it
// again (TestClaimReadStatements: a paid ticket, its desk locked out when
// it guesses, a request id used), in a read transaction: the CPU of the
// read, without a commit's sync.
func BenchmarkReadSnapshot(b *testing.B) {
	ctx := context.Background()
	be, err := sqlite.OpenLedger(ledgertest.Copy(b, ledgertest.Block), false, backoffice.Creation{}, func() time.Time { return time.Time{} })
	if err != nil {
		b.Fatal(err)
	}
	defer be.Close()
	be.LockOutGuesses()
	if _, err := be.AddDesk(ctx, "G1", 100, bo); err != nil {
		b.Fatal(err)
	}
	g, err := game.ParseSerial(ledgertest.SerialsOf(b, ledgertest.Block).Winners[50][2])
	if err != nil {
		b.Fatal(err)
	}
	who := core.Identity{Desk: "G1", Operator: "ann"}
	if _, err := be.Questions().Claim(ctx, g, core.ClaimRequest{Method: "serial", Who: who, Request: "r1", Limit: core.NoLimit}, time.Time{}); err != nil {
		b.Fatal(err)
	}
	src := backoffice.Tables{Cache: &backoffice.BlockCache{}}
	q := &core.Question{Serial: g, Claim: &core.ClaimRequest{Request: "r1"}, Who: who, Asked: core.NoLimit, At: time.Now()}
	for b.Loop() {
		tx, err := be.File().R.BeginTxx(ctx, nil)
		if err != nil {
			b.Fatal(err)
		}
		sn, err := be.ReadSnapshot(ctx, tx, src, q)
		tx.Rollback()
		if err != nil || sn.PriorClaim == nil {
			b.Fatal(sn, err)
		}
	}
}
