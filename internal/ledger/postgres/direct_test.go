package postgres_test

import (
	"context"
	"encoding/hex"
	"sync"
	"testing"
	"time"

	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/ledger/ledgertest"
	"vegas-desk/internal/ledger/postgres"
)

// A question chains its entry directly after the journal's end its
// process knows (direct.go); another process's chain (a second server's
// question, a back office's write) moves that end under it. Claims
// through two servers on one database, alone by turns and then at once,
// with back office's writes between: every chain that moved an end makes
// the other's next direct statement refuse to chain after the end it
// names (the question is then written as before), every claim is paid
// once with the entry, number and hash the journal holds, and the chain
// is whole (verify), nothing left waiting.
func TestDirectChain(t *testing.T) {
	ctx := context.Background()
	url := database(t)
	servers := []*postgres.Backend{open(t, url), open(t, url)}
	serials := ledgertest.SerialsOf(t, ledgertest.Block)
	var wins []string
	for _, prize := range []int{6, 10, 20, 50, 100} {
		wins = append(wins, serials.Winners[prize]...)
	}
	if len(wins) < 40 {
		t.Fatalf("%d winners in the fixture", len(wins))
	}
	check := func(c core.Claim) {
		t.Helper()
		var row struct {
			Number int64  `db:"number"`
			Hash   []byte `db:"hash"`
			Serial string `db:"serial"`
		}
		if err := servers[0].DB().GetContext(ctx, &row, "SELECT number, hash, serial FROM vegas.journal WHERE id = $1 AND kind = 'claim'", c.Entry); err != nil {
			t.Errorf("claim %+v: its entry: %v", c, err)
			return
		}
		if row.Number != c.Number || hex.EncodeToString(row.Hash) != c.Hash || row.Serial != c.Serial {
			t.Errorf("claim answered entry %d number %d hash %s serial %s; the journal holds number %d hash %x serial %s",
				c.Entry, c.Number, c.Hash, c.Serial, row.Number, row.Hash, row.Serial)
		}
	}
	next := 0
	claim := func(b *postgres.Backend) {
		t.Helper()
		w := wins[next]
		next++
		c, err := b.Claim(ctx, serial(t, w), claimOf(bo, ""), time.Time{})
		if err != nil {
			t.Errorf("claim of %s: %v", w, err)
			return
		}
		check(c)
	}
	// Alone, by turns: each server's claim after the other's finds the
	// end it knows moved.
	for i := range 8 {
		claim(servers[i%2])
	}
	// A back office's write (its entry appended in Go, not by a
	// question) between two claims of the same server.
	for i := range 3 {
		if _, err := servers[0].AddDesk(ctx, "D"+string(rune('1'+i)), 100, bo); err != nil {
			t.Fatal(err)
		}
		claim(servers[0])
		claim(servers[0])
	}
	// At once, on both.
	var mu sync.Mutex
	var wg sync.WaitGroup
	for g := range 6 {
		w := wins[next : next+4]
		next += 4
		wg.Go(func() {
			for _, s := range w {
				c, err := servers[g%2].Claim(ctx, serial(t, s), claimOf(bo, ""), time.Time{})
				mu.Lock()
				if err != nil {
					t.Errorf("claim of %s at once: %v", s, err)
				} else {
					check(c)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	var directs, moved int64
	for _, b := range servers {
		d, m := b.Directs()
		directs, moved = directs+d, moved+m
	}
	// By turns, the first claim chains directly (the end read at Open),
	// each of the 7 after it finds the end moved by the other server;
	// after each back office's write, a claim finds it moved and the
	// next chains directly.
	if directs < 1+3 || moved < 7+3 {
		t.Errorf("%d of %d claims chained directly, %d direct statements found the end moved; want 4 and 10 at least", directs, next, moved)
	}
	if rep, err := servers[0].VerifyJournal(ctx); err != nil || len(rep.Problems) > 0 || rep.Waiting > 0 {
		t.Errorf("verify the journal: %v %+v", err, rep)
	}
	var paid, claims int
	if err := servers[0].DB().GetContext(ctx, &paid, "SELECT count(*) FROM vegas.paid"); err != nil {
		t.Fatal(err)
	}
	if err := servers[0].DB().GetContext(ctx, &claims, "SELECT count(*) FROM vegas.journal WHERE kind = 'claim'"); err != nil {
		t.Fatal(err)
	}
	if paid != next || claims != next {
		t.Errorf("%d claims answered paid; %d paid rows, %d claims in the journal", next, paid, claims)
	}
}
