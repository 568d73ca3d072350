//go:build failover

// make test-failover: a pilot on a PostgreSQL primary and its synchronous
// standby, two validation servers on the multi-host URL, eight counters
// claiming through them, and a machine killed under the load (issues 40
// and 43). Each run starts its servers and kills them: about a minute
// each, not in make test.

package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/ledgertest"
	"vegas-desk/internal/ledger/protocol"
	"vegas-desk/internal/pgtest"
	"vegas-desk/internal/server"
)

// failoverCounters is how many counters claim at once.
const failoverCounters = 8

// pilot is a primary, its synchronous standby s1, two serve on the
// multi-host URL of both, and the counters' desk files.
type pilot struct {
	primary, standby *pgtest.Server
	db, url          string
	serves           []string // the two servers' URLs
	servers          []*server.Server
	front            *relay // the primary's front, when it has one
	office           *ledger.Ledger
	desks            []string // desk files, load-1's first
	block            ledger.Block
	packs            []int
}

// newPilot starts a pilot whose primary commits with synchronous_commit =
// commit, waiting for its standby s1 (synchronous_standby_names = 'FIRST 1
// (s1)'), as docs/pilot-standby.md sets one up.
func newPilot(t *testing.T, commit string) *pilot { return newPilotFront(t, commit, false) }

// newPilotFront is newPilot, the primary reached through a front (a TCP
// relay: p.front) when front is set.
func newPilotFront(t *testing.T, commit string, front bool) *pilot {
	t.Helper()
	ctx := context.Background()
	t.Setenv("VEGAS_DESK_PASSPHRASE", ledgertest.Passphrase)
	p := &pilot{}
	var err error
	// Behind a front, the WAL writer waits: what no flush made durable
	// stays on the primary alone until one does (as on a busy machine).
	var settings []string
	if front {
		settings = append(settings, "wal_writer_delay=10s")
	}
	if p.primary, err = pgtest.StartDurableWith(settings...); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.primary.Stop)
	if p.db, err = ledgertest.Postgres(p.primary, ledgertest.Demo); err != nil {
		t.Fatal(err)
	}
	// Behind a front, the standby applies each commit 50 ms late: with
	// remote_apply, a flush lasts as long, and the questions that commit
	// meanwhile wait for the next.
	var standbySettings []string
	if front {
		standbySettings = append(standbySettings, "recovery_min_apply_delay=50ms")
	}
	if p.standby, err = p.primary.Standby("s1", standbySettings...); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.standby.Stop)
	// Set on the primary after the base backup: the standby, promoted, has
	// no standby to wait for.
	for k, v := range map[string]string{"synchronous_standby_names": "FIRST 1 (s1)", "synchronous_commit": commit} {
		if err := p.primary.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for state := ""; state != "sync"; {
		err := p.primary.Query("postgres", "SELECT sync_state FROM pg_stat_replication WHERE application_name = 's1'", nil, &state)
		if time.Now().After(deadline) {
			t.Fatalf("the standby s1 is not synchronous (%q, %v)", state, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	p.url = pgtest.MultiURL(pgtest.Owner, p.db, p.primary, p.standby)
	if front {
		p.front = newRelay(t, fmt.Sprintf("127.0.0.1:%d", p.primary.Port))
		p.url = strings.Replace(p.url, fmt.Sprintf("127.0.0.1:%d", p.primary.Port), p.front.ln.Addr().String(), 1)
	}
	dir := filepath.Join(t.TempDir(), "ca")
	if out, errs, code := vd(t, p.url, "", "serve", "--init", "--dir", dir, "--host", "127.0.0.1"); code != 0 {
		t.Fatalf("serve --init: exit %d\n%s%s", code, out, errs)
	}
	for range 2 {
		_, srv, u := startServer(t, p.url, dir)
		p.serves = append(p.serves, u)
		p.servers = append(p.servers, srv)
	}
	if p.office, err = ledger.Open(p.url); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.office.Close() })
	a, err := server.OpenAuthority(dir, []byte(ledgertest.Passphrase))
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= failoverCounters; i++ {
		id := loadDesk(i)
		if _, err := p.office.AddTestDesk(ctx, i, 1000, loadWho()); err != nil {
			t.Fatal(err)
		}
		epoch, _, err := p.office.Epochs(ctx)
		if err != nil {
			t.Fatal(err)
		}
		data, err := a.DeskCertificate(id, epoch, time.Now().Add(-time.Hour), time.Now().Add(24*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		d, err := protocol.ParseDeskFile(data)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.office.AcceptDeskCert(ctx, id, d.Cert.Leaf, false, loadWho()); err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(t.TempDir(), id+".desk")
		if err := server.WriteDeskFile(file, data); err != nil {
			t.Fatal(err)
		}
		p.desks = append(p.desks, file)
	}
	if p.packs, p.block, err = onSale(ctx, p.office); err != nil {
		t.Fatal(err)
	}
	return p
}

// relay forwards TCP connections to a server; once gone, it answers no
// new connection (accepted, never forwarded nor closed: a connection
// attempt waits for its timeout), as the address of a machine that
// vanished does, or a pooler whose server is gone.
type relay struct {
	ln   net.Listener
	to   string
	gone atomic.Bool
}

func newRelay(t *testing.T, to string) *relay {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &relay{ln: ln, to: to}
	var held []net.Conn
	t.Cleanup(func() {
		ln.Close()
		for _, c := range held {
			c.Close()
		}
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			if r.gone.Load() {
				held = append(held, c)
				continue
			}
			s, err := net.Dial("tcp", to)
			if err != nil {
				c.Close()
				continue
			}
			go func() { io.Copy(s, c); s.Close() }()
			go func() { io.Copy(c, s); c.Close() }()
		}
	}()
	return r
}

// counter i's ledger: through serve i%2, then the other when that one
// does not answer (the counter is given both).
func (p *pilot) counter(t *testing.T, i int) *ledger.Ledger {
	t.Helper()
	l, err := ledger.OpenServer(p.serves[i%2]+","+p.serves[(i+1)%2], p.desks[i])
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// answer is what a counter was answered to one claim.
type answer struct {
	counter    int
	req        ledger.ClaimRequest
	start, end time.Time
	paid       *ledger.Claim   // PAID
	refusal    *ledger.Refusal // a verdict that refuses
	err        error           // anything else
}

func (a answer) unavailable() bool { return errors.Is(a.err, ledger.ErrUnreachable) }

func (a answer) String() string {
	switch {
	case a.paid != nil:
		return fmt.Sprintf("PAID n°%d (entry %d)", a.paid.Number, a.paid.Entry)
	case a.refusal != nil:
		return string(a.refusal.Verdict)
	case a.unavailable():
		return "unavailable"
	}
	return "error: " + a.err.Error()
}

// claims is the counters' claims, running until stop is called.
type claims struct {
	mu      sync.Mutex
	answers []answer
	stop    chan struct{}
	wg      sync.WaitGroup
}

// winners are the positions of the demonstration block's tickets that a
// desk pays (a prize of at most its 1,000 €), the block generated again in
// memory once (a few seconds): counters claim mostly winners, each claim a
// payment to make durable.
var winners = sync.OnceValues(func() ([]int, error) {
	var ps []int
	_, err := game.GenerateBlock(context.Background(), game.Spec{Game: 531, Block: 1, Seed: ledgertest.Seed}, func(b *game.Batch) error {
		for i := range b.Tickets {
			if p := b.Tickets[i].Prize; p > 0 && p <= 1000 {
				ps = append(ps, b.Tickets[i].Position)
			}
		}
		return nil
	})
	return ps, err
})

// claimAll makes each counter claim tickets on sale, one at a time, each
// claim asked until it is answered (the retry policy, protocol.Retry):
// of each four, a winner its neighbour counter claims too (the same
// ticket from two desks), a ticket at random (most lose), and two winners
// at random.
func (p *pilot) claimAll(t *testing.T, counters []*ledger.Ledger) *claims {
	t.Helper()
	ws, err := winners()
	if err != nil {
		t.Fatal(err)
	}
	onSale := map[int]bool{}
	for _, pk := range p.packs {
		onSale[pk] = true
	}
	var payable []int
	for _, pos := range ws {
		if onSale[pos/game.PackSize] {
			payable = append(payable, pos)
		}
	}
	if len(payable) < 10000 {
		t.Fatalf("%d winners on sale: the demonstration block should have more", len(payable))
	}
	mrand.New(mrand.NewPCG(40, 43)).Shuffle(len(payable), func(i, j int) { payable[i], payable[j] = payable[j], payable[i] })
	shared, payable := payable[:2000], payable[2000:]
	r := &claims{stop: make(chan struct{})}
	for i, l := range counters {
		r.wg.Go(func() {
			rng := mrand.New(mrand.NewPCG(uint64(i), 43))
			for n := 0; ; n++ {
				select {
				case <-r.stop:
					return
				default:
				}
				var pos int
				switch n % 4 {
				case 0:
					pos = shared[(i/2*1000+n/4)%len(shared)]
				case 1:
					pos = p.packs[rng.IntN(len(p.packs))]*game.PackSize + rng.IntN(game.PackSize)
				default:
					pos = payable[rng.IntN(len(payable))]
				}
				s := game.Serial{Game: p.block.Game, Block: p.block.Number, Position: pos, Secret: p.block.Key.Secret(pos)}
				req := ledger.ClaimRequest{Serial: s.String(), Method: ledger.MethodSerial, Who: ledger.Identity{Operator: "failover"},
					Limit: ledger.NoLimit, Request: requestID()}
				r.add(claimOnce(l, i, req))
			}
		})
	}
	return r
}

func requestID() string {
	b := make([]byte, 12)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func claimOnce(l *ledger.Ledger, i int, req ledger.ClaimRequest) answer {
	a := answer{counter: i, req: req, start: time.Now()}
	c, err := l.Claim(context.Background(), req)
	a.end = time.Now()
	var ref *ledger.Refusal
	switch {
	case err == nil:
		a.paid = &c
	case errors.As(err, &ref):
		a.refusal = ref
	default:
		a.err = err
	}
	return a
}

func (r *claims) add(a answer) {
	r.mu.Lock()
	r.answers = append(r.answers, a)
	r.mu.Unlock()
}

// until waits until cond holds of the answers so far, or d passes.
func (r *claims) until(d time.Duration, cond func([]answer) bool) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		r.mu.Lock()
		ok := cond(r.answers)
		r.mu.Unlock()
		if ok {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

// finish stops the counters and waits for the claims under way.
func (r *claims) finish() []answer {
	close(r.stop)
	r.wg.Wait()
	return r.answers
}

// onEvery reports whether each counter has an answer that ok accepts.
func onEvery(as []answer, ok func(answer) bool) bool {
	seen := map[int]bool{}
	for _, a := range as {
		if ok(a) {
			seen[a.counter] = true
		}
	}
	return len(seen) == failoverCounters
}

// survivor checks the answers against the ledger on the machine that
// survived (sv, read-only or promoted): every PAID answered is a payment
// there, of the same ticket and number; every ticket answered already
// claimed is paid there; no ticket is paid twice, no payment number names
// two tickets. It returns how many PAID were answered.
func survivor(t *testing.T, sv *pgtest.Server, db string, as []answer) int {
	t.Helper()
	conn, err := sv.Open("postgres", db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	paid, missing := 0, 0
	bySerial := map[string]ledger.Claim{}
	byNumber := map[int64]string{}
	for _, a := range as {
		switch {
		case a.paid != nil:
			paid++
			c := a.paid
			var serial string
			var number int64
			err := conn.QueryRow("SELECT serial, number FROM vegas.journal WHERE kind = 'claim' AND id = $1", c.Entry).Scan(&serial, &number)
			if err != nil || serial != c.Serial || number != c.Number {
				missing++
				if missing <= 10 {
					var its string
					conn.QueryRow(`SELECT coalesce(string_agg(format('entry %s n°%s', id, number), ', '), 'none')
						FROM vegas.journal WHERE kind = 'claim' AND serial = $1`, c.Serial).Scan(&its)
					t.Errorf("counter %d, request %s, answered at %s PAID n°%d (entry %d) for %s: the surviving machine has %s n°%d there (%v); its payments of %s: %s",
						a.counter, a.req.Request, a.end.Format("15:04:05.000"), c.Number, c.Entry, c.Serial, serial, number, err, c.Serial, its)
				}
			}
			if o, ok := bySerial[c.Serial]; ok && o.Entry != c.Entry {
				t.Errorf("ticket %s answered PAID twice: entries %d and %d", c.Serial, o.Entry, c.Entry)
			}
			bySerial[c.Serial] = *c
			if o, ok := byNumber[c.Number]; ok && o != c.Serial {
				t.Errorf("payment n°%d answered for two tickets: %s and %s", c.Number, o, c.Serial)
			}
			byNumber[c.Number] = c.Serial
		case a.refusal != nil && a.refusal.Verdict == ledger.AlreadyClaimed:
			var n int
			if err := conn.QueryRow("SELECT count(*) FROM vegas.journal WHERE kind = 'claim' AND serial = $1", a.refusal.Serial).Scan(&n); err != nil || n == 0 {
				t.Errorf("counter %d answered %s already claimed: no payment of it on the surviving machine (%v)", a.counter, a.refusal.Serial, err)
			}
		}
	}
	if missing > 0 {
		t.Errorf("%d of %d PAID answered are not payments on the surviving machine", missing, paid)
	}
	var twice int
	if err := conn.QueryRow(`SELECT count(*) FROM (SELECT ticket FROM vegas.journal WHERE kind = 'claim'
		GROUP BY ticket HAVING count(*) > 1) x`).Scan(&twice); err != nil || twice != 0 {
		t.Errorf("%d tickets paid twice on the surviving machine (%v)", twice, err)
	}
	return paid
}

// gapReport logs what each counter saw from from to to (answers ended
// then): its answers by kind and its longest wait.
func gapReport(t *testing.T, as []answer, from, to time.Time) {
	t.Helper()
	for i := range failoverCounters {
		counts := map[string]int{}
		var longest time.Duration
		for _, a := range as {
			if a.counter != i || a.end.Before(from) || a.end.After(to) {
				continue
			}
			k := a.String()
			if a.paid != nil {
				k = "PAID"
			}
			counts[k]++
			longest = max(longest, a.end.Sub(a.start))
		}
		keys := make([]string, 0, len(counts))
		for k := range counts {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		var b strings.Builder
		for _, k := range keys {
			fmt.Fprintf(&b, " %s ×%d", k, counts[k])
		}
		t.Logf("counter %d:%s; longest claim %.1f s", i, b.String(), longest.Seconds())
	}
}

// healthy is what each serve's /healthz answers: true for 200.
func (p *pilot) healthy() []bool {
	var out []bool
	for _, s := range p.servers {
		rec := httptest.NewRecorder()
		s.Monitor().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/healthz", nil))
		out = append(out, rec.Code == http.StatusOK)
	}
	return out
}

// walState is where the primary's WAL is (inserted, flushed) and where its
// standby's is (received, flushed, replayed), for the log.
func walState(primary *pgtest.Server) string {
	var s string
	err := primary.Query("postgres", `SELECT format('primary WAL inserted %s, flushed %s; standby %s: received %s, flushed %s, replayed %s',
		pg_current_wal_insert_lsn(), pg_current_wal_flush_lsn(), application_name, write_lsn, flush_lsn, replay_lsn) FROM pg_stat_replication`, nil, &s)
	if err != nil {
		return err.Error()
	}
	return s
}

// The standby killed under the load: the primary stops answering PAID
// (each claim is answered unavailable, nothing known to be paid), a replay
// of a request id answered unavailable stays unavailable, and the standby
// restarted alone holds every payment answered PAID.
func TestFailoverStandbyLost(t *testing.T) {
	for _, commit := range []string{"on", "remote_apply"} {
		t.Run(commit, func(t *testing.T) { standbyLost(t, commit) })
	}
}

func standbyLost(t *testing.T, commit string) {
	p := newPilot(t, commit)
	var counters []*ledger.Ledger
	for i := range failoverCounters {
		counters = append(counters, p.counter(t, i))
	}
	r := p.claimAll(t, counters)
	if !r.until(30*time.Second, func(as []answer) bool { return len(as) >= 200 }) {
		r.finish()
		t.Fatal("fewer than 200 answers in 30 s before the kill")
	}
	t.Log("before the kill: ", walState(p.primary))
	if err := p.standby.Kill(); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	t.Logf("standby killed (-9) at %s", killed.Format("15:04:05.000"))
	// Each counter asks until it is answered unavailable after the kill
	// (its claim under way then, or its next: within the retry policy),
	// or answered about a claim begun after the kill.
	told := func(a answer) bool { return a.end.After(killed) && a.unavailable() }
	r.until(protocol.Retry.Total()+5*time.Second, func(as []answer) bool {
		return onEvery(as, func(a answer) bool { return told(a) || a.start.After(killed) })
	})
	as := r.finish()
	gapReport(t, as, killed, time.Now())
	var replays []answer
	for _, a := range as {
		switch {
		case a.start.After(killed) && a.paid != nil:
			t.Errorf("counter %d: claim begun %.1f s after the standby's kill answered PAID n°%d", a.counter, a.start.Sub(killed).Seconds(), a.paid.Number)
		case a.start.After(killed) && a.unavailable() && len(replays) < failoverCounters:
			replays = append(replays, a)
		case a.err != nil && !a.unavailable():
			t.Errorf("counter %d: answered neither a verdict nor unavailable: %v", a.counter, a.err)
		}
	}
	if !onEvery(as, told) {
		t.Errorf("not every counter was answered unavailable with the standby gone")
	}
	// A replay of a request answered unavailable, through the other serve:
	// still unavailable (its row, committed on the primary alone, is not
	// durable).
	var wg sync.WaitGroup
	out := make([]answer, len(replays))
	for k, a := range replays {
		l, err := ledger.OpenServer(p.serves[(a.counter+1)%2], p.desks[a.counter])
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		wg.Go(func() { out[k] = claimOnce(l, a.counter, a.req) })
	}
	wg.Wait()
	for _, a := range out {
		t.Logf("counter %d: replay of request %s (%s), answered unavailable, on the other serve: %s", a.counter, a.req.Request, a.req.Serial, a)
		if !a.unavailable() {
			t.Errorf("counter %d: the replay of request %s, answered unavailable with the standby gone, answered %s while it is still gone", a.counter, a.req.Request, a)
		}
	}
	as = append(as, out...)
	// The primary lost too: the standby, restarted alone (read-only), is
	// all there is; it holds every PAID answered.
	if err := p.primary.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := p.standby.StartAgain(); err != nil {
		t.Fatal(err)
	}
	var last int64
	var lsn string
	p.standby.Query(p.db, "SELECT max(id), pg_last_wal_replay_lsn()::text FROM vegas.journal", nil, &last, &lsn)
	t.Logf("the standby restarted alone: journal up to entry %d, WAL replayed up to %s", last, lsn)
	paid := survivor(t, p.standby, p.db, as)
	t.Logf("%d answers, %d PAID, every PAID checked on the standby restarted alone", len(as), paid)
}

// The primary killed under the load and the standby promoted (pg_ctl
// promote): serve follows it by itself; while there is no primary every
// claim is answered unavailable; every PAID answered is a payment on the
// new primary, none twice; verify holds, with the last head answered
// before the kill as a prefix; every counter is answered again within the
// retry policy.
func TestFailoverPrimaryLost(t *testing.T) {
	for _, commit := range []string{"on", "remote_apply"} {
		t.Run(commit, func(t *testing.T) { primaryLost(t, commit, false) })
	}
}

// The primary behind a front (a pooler, an address that moves) killed:
// the connections to it are cut, and a new one waits for its timeout
// (5 s) before serve tries the standby, which is promoted meanwhile. A
// flush made on the new primary vouches for nothing committed on the old
// one: no PAID is answered for a payment the new primary lacks.
func TestFailoverPrimaryVanishes(t *testing.T) { primaryLost(t, "remote_apply", true) }

func primaryLost(t *testing.T, commit string, front bool) {
	ctx := context.Background()
	p := newPilotFront(t, commit, front)
	var counters []*ledger.Ledger
	for i := range failoverCounters {
		counters = append(counters, p.counter(t, i))
	}
	r := p.claimAll(t, counters)
	if !r.until(30*time.Second, func(as []answer) bool { return len(as) >= 300 }) {
		r.finish()
		t.Fatal("fewer than 300 answers in 30 s before the kill")
	}
	t.Log("before the kill: ", walState(p.primary))
	if front {
		p.front.gone.Store(true)
	}
	if err := p.primary.Kill(); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	promoteAt := killed
	if front {
		// Promoted at once, while connection attempts wait on the front.
		if err := p.standby.Promote(); err != nil {
			t.Fatal(err)
		}
	} else {
		// No primary at all (the standby read-only) for longer than serve
		// gives a question (each claim is answered meanwhile), then the
		// operator's (or a tool's) promotion.
		time.Sleep(server.QuestionTimeout / 2)
		if h := p.healthy(); h[0] || h[1] {
			t.Errorf("with no primary, the serves' /healthz say %v, want not healthy", h)
		}
		time.Sleep(server.QuestionTimeout/2 + 2*time.Second)
		promoteAt = time.Now()
		if err := p.standby.Promote(); err != nil {
			t.Fatal(err)
		}
	}
	promoted := time.Now()
	t.Logf("primary killed (-9) at %s; pg_ctl promote %s – %s", killed.Format("15:04:05.000"), promoteAt.Format("15:04:05.000"),
		promoted.Format("15:04:05.000"))
	resumed := r.until(protocol.Retry.Total()+5*time.Second, func(as []answer) bool {
		return onEvery(as, func(a answer) bool { return a.start.After(promoted) && a.err == nil })
	})
	// Paying on the new primary for a while: a payment lost in the
	// failover would see its number given to another ticket.
	time.Sleep(3 * time.Second)
	// Healthy again (a new connection waits 5 s on a front that is gone
	// before the standby is tried: a check may fail meanwhile).
	for deadline := time.Now().Add(protocol.Retry.Total()); ; {
		h := p.healthy()
		if h[0] && h[1] {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("after the promotion, the serves' /healthz say %v, want healthy", h)
			break
		}
	}
	as := r.finish()
	t.Logf("what each counter was answered from the kill to a second after the promotion:")
	gapReport(t, as, killed, promoted.Add(time.Second))
	if !resumed {
		t.Errorf("not every counter was answered again within %s of the promotion", protocol.Retry.Total()+5*time.Second)
	}
	var lastHash string
	var lastAt time.Time
	first := time.Time{}
	for _, a := range as {
		switch {
		case a.end.Before(killed) && a.paid != nil && a.end.After(lastAt):
			lastHash, lastAt = a.paid.Hash, a.end
		case a.start.After(killed) && a.end.Before(promoteAt) && !a.unavailable():
			t.Errorf("counter %d: a claim asked and answered with no primary answered %s", a.counter, a)
		case a.err != nil && !a.unavailable():
			t.Errorf("counter %d: answered neither a verdict nor unavailable: %v", a.counter, a.err)
		}
		if a.err == nil && a.end.After(promoted) && (first.IsZero() || a.end.Before(first)) {
			first = a.end
		}
	}
	for i := range failoverCounters {
		var at time.Time
		for _, a := range as {
			if a.counter == i && a.err == nil && a.start.After(promoted) && (at.IsZero() || a.end.Before(at)) {
				at = a.end
			}
		}
		if !at.IsZero() {
			t.Logf("counter %d: first answer of a claim asked after the promotion %.2f s after it", i, at.Sub(promoted).Seconds())
			if at.Sub(promoted) > protocol.Retry.Total() {
				t.Errorf("counter %d: answered again %.1f s after the promotion, past the retry policy's %s", i, at.Sub(promoted).Seconds(), protocol.Retry.Total())
			}
		}
	}
	if !first.IsZero() {
		t.Logf("serve answered again %.2f s after pg_ctl promote returned", first.Sub(promoted).Seconds())
	}
	paid := survivor(t, p.standby, p.db, as)
	t.Logf("%d answers, %d PAID, every PAID checked on the promoted standby", len(as), paid)
	// The journal on the new primary: one chain, the last head answered
	// before the kill a prefix of it.
	np, err := ledger.Open(p.standby.URL(pgtest.Owner, p.db))
	if err != nil {
		t.Fatal(err)
	}
	defer np.Close()
	if lastHash == "" {
		t.Fatal("no PAID answered before the kill")
	}
	if _, err := np.CheckHead(ctx, lastHash); err != nil {
		t.Errorf("the head of the last PAID before the kill (%s) is not in the new primary's chain: %v", lastHash, err)
	}
	if vr, err := np.Verify(ctx, 0, 0, nil); err != nil || !vr.OK() {
		t.Errorf("verify on the new primary: %v, %v", vr.Problems, err)
	}
}

// BenchmarkStandby is the measure of what the synchronous standby costs
// (issue 40 item 5), for a quiet machine: vegas-desk load --server with 1,
// 4 and 16 counters against serve of a demonstration ledger on a primary
// whose standby streams, synchronous (synchronous_standby_names = 'FIRST 1
// (s1)', synchronous_commit on) and not (synchronous_standby_names
// empty: the same standby, asynchronous), alternating, each twice, same
// run:
//
//	make test-failover FAILOVER_RUN=none FAILOVER_BENCH=Standby
func BenchmarkStandby(b *testing.B) {
	for b.Loop() {
		standbyFigures(b)
	}
}

func standbyFigures(b *testing.B) {
	b.Setenv("VEGAS_DESK_PASSPHRASE", ledgertest.Passphrase)
	primary, err := pgtest.StartDurable()
	if err != nil {
		b.Fatal(err)
	}
	defer primary.Stop()
	db, err := ledgertest.Postgres(primary, ledgertest.Demo)
	if err != nil {
		b.Fatal(err)
	}
	standby, err := primary.Standby("s1")
	if err != nil {
		b.Fatal(err)
	}
	defer standby.Stop()
	sync := func(on bool) {
		names, want := "", "async"
		if on {
			names, want = "FIRST 1 (s1)", "sync"
		}
		if err := primary.Set("synchronous_standby_names", names); err != nil {
			b.Fatal(err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for state := ""; state != want; {
			err := primary.Query("postgres", "SELECT sync_state FROM pg_stat_replication WHERE application_name = 's1'", nil, &state)
			if time.Now().After(deadline) {
				b.Fatalf("the standby is %q, want %s (%v)", state, want, err)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	sv := serveForLoad(b, pgtest.MultiURL(pgtest.Owner, db, primary, standby))
	defer sv.stop()
	fmt.Printf("\n== vegas-desk load --server against serve on a PostgreSQL %d primary and its streaming standby (loopback, same machine), synchronous or not, alternating\n", primary.Version())
	for _, n := range []int{1, 4, 16} {
		for round := range 2 {
			for _, on := range []bool{true, false} {
				sync(on)
				r := sv.load(b, n, 5)
				kind := "asynchronous"
				if on {
					kind = "synchronous"
				}
				fmt.Printf("%-44s %9.1f answers/s  p50 %6.2f ms  p99 %6.2f ms\n",
					fmt.Sprintf("%d counter(s), standby %s, run %d", n, kind, round+1), r["claims_per_s"], r["p50_ms"], r["p99_ms"])
				b.ReportMetric(r["claims_per_s"], fmt.Sprintf("%s-answers/s@%d", map[bool]string{true: "sync", false: "async"}[on], n))
			}
		}
	}
}
