package ledger

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"vegas-desk/internal/pgtest"
)

// Twenty claims of one ticket at once, from two processes' worth of back
// office (two Ledgers, two pools) on one database, each decided in Go:
// one payment; the others already-claimed, or, asked again with the
// request id that paid, that payment. Each payment's answer is its
// journal entry, chained (its hash is the journal's), and the journal
// verifies with nothing left waiting.
func TestGoClaimsRaceAcrossLedgers(t *testing.T) {
	ctx := context.Background()
	bo, db := pgWithDesks(t)
	other := mustOpen(t, pg.URL(pgtest.Owner, db))
	b := mustBlock(t, bo)
	for round, pos := range ticketsWith(t, bo, b, 50, 6) {
		serial := serialOf(b, pos)
		var mu sync.Mutex
		numbers := map[int64]Claim{}
		refused := 0
		var wg sync.WaitGroup
		for i := range 20 {
			l := []*Ledger{bo, other}[i%2]
			wg.Go(func() {
				req := claimReq(serial, Identity{Desk: fmt.Sprint("D", i%2+1), Operator: fmt.Sprint("op", i)})
				req.Request = fmt.Sprintf("race-%d-%d", round, i%4) // some share an id
				c, err := l.Claim(ctx, req)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					numbers[c.Number] = c
				case errors.Is(err, ErrAlreadyClaimed):
					refused++
				default:
					t.Errorf("round %d claim %d: %v", round, i, err)
				}
			})
		}
		wg.Wait()
		if len(numbers) != 1 {
			t.Fatalf("round %d: payments %v, want one", round, numbers)
		}
		var paid Claim
		for _, c := range numbers {
			paid = c
		}
		var n int
		var hash []byte
		if err := get(ctx, rdb(bo), &n, "SELECT count(*) FROM journal WHERE kind = 'claim' AND serial = ?", serial); err != nil || n != 1 {
			t.Fatalf("round %d: %d claim entries (%v), want 1", round, n, err)
		}
		if err := get(ctx, rdb(bo), &hash, "SELECT hash FROM journal WHERE id = ?", paid.Entry); err != nil || fmt.Sprintf("%x", hash) != paid.Hash {
			t.Errorf("round %d: the answer's entry %d hash %s, the journal's %x (%v)", round, paid.Entry, paid.Hash, hash, err)
		}
		if refused == 0 {
			t.Errorf("round %d: nobody was refused", round)
		}
	}
	if rep, err := journalOnly(bo); err != nil || !rep.OK() || rep.Waiting != 0 {
		t.Errorf("verify: %v %v, %d waiting", rep.Problems, err, rep.Waiting)
	}
}
