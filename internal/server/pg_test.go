package server_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/ledger/ledgertest"
	"vegas-desk/internal/pgtest"
	"vegas-desk/internal/server"
	"vegas-desk/internal/server/servertest"
)

// Counters through serve on PostgreSQL: what counters' own database logins
// were once tested for (many counters at once, a restart of PostgreSQL, a
// lost answer, a server away), now asked through the validation server,
// which alone holds a login (the back office's).

// shared is the tests' PostgreSQL server and its block fixture's
// template, started when a test first asks (TestMain stops it).
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

// sharedPG is the shared server and its block fixture's template.
func sharedPG(t testing.TB) (*pgtest.Server, string) {
	t.Helper()
	shared.once.Do(func() {
		if shared.s, shared.err = startWithBlock(); shared.err == nil {
			shared.tmpl, shared.err = ledgertest.Postgres(shared.s, ledgertest.Block)
		}
	})
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.s, shared.tmpl
}

// startWithBlock starts a PostgreSQL server that holds ledgertest's block
// already (a saved data directory copied, ledgertest.StartPostgres): the
// block's template costs a copy of files, not a load of 2,000,000 tickets
// by each server of the package's tests.
func startWithBlock() (*pgtest.Server, error) { return ledgertest.StartPostgres(ledgertest.Block) }

// startDurableWithBlock is startWithBlock with PostgreSQL's durable
// defaults (pgtest.StartDurable).
func startDurableWithBlock() (*pgtest.Server, error) {
	return ledgertest.StartDurablePostgres(nil, ledgertest.Block)
}

// ownOffice is pgOffice on a PostgreSQL server of the test's own, made by
// start (startWithBlock or startDurableWithBlock: ledgertest.Postgres finds
// the block loaded), for a test that stops or restarts it.
func ownOffice(t *testing.T, start func() (*pgtest.Server, error)) (*pgtest.Server, *ledger.Ledger) {
	t.Helper()
	pg, err := start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pg.Stop)
	template, err := ledgertest.Postgres(pg, ledgertest.Block)
	if err != nil {
		t.Fatal(err)
	}
	return pg, pgOffice(t, pg, template)
}

// pgOffice is a back office's ledger on a new copy of template on s, with
// desks D1 and D2 (limit 1,000 € each).
func pgOffice(t testing.TB, s *pgtest.Server, template string) *ledger.Ledger {
	t.Helper()
	l, err := ledger.Open(s.URL(pgtest.Owner, s.NewDatabaseFrom(t, template)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	for _, id := range []string{"D1", "D2"} {
		if _, err := l.AddDesk(context.Background(), id, 1000, bo); err != nil {
			t.Fatal(err)
		}
	}
	return l
}

// verified verifies the office's ledger: the journal one chain, each
// claim against its ticket, the state it leads to the kept tables'. Not
// the block's 2,000,000 tickets, which no claim changes (the ledger's tests
// verify them): read again under the race detector, they were most of the
// CPU of the tests that call it. Verify of a game no block is of
// (noBlocks) reads no ticket and checks the rest.
func verified(t *testing.T, o *ledger.Ledger) {
	t.Helper()
	if vr, err := o.Verify(context.Background(), noBlocks, 0, nil); err != nil || !vr.OK() || vr.Blocks != 0 || vr.Entries == 0 {
		t.Errorf("verify: %d blocks, %d entries, %v, %v", vr.Blocks, vr.Entries, vr.Problems, err)
	}
}

// noBlocks is a game code no block of ledgertest's is of (theirs is 531).
const noBlocks = 1

// claimOf is a claim of serial by operator.
func claimOf(serial, operator string) ledger.ClaimRequest {
	return ledger.ClaimRequest{Serial: serial, Method: ledger.MethodSerial, Who: ledger.Identity{Operator: operator}, Limit: ledger.NoLimit}
}

// Eight counters of two desks, through one server, claim the same forty
// tickets at once, each in its own order: each is paid exactly once, the
// others are told it is already claimed, and the journal stays one chain.
func TestConcurrentCounters(t *testing.T) {
	ctx := context.Background()
	pg, tmpl := sharedPG(t)
	o := pgOffice(t, pg, tmpl)
	s := servertest.Start(t, o, server.Config{})
	winners := ledgertest.SerialsOf(t, ledgertest.Block).Winners[50]
	var counters []*ledger.Ledger
	for i := range 8 {
		counters = append(counters, s.Open(t, []string{"D1", "D2"}[i%2]))
	}
	var paid, refused atomic.Int64
	var wg sync.WaitGroup
	for i, l := range counters {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(i), 7))
			order := slices.Clone(winners)
			r.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
			for _, serial := range order {
				_, err := l.Claim(ctx, claimOf(serial, fmt.Sprint("op", i)))
				switch {
				case err == nil:
					paid.Add(1)
				case errors.Is(err, ledger.ErrAlreadyClaimed):
					refused.Add(1)
				default:
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if paid.Load() != int64(len(winners)) || refused.Load() != int64(7*len(winners)) {
		t.Errorf("%d paid, %d refused; want %d and %d", paid.Load(), refused.Load(), len(winners), 7*len(winners))
	}
	cs, err := o.Claims(ctx, ledger.ClaimFilter{})
	if err != nil || len(cs) != len(winners) {
		t.Errorf("%d payments recorded for %d tickets, %v", len(cs), len(winners), err)
	}
	verified(t, o)
}

// PostgreSQL restarts in the middle of a run of claims through the
// server: the counters are told the ledger is away meanwhile (and ask
// again with the same request id), nothing is lost, nothing is paid twice.
func TestRestartDuringClaims(t *testing.T) {
	ctx := context.Background()
	// A server of its own, with PostgreSQL's durable settings: what a
	// restart keeps is the point.
	pg, o := ownOffice(t, startDurableWithBlock)
	s := servertest.Start(t, o, server.Config{})
	serials := ledgertest.SerialsOf(t, ledgertest.Block)
	var winners []string
	for _, prize := range []int{3, 6, 15} {
		winners = append(winners, serials.Winners[prize]...)
	}
	c1, c2 := s.Open(t, "D1"), s.Open(t, "D2")
	var mu sync.Mutex
	got := map[string][]ledger.Claim{} // serial → the claims that said "paid"
	var wg sync.WaitGroup
	var done atomic.Int64
	for i, l := range []*ledger.Ledger{c1, c2, c1, c2} {
		wg.Go(func() {
			for j, serial := range winners {
				if j%4 != i {
					continue
				}
				// Told unreachable (the policy's attempts all met
				// PostgreSQL away), the cashier asks again with the same
				// request id, as the answer says.
				req := claimOf(serial, "op")
				req.Request = core.NewRequestID()
				var cl ledger.Claim
				var err error
				for try := 0; try < 4; try++ {
					ctx, cancel := context.WithTimeout(ctx, time.Minute)
					cl, err = l.Claim(ctx, req)
					cancel()
					if !errors.Is(err, ledger.ErrUnreachable) {
						break
					}
				}
				done.Add(1)
				if err != nil {
					t.Errorf("claim %s: %v", serial, err)
					continue
				}
				mu.Lock()
				got[serial] = append(got[serial], cl)
				mu.Unlock()
			}
		})
	}
	for done.Load() < int64(len(winners)/3) {
		time.Sleep(time.Millisecond)
	}
	start, err := pg.Stopped()
	if err != nil {
		t.Fatal(err)
	}
	// Away: a counter's question says so (REGISTRE INJOIGNABLE).
	if _, err := c1.Lookup(ctx, winners[0], ledger.Identity{Operator: "op"}, ledger.NoLimit); !errors.Is(err, ledger.ErrUnreachable) {
		t.Errorf("a lookup while PostgreSQL is stopped: %v, want ErrUnreachable", err)
	}
	if err := start(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	cs, err := o.Claims(ctx, ledger.ClaimFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != len(winners) {
		t.Errorf("%d claims recorded for %d tickets", len(cs), len(winners))
	}
	for _, serial := range winners {
		if len(got[serial]) != 1 {
			t.Errorf("ticket %s: %d answers", serial, len(got[serial]))
		}
	}
	verified(t, o)
}

// proxy forwards TCP connections to the server; when drop is set, it
// swallows the server's next bytes once paid() says the ledger holds the
// payment, and cuts the connection: a network that fails after the server
// committed (TLS hides which bytes are the answer; this is the first after
// the commit).
type proxy struct {
	ln      net.Listener
	to      string
	drop    atomic.Bool
	dropped atomic.Bool
	paid    func() bool
}

func newProxy(t *testing.T, to string, paid func() bool) *proxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln, to: to, paid: paid}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.serve(c)
		}
	}()
	return p
}

func (p *proxy) serve(c net.Conn) {
	s, err := net.Dial("tcp", p.to)
	if err != nil {
		c.Close()
		return
	}
	go func() { io.Copy(s, c); s.Close() }()
	buf := make([]byte, 64<<10)
	for {
		n, err := s.Read(buf)
		if n > 0 {
			if p.drop.Load() && p.paid() && p.drop.CompareAndSwap(true, false) {
				p.dropped.Store(true)
				c.Close()
				s.Close()
				return
			}
			if _, err := c.Write(buf[:n]); err != nil {
				return
			}
		}
		if err != nil {
			c.Close()
			return
		}
	}
}

// A claim whose answer is lost (the server paid, the network failed) is
// asked again with its request id and answers the first answer: paid
// once, and never "already paid" to the counter that paid.
func TestLostAnswer(t *testing.T) {
	ctx := context.Background()
	pg, tmpl := sharedPG(t)
	o := pgOffice(t, pg, tmpl)
	s := servertest.Start(t, o, server.Config{})
	serial := ledgertest.SerialsOf(t, ledgertest.Block).Winners[9][0]
	p := newProxy(t, s.Addr, func() bool {
		cs, err := o.Claims(ctx, ledger.ClaimFilter{})
		return err == nil && len(cs) > 0
	})
	c, err := ledger.OpenServer("https://"+p.ln.Addr().String(), s.DeskFile(t, "D1"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	p.drop.Store(true)
	cl, err := c.Claim(ctx, claimOf(serial, "ann"))
	if err != nil {
		t.Fatalf("claim with a lost answer: %v", err)
	}
	if !p.dropped.Load() {
		t.Fatal("no answer was dropped")
	}
	cs, err := o.Claims(ctx, ledger.ClaimFilter{})
	if err != nil || len(cs) != 1 || cs[0].Number != cl.Number || cl.Amount != 9 || cl.Desk != "D1" {
		t.Errorf("the ledger holds %+v (%v); the counter was answered %+v", cs, err, cl)
	}
}

// PostgreSQL cannot be reached behind the server: a counter's lookups and
// claims say so (ErrUnreachable: REGISTRE INJOIGNABLE), a claim cut off
// says to ask again with the same request id, nothing is half-written;
// once it is back, the counter pays.
func TestUnreachable(t *testing.T) {
	ctx := context.Background()
	pg, o := ownOffice(t, startWithBlock)
	s := servertest.Start(t, o, server.Config{})
	c := s.Open(t, "D1")
	serial := ledgertest.SerialsOf(t, ledgertest.Block).Winners[6][0]
	head, err := o.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	start, err := pg.Stopped()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Lookup(ctx, serial, ledger.Identity{Operator: "ann"}, ledger.NoLimit); !errors.Is(err, ledger.ErrUnreachable) {
		t.Errorf("lookup: %v, want ErrUnreachable", err)
	}
	short, cancel := context.WithTimeout(ctx, 2*time.Second)
	_, err = c.Claim(short, claimOf(serial, "ann"))
	cancel()
	if !errors.Is(err, ledger.ErrUnreachable) || !strings.Contains(err.Error(), "same request id") {
		t.Errorf("claim: %v, want ErrUnreachable", err)
	}
	if err := start(); err != nil {
		t.Fatal(err)
	}
	if h, err := o.Head(ctx); err != nil || h != head {
		t.Errorf("written while unreachable: head %s, was %s (%v)", h, head, err)
	}
	if _, err := c.Claim(ctx, claimOf(serial, "ann")); err != nil {
		t.Errorf("claim once back: %v", err)
	}
}

// A served claim's first statement on PostgreSQL is its question's read:
// the desk's row and certificate are read in it (core.Gate), not in a
// statement of their own before it (issue 28, item 4); so is the restore
// fence, the meta row "replaced" (issue 37: it was a statement of its own
// before every question, all the meta rows read). Counted in
// PostgreSQL's own log of every statement (log_statement, on a server of
// the test's own).
func TestServedClaimStatements(t *testing.T) {
	ctx := context.Background()
	pg, o := ownOffice(t, startWithBlock)
	for _, stmt := range []string{"ALTER SYSTEM SET log_statement = 'all'", "SELECT pg_reload_conf()"} {
		if err := pg.Exec("postgres", stmt); err != nil {
			t.Fatal(err)
		}
	}
	s := servertest.Start(t, o, server.Config{})
	c := s.Open(t, "D1")
	serials := ledgertest.SerialsOf(t, ledgertest.Block)
	if _, err := c.Lookup(ctx, serials.Winners[6][1], ledger.Identity{Operator: "ann"}, ledger.NoLimit); err != nil {
		t.Fatal(err)
	}
	// A first claim: the desk's entry, a back office's write, moved the
	// journal's end the server read as it opened, and that claim's write
	// found it so (postgres/direct.go); the claim counted is the next.
	if _, err := c.Claim(ctx, claimOf(serials.Winners[6][2], "ann")); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(pg.Dir, "server.log")
	before, err := os.Stat(log)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Claim(ctx, claimOf(serials.Winners[6][0], "ann")); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	// The statements, each logged as one LOG line, its parameters on a
	// DETAIL line after it.
	var stmts []string
	for _, line := range strings.Split(string(data[before.Size():]), "\n") {
		switch {
		case strings.Contains(line, "LOG:  execute "), strings.Contains(line, "LOG:  statement: "):
			stmts = append(stmts, line)
		case strings.HasPrefix(line, "\t") && len(stmts) > 0:
			stmts[len(stmts)-1] += line
		}
	}
	read := slices.IndexFunc(stmts, func(s string) bool { return strings.Contains(s, "FROM packs p") })
	if read < 0 {
		t.Fatalf("no question's read among the claim's %d statements:\n%s", len(stmts), strings.Join(stmts, "\n"))
	}
	for _, s := range stmts[:read] {
		if strings.Contains(s, "desks") || strings.Contains(s, "desk_certs") {
			t.Errorf("the desk read before the question's read: %s", s)
		}
	}
	certs := 0
	for _, s := range stmts {
		if strings.Contains(s, "desk_certs") {
			certs++
		}
	}
	if certs != 1 {
		t.Errorf("%d statements of the claim read the desk's certificates, want 1 (the question's read)", certs)
	}
	var metas []string
	for _, s := range stmts {
		if strings.Contains(s, "FROM meta") {
			metas = append(metas, s)
		}
	}
	if len(metas) != 1 || !strings.Contains(stmts[read], "FROM meta") {
		t.Errorf("%d statements of the claim read the ledger's meta, want 1 (the question's read):\n%s", len(metas), strings.Join(metas, "\n"))
	}
	// Its statements counted, at most those of today, on the question's
	// connection, and a flush, on the flusher's, if it had one: two
	// round trips, two statements: the question's read (the restore's
	// fence in it); its write, one statement that chains its entry
	// after the journal's end the server knows (read when it opened)
	// and commits waiting for the disk (postgres/direct.go: no flush of
	// its own). (The sequencer's rounds, on a connection of their own,
	// are not the claim's: a round chains what a question could not.)
	// One more is a statement more per claim.
	pid := regexp.MustCompile(`\[\d+\]`)
	conn := pid.FindString(stmts[read])
	var claim []string
	for _, s := range stmts {
		if pid.FindString(s) == conn || strings.Contains(s, "pg_logical_emit_message") {
			claim = append(claim, s)
		}
	}
	if len(claim) > servedClaimStatements {
		t.Errorf("a served claim took %d statements, want at most %d:\n%s", len(claim), servedClaimStatements, strings.Join(claim, "\n"))
	}
}

// servedClaimStatements is the most statements a served claim sends
// PostgreSQL (TestServedClaimStatements); lower it when a change saves one.
const servedClaimStatements = 2
