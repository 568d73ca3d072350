package ledger

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jmoiron/sqlx"

	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/signing"
)

// rewriteJournal is the forged-history attack of the holder of a ledger:
// with the append-only triggers out of the way, it removes entry drop,
// renumbers the entries after it, recomputes every hash after it so that
// the chain is consistent again, rebuilds the paid tickets to match, and
// puts the triggers back as they were.
func rewriteJournal(tb testing.TB, l *Ledger, drop int64) {
	tb.Helper()
	ctx := context.Background()
	db := wdb(l)
	var triggers []struct {
		Name string `db:"name"`
		SQL  string `db:"sql"`
	}
	if !l.Shared() {
		if err := db.Select(&triggers, "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name IN ('journal', 'paid')"); err != nil {
			tb.Fatal(err)
		}
		for _, t := range triggers {
			if _, err := db.Exec("DROP TRIGGER " + t.Name); err != nil {
				tb.Fatal(err)
			}
		}
	} else if _, err := db.Exec("ALTER TABLE vegas.journal DISABLE TRIGGER USER"); err != nil {
		tb.Fatal(err)
	}
	var es []entry
	if err := sel(ctx, db, &es, "SELECT "+entryCols+" FROM journal ORDER BY id"); err != nil {
		tb.Fatal(err)
	}
	var paid []struct {
		Ticket int64 `db:"ticket"`
		Claim  int64 `db:"claim"`
	}
	// A shared ledger's paid row may name its payment by its record (-seq).
	paidRows := "SELECT ticket, claim FROM paid"
	if l.Shared() {
		paidRows = "SELECT p.ticket, coalesce(j.id, p.claim) AS claim FROM paid p LEFT JOIN journal j ON j.seq = -p.claim"
	}
	if err := sel(ctx, db, &paid, paidRows); err != nil {
		tb.Fatal(err)
	}
	tx, err := db.Beginx()
	if err != nil {
		tb.Fatal(err)
	}
	defer tx.Rollback()
	exec := func(q string, args ...any) {
		if _, err := tx.Exec(tx.Rebind(q), args...); err != nil {
			tb.Fatalf("%s: %v", q, err)
		}
	}
	exec("DELETE FROM paid")
	exec("DELETE FROM journal WHERE id >= ?", drop)
	var prev []byte
	newID := map[int64]int64{}
	lastNum := map[string]int64{}
	for _, e := range es {
		if e.ID == drop {
			continue
		}
		if e.ID > drop {
			newID[e.ID] = e.ID - 1
			e.ID--
			if e.Ref.Valid && newID[e.Ref.Int64] != 0 {
				e.Ref.Int64 = newID[e.Ref.Int64]
			}
		}
		e.Number = lastNum[e.Kind] + 1
		lastNum[e.Kind] = e.Number
		e.Hash = e.ChainHash(prev)
		prev = e.Hash
		if e.ID >= drop {
			exec("INSERT INTO journal ("+entryCols+") VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
				e.ID, e.Kind, e.AtText, e.Number, e.Ticket, e.Serial, e.Game, e.Block, e.Position, e.PackFirst, e.PackLast,
				e.State, e.Amount, e.Desk, e.Operator, e.Method, e.Ref, e.Request, e.Reason, e.Detail, e.Hash)
		}
	}
	for _, p := range paid {
		switch {
		case p.Claim == drop:
		case p.Claim > drop:
			exec("INSERT INTO paid (ticket, claim) VALUES (?, ?)", p.Ticket, p.Claim-1)
		default:
			exec("INSERT INTO paid (ticket, claim) VALUES (?, ?)", p.Ticket, p.Claim)
		}
	}
	if err := tx.Commit(); err != nil {
		tb.Fatal(err)
	}
	for _, t := range triggers {
		if _, err := db.Exec(t.SQL); err != nil {
			tb.Fatal(err)
		}
	}
	if l.Shared() {
		if _, err := db.Exec("ALTER TABLE vegas.journal ENABLE TRIGGER USER"); err != nil {
			tb.Fatal(err)
		}
	}
}

// The forged history: a claim removed and the chain rebuilt verifies on
// its own, but not against a head kept outside the ledger.
func TestVerifyHead(t *testing.T) {
	forEngines(t, func(t *testing.T, ec engineCase) {
		ctx := context.Background()
		l := mustOpen(t, ec.fresh(t))
		b := mustBlock(t, l)
		who := Identity{Desk: "D1", Operator: "ann"}
		var claims []Claim
		for _, pos := range ticketsWith(t, l, b, 50, 3) {
			c, err := l.Claim(ctx, claimReq(serialOf(b, pos), who))
			if err != nil {
				t.Fatal(err)
			}
			claims = append(claims, c)
		}
		// A head written on the second payment's receipt.
		head := claims[1].Hash
		if a, err := l.CheckHead(ctx, head); err != nil || a.Entry != claims[1].Entry || a.Kind != "claim" {
			t.Fatalf("CheckHead of an entry of the chain: %+v %v", a, err)
		}
		if _, err := l.CheckHead(ctx, strings.Repeat("ab", 32)); !errors.Is(err, ErrNotAnchored) {
			t.Errorf("a hash of no entry: %v", err)
		}
		if _, err := l.CheckHead(ctx, "12ab"); err == nil || errors.Is(err, ErrNotAnchored) {
			t.Errorf("a malformed head: %v", err)
		}

		rewriteJournal(t, l, claims[0].Entry)
		rep, err := journalOnly(l)
		if err != nil || !rep.OK() {
			t.Fatalf("the rebuilt chain should verify on its own (that is the attack): %v %v", rep.Problems, err)
		}
		if _, err := l.CheckHead(ctx, head); !errors.Is(err, ErrNotAnchored) {
			t.Errorf("the rebuilt chain still holds the receipt's head: %v", err)
		}
		if _, err := l.CheckHead(ctx, rep.Head); err != nil {
			t.Errorf("the current head: %v", err)
		}
	})
}

// A signed checkpoint: recorded in the journal, verifiable with the public
// key, and refused with another key or once changed.
func TestCheckpoint(t *testing.T) {
	forEngines(t, func(t *testing.T, ec engineCase) {
		ctx := context.Background()
		l := mustOpen(t, ec.fresh(t))
		head, _ := l.Head(ctx)
		cp, err := l.Checkpoint(ctx, testKey, Identity{Desk: "BO", Operator: "ann"})
		if err != nil {
			t.Fatal(err)
		}
		if cp.Head != head {
			t.Errorf("checkpoint of %s, head was %s", cp.Head, head)
		}
		s, err := signing.Verify([]byte(cp.Text), testKey.Public())
		if err != nil {
			t.Fatal(err)
		}
		if h, _ := s.Get("head"); h != head {
			t.Errorf("signed head %s", h)
		}
		if id, _ := s.Get("ledger"); id != l.ID() {
			t.Errorf("signed ledger %s", id)
		}
		var e entry
		if err := get(ctx, rdb(l), &e, "SELECT "+entryCols+" FROM journal WHERE id = ?", cp.Entry); err != nil {
			t.Fatal(err)
		}
		if e.Kind != "checkpoint" || e.Detail != cp.Text || !e.Ref.Valid || e.Ref.Int64 != cp.Entry-1 {
			t.Errorf("journal entry %+v", e)
		}
		if _, err := l.CheckHead(ctx, head); err != nil {
			t.Error(err)
		}
		other := signing.KeyFromSeed(make([]byte, 32))
		if _, err := signing.Verify([]byte(cp.Text), other.Public()); !errors.Is(err, signing.ErrBadSignature) {
			t.Errorf("another key: %v", err)
		}
		rep, err := journalOnly(l)
		if err != nil || !rep.OK() {
			t.Errorf("verify after a checkpoint: %v %v", rep.Problems, err)
		}
	})
}

// A block certificate is signed only after the block verifies; its text
// reads back.
func TestCertificate(t *testing.T) {
	forEngines(t, func(t *testing.T, ec engineCase) {
		ctx := context.Background()
		l := mustOpen(t, ec.fresh(t))
		c, err := l.Certificate(ctx, 531, 1, testKey)
		if err != nil {
			t.Fatal(err)
		}
		s, err := signing.Verify([]byte(c.Text), testKey.Public())
		if err != nil {
			t.Fatal(err)
		}
		back, err := core.ParseCertificate(s)
		if err != nil {
			t.Fatal(err)
		}
		b := mustBlock(t, l)
		if back.Block.Digest != b.Digest || back.Block.Winners != b.Winners || back.Block.Payout != b.Payout ||
			back.GameName != "VEGAS" || len(back.Counts) != 8 || back.Counts[0].Prize != 50000 || back.Counts[0].Generated != 2 {
			t.Errorf("certificate reads back %+v", back)
		}
		if _, err := l.Certificate(ctx, 531, 2, testKey); !errors.Is(err, ErrNotFound) {
			t.Errorf("a block that does not exist: %v", err)
		}
	})
}

// A journal or kept column stored with another SQLite storage class (the
// same bytes: Go reads the same value, the chain's hash recomputes) no
// longer matches in SQL: a void's ref made a BLOB, or its kind, no longer
// cancels its payment, and the ticket is payable again. verify names the
// row, and verify --head refuses the head.
func TestVerifyRefusesStorageClass(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name, trigger, where string
		stmts                []string
	}{
		{"a void's ref as a BLOB", "journal_no_update", "journal entry", []string{"UPDATE journal SET ref = CAST(ref AS BLOB) WHERE kind = 'void'"}},
		{"a void's kind as a BLOB", "journal_no_update", "journal entry", []string{"PRAGMA ignore_check_constraints = ON",
			"UPDATE journal SET kind = CAST(kind AS BLOB) WHERE kind = 'void'"}},
		{"a kept payment's claim as a BLOB", "", "paid row", []string{"UPDATE paid SET claim = CAST(claim AS BLOB)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := copyFixture(t)
			l := mustOpen(t, path)
			b := mustBlock(t, l)
			ps := ticketsWith(t, l, b, 1000, 2)
			c, err := l.Claim(ctx, claimReq(serialOf(b, ps[0]), Identity{Desk: "S1", Operator: "ann"}))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := l.Void(ctx, c.Number, "mistake", Identity{Desk: "BO", Operator: "boss"}); err != nil {
				t.Fatal(err)
			}
			if _, err := l.Claim(ctx, claimReq(serialOf(b, ps[1]), Identity{Desk: "S1", Operator: "ann"})); err != nil {
				t.Fatal(err)
			}
			head, err := l.Head(ctx)
			if err != nil {
				t.Fatal(err)
			}
			l.Close()
			if tc.trigger != "" {
				alterUnderTrigger(t, path, tc.trigger, tc.stmts...)
			} else {
				rawSQL(t, path, tc.stmts...)
			}
			l = mustOpen(t, path)
			rep, err := journalOnly(l)
			if err != nil || rep.OK() || !strings.Contains(rep.Problems[0].Where, tc.where) || !strings.Contains(rep.Problems[0].What, "changed outside vegas-desk") {
				t.Errorf("verify: %v %v", rep.Problems, err)
			}
			if a, err := l.CheckHead(ctx, head); tc.trigger != "" && !errors.Is(err, ErrNotAnchored) {
				t.Errorf("verify --head: %+v %v", a, err)
			}
		})
	}
}

// rawSQL runs statements on a ledger file outside the app.
func rawSQL(tb testing.TB, path string, stmts ...string) {
	tb.Helper()
	db, err := sqlx.Open("sqlite", "file:"+path)
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			tb.Fatalf("%s: %v", s, err)
		}
	}
}
