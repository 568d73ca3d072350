package ledger

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jmoiron/sqlx"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/postgres"
	"vegas-desk/internal/pgtest"
)

const counterPassword = "counter-password-1"

// pgWithDesks is a copy of the fixture with counters D1 and D2 (limit 100
// and 1,000 €); it returns the back office's ledger and the database name.
func pgWithDesks(t *testing.T) (*Ledger, string) { return pgWithDesksOn(t, pg, pgFixture) }

// pgWithDesksOn is pgWithDesks on server s, from its database template.
func pgWithDesksOn(t *testing.T, s *pgtest.Server, template string) (*Ledger, string) {
	t.Helper()
	name := s.NewDatabaseFrom(t, template)
	bo := mustOpen(t, s.URL(pgtest.Owner, name))
	bo.Now = nil // one clock, the server's, for the back office and the counters
	for id, limit := range map[string]int{"D1": 100, "D2": 1000} {
		if _, err := bo.AddDesk(context.Background(), id, limit, counterPassword, Identity{Desk: "BO", Operator: "eve"}); err != nil {
			t.Fatal(err)
		}
	}
	return bo, name
}

// counter opens the ledger as desk id's login, its password from
// PGPASSWORD as libpq would take it.
func counterLogin(t *testing.T, db, id string) *Ledger { return counterOn(t, pg, db, id) }

// counterOn is counter on server s.
func counterOn(t *testing.T, s *pgtest.Server, db, id string) *Ledger {
	t.Helper()
	t.Setenv("PGPASSWORD", counterPassword)
	l, err := Open(s.URLWithout(deskRole(db, id), db))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	if l.CounterDesk() != id {
		t.Fatalf("logged in as desk %q, want %s", l.CounterDesk(), id)
	}
	return l
}

// A counter's login may read no table and write none: PostgreSQL refuses
// every SELECT, INSERT, UPDATE, DELETE and TRUNCATE on every table, and
// every function but the counter's.
func TestCounterRole(t *testing.T) {
	ctx := context.Background()
	bo, db := pgWithDesks(t)
	c := counterLogin(t, db, "D1")
	var tables []string
	if err := rdb(bo).Select(&tables, "SELECT tablename FROM pg_tables WHERE schemaname = 'vegas' ORDER BY 1"); err != nil || len(tables) < 10 {
		t.Fatalf("tables %v, %v", tables, err)
	}
	for _, tbl := range tables {
		var col string
		if err := rdb(bo).Get(&col, "SELECT column_name FROM information_schema.columns WHERE table_schema = 'vegas' AND table_name = $1 LIMIT 1", tbl); err != nil {
			t.Fatal(err)
		}
		for _, stmt := range []string{
			"SELECT * FROM vegas.%[1]s LIMIT 1",
			"INSERT INTO vegas.%[1]s DEFAULT VALUES",
			"UPDATE vegas.%[1]s SET %[2]s = %[2]s",
			"DELETE FROM vegas.%[1]s",
			"TRUNCATE vegas.%[1]s",
		} {
			q := fmt.Sprintf(stmt, tbl, col)
			_, err := wdb(c).ExecContext(ctx, q)
			var pe *pgconn.PgError
			if !errors.As(err, &pe) || pe.Code != "42501" {
				t.Errorf("%s as a counter: %v, want insufficient_privilege", q, err)
			}
		}
	}
	// The functions: only the counter's may be called (the procedures'
	// own refuse to run outside them: TestCounterCallsAlone).
	granted := []string{"blocks_public", "claim", "durable", "find", "games_public", "journal_head", "lookup", "move_my_packs",
		"my_claims", "my_pack_moves", "my_packs", "my_referrals", "whoami",
		"lookup_record", "claim_record", "find_record", "move_record", "chain_answer", "chained", "durable", "settled", "answer_json"}
	var fns []struct {
		Name string `db:"proname"`
		Can  bool   `db:"can"`
	}
	if err := rdb(bo).Select(&fns, `SELECT p.proname, has_function_privilege($1, p.oid, 'EXECUTE') AS can
		FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'vegas'`, deskRole(db, "D1")); err != nil {
		t.Fatal(err)
	}
	for _, f := range fns {
		if f.Can != slices.Contains(granted, f.Name) {
			t.Errorf("function %s: a counter may call it: %v", f.Name, f.Can)
		}
	}
	if _, err := wdb(c).ExecContext(ctx, `SELECT vegas.append('claim', NULL, 1, '', 531, 1, 0, 0, 0, '', 50000, 'D1', 'x', 'serial', NULL, '', '', '')`); err == nil {
		t.Error("a counter appended to the journal")
	}

	// What it may do.
	b := mustBlock(t, bo)
	w50 := ticketsWith(t, bo, b, 50, 1)[0]
	w1000 := ticketsWith(t, bo, b, 1000, 1)[0]
	tk, err := c.Lookup(ctx, serialOf(b, w50), Identity{Operator: "ann"}, NoLimit)
	if err != nil || tk.Prize != 50 || tk.Verdict != Payable {
		t.Fatalf("lookup: %+v, %v", tk, err)
	}
	if tk, err := c.Lookup(ctx, serialOf(b, w1000), Identity{Operator: "ann"}, NoLimit); err != nil || tk.Verdict != OverLimit {
		t.Errorf("lookup above the limit: %v, %v", tk.Verdict, err)
	}
	bs, err := c.Blocks(ctx)
	if err != nil || len(bs) != 1 || bs[0].Digest != b.Digest || bs[0].Key != (game.SerialKey{}) {
		t.Errorf("blocks %+v, %v", bs, err)
	}
	if _, err := c.Claim(ctx, claimReq(serialOf(b, w50), Identity{Desk: "D2", Operator: "ann"})); !errors.Is(err, ErrDeskMismatch) {
		t.Errorf("claim as another desk: %v", err)
	}
	cl, err := c.Claim(ctx, claimReq(serialOf(b, w50), Identity{Operator: "ann"}))
	if err != nil || cl.Desk != "D1" || cl.Amount != 50 {
		t.Fatalf("claim: %+v, %v", cl, err)
	}
	// The limit is the database's, whatever the counter says.
	req := claimReq(serialOf(b, w1000), Identity{Operator: "ann"})
	req.Limit = 5000
	if _, err := c.Claim(ctx, req); !errors.Is(err, ErrOverLimit) {
		t.Errorf("claim above the limit: %v", err)
	}
	c2 := counterLogin(t, db, "D2")
	if _, err := c2.Claim(ctx, claimReq(serialOf(b, w50), Identity{Operator: "bob"})); !errors.Is(err, ErrAlreadyClaimed) {
		t.Errorf("claim of a ticket D1 paid: %v", err)
	}
	if cs, err := c2.Claims(ctx, ClaimFilter{}); err != nil || len(cs) != 0 {
		t.Errorf("D2 sees claims %+v, %v", cs, err)
	}
	if cs, err := c.Claims(ctx, ClaimFilter{}); err != nil || len(cs) != 1 || cs[0].Number != cl.Number {
		t.Errorf("D1 sees claims %+v, %v", cs, err)
	}
	// Back-office work is refused.
	if _, err := c.Void(ctx, cl.Number, "mine", Identity{Desk: "D1", Operator: "ann"}); !errors.Is(err, ErrCounterOnly) {
		t.Errorf("void by a counter: %v", err)
	}
	if _, err := c.Generate(ctx, 531, game.Seed{}, GenerateOptions{}); !errors.Is(err, ErrCounterOnly) {
		t.Errorf("generate by a counter: %v", err)
	}
	if _, err := c.Verify(ctx, 0, 0, nil); !errors.Is(err, ErrCounterOnly) {
		t.Errorf("verify by a counter: %v", err)
	}
	// A disabled desk is refused by every function.
	if err := bo.DisableDesk(ctx, "D1", Identity{Desk: "BO", Operator: "eve"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Lookup(ctx, serialOf(b, w50), Identity{Operator: "ann"}, NoLimit); !errors.Is(err, ErrDeskDisabled) {
		t.Errorf("lookup by a disabled desk: %v", err)
	}
	if _, err := Open(pg.URLWithout(deskRole(db, "D1"), db)); err == nil {
		t.Error("a disabled desk logged in")
	}
	vr, err := journalOnly(bo)
	if err != nil || !vr.OK() {
		t.Errorf("verify: %v, %v", vr.Problems, err)
	}
}

// 20 refused serials in 10 minutes lock a counter out for 30 minutes, or
// until the back office unlocks it; every refusal is recorded.
func TestLockOut(t *testing.T) {
	ctx := context.Background()
	bo, db := pgWithDesks(t)
	c := counterLogin(t, db, "D1")
	b := mustBlock(t, bo)
	good := serialOf(b, ticketsWith(t, bo, b, 6, 1)[0])
	s, _ := game.ParseSerial(good)
	for i := range 20 {
		s.Secret = (s.Secret + 1) % game.SecretModulus
		if _, err := c.Lookup(ctx, s.String(), Identity{Operator: "mallory"}, NoLimit); !errors.Is(err, ErrUnknownSerial) {
			t.Fatalf("guess %d: %v", i, err)
		}
	}
	_, err := c.Lookup(ctx, good, Identity{Operator: "mallory"}, NoLimit)
	var r *Refusal
	if !errors.As(err, &r) || r.Verdict != Locked {
		t.Fatalf("after 20 guesses: %v, want Locked", err)
	}
	if _, err := c.Claim(ctx, claimReq(good, Identity{Operator: "mallory"})); !errors.Is(err, ErrLocked) {
		t.Errorf("claim when locked: %v", err)
	}
	// Locked for 30 minutes from the 20th refusal.
	var last struct {
		At     string `db:"at"`
		Detail string `db:"detail"`
	}
	if err := rdb(bo).Get(&last, "SELECT at, detail FROM journal WHERE kind = 'desk' AND state = 'locked' ORDER BY id DESC LIMIT 1"); err != nil {
		t.Fatal(err)
	}
	if got := parseTime(last.Detail).Sub(parseTime(last.At)); got != 30*time.Minute {
		t.Errorf("locked for %v, want 30 minutes", got)
	}
	ds, _ := bo.Desks(ctx)
	if ds[0].LockedUntil.IsZero() {
		t.Errorf("desk %+v not locked", ds[0])
	}
	other := counterLogin(t, db, "D2")
	if _, err := other.Lookup(ctx, good, Identity{Operator: "bob"}, NoLimit); err != nil {
		t.Errorf("another counter is locked too: %v", err)
	}
	attempts, err := bo.Attempts(ctx, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	count := map[Verdict]int{}
	for _, a := range attempts {
		if a.Desk == "D1" {
			count[a.Reason]++
		}
	}
	if count[UnknownSerial] != 20 || count[Locked] != 2 {
		t.Errorf("recorded %v", count)
	}
	if err := bo.UnlockDesk(ctx, "D1", Identity{Desk: "BO", Operator: "eve"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Lookup(ctx, good, Identity{Operator: "ann"}, NoLimit); err != nil {
		t.Errorf("after unlock: %v", err)
	}
	// The refusals before the unlock no longer count: one more does not lock.
	s.Secret = (s.Secret + 1) % game.SecretModulus
	c.Lookup(ctx, s.String(), Identity{Operator: "ann"}, NoLimit)
	if _, err := c.Lookup(ctx, good, Identity{Operator: "ann"}, NoLimit); err != nil {
		t.Errorf("one refusal after the unlock: %v", err)
	}
	vr, err := journalOnly(bo)
	if err != nil || !vr.OK() {
		t.Errorf("verify: %v, %v", vr.Problems, err)
	}
}

// Eight connections of two counters claim the same tickets at once: each
// is paid exactly once, and the journal stays one chain.
func TestConcurrentCounters(t *testing.T) {
	ctx := context.Background()
	bo, db := pgWithDesks(t)
	b := mustBlock(t, bo)
	winners := ticketsWith(t, bo, b, 50, 40)
	var ledgers []*Ledger
	for i := range 8 {
		ledgers = append(ledgers, counterLogin(t, db, []string{"D1", "D2"}[i%2]))
	}
	var paid, refused atomic.Int64
	var wg sync.WaitGroup
	for i, l := range ledgers {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(i), 7))
			order := slices.Clone(winners)
			r.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
			for _, pos := range order {
				_, err := l.Claim(ctx, claimReq(serialOf(b, pos), Identity{Operator: fmt.Sprint("op", i)}))
				switch {
				case err == nil:
					paid.Add(1)
				case errors.Is(err, ErrAlreadyClaimed):
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
	vr, err := journalOnly(bo)
	if err != nil || !vr.OK() {
		t.Errorf("verify: %v, %v", vr.Problems, err)
	}
}

// The server restarts in the middle of a run of claims: nothing is lost,
// nothing is paid twice; claims cut off are asked again with their
// request id.
func TestRestartDuringClaims(t *testing.T) {
	ctx := context.Background()
	// A server of its own, with PostgreSQL's durable settings: what a
	// restart keeps is the point.
	srv, err := pgtest.StartDurable()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	template, err := FixturePostgres(srv, "block")
	if err != nil {
		t.Fatal(err)
	}
	bo, db := pgWithDesksOn(t, srv, template)
	b := mustBlock(t, bo)
	winners := ticketsWith(t, bo, b, 15, 120)
	c1, c2 := counterOn(t, srv, db, "D1"), counterOn(t, srv, db, "D2")
	var mu sync.Mutex
	got := map[int][]Claim{} // position → the claims that said "paid"
	var wg sync.WaitGroup
	var done atomic.Int64
	for i, l := range []*Ledger{c1, c2, c1, c2} {
		wg.Go(func() {
			for j, pos := range winners {
				if j%4 != i {
					continue
				}
				ctx, cancel := context.WithTimeout(ctx, time.Minute)
				cl, err := l.Claim(ctx, claimReq(serialOf(b, pos), Identity{Operator: "op"}))
				cancel()
				done.Add(1)
				if err != nil {
					t.Errorf("claim %d: %v", pos, err)
					continue
				}
				mu.Lock()
				got[pos] = append(got[pos], cl)
				mu.Unlock()
			}
		})
	}
	for done.Load() < int64(len(winners)/3) {
		time.Sleep(time.Millisecond)
	}
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	cs, err := bo.Claims(ctx, ClaimFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != len(winners) {
		t.Errorf("%d claims recorded for %d tickets", len(cs), len(winners))
	}
	for _, pos := range winners {
		if len(got[pos]) != 1 {
			t.Errorf("ticket %d: %d answers", pos, len(got[pos]))
		}
	}
	vr, err := journalOnly(bo)
	if err != nil || !vr.OK() {
		t.Errorf("verify: %v, %v", vr.Problems, err)
	}
}

// proxy forwards TCP connections to the server; when drop is set, it
// swallows the next answer of the server and cuts the connection, as a
// network that fails after the server committed.
type proxy struct {
	ln   net.Listener
	to   string
	drop atomic.Bool
}

func newProxy(t *testing.T, to string) *proxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln, to: to}
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
			// An answer that holds a claim's result is dropped once.
			if p.drop.Load() && strings.Contains(string(buf[:n]), "paid") {
				p.drop.Store(false)
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
// asked again with its request id and answers the first answer: paid once,
// and never "already paid" to the counter that paid.
func TestLostAnswer(t *testing.T) {
	ctx := context.Background()
	bo, db := pgWithDesks(t)
	b := mustBlock(t, bo)
	pos := ticketsWith(t, bo, b, 9, 1)[0]
	p := newProxy(t, fmt.Sprintf("127.0.0.1:%d", pg.Port))
	t.Setenv("PGPASSWORD", counterPassword)
	u, _ := url.Parse(pg.URLWithout(deskRole(db, "D1"), db))
	u.Host = p.ln.Addr().String()
	c, err := Open(u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	start := lastEntry(t, bo)
	p.drop.Store(true)
	cl, err := c.Claim(ctx, claimReq(serialOf(b, pos), Identity{Operator: "ann"}))
	if err != nil {
		t.Fatalf("claim with a lost answer: %v", err)
	}
	if p.drop.Load() {
		t.Fatal("no answer was dropped")
	}
	if kinds := journalKinds(t, bo, start); !slices.Equal(kinds, []string{"claim"}) {
		t.Errorf("journal %v, want one claim", kinds)
	}
	if cl.Amount != 9 || cl.Desk != "D1" {
		t.Errorf("claim %+v", cl)
	}
}

// A server that cannot be reached: lookups and claims say so
// (ErrUnreachable), and nothing is half-written.
func TestUnreachable(t *testing.T) {
	ctx := context.Background()
	bo, db := pgWithDesks(t)
	b := mustBlock(t, bo)
	pos := ticketsWith(t, bo, b, 6, 1)[0]
	c := counterLogin(t, db, "D1")
	start := lastEntry(t, bo)
	restart, err := pg.Stopped()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Lookup(ctx, serialOf(b, pos), Identity{Operator: "ann"}, NoLimit); !errors.Is(err, ErrUnreachable) {
		t.Errorf("lookup: %v, want ErrUnreachable", err)
	}
	short, cancel := context.WithTimeout(ctx, 2*time.Second)
	_, err = c.Claim(short, claimReq(serialOf(b, pos), Identity{Operator: "ann"}))
	cancel()
	if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), "same request id") {
		t.Errorf("claim: %v, want ErrUnreachable", err)
	}
	if _, err := Open(pg.URL(pgtest.Owner, db)); !errors.Is(err, ErrUnreachable) {
		t.Errorf("open: %v, want ErrUnreachable", err)
	}
	if err := restart(); err != nil {
		t.Fatal(err)
	}
	if kinds := journalKinds(t, bo, start); len(kinds) != 0 {
		t.Errorf("written while unreachable: %v", kinds)
	}
	if _, err := c.Claim(ctx, claimReq(serialOf(b, pos), Identity{Operator: "ann"})); err != nil {
		t.Errorf("claim once back: %v", err)
	}
}

// Go's canonical text and PostgreSQL's agree on any text: the journal's
// hashes verify whoever wrote them.
func TestCanonicalAgrees(t *testing.T) {
	ctx := context.Background()
	l := mustOpen(t, pgCopy(t))
	b := mustBlock(t, l)
	pos := ticketsWith(t, l, b, 3, 4)
	for i, text := range []string{"l'argent « volé »", "line\nbreak\ttab", `quote " and \ backslash`, "💶 €uro ŁĘ"} {
		cl, err := l.Claim(ctx, claimReq(serialOf(b, pos[i]), Identity{Desk: "desk " + text, Operator: "op " + text}))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := l.Void(ctx, cl.Number, text, Identity{Desk: "BO", Operator: text}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := l.Claim(ctx, claimReq(serialOf(b, pos[0]), Identity{Desk: "nul\x00", Operator: "x"})); err == nil {
		t.Error("a NUL character in a desk's name")
	}
	vr, err := journalOnly(l)
	if err != nil || !vr.OK() {
		t.Errorf("verify: %v, %v", vr.Problems, err)
	}
	var rows []entry
	if err := sqlx.SelectContext(ctx, rdb(l), &rows, "SELECT "+entryCols+" FROM journal ORDER BY id"); err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(rows); i++ {
		var sqlText string
		if err := rdb(l).Get(&sqlText, "SELECT vegas.canonical(j, $2) FROM vegas.journal j WHERE id = $1", rows[i].ID, rows[i-1].Hash); err != nil {
			t.Fatal(err)
		}
		if goText := rows[i].Canonical(rows[i-1].Hash); goText != sqlText {
			t.Errorf("entry %d:\nGo:  %q\nSQL: %q", rows[i].ID, goText, sqlText)
		}
	}
}

// PostgreSQL's serial, secret part and prize bytes are Go's.
func TestSQLAgreesWithGame(t *testing.T) {
	l := mustOpen(t, pgCopy(t))
	var key game.SerialKey
	for i := range key {
		key[i] = byte(i * 7)
	}
	// Every position's secret part, of a few thousand (half of them from
	// 8 bytes above 2^63).
	var secrets []struct {
		Pos    int   `db:"pos"`
		Secret int64 `db:"secret"`
	}
	if err := rdb(l).Select(&secrets, "SELECT pos, vegas.secret($1, pos) AS secret FROM generate_series(0, 4999) pos", key[:]); err != nil || len(secrets) != 5000 {
		t.Fatal(len(secrets), err)
	}
	for _, s := range secrets {
		if s.Secret != key.Secret(s.Pos) {
			t.Errorf("secret of %d: %d, Go says %d", s.Pos, s.Secret, key.Secret(s.Pos))
		}
	}
	for _, pos := range []int{0, 1, 456789, game.BlockSize - 1} {
		var secret int64
		if err := rdb(l).Get(&secret, "SELECT vegas.secret($1, $2)", key[:], pos); err != nil || secret != key.Secret(pos) {
			t.Errorf("secret of %d: %d, Go says %d (%v)", pos, secret, key.Secret(pos), err)
		}
		s := game.Serial{Game: 531, Block: 12, Position: pos, Secret: key.Secret(pos)}
		var text string
		if err := rdb(l).Get(&text, "SELECT vegas.serial_text(531, 12, $1, $2)", pos, s.Secret); err != nil || text != s.String() {
			t.Errorf("serial of %d: %q, Go says %q (%v)", pos, text, s.String(), err)
		}
	}
	for b := range len(game.PrizeTable) + 1 {
		var p int
		want, _ := prizeOf(byte(b))
		if err := rdb(l).Get(&p, "SELECT vegas.prize_of($1)", b); err != nil || p != want {
			t.Errorf("prize byte %d: %d, Go says %d (%v)", b, p, want, err)
		}
	}
}

// A ledger copied from a file to PostgreSQL and back verifies alike: the
// same block digests, the same journal head, the same payments.
func TestCopyBothWays(t *testing.T) {
	ctx := context.Background()
	src := mustOpen(t, copyFixture(t))
	b := mustBlock(t, src)
	who := Identity{Desk: "BO", Operator: "eve"}
	pos := ticketsWith(t, src, b, 15, 3)
	for _, p := range pos {
		if _, err := src.Claim(ctx, claimReq(serialOf(b, p), Identity{Desk: "D1", Operator: "ann"})); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := src.Void(ctx, 2, "wrong ticket", who); err != nil {
		t.Fatal(err)
	}
	if _, err := src.AddDesk(ctx, "D1", 150, "", who); err != nil {
		t.Fatal(err)
	}
	if err := src.SetSetting(ctx, SettingCommission, 450, who); err != nil {
		t.Fatal(err)
	}
	w := ticketsWith(t, src, b, 50000, 1)[0]
	if _, err := src.Claim(ctx, ClaimRequest{Serial: serialOf(b, w), Method: MethodSerial, Who: who, Limit: NoLimit,
		Winner: &Winner{Name: "Jeanne Martin", DocType: "CNI", DocNumber: "X123"}}); err != nil {
		t.Fatal(err)
	}
	src.Lookup(ctx, game.Serial{Game: 531, Block: 1, Position: 5}.String(), Identity{Desk: "D1", Operator: "ann"}, NoLimit) // a refusal
	want, err := src.Verify(ctx, 0, 0, nil)
	if err != nil || !want.OK() {
		t.Fatalf("source: %v, %v", want.Problems, err)
	}
	dst := pg.URL(pgtest.Owner, pg.NewDatabase(t))
	calls := 0
	toPG, err := Copy(ctx, src, dst, func(done, total int) { calls++ })
	if err != nil {
		t.Fatal(err)
	}
	defer toPG.Close()
	back := filepath.Join(t.TempDir(), "back.db")
	toFile, err := Copy(ctx, toPG, back, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer toFile.Close()
	for name, l := range map[string]*Ledger{"postgres": toPG, "file again": toFile} {
		got, err := l.Verify(ctx, 0, 0, nil)
		if err != nil || !got.OK() || got.Head != want.Head || got.Entries != want.Entries || got.Tickets != want.Tickets {
			t.Errorf("%s: %+v, %v; want head %s", name, got, err, want.Head)
		}
		bs, _ := l.Blocks(ctx)
		if len(bs) != 1 || bs[0].Digest != b.Digest {
			t.Errorf("%s: blocks %+v", name, bs)
		}
		cs, _ := l.Claims(ctx, ClaimFilter{})
		if len(cs) != 4 || !cs[1].Voided {
			t.Errorf("%s: claims %+v", name, cs)
		}
		if l.ID() != src.ID() {
			t.Errorf("%s: id %s, the source's %s", name, l.ID(), src.ID())
		}
		if v, _ := l.Setting(ctx, SettingCommission); v != 450 {
			t.Errorf("%s: commission %d", name, v)
		}
	}
	if calls == 0 {
		t.Error("no progress")
	}
	// Only into a new file or an empty database.
	if _, err := Copy(ctx, src, back, nil); err == nil || !strings.Contains(err.Error(), "new file") {
		t.Errorf("copy onto a ledger: %v", err)
	}
	if _, err := Copy(ctx, src, dst, nil); err == nil || !strings.Contains(err.Error(), "empty database") {
		t.Errorf("copy onto a ledger: %v", err)
	}
}

// What every role may do on a server, a counter's login may not, once the
// ledger's setup and a server administrator's statements closed it:
// temporary tables (revoked by the setup), large objects and unbounded
// temporary files (closed by a superuser's AdminStatements; until then the
// ledger says what is open and how to close it).
func TestCounterServerRights(t *testing.T) {
	ctx := context.Background()
	bo, db := pgWithDesks(t)
	c := rawCounter(t, db, "D1")
	var pe *pgconn.PgError
	if _, err := c.ExecContext(ctx, "CREATE TEMP TABLE hoard (b bytea)"); !errors.As(err, &pe) || pe.Code != "42501" {
		t.Errorf("a counter's temporary table: %v, want insufficient_privilege", err)
	}
	open, fix, err := bo.ServerAdvice(ctx)
	if err != nil || len(open) != 3 || !strings.Contains(fmt.Sprint(fix), "REVOKE EXECUTE ON FUNCTION pg_catalog.lo_create(oid)") ||
		!strings.Contains(fmt.Sprint(fix), `REVOKE CONNECT, TEMPORARY ON DATABASE "postgres" FROM PUBLIC, `) {
		t.Fatalf("advice on a server not hardened: %q %q %v", open, fix, err)
	}
	for _, stmt := range fix {
		if !strings.HasPrefix(stmt, "--") {
			if err := pg.Exec(db, stmt); err != nil {
				t.Fatalf("%s as a superuser: %v", stmt, err)
			}
		}
		// The other tests' server: PUBLIC's rights given back after.
		if rest, ok := strings.CutPrefix(stmt, "REVOKE CONNECT, TEMPORARY ON DATABASE "); ok {
			d, _, _ := strings.Cut(rest, " FROM ")
			t.Cleanup(func() { pg.Exec(db, "GRANT CONNECT, TEMPORARY ON DATABASE "+d+" TO PUBLIC") })
		}
	}
	// A counter's login may no longer connect to the server's own database
	// (where nothing of the ledger's is revoked).
	t.Setenv("PGPASSWORD", counterPassword)
	if other, err := sqlx.Open("pgx", pg.URLWithout(deskRole(db, "D1"), "postgres")); err != nil {
		t.Fatal(err)
	} else if err := other.PingContext(ctx); !errors.As(err, &pe) || pe.Code != "42501" {
		t.Errorf("a counter's login in database postgres: %v, want insufficient_privilege", err)
		other.Close()
	} else {
		other.Close()
	}
	// The desks added before get their bound at their next change.
	for _, d := range []string{"D1", "D2"} {
		if err := bo.SetDeskLimit(ctx, d, 100, Identity{Desk: "BO", Operator: "eve"}); err != nil {
			t.Fatal(err)
		}
	}
	if open, fix, err := bo.ServerAdvice(ctx); err != nil || len(open)+len(fix) != 0 {
		t.Errorf("advice on a hardened server: %q %q %v", open, fix, err)
	}
	c = rawCounter(t, db, "D1") // a new session: the role's settings
	// A review's attacks: a million advisory locks kept by an idle session
	// fill the server's lock table (nobody connects); the notification
	// queue stores data; transaction ids burnt towards wraparound.
	for _, q := range []string{"SELECT lo_from_bytea(0, 'x'::bytea)",
		"SELECT count(pg_advisory_lock(i)) FROM generate_series(1, 1000000) i",
		"SELECT count(pg_try_advisory_xact_lock(i, i)) FROM generate_series(1, 1000000) i",
		"SELECT pg_notify('hoard', repeat('x', 7900))", "SELECT txid_current()", "SELECT pg_current_xact_id()"} {
		if _, err := c.ExecContext(ctx, q); !errors.As(err, &pe) || pe.Code != "42501" {
			t.Errorf("%s: %v, want insufficient_privilege", q, err)
		}
	}
	var limit string
	if err := c.GetContext(ctx, &limit, "SHOW temp_file_limit"); err != nil || limit != postgres.TempFileLimit {
		t.Errorf("temp_file_limit %q, %v", limit, err)
	}
	if _, err := c.ExecContext(ctx, "SET temp_file_limit = -1"); !errors.As(err, &pe) || pe.Code != "42501" {
		t.Errorf("a counter lifting its temp_file_limit: %v", err)
	}
	_, err = c.ExecContext(ctx, "SELECT count(*) FROM (SELECT g FROM generate_series(1, 20000000) g ORDER BY g DESC) s")
	if !errors.As(err, &pe) || !strings.Contains(pe.Message, "temp_file_limit") {
		t.Errorf("a counter's sort spilling to disk: %v, want the temp_file_limit", err)
	}
}

// A server whose connections the counters' logins can take all of is
// named by the advice, with what to set.
func TestConnectionsAdvice(t *testing.T) {
	for _, tc := range []struct {
		max, desks, reserved int
		want                 string
	}{
		{100, 2, 3, ""},
		{100, 8, 3, ""}, {92, 8, 3, "set it to 93 or more"},
		{100, 9, 3, "max_connections is 100: the 9 counters' logins may hold 90 connections"},
		{190, 18, 3, "set it to 193 or more"},
	} {
		got := postgres.ConnectionsAdvice(tc.max, tc.desks, tc.reserved)
		if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Errorf("%d connections, %d desks, %d reserved: %q, want %q", tc.max, tc.desks, tc.reserved, got, tc.want)
		}
	}
}

// A shared ledger made by an earlier vegas-desk holds that version's
// counters' functions, which this one's protections are not in: it is
// refused, with how to copy it into a new one.
func TestOlderSharedLedgerRefused(t *testing.T) {
	name := pg.NewDatabaseFrom(t, pgFixture)
	for _, stmt := range []string{"ALTER TABLE vegas.meta DISABLE TRIGGER meta_no_change",
		fmt.Sprintf("UPDATE vegas.meta SET value = '%d' WHERE key = 'schema'", postgres.SchemaVersion-1)} {
		if err := pg.Exec(name, stmt); err != nil {
			t.Fatal(err)
		}
	}
	l, err := Open(pg.URL(pgtest.Owner, name))
	if err == nil {
		l.Close()
		t.Fatal("opened")
	}
	if !errors.Is(err, ErrTooOld) || !strings.Contains(err.Error(), "copy it to a file with that vegas-desk") {
		t.Errorf("%v", err)
	}
}
