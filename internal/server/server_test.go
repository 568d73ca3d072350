package server_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/ledgertest"
	"vegas-desk/internal/server"
	"vegas-desk/internal/server/servertest"
)

var bo = ledger.Identity{Desk: "BO", Operator: "eve"}

// office is a back office's ledger of the block fixture (every pack on
// sale) with desks C1 (limit 100 €) and C2 (limit 0), and its serials.
func office(t testing.TB) (*ledger.Ledger, ledgertest.Serials) {
	t.Helper()
	l, err := ledger.Open(ledgertest.Copy(t, ledgertest.Block))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	for id, limit := range map[string]int{"C1": 100, "C2": 0} {
		if _, err := l.AddDesk(context.Background(), id, limit, bo); err != nil {
			t.Fatal(err)
		}
	}
	return l, ledgertest.SerialsOf(t, ledgertest.Block)
}

// A counter on the server behaves as a counter's login: it looks up, pays
// once, is refused a second payment, above its limit refers, lists its
// own payments, prints a receipt and a day report.
func TestCounterThroughServer(t *testing.T) {
	ctx := context.Background()
	o, serials := office(t)
	s := servertest.Start(t, o, server.Config{})
	c1 := s.Open(t, "C1")
	if c1.CounterDesk() != "C1" || c1.CounterLimit() != ledger.LimitOf(100) || c1.ID() != o.ID() || !c1.Shared() {
		t.Fatalf("info: desk %q limit %v id %q shared %v", c1.CounterDesk(), c1.CounterLimit(), c1.ID(), c1.Shared())
	}
	who := ledger.Identity{Operator: "ann"}
	win := serials.Winners[50][0]
	tk, err := c1.Lookup(ctx, win, who, ledger.NoLimit)
	if err != nil || tk.Verdict != ledger.Payable || tk.Prize != 50 {
		t.Fatalf("lookup: %+v %v", tk, err)
	}
	cl, err := c1.Claim(ctx, ledger.ClaimRequest{Serial: win, Method: ledger.MethodSerial, Who: who, Request: "r-1", Limit: ledger.NoLimit})
	if err != nil || cl.Desk != "C1" || cl.Amount != 50 || cl.Hash == "" {
		t.Fatalf("claim: %+v %v", cl, err)
	}
	again, err := c1.Claim(ctx, ledger.ClaimRequest{Serial: win, Method: ledger.MethodSerial, Who: who, Request: "r-1", Limit: ledger.NoLimit})
	if err != nil || again.Number != cl.Number {
		t.Fatalf("a retry of request r-1 answered %+v %v, not payment %d", again, err, cl.Number)
	}
	_, err = c1.Claim(ctx, ledger.ClaimRequest{Serial: win, Method: ledger.MethodSerial, Who: who, Limit: ledger.NoLimit})
	var r *ledger.Refusal
	if !errors.As(err, &r) || r.Verdict != ledger.AlreadyClaimed || r.First == nil || r.First.Number != cl.Number {
		t.Fatalf("second claim: %v", err)
	}
	_, err = c1.Claim(ctx, ledger.ClaimRequest{Serial: serials.Winners[1000][0], Method: ledger.MethodSerial, Who: who, Limit: ledger.NoLimit})
	if !errors.Is(err, ledger.ErrOverLimit) {
		t.Fatalf("1,000 € at a 100 € desk: %v", err)
	}
	cs, err := c1.Claims(ctx, ledger.ClaimFilter{})
	if err != nil || len(cs) != 1 || cs[0].Number != cl.Number {
		t.Fatalf("own claims: %+v %v", cs, err)
	}
	rc, err := c1.Receipt(ctx, cl.Number)
	if err != nil || rc.Claim.Hash != cl.Hash || rc.Head == "" || rc.GameName == "" {
		t.Fatalf("receipt: %+v %v", rc, err)
	}
	day, err := c1.DayReport(ctx, "", time.Now())
	if err != nil || len(day.Payments) != 1 || len(day.Referrals) != 1 || day.Head == "" {
		t.Fatalf("day report: %+v %v", day, err)
	}
	if _, err := c1.Verify(ctx, 0, 0, nil); !errors.Is(err, ledger.ErrCounterOnly) {
		t.Errorf("verify on a counter: %v", err)
	}
	if _, err := c1.Void(ctx, cl.Number, "no", who); !errors.Is(err, ledger.ErrCounterOnly) {
		t.Errorf("void on a counter: %v", err)
	}
	head, err := o.Head(ctx)
	if h2, err2 := c1.Head(ctx); err != nil || err2 != nil || h2 != head {
		t.Errorf("head: %s %v, the office's %s %v", h2, err2, head, err)
	}
}

// A desk disabled at the back office is refused at once, by the server
// that is running; enabled, it asks again.
func TestDisabledDeskRefusedAtOnce(t *testing.T) {
	ctx := context.Background()
	o, serials := office(t)
	s := servertest.Start(t, o, server.Config{})
	c1 := s.Open(t, "C1")
	if err := o.DisableDesk(ctx, "C1", bo); err != nil {
		t.Fatal(err)
	}
	mark, _ := o.Head(ctx)
	_, err := c1.Claim(ctx, ledger.ClaimRequest{Serial: serials.Winners[3][0], Method: ledger.MethodSerial, Who: ledger.Identity{Operator: "ann"}, Limit: ledger.NoLimit})
	if !errors.Is(err, ledger.ErrDeskDisabled) {
		t.Fatalf("a disabled desk's claim: %v", err)
	}
	if h, _ := o.Head(ctx); h != mark {
		t.Errorf("a disabled desk's claim wrote to the journal")
	}
	if err := o.EnableDesk(ctx, "C1", bo); err != nil {
		t.Fatal(err)
	}
	if _, err := c1.Lookup(ctx, serials.Winners[3][0], ledger.Identity{Operator: "ann"}, ledger.NoLimit); err != nil {
		t.Errorf("enabled again: %v", err)
	}
}

// Twenty unknown serials in ten minutes lock the desk out, on a SQLite
// back office and on PostgreSQL: the next lookup and claim are refused as
// locked for 30 minutes, without asking the ledger; every refusal is
// recorded; another desk is not locked; the back office's unlock lets it
// ask again, and the refusals before it no longer count. (What
// TestLockOut once asked of a counter's database login.)
func TestLockOutThroughServer(t *testing.T) {
	pg, tmpl := sharedPG(t)
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			ctx := context.Background()
			o, serials := office(t)
			desk, other := "C1", "C2"
			if engine == "postgres" {
				o, desk, other = pgOffice(t, pg, tmpl), "D1", "D2"
			}
			s := servertest.Start(t, o, server.Config{})
			c1 := s.Open(t, desk)
			who := ledger.Identity{Operator: "mallory"}
			good := serials.Winners[3][0]
			guess := func(i int) string {
				wrong := []byte(good)
				// Another secret part, the check digit made again: a guess.
				wrong[20] = '0' + byte((int(wrong[20]-'0')+1+i%9)%10)
				return fixCheck(t, string(wrong))
			}
			for i := range 20 {
				if _, err := c1.Lookup(ctx, guess(i), who, ledger.NoLimit); !errors.Is(err, ledger.ErrUnknownSerial) {
					t.Fatalf("guess %d: %v", i, err)
				}
			}
			_, err := c1.Lookup(ctx, good, who, ledger.NoLimit)
			var r *ledger.Refusal
			if !errors.As(err, &r) || r.Verdict != ledger.Locked || r.Until.Before(time.Now().Add(29*time.Minute)) || r.Until.After(time.Now().Add(31*time.Minute)) {
				t.Fatalf("the 21st question: %v", err)
			}
			if _, err := c1.Claim(ctx, claimOf(good, "mallory")); !errors.Is(err, ledger.ErrLocked) {
				t.Errorf("a claim when locked: %v", err)
			}
			if _, err := s.Open(t, other).Lookup(ctx, good, ledger.Identity{Operator: "bob"}, ledger.NoLimit); err != nil {
				t.Errorf("another desk is locked too: %v", err)
			}
			as, err := o.Attempts(ctx, time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			guesses := 0
			for _, a := range as {
				if a.Desk == desk && a.Reason == ledger.UnknownSerial {
					guesses++
				}
			}
			if guesses != 20 {
				t.Errorf("%d refused serials recorded, want 20", guesses)
			}
			if err := o.UnlockDesk(ctx, desk, bo); err != nil {
				t.Fatal(err)
			}
			if tk, err := c1.Lookup(ctx, good, who, ledger.NoLimit); err != nil || tk.Verdict != ledger.Payable {
				t.Fatalf("unlocked: %+v %v", tk, err)
			}
			// The refusals before the unlock no longer count: one more does not lock.
			c1.Lookup(ctx, guess(0), who, ledger.NoLimit)
			if _, err := c1.Lookup(ctx, good, who, ledger.NoLimit); err != nil {
				t.Errorf("one refusal after the unlock: %v", err)
			}
		})
	}
}

// fixCheck gives a serial of 31 digits (dashes allowed) its check digit.
func fixCheck(t *testing.T, serial string) string {
	digits := strings.NewReplacer("-", "", " ", "").Replace(serial)
	for d := '0'; d <= '9'; d++ {
		s := digits[:30] + string(d)
		if _, err := game.ParseSerial(s); err == nil {
			return s
		}
	}
	t.Fatalf("no check digit for %s", serial)
	return ""
}

// The restore fence, read in a question's own read (core.Gate.Replaced,
// issue 37): the ledger marked replaced while its server runs (a desk file
// of a later incarnation shown to it: Superseded), the very next claim is
// refused, nothing paid, on a file and on PostgreSQL; and every request
// after it, a question or not.
func TestReplacedRefusesTheNextQuestion(t *testing.T) {
	ctx := context.Background()
	pg, tmpl := sharedPG(t)
	for _, kind := range []struct {
		name string
		open func(t *testing.T) (*ledger.Ledger, string)
	}{
		{"file", func(t *testing.T) (*ledger.Ledger, string) { o, _ := office(t); return o, "C1" }},
		{"PostgreSQL", func(t *testing.T) (*ledger.Ledger, string) { return pgOffice(t, pg, tmpl), "D1" }},
	} {
		t.Run(kind.name, func(t *testing.T) {
			o, desk := kind.open(t)
			s := servertest.Start(t, o, server.Config{})
			c := s.Open(t, desk)
			ws := ledgertest.SerialsOf(t, ledgertest.Block).Winners[50]
			if _, err := c.Claim(ctx, claimOf(ws[0], "ann")); err != nil {
				t.Fatal(err)
			}
			epoch, _, err := o.Epochs(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if err := o.Superseded(ctx, epoch+1); err != nil {
				t.Fatal(err)
			}
			_, err = c.Claim(ctx, claimOf(ws[1], "ann"))
			if !errors.Is(err, ledger.ErrOtherLedger) || !strings.Contains(err.Error(), "replaced") {
				t.Errorf("a claim once the ledger is replaced: %v, want ErrOtherLedger naming the restore", err)
			}
			if tk, err := o.Lookup(ctx, ws[1], bo, ledger.NoLimit); err != nil || tk.Verdict != ledger.Payable {
				t.Errorf("the ticket refused: %v %v, want still payable", tk.Verdict, err)
			}
			if _, err := c.Lookup(ctx, ws[2], ledger.Identity{Operator: "ann"}, ledger.NoLimit); !errors.Is(err, ledger.ErrOtherLedger) {
				t.Errorf("a lookup once the ledger is replaced: %v, want ErrOtherLedger", err)
			}
			if _, err := c.Claims(ctx, ledger.ClaimFilter{}); !errors.Is(err, ledger.ErrOtherLedger) {
				t.Errorf("a list once the ledger is replaced: %v, want ErrOtherLedger", err)
			}
		})
	}
}
