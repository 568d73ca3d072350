package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/ledger/ledgertest"
	"vegas-desk/internal/ledger/postgres"
	"vegas-desk/internal/pgtest"
)

// An attacker's bad luck on the direct chain (direct.go, group.go): two
// servers on one database, each with its own cached end, claims at once
// on both (alone and in groups), the same ticket claimed by two desks,
// the same request id sent twice at once, contexts that end at random
// while a claim waits for its group or its commit, and a back office
// appending entries meanwhile. Then: every claim answered PAID is in the
// journal as answered and is answered again (its request replayed) with
// the same entry; no ticket paid twice; each kind's numbers 1..n without
// gaps; verify finds the chain whole, nothing left waiting.
func TestDirectAttackStress(t *testing.T) {
	ctx := context.Background()
	url := database(t)
	servers := []*postgres.Backend{open(t, url), open(t, url)}
	serials := ledgertest_winners(t)
	type paid struct {
		s, req string
		desk   core.Identity
		c      core.Claim
	}
	var mu sync.Mutex
	var answered []paid
	// Alone, by turns first: each server's claim after the other's finds
	// the end it knows moved, the next chains directly.
	if len(serials) < 47+6 {
		t.Fatalf("%d winners in the fixture", len(serials))
	}
	for i, s := range serials[len(serials)-6:] {
		who, req := core.Identity{Desk: "bureau", Operator: "ann"}, fmt.Sprint("turn-", i)
		c, err := servers[i/2%2].Claim(ctx, serial(t, s), claimOf(who, req), time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		answered = append(answered, paid{s, req, who, c})
	}
	stop := make(chan struct{})
	var bo sync.WaitGroup
	bo.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond): // a back office's pace
			}
			if _, err := servers[i%2].AddDesk(ctx, fmt.Sprintf("X%d", i), 100, bo0); err != nil {
				t.Errorf("a back office's write: %v", err)
				return
			}
		}
	})
	var wg sync.WaitGroup
	desks := []core.Identity{{Desk: "bureau", Operator: "ann"}, {Desk: "bureau", Operator: "bob"}}
	for g := range 8 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 7))
			for i := range 12 {
				s := serials[(g*5+i)%len(serials)]     // tickets shared by goroutines
				req := fmt.Sprintf("r%d", (g*12+i)%40) // request ids sent twice at once
				who := desks[g%2]
				cctx, cancel := ctx, context.CancelFunc(func() {})
				if r.IntN(3) == 0 {
					cctx, cancel = context.WithTimeout(ctx, time.Duration(r.IntN(4000))*time.Microsecond)
				}
				c, err := servers[min(g%4, 1)].Claim(cctx, serial(t, s), claimOf(who, req), time.Time{})
				cancel()
				if err == nil {
					mu.Lock()
					answered = append(answered, paid{s, req, who, c})
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	close(stop)
	bo.Wait()
	db := servers[0].DB()
	for _, p := range answered {
		var row struct {
			Number int64  `db:"number"`
			Hash   []byte `db:"hash"`
			Serial string `db:"serial"`
		}
		if err := db.GetContext(ctx, &row, "SELECT number, hash, serial FROM vegas.journal WHERE id = $1 AND kind = 'claim'", p.c.Entry); err != nil {
			t.Errorf("claim %+v answered PAID: its entry: %v", p.c, err)
			continue
		}
		if row.Number != p.c.Number || fmt.Sprintf("%x", row.Hash) != p.c.Hash || row.Serial != p.s {
			t.Errorf("claim answered %+v; the journal holds %+v", p.c, row)
		}
		again, err := servers[1].Claim(ctx, serial(t, p.s), claimOf(p.desk, p.req), time.Time{})
		if err != nil || again.Entry != p.c.Entry {
			t.Errorf("request %s (%s) answered PAID entry %d, replayed: %+v, %v", p.req, p.s, p.c.Entry, again, err)
		}
	}
	var twice int
	if err := db.GetContext(ctx, &twice, "SELECT count(*) FROM (SELECT ticket FROM vegas.journal WHERE kind = 'claim' GROUP BY ticket HAVING count(*) > 1) x"); err != nil {
		t.Fatal(err)
	}
	if twice > 0 {
		t.Errorf("%d tickets paid twice", twice)
	}
	var gaps []string
	if err := db.SelectContext(ctx, &gaps, "SELECT kind FROM vegas.journal GROUP BY kind HAVING max(number) <> count(*) OR min(number) <> 1"); err != nil {
		t.Fatal(err)
	}
	if len(gaps) > 0 {
		t.Errorf("kinds numbered with gaps: %v", gaps)
	}
	if rep, err := servers[0].VerifyJournal(ctx); err != nil || len(rep.Problems) > 0 || rep.Waiting > 0 {
		t.Errorf("verify the journal: %v %+v", err, rep)
	}
	var directs, moved int64
	for _, b := range servers {
		d, m := b.Directs()
		directs, moved = directs+d, moved+m
	}
	t.Logf("%d answered PAID; %d chained directly, %d direct statements found the end moved", len(answered), directs, moved)
	if directs == 0 || moved == 0 {
		t.Errorf("%d entries chained directly, %d direct statements found the end moved: the attack missed the direct chain", directs, moved)
	}
	_ = errors.Is
}

var bo0 = core.Identity{Desk: "bureau", Operator: "boss"}

// ledgertest_winners lists the fixture's winners under the identity
// threshold.
func ledgertest_winners(t *testing.T) []string {
	var out []string
	for prize, ws := range ledgertest.SerialsOf(t, ledgertest.Block).Winners {
		if prize < core.DefaultIdentityThreshold {
			out = append(out, ws...)
		}
	}
	return out
}

// Questions asked beside others chain in groups (group.go), one commit
// waiting for the synchronous standby for the group. With the standby
// away, an operator cancels each wait (pg_cancel_backend: PostgreSQL
// answers the commit done, with a WARNING), then ends the waiting
// backends (pg_terminate_backend: the connection lost between the
// statements and the commit's result): no claim of a group is answered
// PAID. Once the standby is back, each request replayed answers its
// payment as the journal holds it, and verify finds the chain whole.
func TestGroupNotDurable(t *testing.T) {
	ctx := context.Background()
	srv, dbname := durableDatabase(t, "autovacuum=off")
	b := open(t, srv.URL(pgtest.Owner, dbname))
	tickets := ledgertest_winners(t)
	who := core.Identity{Desk: "bureau", Operator: "ann"}
	if _, err := b.Claim(ctx, serial(t, tickets[0]), claimOf(who, "before"), time.Time{}); err != nil {
		t.Fatal(err)
	}
	setStandbys(t, srv, "FIRST 1 (s1)")
	t.Cleanup(func() { setStandbys(t, srv, "") })
	waitFor(t, b, "SELECT current_setting('synchronous_standby_names') <> ''")
	d0, _ := b.Directs()
	type phase struct {
		end string // how each wait for the standby is ended: none, the question's time
		n   int    // claims at once (1: alone, chained by writeDirect)
	}
	phases := []phase{{"pg_cancel_backend", 8}, {"pg_terminate_backend", 8}, {"pg_cancel_backend", 1}, {"pg_terminate_backend", 1},
		{"reloaded off", 8}}
	next := 1
	type asked struct{ s, req string }
	var all []asked
	for p, ph := range phases {
		if ph.end == "reloaded off" {
			// synchronous_commit off reloaded while the pool's connections
			// are open (TestPaidDurableReloadedOff, for a group).
			for _, stmt := range []string{"ALTER SYSTEM SET synchronous_commit = off", "SELECT pg_reload_conf()"} {
				if err := srv.Exec("postgres", stmt); err != nil {
					t.Fatal(err)
				}
			}
			t.Cleanup(func() {
				srv.Exec("postgres", "ALTER SYSTEM RESET synchronous_commit")
				srv.Exec("postgres", "SELECT pg_reload_conf()")
			})
			waitFor(t, b, "SELECT current_setting('synchronous_commit') = 'off'")
		}
		type answer struct {
			req string
			c   core.Claim
			err error
		}
		got := make(chan answer, ph.n)
		for i := range ph.n {
			s, req := tickets[next+i], fmt.Sprintf("p%d-%d", p, i)
			all = append(all, asked{s, req})
			go func() {
				qctx, cancel := context.WithTimeout(ctx, 3*time.Second)
				defer cancel()
				c, err := b.Claim(qctx, serial(t, s), claimOf(who, req), time.Time{})
				got <- answer{req, c, err}
			}()
		}
		next += ph.n
		for n := 0; n < ph.n; {
			select {
			case a := <-got:
				n++
				if !errors.Is(a.err, core.ErrNotDurable) && !errors.Is(a.err, core.ErrUnreachable) {
					t.Errorf("%s, the standby away: request %s answered %+v, %v; want unavailable", ph.end, a.req, a.c, a.err)
				}
			case <-time.After(10 * time.Millisecond):
				if ph.end == "reloaded off" {
					continue
				}
				if err := b.DB().Get(new(int), "SELECT count("+ph.end+"(pid)) FROM pg_stat_activity WHERE wait_event = 'SyncRep'"); err != nil {
					t.Logf("ending the waits: %v", err)
				}
			}
		}
	}
	if d, _ := b.Directs(); d-d0 < 2 {
		t.Errorf("%d entries chained directly: no group was tried", d-d0)
	}
	setStandbys(t, srv, "")
	for _, a := range all {
		c, err := b.Claim(ctx, serial(t, a.s), claimOf(who, a.req), time.Time{})
		if err != nil || c.Serial != a.s {
			t.Errorf("request %s replayed, the standby back: %+v, %v", a.req, c, err)
			continue
		}
		var n int64
		if err := b.DB().Get(&n, "SELECT number FROM vegas.journal WHERE id = $1 AND kind = 'claim' AND serial = $2", c.Entry, a.s); err != nil || n != c.Number {
			t.Errorf("request %s answered %+v; the journal: %d, %v", a.req, c, n, err)
		}
	}
	if rep, err := b.VerifyJournal(ctx); err != nil || len(rep.Problems) > 0 || rep.Waiting > 0 {
		t.Errorf("verify the journal: %v %+v", err, rep)
	}
}

// A direct statement checks the end it names (lock free, the last
// entry's id and hash) and the journal's keys refuse a number taken; a
// number given past the last of its kind, from a cached end whose id and
// hash are right but whose numbers are not (a chain learnt and then
// lost, an end read in two moments), would leave a gap that verify
// reports as an entry removed ("is number 7 of its kind, want 4"). The
// statement checks the number too: such an entry is written as before,
// numbered after the last, alone and in a group.
func TestDirectNumberChecked(t *testing.T) {
	ctx := context.Background()
	b, serials := office(t)
	who := core.Identity{Desk: "bureau", Operator: "ann"}
	w := serials.Winners[50]
	first, err := b.Claim(ctx, serial(t, w[0]), claimOf(who, "n0"), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if !b.SkewEndNumber("claim", 3) {
		t.Fatal("the journal's end not cached after a claim")
	}
	c, err := b.Claim(ctx, serial(t, w[1]), claimOf(who, "n1"), time.Time{})
	if err != nil || c.Number != first.Number+1 {
		t.Errorf("a claim alone after payment %d, the cached end's number stale: %+v, %v; want payment %d", first.Number, c, err, first.Number+1)
	}
	// In a group: its first entry's number from the stale end.
	for !b.SkewEndNumber("claim", 2) {
		if _, err := b.Claim(ctx, serial(t, w[2]), claimOf(who, "n2"), time.Time{}); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			if _, err := b.Claim(ctx, serial(t, w[3+i]), claimOf(who, fmt.Sprint("g", i)), time.Time{}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if rep, err := b.VerifyJournal(ctx); err != nil || len(rep.Problems) > 0 || rep.Waiting > 0 {
		t.Errorf("verify the journal: %v %+v", err, rep)
	}
}

// A failover under the direct chain: a primary and its synchronous
// standby on the multi-host URL; claims answered PAID; the standby lost,
// claims alone and in groups whose waits for it an operator cancels
// (committed on the primary alone, answered unavailable, their entries
// the end the process caches); then the primary killed and the standby,
// which lacks them, promoted. The same process goes on, its cached end
// naming entries the new primary never had: no claim chains after them,
// every claim answered PAID (before and after) is in the new primary's
// journal as answered, the requests answered unavailable are paid on it
// once, and verify finds its chain whole.
func TestDirectFailover(t *testing.T) {
	ctx := context.Background()
	primary, dbname := durableDatabase(t, "autovacuum=off")
	standby, err := primary.Standby("s1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(standby.Stop)
	if err := primary.Set("synchronous_standby_names", "FIRST 1 (s1)"); err != nil {
		t.Fatal(err)
	}
	// Run first: a failed test's cleanup (the database dropped) does not
	// wait for a standby stopped.
	t.Cleanup(func() { primary.Set("synchronous_standby_names", "") })
	b := open(t, pgtest.MultiURL(pgtest.Owner, dbname, primary, standby))
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) { // the reload reaches the walsender
		var state string
		if err := primary.Query("postgres", "SELECT sync_state FROM pg_stat_replication WHERE application_name = 's1'", nil, &state); err == nil && state == "sync" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the standby's sync_state is %q, want sync", state)
		}
	}
	tickets := ledgertest_winners(t)
	who := core.Identity{Desk: "bureau", Operator: "ann"}
	type paid struct {
		s, req string
		c      core.Claim
	}
	var answered []paid
	next := 0
	claim := func(req string) {
		t.Helper()
		s := tickets[next]
		next++
		c, err := b.Claim(ctx, serial(t, s), claimOf(who, req), time.Time{})
		if err != nil {
			t.Fatalf("claim %s: %v", req, err)
		}
		answered = append(answered, paid{s, req, c})
	}
	for i := range 3 {
		claim(fmt.Sprint("before-", i))
	}
	if err := standby.Kill(); err != nil {
		t.Fatal(err)
	}
	type asked struct{ s, req string }
	var lost []asked
	for round, n := range []int{1, 8, 1} {
		type answer struct {
			req string
			c   core.Claim
			err error
		}
		got := make(chan answer, n)
		for i := range n {
			s, req := tickets[next], fmt.Sprintf("lost-%d-%d", round, i)
			next++
			lost = append(lost, asked{s, req})
			go func() {
				c, err := b.Claim(ctx, serial(t, s), claimOf(who, req), time.Time{})
				got <- answer{req, c, err}
			}()
		}
		for k := 0; k < n; {
			select {
			case a := <-got:
				k++
				if !errors.Is(a.err, core.ErrNotDurable) && !errors.Is(a.err, core.ErrUnreachable) {
					t.Errorf("the standby lost: request %s answered %+v, %v; want unavailable", a.req, a.c, a.err)
				}
			case <-time.After(10 * time.Millisecond):
				b.DB().Get(new(int), "SELECT count(pg_cancel_backend(pid)) FROM pg_stat_activity WHERE wait_event = 'SyncRep'")
			}
		}
	}
	var localEnd int64
	if err := b.DB().Get(&localEnd, "SELECT max(id) FROM vegas.journal"); err != nil {
		t.Fatal(err)
	}
	if err := primary.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := standby.StartAgain(); err != nil {
		t.Fatal(err)
	}
	if err := standby.Promote(); err != nil {
		t.Fatal(err)
	}
	var newEnd int64
	if err := standby.Query(dbname, "SELECT max(id) FROM vegas.journal", nil, &newEnd); err != nil {
		t.Fatal(err)
	}
	t.Logf("the old primary's journal ended at entry %d, the promoted standby's at %d", localEnd, newEnd)
	if newEnd >= localEnd {
		t.Fatalf("the promoted standby holds the entries committed on the primary alone (%d ≥ %d): no failover to attack", newEnd, localEnd)
	}
	// The same process: its pool's connections to the old primary lost,
	// each claim is asked until it is answered (the pool reaches the
	// new primary).
	for i := 0; i < 6; i++ {
		s, req := tickets[next], fmt.Sprint("after-", i)
		var c core.Claim
		var err error
		for try := 0; try < 50; try++ {
			if c, err = b.Claim(ctx, serial(t, s), claimOf(who, req), time.Time{}); err == nil {
				break
			}
			time.Sleep(100 * time.Millisecond) // the pool reconnecting
		}
		if err != nil {
			t.Fatalf("claim %s after the failover: %v", req, err)
		}
		next++
		answered = append(answered, paid{s, req, c})
	}
	for _, a := range lost {
		c, err := b.Claim(ctx, serial(t, a.s), claimOf(who, a.req), time.Time{})
		if err != nil {
			t.Errorf("request %s, answered unavailable before the failover, asked again: %v", a.req, err)
			continue
		}
		answered = append(answered, paid{a.s, a.req, c})
	}
	nb := open(t, standby.URL(pgtest.Owner, dbname))
	for _, p := range answered {
		var row struct {
			Number int64  `db:"number"`
			Hash   []byte `db:"hash"`
			Serial string `db:"serial"`
		}
		if err := nb.DB().GetContext(ctx, &row, "SELECT number, hash, serial FROM vegas.journal WHERE id = $1 AND kind = 'claim'", p.c.Entry); err != nil ||
			row.Number != p.c.Number || fmt.Sprintf("%x", row.Hash) != p.c.Hash || row.Serial != p.s {
			t.Errorf("request %s answered PAID %+v; the new primary holds %+v, %v", p.req, p.c, row, err)
		}
	}
	var twice int
	if err := nb.DB().GetContext(ctx, &twice, "SELECT count(*) FROM (SELECT ticket FROM vegas.journal WHERE kind = 'claim' GROUP BY ticket HAVING count(*) > 1) x"); err != nil || twice > 0 {
		t.Errorf("%d tickets paid twice on the new primary, %v", twice, err)
	}
	if rep, err := nb.VerifyJournal(ctx); err != nil || len(rep.Problems) > 0 || rep.Waiting > 0 {
		t.Errorf("verify the new primary's journal: %v %+v", err, rep)
	}
	d, m := b.Directs()
	t.Logf("%d entries chained directly, %d direct statements found the end moved", d, m)
}

// A request id sent again while its first attempt's direct chain waits
// for the synchronous standby (its locks held, its commit not yet
// visible): again on the same server (its next group) and on a second
// server (its own cached end), both while the standby is away. The
// first attempt's wait cancelled (committed on the primary alone): no
// attempt is answered PAID, nor "already claimed"; once the standby is
// back, the request that paid (R, or R2 when its goroutine ran first)
// answers the one payment the journal holds.
func TestRetryDuringGroup(t *testing.T) {
	ctx := context.Background()
	srv, dbname := durableDatabase(t, "autovacuum=off")
	url := srv.URL(pgtest.Owner, dbname)
	servers := []*postgres.Backend{open(t, url), open(t, url)}
	tickets := ledgertest_winners(t)
	who := core.Identity{Desk: "bureau", Operator: "ann"}
	for i, b := range servers {
		if _, err := b.Claim(ctx, serial(t, tickets[i]), claimOf(who, fmt.Sprint("warm-", i)), time.Time{}); err != nil {
			t.Fatal(err)
		}
	}
	setStandbys(t, srv, "FIRST 1 (s1)")
	t.Cleanup(func() { setStandbys(t, srv, "") })
	b := servers[0]
	waitFor(t, b, "SELECT current_setting('synchronous_standby_names') <> ''")
	s := serial(t, tickets[2])
	type answer struct {
		what string
		c    core.Claim
		err  error
	}
	got := make(chan answer, 6)
	ask := func(what string, b *postgres.Backend, s string, req string, d time.Duration) {
		go func() {
			qctx, cancel := context.WithTimeout(ctx, d)
			defer cancel()
			c, err := b.Claim(qctx, serial(t, s), claimOf(who, req), time.Time{})
			got <- answer{what, c, err}
		}()
	}
	// The first attempt, with others beside it (a group).
	ask("the first attempt", b, s.String(), "R", time.Minute)
	ask("another claim", b, tickets[3], "other-1", time.Minute)
	ask("another claim", b, tickets[4], "other-2", time.Minute)
	waitFor(t, b, "SELECT count(*) > 0 FROM pg_stat_activity WHERE wait_event = 'SyncRep'")
	ask("the request again, same server", b, s.String(), "R", 3*time.Second)
	ask("the request again, second server", servers[1], s.String(), "R", 3*time.Second)
	ask("the ticket by another request", servers[1], s.String(), "R2", 3*time.Second)
	for n := 0; n < 6; {
		select {
		case a := <-got:
			n++
			t.Logf("%s: %v", a.what, a.err)
			var r *core.Refusal
			if !errors.Is(a.err, core.ErrNotDurable) && !errors.Is(a.err, core.ErrUnreachable) || errors.As(a.err, &r) {
				t.Errorf("%s, the standby away: %+v, %v; want unavailable alone", a.what, a.c, a.err)
			}
		case <-time.After(10 * time.Millisecond):
			b.DB().Get(new(int), "SELECT count(pg_cancel_backend(pid)) FROM pg_stat_activity WHERE wait_event = 'SyncRep'")
		}
	}
	setStandbys(t, srv, "")
	// Which request paid the ticket is the race's: the first attempt's
	// goroutine may start after the others' (the wait seen above then
	// another's), and R2 pay it. The one that did answers the payment,
	// the other is refused.
	var c core.Claim
	var err error
	for _, req := range []string{"R", "R2"} {
		var r *core.Refusal
		if c, err = servers[1].Claim(ctx, s, claimOf(who, req), time.Time{}); !errors.As(err, &r) {
			t.Logf("request %s once the standby is back: %v", req, err)
			break
		}
	}
	if err != nil || c.Serial != s.String() {
		t.Fatalf("the requests once the standby is back: %+v, %v", c, err)
	}
	var entries []int64
	if err := b.DB().SelectContext(ctx, &entries, "SELECT id FROM vegas.journal WHERE kind = 'claim' AND serial = $1", s.String()); err != nil || len(entries) != 1 || entries[0] != c.Entry {
		t.Errorf("the request answered entry %d; the journal's payments of its ticket: %v, %v", c.Entry, entries, err)
	}
	if rep, err := b.VerifyJournal(ctx); err != nil || len(rep.Problems) > 0 || rep.Waiting > 0 {
		t.Errorf("verify the journal: %v %+v", err, rep)
	}
}

// setStandbys names the synchronous standbys srv waits for (none: "") and
// reloads its configuration.
func setStandbys(t *testing.T, srv *pgtest.Server, names string) {
	t.Helper()
	for _, stmt := range []string{fmt.Sprintf("ALTER SYSTEM SET synchronous_standby_names = '%s'", names), "SELECT pg_reload_conf()"} {
		if err := srv.Exec("postgres", stmt); err != nil {
			t.Fatal(err)
		}
	}
}
