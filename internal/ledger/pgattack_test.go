package ledger

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"vegas-desk/internal/ledger/postgres"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jmoiron/sqlx"
)

// The attacks of a counter that holds its login and calls the schema's
// functions with a plain driver, as psql would, found by a review of the
// code: each is refused, and none leaves an answer, a payment or an entry.

// rawCounter connects as desk id's login with a plain driver.
func rawCounter(t *testing.T, db, id string) *sqlx.DB {
	t.Helper()
	u := fmt.Sprintf("postgres://%s:%s@127.0.0.1:%d/%s?sslmode=disable", deskRole(db, id), counterPassword, pg.Port, db)
	c, err := sqlx.Open("pgx", u)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.Ping(); err != nil {
		t.Fatal(err)
	}
	return c
}

func journalCount(t *testing.T, bo *Ledger) int64 {
	t.Helper()
	var n int64
	if err := rdb(bo).Get(&n, "SELECT count(*) FROM vegas.journal"); err != nil {
		t.Fatal(err)
	}
	return n
}

// A missing (NULL) or out-of-range part of a serial, a missing range of
// packs or method, and text too long for the journal are refused before
// anything is looked up: a NULL secret part once compared as neither right
// nor wrong, and opened every ticket.
func TestCounterArgumentsRefused(t *testing.T) {
	bo, db := pgWithDesks(t)
	b := mustBlock(t, bo)
	c := rawCounter(t, db, "D1")
	w := ticketsWith(t, bo, b, 50, 1)[0]
	before := journalCount(t, bo)
	long := strings.Repeat("m", 65)
	for _, q := range []struct {
		name, sql string
		args      []any
	}{
		{"lookup, no secret part", `CALL vegas.lookup(531, 1, $1, NULL, '', 'mallory', NULL)`, []any{w}},
		{"lookup, no position", `CALL vegas.lookup(531, 1, NULL, 1, '', 'mallory', NULL)`, nil},
		{"lookup, a position of 8 digits", `CALL vegas.lookup(531, 1, 12345678, 1, '', 'mallory', NULL)`, nil},
		{"lookup, a negative secret part", `CALL vegas.lookup(531, 1, 0, -1, '', 'mallory', NULL)`, nil},
		{"lookup, a long operator", `CALL vegas.lookup(531, 1, 0, 1, '', $1, NULL)`, []any{long}},
		{"claim, no secret part", `CALL vegas.claim(531, 1, $1, NULL, 'serial', '', 'mallory', '', NULL, NULL, NULL, NULL, NULL)`, []any{w}},
		{"claim, no method", `CALL vegas.claim(531, 1, $1, $2, NULL, '', 'mallory', '', NULL, NULL, NULL, NULL, NULL)`, []any{w, b.Key.Secret(w)}},
		{"claim, a long request id", `CALL vegas.claim(531, 1, $1, $2, 'serial', '', 'mallory', $3, NULL, NULL, NULL, NULL, NULL)`, []any{w, b.Key.Secret(w), long}},
		{"find, no contents", `CALL vegas.find(NULL, '', 'mallory', NULL)`, nil},
		{"packs, no range", `CALL vegas.move_my_packs('activate', 531, 1, NULL, NULL, 'mallory')`, nil},
		{"packs, no last pack", `CALL vegas.move_my_packs('receive', 531, 1, 7, NULL, 'mallory')`, nil},
	} {
		var got sql.NullString
		err := c.QueryRow(q.sql, q.args...).Scan(&got)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || !strings.HasPrefix(pe.Code, "VD") {
			t.Errorf("%s: answered %q, %v; want the function's refusal", q.name, got.String, err)
		}
	}
	if n := journalCount(t, bo); n != before {
		t.Errorf("refused calls appended %d entries", n-before)
	}
	var paid int
	rdb(bo).Get(&paid, "SELECT count(*) FROM vegas.paid")
	if paid != 0 {
		t.Errorf("%d tickets paid", paid)
	}
	rep, err := journalOnly(bo)
	if err != nil || !rep.OK() {
		t.Errorf("verify: %v %v", rep.Problems, err)
	}
}

// status reads the status of a procedure's answer.
func status(t *testing.T, c *sqlx.DB, call string, args ...any) string {
	t.Helper()
	var raw []byte
	if err := c.QueryRow(call, args...).Scan(&raw); err != nil {
		t.Fatalf("%s: %v", call, err)
	}
	var a struct{ Status string }
	if err := json.Unmarshal(raw, &a); err != nil {
		t.Fatal(err)
	}
	return a.Status
}

// A counter's wrong guesses count towards its lock-out whatever question
// asks them: a lookup, a claim, a search by contents that finds nothing.
// The functions that answer cannot be called where a rollback would hide
// a guess (in a transaction, in a block that catches each error: issue 15's
// 3,000 guesses in 1.8 s), and the count saturates, it never wraps.
func TestLockOutCountsEveryGuess(t *testing.T) {
	ctx := context.Background()
	bo, db := pgWithDesks(t)
	b := mustBlock(t, bo)
	c := rawCounter(t, db, "D1")
	good := ticketsWith(t, bo, b, 6, 1)[0]
	right := b.Key.Secret(good)
	wrong := func(i int) int64 {
		if v := int64(1000 + i); v != right {
			return v
		}
		return 999
	}
	// The attack of issue 15: claims with wrong secret parts, each rolled
	// back in a subtransaction of a block: every call is refused before it
	// looks, the right guess as the wrong ones.
	_, err := c.ExecContext(ctx, fmt.Sprintf(`DO $$
		DECLARE a vegas.answer;
		BEGIN
			FOR s IN 990..1010 LOOP
				BEGIN
					a := vegas.claim_record(531, 1, %d, s, 'serial', '', 'm', '', NULL, NULL, NULL, NULL, NULL);
					RAISE EXCEPTION 'answered %%', a.status;
				EXCEPTION WHEN sqlstate 'VD013' THEN NULL;
				END;
			END LOOP;
			a := vegas.claim_record(531, 1, %d, %d, 'serial', '', 'm', '', NULL, NULL, NULL, NULL, NULL);
		END $$`, good, good, right))
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "VD013" {
		t.Fatalf("claim_record in a block: %v, want it refused (VD013)", err)
	}
	tx, err := c.BeginTxx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var st string
	err = tx.Get(&st, `SELECT (vegas.lookup_record(531, 1, $1, $2, '', 'm', NULL)).status`, good, wrong(0))
	if !errors.As(err, &pe) || pe.Code != "VD013" {
		t.Errorf("lookup_record in a transaction: %q %v, want it refused", st, err)
	}
	tx.Rollback()

	// 20 wrong guesses asked as a counter asks: lookups, claims, searches.
	for i := range 7 {
		if st := status(t, c, `CALL vegas.lookup(531, 1, $1, $2, '', 'm', NULL)`, good, wrong(i)); st != "unknown-serial" {
			t.Fatalf("lookup guess: %q", st)
		}
		if st := status(t, c, `CALL vegas.claim(531, 1, $1, $2, 'serial', '', 'm', '', NULL, NULL, NULL, NULL, NULL)`, good, wrong(10+i)); st != "unknown-serial" {
			t.Fatalf("claim guess: %q", st)
		}
		if i < 6 {
			code := []byte(fmt.Sprintf("no such tick%02d", i))
			if st := status(t, c, `CALL vegas.find($1, '', 'm', NULL)`, code); st != "unknown-contents" {
				t.Fatalf("find guess: %q", st)
			}
		}
	}
	for _, q := range []struct {
		call string
		args []any
	}{
		{`CALL vegas.lookup(531, 1, $1, $2, '', 'm', NULL)`, []any{good, right}},
		{`CALL vegas.claim(531, 1, $1, $2, 'serial', '', 'm', '', NULL, NULL, NULL, NULL, NULL)`, []any{good, right}},
		{`CALL vegas.find($1, '', 'm', NULL)`, []any{[]byte("no such ticket")}},
	} {
		if st := status(t, c, q.call, q.args...); st != "locked" {
			t.Errorf("%s after 20 guesses: %q, want locked", q.call, st)
		}
	}
	if err := bo.UnlockDesk(ctx, "D1", Identity{Desk: "BO", Operator: "eve"}); err != nil {
		t.Fatal(err)
	}
	if st := status(t, c, `CALL vegas.lookup(531, 1, $1, $2, '', 'm', NULL)`, good, right); st != "payable" {
		t.Errorf("after desks unlock: %q", st)
	}

	// The count saturates: 998 guesses in this window (set as the
	// sequence would hold them, past the lock-out, which stops a counter's
	// guessing), then more are counted: 999 each time, never 0.
	seq := fmt.Sprintf(`vegas.%q`, "guesses D1")
	if _, err := wdb(bo).ExecContext(ctx, fmt.Sprintf(`SELECT setval('%s', floor(extract(epoch FROM clock_timestamp()) / 600)::bigint * 1000 + 998)`, seq)); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		var n int64
		if err := rdb(bo).Get(&n, `SELECT vegas.guess('D1')`); err != nil || n != 999 {
			t.Errorf("a guess past 998: count %d, %v; want 999", n, err)
		}
	}
	if st := status(t, c, `CALL vegas.lookup(531, 1, $1, $2, '', 'm', NULL)`, good, right); st != "locked" {
		t.Errorf("after 1,001 guesses: %q, want locked", st)
	}
}

// counterCalls are a counter's questions, asked of things that do not
// exist, and the functions that answer them.
var counterCalls = []struct{ name, call, fn string }{
	{"lookup", "CALL vegas.lookup(531, 1, 0, 1, '', 'mallory', NULL)", "vegas.lookup_record(531, 1, 0, 1, '', 'mallory', NULL)"},
	{"claim", "CALL vegas.claim(531, 1, 0, 1, 'serial', '', 'mallory', '', NULL, NULL, NULL, NULL, NULL)",
		"vegas.claim_record(531, 1, 0, 1, 'serial', '', 'mallory', '', NULL, NULL, NULL, NULL, NULL)"},
	{"find", "CALL vegas.find('no such ticket'::bytea, '', 'mallory', NULL)", "vegas.find_record('no such ticket'::bytea, '', 'mallory', NULL)"},
	{"move_my_packs", "CALL vegas.move_my_packs('receive', 531, 1, 9000, 9000, 'mallory')",
		"vegas.move_record('receive', 531, 1, 9000, 9000, 'mallory')"},
}

// The attack of issue 16: a counter asks a question and sleeps in it, or
// in the transaction around it, so that every other payment waits. No
// counter call can be held open: as a function it is not one (a
// procedure), in a transaction it refuses to start, its answering function
// refuses to run outside it (in its own CALL's arguments too, which run
// before the procedure's body), and once it answered it holds nothing. While
// the attacker sleeps, another counter is paid (within a second, goes the
// goal; make bench measures it).
func TestCounterCannotHoldTheJournal(t *testing.T) {
	ctx := context.Background()
	bo, db := pgWithDesks(t)
	b := mustBlock(t, bo)
	other := counterLogin(t, db, "D2")
	winners := ticketsWith(t, bo, b, 50, 40)
	pay := func(t *testing.T, i int) {
		t.Helper()
		start := time.Now()
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		if _, err := other.Claim(cctx, claimReq(serialOf(b, winners[i]), Identity{Operator: "bob"})); err != nil {
			t.Errorf("D2's claim while D1 attacks: %v", err)
		}
		t.Logf("D2 paid in %v", time.Since(start))
	}
	url := fmt.Sprintf("postgres://%s:%s@127.0.0.1:%d/%s?sslmode=disable", deskRole(db, "D1"), counterPassword, pg.Port, db)
	n := 0
	for _, cc := range counterCalls {
		fn := cc.fn
		for _, attack := range []struct {
			name  string
			stmts []string // one session's, in order; the last sleeps
		}{
			{"as a function, sleeping", []string{"SELECT *, pg_sleep(20) FROM " + strings.TrimPrefix(cc.call, "CALL ")}},
			{"in a transaction, sleeping", []string{"BEGIN", cc.call, "SELECT pg_sleep(20)"}},
			{"its function in a transaction, sleeping", []string{"BEGIN", "SELECT " + fn, "SELECT pg_sleep(20)"}},
			{"its function in a block that sleeps", []string{"DO $$ BEGIN PERFORM " + fn + "; PERFORM pg_sleep(20); END $$"}},
			{"in a block that sleeps", []string{"DO $$ DECLARE a jsonb; BEGIN " + strings.Replace(cc.call, ")", ", a)", 1) + "; PERFORM pg_sleep(20); END $$"}},
			{"its function in the call's arguments, sleeping", []string{"SET statement_timeout = 0",
				strings.Replace(cc.call, "'mallory'", "concat((vegas.chain_answer("+fn+", false)).status, pg_sleep(20))", 1)}},
			{"pipelined with a sleep", nil},
		} {
			t.Run(cc.name+" "+attack.name, func(t *testing.T) {
				conn, err := pgx.Connect(ctx, url)
				if err != nil {
					t.Fatal(err)
				}
				defer conn.Close(ctx)
				var pid int
				conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid)
				done := make(chan error, 1)
				go func() {
					if attack.stmts == nil {
						batch := &pgx.Batch{}
						batch.Queue(cc.call)
						batch.Queue("SELECT pg_sleep(20)")
						done <- conn.SendBatch(ctx, batch).Close()
						return
					}
					for _, q := range attack.stmts {
						if _, err := conn.Exec(ctx, q); err != nil {
							done <- err
							return
						}
					}
					done <- nil
				}()
				// Until the attacker sleeps, or failed.
				for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
					var sleeping bool
					rdb(bo).Get(&sleeping, "SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND wait_event = 'PgSleep')", pid)
					if sleeping || len(done) > 0 {
						break
					}
				}
				pay(t, n)
				n++
				select {
				case err := <-done:
					t.Logf("the attack ended: %v", err)
				default:
					if _, err := wdb(bo).ExecContext(ctx, "SELECT pg_cancel_backend($1)", pid); err != nil {
						t.Fatal(err)
					}
					<-done
				}
			})
		}
	}
	if rep, err := journalOnly(bo); err != nil || !rep.OK() || rep.Waiting != 0 {
		t.Errorf("verify: %v %v, %d waiting", rep.Problems, err, rep.Waiting)
	}
}

// A counter holds at most postgres.CounterConnections connections: the server's
// other slots stay for the others.
func TestCounterConnectionLimit(t *testing.T) {
	ctx := context.Background()
	_, db := pgWithDesks(t)
	c := rawCounter(t, db, "D1") // one
	c.SetMaxOpenConns(100)
	var conns []*sql.Conn
	defer func() {
		for _, cn := range conns {
			cn.Close()
		}
	}()
	var err error
	for len(conns) < 20 && err == nil {
		var cn *sql.Conn
		if cn, err = c.Conn(ctx); err == nil {
			if err = cn.PingContext(ctx); err == nil {
				conns = append(conns, cn)
			}
		}
	}
	// The refusal is the server's limit on the counter's role (SQLSTATE
	// 53300, too_many_connections, "for role"), met at exactly
	// CounterConnections: not any other failure, which would say nothing
	// of the limit.
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "53300" || !strings.Contains(pe.Message, "too many connections for role") {
		t.Errorf("after %d connections: %v, want SQLSTATE 53300, too many connections for role", len(conns), err)
	}
	if len(conns) != postgres.CounterConnections {
		t.Errorf("a counter opened %d connections, want exactly %d", len(conns), postgres.CounterConnections)
	}
	counterLogin(t, db, "D2") // another counter still connects
}

// A review's attacks through a CALL's own arguments, which run in the
// client's transaction before the procedure's body, where the text of the
// statement is the procedure's CALL: reading another desk's payment
// through chain_answer (an entry named by its seq), and asking a question
// whose wrong guess leaves no journal entry (the error carries the
// answer out, the CALL rolls back). Each is refused and records nothing.
func TestCounterArgumentsRunNoFunction(t *testing.T) {
	ctx := context.Background()
	bo, db := pgWithDesks(t)
	b := mustBlock(t, bo)
	winner, loser := ticketsWith(t, bo, b, 50, 1)[0], ticketsWith(t, bo, b, 0, 1)[0]
	if _, err := counterLogin(t, db, "D2").Claim(ctx, claimReq(serialOf(b, winner), Identity{Operator: "bob-of-D2"})); err != nil {
		t.Fatal(err)
	}
	c := rawCounter(t, db, "D1")
	var seqs []int64
	if err := rdb(bo).Select(&seqs, "SELECT seq FROM vegas.journal WHERE seq IS NOT NULL"); err != nil || len(seqs) == 0 {
		t.Fatalf("seqs %v %v", seqs, err)
	}
	before := journalCount(t, bo)
	lookup := fmt.Sprintf("CALL vegas.lookup(531, 1, %d, %d, '', %%s, NULL)", loser, b.Key.Secret(loser))
	attacks := map[string]string{
		"a wrong guess, its answer in an error": fmt.Sprintf("(vegas.lookup_record(531, 1, %d, 1234, '', 'm', NULL)).status::int::text", winner),
		"a claim, its answer in an error":       fmt.Sprintf("(vegas.claim_record(531, 1, %d, 1234, 'serial', '', 'm', '', NULL, NULL, NULL, NULL, NULL)).status::int::text", winner),
	}
	for _, seq := range seqs {
		attacks[fmt.Sprint("another desk's entry ", seq)] = fmt.Sprintf(
			`to_jsonb(vegas.chain_answer(jsonb_populate_record(NULL::vegas.answer, '{"seq": %d}'), false))::text::int::text`, seq)
	}
	for name, arg := range attacks {
		_, err := c.ExecContext(ctx, fmt.Sprintf(lookup, arg))
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "VD013" || strings.Contains(pe.Message, "D2") || strings.Contains(pe.Message, "status") {
			t.Errorf("%s: %v, want VD013 and nothing of the answer", name, err)
		}
	}
	var waiting int
	if err := rdb(bo).Get(&waiting, "SELECT count(*) FROM vegas.waiting"); err != nil || journalCount(t, bo) != before || waiting != 0 {
		t.Errorf("the refused calls recorded: %d entries, %d waiting (%v)", journalCount(t, bo)-before, waiting, err)
	}
}

// A review's attack on request ids: one desk asks two claims with one
// request id at once, while its other sessions keep the chainer busy.
// For two tickets, one is paid and the other refused as a reused id (once
// a claim recorded with the id waited to be chained while the other was
// chained, and no entry after it could be chained, for ever); for one
// ticket (a retry of a lost answer), both answer the one payment. The ids
// of a desk's claims are taken one at a time (vegas.requests).
func TestRequestIdsOneAtATime(t *testing.T) {
	ctx := context.Background()
	bo, db := pgWithDesks(t)
	b := mustBlock(t, bo)
	ws := ticketsWith(t, bo, b, 50, 120)
	sec := b.Key.Secret
	stop := busyChainer(t, bo, db)
	c := rawCounter(t, db, "D1")
	claim := func(pos int, req string) (string, error) {
		var answer []byte
		err := c.GetContext(ctx, &answer, `CALL vegas.claim(531, 1, $1, $2, 'serial', '', 'ann', $3, NULL, NULL, NULL, NULL, NULL)`, pos, sec(pos), req)
		var a struct {
			Status string `json:"status"`
			Claim  int64  `json:"claim_entry"`
		}
		json.Unmarshal(answer, &a)
		return fmt.Sprint(a.Status, " ", a.Claim), err
	}
	for i := 0; i+1 < len(ws); i += 2 {
		req := fmt.Sprint("race-", i)
		second := ws[i+1]
		if i%4 == 0 {
			second = ws[i] // a retry
		}
		var a, b string
		var errA, errB error
		var wg sync.WaitGroup
		wg.Add(2)
		go func() { defer wg.Done(); a, errA = claim(ws[i], req) }()
		go func() { defer wg.Done(); b, errB = claim(second, req) }()
		wg.Wait()
		var pe *pgconn.PgError
		reused := func(err error) bool { return errors.As(err, &pe) && pe.Code == "VD012" }
		switch {
		case second == ws[i] && (errA != nil || errB != nil || a != b || !strings.HasPrefix(a, "paid ")):
			t.Fatalf("attempt %d, a claim and its retry: %q %v, %q %v; want the one payment twice", i/2, a, errA, b, errB)
		case second != ws[i] && !(errA == nil && strings.HasPrefix(a, "paid ") && reused(errB) ||
			errB == nil && strings.HasPrefix(b, "paid ") && reused(errA)):
			t.Fatalf("attempt %d, two tickets: %q %v, %q %v; want one paid, one refused as a reused id", i/2, a, errA, b, errB)
		}
	}
	stop()
	if rep, err := journalOnly(bo); err != nil || !rep.OK() || rep.Waiting != 0 {
		t.Errorf("verify: %v %v, %d waiting", rep.Problems, err, rep.Waiting)
	}
}

// busyChainer keeps the chainer busy with 4 sessions of D1 claiming a
// losing ticket, so that a question's try at the chain (SKIP LOCKED) often
// finds it taken and its entry commits unchained; stop ends them (and the
// test's end, if it was not called).
func busyChainer(t *testing.T, bo *Ledger, db string) (stop func()) {
	ctx := context.Background()
	b := mustBlock(t, bo)
	loser := ticketsWith(t, bo, b, 0, 1)[0]
	var done atomic.Bool
	var load sync.WaitGroup
	for range 4 {
		c := rawCounter(t, db, "D1")
		load.Add(1)
		go func() {
			defer load.Done()
			for !done.Load() {
				c.ExecContext(ctx, `CALL vegas.claim(531, 1, $1, $2, 'serial', '', 'load', '', NULL, NULL, NULL, NULL, NULL)`, loser, b.Key.Secret(loser))
			}
		}()
	}
	stop = func() { done.Store(true); load.Wait() }
	t.Cleanup(stop)
	return stop
}

// A request id first referred (a limit asked lower), then paid, then the
// payment voided at the back office: asked again while the chainer is
// busy, it answers that the payment was voided, and records nothing; it
// once paid the ticket again, with a second claim entry of the id that no
// chain could take (journal_requests), which stopped every desk's
// questions and the back office's writes. A second payment of one id is
// refused by the database itself, whatever the code before it decided.
func TestRequestReuseCannotStopTheChain(t *testing.T) {
	ctx := context.Background()
	bo, db := pgWithDesks(t)
	b := mustBlock(t, bo)
	ws := ticketsWith(t, bo, b, 50, 3)
	c := rawCounter(t, db, "D1")
	claim := func(pos int, req string, limit any) (string, int64, error) {
		var answer []byte
		err := c.GetContext(ctx, &answer, `CALL vegas.claim(531, 1, $1, $2, 'serial', '', 'ann', $3, $4, NULL, NULL, NULL, NULL)`,
			pos, b.Key.Secret(pos), req, limit)
		var a struct {
			Status string `json:"status"`
			Number int64  `json:"claim_number"`
		}
		json.Unmarshal(answer, &a)
		return a.Status, a.Number, err
	}
	if st, _, err := claim(ws[0], "R", 10); err != nil || st != "over-limit" {
		t.Fatalf("asked with a limit of 10 €: %s %v", st, err)
	}
	st, number, err := claim(ws[0], "R", nil)
	if err != nil || st != "paid" {
		t.Fatalf("asked again: %s %v", st, err)
	}
	if st, again, err := claim(ws[0], "R", nil); err != nil || st != "paid" || again != number {
		t.Fatalf("a lost answer asked again: %s %d %v, want paid %d", st, again, err, number)
	}
	if _, err := bo.Void(ctx, number, "cashier error", Identity{Desk: "BO", Operator: "boss"}); err != nil {
		t.Fatal(err)
	}
	stop := busyChainer(t, bo, db)
	for range 30 {
		if st, _, err := claim(ws[0], "R", nil); err != nil || st != "voided" {
			t.Fatalf("after the void: %s %v, want voided", st, err)
		}
	}
	stop()
	var claims int
	if err := rdb(bo).GetContext(ctx, &claims, "SELECT count(*) FROM vegas.waiting WHERE kind = 'claim'"); err != nil || claims != 0 {
		t.Errorf("%d claims wait to be chained: %v", claims, err)
	}
	// The database's own guard: an id whose row says it paid pays no more.
	if st, _, err := claim(ws[1], "R2", 10); err != nil || st != "over-limit" {
		t.Fatalf("R2 referred: %s %v", st, err)
	}
	if _, err := wdb(bo).ExecContext(ctx, "UPDATE vegas.requests SET paid = true WHERE request = 'R2'"); err != nil {
		t.Fatal(err)
	}
	var pe *pgconn.PgError
	if st, _, err := claim(ws[1], "R2", nil); !errors.As(err, &pe) || pe.Code != "VD012" {
		t.Errorf("a second payment of R2: %s %v, want VD012", st, err)
	}
	if _, err := counterLogin(t, db, "D2").Claim(ctx, claimReq(serialOf(b, ws[2]), Identity{Operator: "bob"})); err != nil {
		t.Errorf("another desk's claim after: %v", err)
	}
	if _, err := bo.Void(ctx, number+1, "cashier error", Identity{Desk: "BO", Operator: "boss"}); err != nil {
		t.Errorf("the back office's write after: %v", err)
	}
	if rep, err := journalOnly(bo); err != nil || !rep.OK() || rep.Waiting != 0 {
		t.Errorf("verify: %v %v, %d waiting", rep.Problems, err, rep.Waiting)
	}
}

// A counter keeps a transaction open (its timeouts lifted: a session may),
// idle or sleeping, in the ledger's database or in another of the server,
// to hold back the removal of dead rows server-wide (or the notifications
// it listens to). The next question of any desk, a lookup that records
// nothing included, ends its session once the transaction is older than
// reap_after (2 minutes; 1 second here), and leaves honest counters alone.
func TestCounterCannotKeepATransaction(t *testing.T) {
	ctx := context.Background()
	bo, db := pgWithDesks(t)
	b := mustBlock(t, bo)
	if _, err := wdb(bo).ExecContext(ctx, "UPDATE vegas.reaper SET reap_after = '1 second'"); err != nil {
		t.Fatal(err)
	}
	var pids []int64
	for _, attack := range []struct {
		db    string
		stmts []string
	}{
		{db, []string{"SET idle_in_transaction_session_timeout = 0", "BEGIN", "SELECT * FROM vegas.my_claims('', '')"}},
		{db, []string{"SET statement_timeout = 0", "SELECT pg_sleep(600)"}},
		{"postgres", []string{"SET idle_in_transaction_session_timeout = 0", "BEGIN", "SELECT 1"}},
	} {
		stmts := attack.stmts
		conn, err := pgx.Connect(ctx, fmt.Sprintf("postgres://%s:%s@127.0.0.1:%d/%s?sslmode=disable", deskRole(db, "D1"), counterPassword, pg.Port, attack.db))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		pids = append(pids, int64(conn.PgConn().PID()))
		go func() {
			for _, q := range stmts {
				if _, err := conn.Exec(ctx, q); err != nil {
					return
				}
			}
		}()
	}
	honest := counterLogin(t, db, "D2")
	winner := serialOf(b, ticketsWith(t, bo, b, 50, 1)[0])
	alive := func() (n int) {
		rdb(bo).Get(&n, "SELECT count(*) FROM pg_stat_activity WHERE pid = ANY ($1)", pids)
		return n
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		var old int
		rdb(bo).Get(&old, "SELECT count(*) FROM pg_stat_activity WHERE pid = ANY ($1) AND xact_start < clock_timestamp() - interval '1.2 seconds'", pids)
		if old == len(pids) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of the attacker's sessions hold a transaction of more than a second", old)
		}
	}
	// The honest counter looks up a winner (nothing recorded, nothing
	// chained); each question reaps, at most every tenth of a second.
	i := 0
	for deadline := time.Now().Add(20 * time.Second); alive() > 0 && time.Now().Before(deadline); i++ {
		if tk, err := honest.Lookup(ctx, winner, Identity{Operator: "bob"}, NoLimit); err != nil || tk.Verdict != Payable {
			t.Fatalf("the honest counter's lookup %d: %v %v", i, tk.Verdict, err)
		}
	}
	if n := alive(); n > 0 {
		t.Fatalf("after %d questions of another counter, %d of the attacker's sessions still hold their transactions", i, n)
	}
	if _, err := honest.Claim(ctx, claimReq(winner, Identity{Operator: "bob"})); err != nil {
		t.Errorf("the honest counter, after: %v", err)
	}
}

// A claim that loses the race for a ticket to another desk's payment
// leaves its request id free: once that payment is voided, the same id
// pays (helper-7's review: it was marked paid before the ticket was
// won, and the retry refused as a reused id, where the Go ledgers pay).
func TestRequestLostRaceLeavesIdFree(t *testing.T) {
	ctx := context.Background()
	bo, db := pgWithDesks(t)
	b := mustBlock(t, bo)
	d1, d2 := rawCounter(t, db, "D1"), rawCounter(t, db, "D2")
	claim := func(c *sqlx.DB, pos int, req string) (string, int64, error) {
		var answer []byte
		err := c.GetContext(ctx, &answer, `CALL vegas.claim(531, 1, $1, $2, 'serial', '', 'op', $3, NULL, NULL, NULL, NULL, NULL)`,
			pos, b.Key.Secret(pos), req)
		var a struct {
			Status string `json:"status"`
			Number int64  `json:"claim_number"`
		}
		json.Unmarshal(answer, &a)
		return a.Status, a.Number, err
	}
	lost := 0
	for i, pos := range ticketsWith(t, bo, b, 50, 40) {
		req := fmt.Sprint("R", i)
		var st1, st2 string
		var n2 int64
		var e1, e2 error
		var wg sync.WaitGroup
		wg.Add(2)
		go func() { defer wg.Done(); st1, _, e1 = claim(d1, pos, req) }()
		go func() { defer wg.Done(); st2, n2, e2 = claim(d2, pos, "") }()
		wg.Wait()
		if e1 != nil || e2 != nil {
			t.Fatalf("round %d: %v %v", i, e1, e2)
		}
		if st2 != "paid" {
			continue // D1 won the ticket
		}
		lost++
		if st1 != "already-claimed" {
			t.Fatalf("round %d: D1 answered %s, D2 paid", i, st1)
		}
		if _, err := bo.Void(ctx, n2, "wrong desk", Identity{Desk: "BO", Operator: "boss"}); err != nil {
			t.Fatal(err)
		}
		if st, _, err := claim(d1, pos, req); err != nil || st != "paid" {
			t.Fatalf("round %d: D1's id again after the void: %s %v, want paid", i, st, err)
		}
	}
	if lost == 0 {
		t.Fatal("D2 never won the race: the test proved nothing")
	}
	if rep, err := journalOnly(bo); err != nil || !rep.OK() || rep.Waiting != 0 {
		t.Errorf("verify: %v %v, %d waiting", rep.Problems, err, rep.Waiting)
	}
}

// The back office's lookup in a read-only session (a replica's, or
// default_transaction_read_only) answers: the reaper, which every question
// runs, writes nothing there.
func TestReadOnlyBackOfficeLookup(t *testing.T) {
	ctx := context.Background()
	bo, _ := pgWithDesks(t)
	b := mustBlock(t, bo)
	pos := ticketsWith(t, bo, b, 50, 1)[0]
	conn, err := wdb(bo).Connx(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SET default_transaction_read_only = on"); err != nil {
		t.Fatal(err)
	}
	if _, err := wdb(bo).ExecContext(ctx, "UPDATE vegas.reaper SET reaped = '-infinity'"); err != nil {
		t.Fatal(err) // a reap is due
	}
	var answer []byte
	if err := conn.GetContext(ctx, &answer, `CALL vegas.lookup(531, 1, $1, $2, 'BO', 'x', NULL)`, pos, b.Key.Secret(pos)); err != nil ||
		!strings.Contains(string(answer), `"status": "payable"`) {
		t.Errorf("a read-only lookup: %s %v", answer, err)
	}
}
