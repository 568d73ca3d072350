package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
	"vegas-desk/internal/ledger/postgres"

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
		{"lookup, no secret part", `SELECT status FROM vegas.lookup(531, 1, $1, NULL, '', 'mallory', NULL)`, []any{w}},
		{"lookup, no position", `SELECT status FROM vegas.lookup(531, 1, NULL, 1, '', 'mallory', NULL)`, nil},
		{"lookup, a position of 8 digits", `SELECT status FROM vegas.lookup(531, 1, 12345678, 1, '', 'mallory', NULL)`, nil},
		{"lookup, a negative secret part", `SELECT status FROM vegas.lookup(531, 1, 0, -1, '', 'mallory', NULL)`, nil},
		{"lookup, a long operator", `SELECT status FROM vegas.lookup(531, 1, 0, 1, '', $1, NULL)`, []any{long}},
		{"claim, no secret part", `SELECT status FROM vegas.claim(531, 1, $1, NULL, 'serial', '', 'mallory', '', NULL, NULL, NULL, NULL, NULL)`, []any{w}},
		{"claim, no method", `SELECT status FROM vegas.claim(531, 1, $1, $2, NULL, '', 'mallory', '', NULL, NULL, NULL, NULL, NULL)`, []any{w, b.Key.Secret(w)}},
		{"claim, a long request id", `SELECT status FROM vegas.claim(531, 1, $1, $2, 'serial', '', 'mallory', $3, NULL, NULL, NULL, NULL, NULL)`, []any{w, b.Key.Secret(w), long}},
		{"find, no contents", `SELECT status FROM vegas.find(NULL, '', 'mallory', NULL)`, nil},
		{"packs, no range", `SELECT vegas.move_my_packs('activate', 531, 1, NULL, NULL, 'mallory')::text`, nil},
		{"packs, no last pack", `SELECT vegas.move_my_packs('receive', 531, 1, 7, NULL, 'mallory')::text`, nil},
	} {
		var got sql.NullString
		err := c.QueryRow(q.sql, q.args...).Scan(&got)
		var pe *pgconn.PgError
		if err == nil || (errors.As(err, &pe) && pe.Code == "42883") {
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

// A counter's wrong guesses count towards its lock-out even when it rolls
// its transaction back, makes it fail on purpose, or runs it read-only.
func TestLockOutSurvivesRollback(t *testing.T) {
	ctx := context.Background()
	bo, db := pgWithDesks(t)
	b := mustBlock(t, bo)
	c := rawCounter(t, db, "D1")
	good := ticketsWith(t, bo, b, 6, 1)[0]
	right := b.Key.Secret(good)
	wrong := func(i int) int64 { return (right + int64(i) + 1) % 10_000_000_000_000_000 }

	tx, err := c.BeginTxx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var st string
	if err := tx.Get(&st, `SELECT status FROM vegas.lookup(531, 1, $1, $2, '', 'm', NULL)`, good, right); err == nil {
		t.Errorf("a lookup in a read-only transaction answered %q", st)
	}
	tx.Rollback()

	for round := range 3 { // 3 × 6 guesses, rolled back
		tx, err := c.BeginTxx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 6 {
			if err := tx.Get(&st, `SELECT status FROM vegas.lookup(531, 1, $1, $2, '', 'm', NULL)`, good, wrong(round*6+i)); err != nil || st != "unknown-serial" {
				t.Fatalf("guess: %q %v", st, err)
			}
		}
		tx.Rollback()
	}
	// 2 more in one statement that fails unless a guess was right.
	if _, err := c.Exec(`SELECT CASE WHEN bool_or(a.status <> 'unknown-serial') THEN 1 ELSE 1 / (count(*) - count(*))::int END
		FROM unnest($2::bigint[]) g, LATERAL vegas.lookup(531, 1, $1, g, '', 'm', NULL) a`, good, "{"+fmt.Sprint(wrong(18))+","+fmt.Sprint(wrong(19))+"}"); err == nil {
		t.Fatal("the failing statement did not fail")
	}
	// 20 wrong guesses, none committed: the counter is locked out.
	if err := c.Get(&st, `SELECT status FROM vegas.lookup(531, 1, $1, $2, '', 'm', NULL)`, good, right); err != nil || st != "locked" {
		t.Fatalf("after 20 guesses rolled back: %q %v, want locked", st, err)
	}
	if err := bo.UnlockDesk(ctx, "D1", Identity{Desk: "BO", Operator: "eve"}); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(&st, `SELECT status FROM vegas.lookup(531, 1, $1, $2, '', 'm', NULL)`, good, right); err != nil || st != "payable" {
		t.Errorf("after desks unlock: %q %v", st, err)
	}
}

// The journal's lock is one a counter cannot take; a counter that holds it
// in an open transaction is ended by desks disable, and the others pay.
func TestCounterCannotHoldTheJournal(t *testing.T) {
	ctx := context.Background()
	bo, db := pgWithDesks(t)
	b := mustBlock(t, bo)
	c := rawCounter(t, db, "D1")
	if _, err := c.Exec("LOCK TABLE vegas.journal IN SHARE ROW EXCLUSIVE MODE"); err == nil {
		t.Error("a counter locked the journal")
	}
	conn, err := c.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock(1447511123)"); err != nil {
		t.Fatal(err)
	}
	other := counterLogin(t, db, "D2")
	w := ticketsWith(t, bo, b, 50, 2)
	cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if _, err := other.Claim(cctx, claimReq(serialOf(b, w[0]), Identity{Operator: "bob"})); err != nil {
		t.Fatalf("a claim while another counter holds an advisory lock: %v", err)
	}

	// D1 holds the journal's lock in an open transaction (a refusal
	// appended); desks disable ends its session, and D2 pays.
	held, err := c.BeginTxx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var st string
	if err := held.Get(&st, `SELECT status FROM vegas.lookup(531, 1, 0, 1, '', 'm', NULL)`); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := other.Claim(cctx, claimReq(serialOf(b, w[1]), Identity{Operator: "bob"}))
		done <- err
	}()
	if err := bo.DisableDesk(ctx, "D1", Identity{Desk: "BO", Operator: "eve"}); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Errorf("D2's claim once D1 was disabled: %v", err)
	}
	if err := held.Get(&st, "SELECT 1::text"); err == nil {
		t.Error("the disabled counter's session goes on")
	}
	held.Rollback()
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
	if err == nil || len(conns) > postgres.CounterConnections {
		t.Errorf("a counter opened %d connections (%v), want at most %d", len(conns), err, postgres.CounterConnections)
	}
	counterLogin(t, db, "D2") // another counter still connects
}
