package postgres_test

import (
	"context"
	"errors"
	"fmt"
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

// A PAID is on disk before it is answered (issue 43): on a durable server
// whose WAL writer waits 10 s (so nothing but a commit's own flush writes
// the WAL to disk in the test's time), autovacuum off (nothing else writes
// WAL):
//
//   - a payment chained by a round of the sequencer (its question found the
//     chainer's lock taken) is answered only once the WAL is flushed past
//     it: before, the round's "flush" was an xid-only commit, which
//     PostgreSQL does not flush, and the WAL was flushed 0x68 bytes short;
//   - payments answered by many counters at once survive a crash of the
//     server (pg_ctl stop -m immediate: what the WAL buffers held and no
//     commit flushed is gone) with the numbers, hashes and tickets
//     answered, and a replay of each request id answers the same payment;
//   - a synchronous standby that does not confirm (synchronous_standby_names
//     naming one that never connects) makes the claim unavailable, not
//     PAID, and a replay of its request id too, until the standby is there
//     (here: the setting emptied, which releases the waits): then the
//     replay answers the payment.
func TestPaidDurable(t *testing.T) {
	ctx := context.Background()
	srv, dbname := durableDatabase(t, "wal_writer_delay=10s", "autovacuum=off")
	url := srv.URL(pgtest.Owner, dbname)
	b := open(t, url)
	serials := ledgertest.SerialsOf(t, ledgertest.Block)
	var tickets []game.Serial
	for prize, ws := range serials.Winners {
		for _, w := range ws {
			if prize < core.DefaultIdentityThreshold && prize <= 100 {
				tickets = append(tickets, serial(t, w))
			}
		}
	}
	if len(tickets) < 42 {
		t.Fatalf("%d tickets", len(tickets))
	}
	g1 := core.Identity{Desk: "bureau", Operator: "ann"}
	flushedPastInsert := func(what string) {
		t.Helper()
		var behind int64
		if err := b.DB().GetContext(ctx, &behind, "SELECT pg_current_wal_insert_lsn() - pg_current_wal_flush_lsn()"); err != nil {
			t.Fatal(err)
		}
		if behind > 0 {
			t.Errorf("%s: answered PAID with the WAL flushed %d bytes short of what was written", what, behind)
		}
	}
	type paid struct {
		s       game.Serial
		request string
		c       core.Claim
	}
	var answered []paid

	// A round's payment: the chainer's lock held while the question
	// records it, so that a round of the sequencer chains it.
	c, err := roundClaim(t, ctx, b, tickets[0], claimOf(g1, "round"))
	if err != nil {
		t.Fatal(err)
	}
	flushedPastInsert("a payment chained by a round")
	answered = append(answered, paid{tickets[0], "round", c})

	// A question's own chain.
	c, err = b.Claim(ctx, tickets[1], claimOf(g1, "own"), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	flushedPastInsert("a payment chained by its own question")
	answered = append(answered, paid{tickets[1], "own", c})

	// Many counters at once, then a crash.
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i, s := range tickets[2:40] {
		req := fmt.Sprintf("many-%d", i)
		wg.Go(func() {
			c, err := b.Claim(ctx, s, claimOf(g1, req), time.Time{})
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			answered = append(answered, paid{s, req, c})
			mu.Unlock()
		})
	}
	wg.Wait()
	b.Close()
	start, err := srv.Crashed()
	if err != nil {
		t.Fatal(err)
	}
	if err := start(); err != nil {
		t.Fatal(err)
	}
	b = open(t, url)
	for _, p := range answered {
		kept, err := b.ClaimByNumber(ctx, p.c.Number)
		if err != nil || kept.Hash != p.c.Hash || kept.Serial != p.s.String() {
			t.Errorf("payment n°%d of %s answered PAID, after the crash: %+v, %v", p.c.Number, p.s, kept, err)
			continue
		}
		again, err := b.Claim(ctx, p.s, claimOf(g1, p.request), time.Time{})
		if err != nil || again.Number != p.c.Number {
			t.Errorf("request %s asked again after the crash: %+v, %v", p.request, again, err)
		}
	}

	// A synchronous standby that does not confirm.
	standby := func(names string) {
		t.Helper()
		if err := srv.Exec("postgres", fmt.Sprintf("ALTER SYSTEM SET synchronous_standby_names = '%s'", names)); err != nil {
			t.Fatal(err)
		}
		if err := srv.Exec("postgres", "SELECT pg_reload_conf()"); err != nil {
			t.Fatal(err)
		}
	}
	standby("FIRST 1 (s1)")
	t.Cleanup(func() { standby("") })
	// pg_reload_conf signals the server: a new connection reads the
	// setting once it took it.
	waitFor(t, b, "SELECT current_setting('synchronous_standby_names') <> ''")
	s := tickets[40]
	for _, what := range []string{"the claim", "its request id asked again", "and again"} {
		short, cancel := context.WithTimeout(ctx, 2*time.Second)
		c, err := b.Claim(short, s, claimOf(g1, "standby"), time.Time{})
		cancel()
		if !errors.Is(err, core.ErrNotDurable) {
			t.Fatalf("%s with the synchronous standby away: %+v, %v; want ErrNotDurable", what, c, err)
		}
	}
	// A ticket paid (durably) before: its claim by another request is a
	// refusal "already claimed", whose record cannot be made durable
	// either: unavailable, not the refusal (the failover test saw it
	// answered "already claimed" for a payment the standby lacked).
	short, cancel := context.WithTimeout(ctx, 2*time.Second)
	c, err = b.Claim(short, tickets[2], claimOf(g1, "another"), time.Time{})
	cancel()
	var r *core.Refusal
	if !errors.Is(err, core.ErrNotDurable) || errors.As(err, &r) {
		t.Errorf("a claim of a ticket paid, with the synchronous standby away: %+v, %v; want ErrNotDurable alone", c, err)
	}
	short, cancel = context.WithTimeout(ctx, 2*time.Second)
	tk, err := b.Lookup(short, s, g1, core.NoLimit, time.Time{})
	cancel()
	if !errors.Is(err, core.ErrNotDurable) {
		t.Errorf("a lookup of its ticket, paid locally only: %+v, %v; want ErrNotDurable", tk, err)
	}
	// A question that chains its entry itself commits waiting for the
	// standby; an operator who cancels that wait (pg_cancel_backend)
	// makes PostgreSQL answer the commit done, with a WARNING ("the
	// transaction has already committed locally, but might not have been
	// replicated to the standby"): unavailable, not PAID. The waits
	// left by the questions above (the flusher's, a round's) cancelled
	// first, so that the question finds no round running and chains
	// its entry itself.
	cancelSyncRep := func() int {
		var n int
		if err := b.DB().Get(&n, "SELECT count(pg_cancel_backend(pid)) FROM pg_stat_activity WHERE wait_event = 'SyncRep'"); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for deadline := time.Now().Add(20 * time.Second); cancelSyncRep() > 0 || !b.Idle(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("still waiting for the standby, or a round running, 20 s after cancelling the waits")
		}
	}
	cancelled := tickets[41]
	type answer struct {
		c   core.Claim
		err error
	}
	got := make(chan answer, 1)
	go func() {
		c, err := b.Claim(ctx, cancelled, claimOf(g1, "cancelled"), time.Time{})
		got <- answer{c, err}
	}()
	var a2 answer
	for waiting := true; waiting; {
		select {
		case a2 = <-got:
			waiting = false
		case <-time.After(10 * time.Millisecond):
			cancelSyncRep()
		}
	}
	if !errors.Is(a2.err, core.ErrNotDurable) {
		t.Errorf("a claim whose commit's wait for the standby was cancelled: %+v, %v; want ErrNotDurable", a2.c, a2.err)
	}
	standby("")
	c, err = b.Claim(ctx, s, claimOf(g1, "standby"), time.Time{})
	if err != nil || c.Serial != s.String() {
		t.Fatalf("the request asked again once durable: %+v, %v", c, err)
	}
	if c, err := b.Claim(ctx, cancelled, claimOf(g1, "cancelled"), time.Time{}); err != nil || c.Serial != cancelled.String() {
		t.Fatalf("the cancelled request asked again once durable: %+v, %v", c, err)
	}
}

// waitFor polls query (a boolean) until it is true, for 20 s at most.
func waitFor(t *testing.T, b *postgres.Backend, query string) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; {
		var ok bool
		if err := b.DB().Get(&ok, query); err != nil {
			t.Fatal(err)
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("never true: %s", query)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A synchronous_commit of off reloaded into the server's configuration
// while the ledger runs (ALTER SYSTEM, pg_reload_conf: the operator's
// postgresql.conf) is raised to on as one read at connecting is: a
// connection made while it was on (the pool's, the flusher's) keeps
// waiting for the disk and the synchronous standbys. Before, neither
// pinned its setting, both took the reloaded off, and with a synchronous
// standby that never confirms a question chaining its own entry, and a
// round's flush, answered PAID: the commit, and the flush, no longer
// waited for anything.
func TestPaidDurableReloadedOff(t *testing.T) {
	ctx := context.Background()
	srv, dbname := durableDatabase(t, "autovacuum=off")
	b := open(t, srv.URL(pgtest.Owner, dbname))
	serials := ledgertest.SerialsOf(t, ledgertest.Block)
	var tickets []game.Serial
	for prize, ws := range serials.Winners {
		for _, w := range ws {
			if prize < core.DefaultIdentityThreshold && prize <= 100 {
				tickets = append(tickets, serial(t, w))
			}
		}
	}
	g1 := core.Identity{Desk: "bureau", Operator: "ann"}
	// The pool's connection and the flusher's made, synchronous_commit on.
	if _, err := b.Claim(ctx, tickets[0], claimOf(g1, "before"), time.Time{}); err != nil {
		t.Fatal(err)
	}
	set := func(stmt string) {
		t.Helper()
		if err := srv.Exec("postgres", stmt); err != nil {
			t.Fatal(err)
		}
	}
	set("ALTER SYSTEM SET synchronous_standby_names = 'FIRST 1 (s1)'")
	set("ALTER SYSTEM SET synchronous_commit = off")
	set("SELECT pg_reload_conf()")
	t.Cleanup(func() {
		srv.Exec("postgres", "ALTER SYSTEM RESET synchronous_commit")
		srv.Exec("postgres", "ALTER SYSTEM RESET synchronous_standby_names")
		srv.Exec("postgres", "SELECT pg_reload_conf()")
	})
	waitFor(t, b, "SELECT current_setting('synchronous_standby_names') <> '' AND current_setting('synchronous_commit') = 'off'")
	time.Sleep(100 * time.Millisecond) // every backend took the reload

	// Alone: the question chains its own entry, its commit the flush.
	short, cancel := context.WithTimeout(ctx, 3*time.Second)
	c, err := b.Claim(short, tickets[1], claimOf(g1, "own"), time.Time{})
	cancel()
	if !errors.Is(err, core.ErrNotDurable) {
		t.Errorf("a claim chaining its own entry, synchronous_commit reloaded off, the synchronous standby away: %+v, %v; want ErrNotDurable", c, err)
	}
	// A round's: the chainer's lock held while the question records.
	short, cancel = context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	if c, err := roundClaim(t, short, b, tickets[2], claimOf(g1, "round")); !errors.Is(err, core.ErrNotDurable) {
		t.Errorf("a claim chained by a round, synchronous_commit reloaded off, the synchronous standby away: %+v, %v; want ErrNotDurable", c, err)
	}
}

// A lookup that names a payment is answered once a flush after its read
// ended, on a read-only login too: its ticket's pack stolen, the lookup
// records a refusal (which a read-only login does not write). Here the
// payment, its commit's wait for the synchronous standby cancelled, and
// the pack's theft are committed on the primary only: before, the
// read-only login answered the ticket paid, with the payment, at once.
func TestPaidDurableReadOnlyLookup(t *testing.T) {
	ctx := context.Background()
	srv, dbname := durableDatabase(t, "autovacuum=off")
	url := srv.URL(pgtest.Owner, dbname)
	b := open(t, url)
	l, err := postgres.Open(url, true, backoffice.Creation{}, func() time.Time { return time.Time{} })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	ro := l.(*postgres.Backend)
	serials := ledgertest.SerialsOf(t, ledgertest.Block)
	var s game.Serial
	for prize, ws := range serials.Winners {
		if prize < core.DefaultIdentityThreshold && prize <= 100 && len(ws) > 0 {
			s = serial(t, ws[0])
			break
		}
	}
	g1 := core.Identity{Desk: "bureau", Operator: "ann"}
	if _, err := ro.Lookup(ctx, s, g1, core.NoLimit, time.Time{}); err != nil {
		t.Fatal(err)
	}
	set := func(stmt string) {
		t.Helper()
		if err := srv.Exec("postgres", stmt); err != nil {
			t.Fatal(err)
		}
	}
	set("ALTER SYSTEM SET synchronous_standby_names = 'FIRST 1 (s1)'")
	set("SELECT pg_reload_conf()")
	t.Cleanup(func() {
		srv.Exec("postgres", "ALTER SYSTEM RESET synchronous_standby_names")
		srv.Exec("postgres", "SELECT pg_reload_conf()")
	})
	waitFor(t, b, "SELECT current_setting('synchronous_standby_names') <> ''")
	// Commits waiting for the standby made local: their waits cancelled.
	local := func(what string) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			var n int
			if err := b.DB().Get(&n, "SELECT count(pg_cancel_backend(pid)) FROM pg_stat_activity WHERE wait_event = 'SyncRep'"); err != nil {
				t.Fatal(err)
			}
			var ok bool
			if err := b.DB().Get(&ok, what); err != nil {
				t.Fatal(err)
			}
			if ok {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("never true: %s", what)
			}
		}
	}
	short, cancel := context.WithTimeout(ctx, 2*time.Second)
	c, err := b.Claim(short, s, claimOf(g1, "local"), time.Time{})
	cancel()
	if !errors.Is(err, core.ErrNotDurable) {
		t.Fatalf("a claim with the synchronous standby away: %+v, %v; want ErrNotDurable", c, err)
	}
	local("SELECT EXISTS (SELECT FROM vegas.journal WHERE request = 'local')")
	short, cancel = context.WithTimeout(ctx, 2*time.Second)
	err = b.MovePacks(short, core.PackMove{Game: s.Game, Block: s.Block, First: s.Position / game.PackSize, Last: s.Position / game.PackSize,
		Move: "stolen", Reason: "test"}, core.Identity{Operator: "m"})
	cancel()
	t.Logf("the theft, the standby away: %v", err)
	local(fmt.Sprintf("SELECT EXISTS (SELECT FROM vegas.pack_states WHERE pack = %d AND state = 'stolen')", s.Position/game.PackSize))
	short, cancel = context.WithTimeout(ctx, 2*time.Second)
	tk, err := ro.Lookup(short, s, g1, core.NoLimit, time.Time{})
	cancel()
	if !errors.Is(err, core.ErrNotDurable) {
		t.Errorf("a read-only lookup of a stolen ticket whose payment is on the primary only: %+v, %v; want ErrNotDurable", tk, err)
	}
}

// A flush vouches only for what was committed while the connection it
// runs on was open (flush.go: a connection made again may reach another
// primary). A round's commit, then the flusher's connection lost and made
// again (a failover's promoted standby), then the round's wait for a
// flush: before, the round noted the flusher's connection when it waited,
// after the commit, and the flush on the new connection answered the
// round's payment PAID; the payment is unavailable.
func TestPaidDurableFlusherReconnected(t *testing.T) {
	ctx := context.Background()
	b, serials := office(t)
	s := serial(t, serials.Winners[50][0])
	var once sync.Once
	b.AfterRoundCommit(func() {
		once.Do(func() {
			if err := b.LoseFlusherConnection(ctx); err != nil {
				t.Error(err)
			}
		})
	})
	if c, err := roundClaim(t, ctx, b, s, claimOf(core.Identity{Desk: "G1", Operator: "ann"}, "r")); !errors.Is(err, core.ErrNotDurable) {
		t.Errorf("a round's payment, the flusher's connection made again after its commit: %+v, %v; want ErrNotDurable", c, err)
	}
}

// synchronous_commit off is set for a transaction only (set_config's
// is_local), never for a pooled connection's session: after a question's
// pipelined chain undone midway (its write raced), a question's commit
// without its chain (the chainer's lock taken), questions recorded while
// others are asked (one statement, its implicit transaction) and some of
// them racing, every connection of the pool commits waiting for the disk
// (a question alone then chains its entry durably).
func TestPaidDurableSyncCommitScoped(t *testing.T) {
	ctx := context.Background()
	b, serials := office(t)
	g1 := core.Identity{Desk: "G1", Operator: "ann"}
	w := serials.Winners[50]
	// A chain's pipeline undone midway.
	a := serial(t, w[0])
	sn, err := b.Snapshot(ctx, a, g1.Desk, "", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	out := core.DecideClaim(sn, a, claimOf(g1, ""), time.Now())
	if _, err := b.Claim(ctx, a, claimOf(g1, "a"), time.Time{}); err != nil {
		t.Fatal(err)
	}
	if err := b.Write(ctx, sn, &out); !errors.Is(err, postgres.ErrRaced) {
		t.Fatalf("a stale write: %v", err)
	}
	// A question alone, the chainer's lock taken: its commit without it.
	if _, err := roundClaim(t, ctx, b, serial(t, w[1]), claimOf(g1, "b")); err != nil {
		t.Fatal(err)
	}
	// Many at once, some racing for one ticket.
	var wg sync.WaitGroup
	for i := range 12 {
		s := serial(t, w[2+i%8])
		wg.Go(func() { b.Claim(ctx, s, claimOf(g1, fmt.Sprint("m", i)), time.Time{}) })
	}
	wg.Wait()
	settings, err := b.PoolSynchronousCommit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range settings {
		if v == "off" {
			t.Errorf("a pooled connection's synchronous_commit after the questions: %v", settings)
			break
		}
	}
	t.Logf("the pool's connections: %v", settings)
}

// durableDatabase starts a durable PostgreSQL server of the test's own
// (fsync on, its settings) from the saved one holding the block, and makes
// it a database of the block: the server and the database's name.
func durableDatabase(t *testing.T, settings ...string) (*pgtest.Server, string) {
	t.Helper()
	srv, err := ledgertest.StartDurablePostgres(settings, ledgertest.Block)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	tmpl, err := ledgertest.Postgres(srv, ledgertest.Block)
	if err != nil {
		t.Fatal(err)
	}
	return srv, srv.NewDatabaseFrom(t, tmpl)
}

// roundClaim asks the claim req of s while the chainer's lock is held,
// until its entry waits in vegas.waiting, then lets the lock go: a round
// of the sequencer chains it. The claim's answer.
func roundClaim(t *testing.T, ctx context.Context, b *postgres.Backend, s game.Serial, req core.ClaimRequest) (core.Claim, error) {
	t.Helper()
	hold, err := b.DB().BeginTxx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Rollback()
	if _, err := hold.ExecContext(ctx, "SELECT 1 FROM vegas.chainer FOR UPDATE"); err != nil {
		t.Fatal(err)
	}
	type answer struct {
		c   core.Claim
		err error
	}
	got := make(chan answer, 1)
	go func() {
		c, err := b.Claim(ctx, s, req, time.Time{})
		got <- answer{c, err}
	}()
	waitFor(t, b, "SELECT count(*) = 1 FROM vegas.waiting")
	hold.Rollback()
	a := <-got
	return a.c, a.err
}
