package backoffice_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/ledger/ledgertest"
)

// What the counters' logins' request-id tests asked of PL/pgSQL
// (TestRequestIdsOneAtATime, TestRequestLostRaceLeavesIdFree), asked of
// the Go rule a validation server runs, on both engines.

// Two claims of one desk's request id at once: for the same ticket (a
// retry) both answer its one payment; for two tickets one is paid and the
// other refused as a reused id. Never two payments of one id.
func TestRequestIdsOneAtATime(t *testing.T) {
	forOffices(t, func(t *testing.T, e engine) {
		ctx := context.Background()
		l := openOffice(t, e, ledgertest.Block)
		b := mustBlock(t, l)
		ws := ticketsWith(t, l, b, 50, 24)
		who := core.Identity{Desk: "D1", Operator: "ann"}
		for i := 0; i+1 < len(ws); i += 2 {
			second := ws[i+1]
			retry := i%4 == 0
			if retry {
				second = ws[i]
			}
			var got [2]core.Claim
			var errs [2]error
			var wg sync.WaitGroup
			for k, pos := range []int{ws[i], second} {
				wg.Go(func() {
					req := claimReq(serialOf(b, pos), who)
					req.Request = fmt.Sprint("race-", i)
					got[k], errs[k] = l.Claim(ctx, req)
				})
			}
			wg.Wait()
			switch {
			case retry:
				if errs[0] != nil || errs[1] != nil || got[0].Number != got[1].Number {
					t.Errorf("round %d, a retry: %+v %v / %+v %v; want one payment twice", i, got[0], errs[0], got[1], errs[1])
				}
			default:
				paid, reused := 0, 0
				for k := range 2 {
					switch {
					case errs[k] == nil:
						paid++
					case errors.Is(errs[k], core.ErrRequestReused):
						reused++
					default:
						t.Errorf("round %d: %v", i, errs[k])
					}
				}
				if paid != 1 || reused != 1 {
					t.Errorf("round %d, two tickets: %d paid, %d refused as reused: %v", i, paid, reused, errs)
				}
			}
		}
		var n int
		if err := core.Get(ctx, l.pool(), &n, "SELECT count(*) FROM journal WHERE kind = 'claim'"); err != nil || n != len(ws)/2 {
			t.Errorf("%d payments, %v; want %d, one a request id", n, err, len(ws)/2)
		}
		if vr, err := journalOnly(l); err != nil || !vr.OK() {
			t.Errorf("verify: %v, %v", vr.Problems, err)
		}
	})
}

// A claim that loses its ticket to another desk's payment leaves its
// request id free: once that payment is voided, the same id pays.
func TestRequestLostRaceLeavesIdFree(t *testing.T) {
	forOffices(t, func(t *testing.T, e engine) {
		ctx := context.Background()
		l := openOffice(t, e, ledgertest.Block)
		b := mustBlock(t, l)
		serial := serialOf(b, ticketsWith(t, l, b, 9, 1)[0])
		first, err := l.Claim(ctx, claimReq(serial, core.Identity{Desk: "D2", Operator: "bob"}))
		if err != nil {
			t.Fatal(err)
		}
		req := claimReq(serial, core.Identity{Desk: "D1", Operator: "ann"})
		req.Request = "lost-race"
		if _, err := l.Claim(ctx, req); !errors.Is(err, core.ErrAlreadyClaimed) {
			t.Fatalf("the ticket paid at D2: %v, want ErrAlreadyClaimed", err)
		}
		if _, err := l.Void(ctx, first.Number, "paid at the wrong desk", core.Identity{Desk: "BO", Operator: "eve"}); err != nil {
			t.Fatal(err)
		}
		if c, err := l.Claim(ctx, req); err != nil || c.Desk != "D1" {
			t.Errorf("the same id once the payment was voided: %+v %v, want paid at D1", c, err)
		}
	})
}
