package ledger

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"vegas-desk/internal/game"
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

// The counters' PL/pgSQL chainer and the back office's Go sequencer, at
// once on one database: counters claim through their logins while two
// back offices claim other tickets and look up unknown serials (refusals
// recorded), each answer once chained. The journal, chained by both in
// turns, verifies (the canonical text is one), nothing waits, and every
// answer's hash is its entry's.
func TestGoAndPLpgSQLChainersShareTheJournal(t *testing.T) {
	ctx := context.Background()
	bo, db := pgWithDesks(t)
	other := mustOpen(t, pg.URL(pgtest.Owner, db))
	b := mustBlock(t, bo)
	winners := ticketsWith(t, bo, b, 50, 64)
	askers := []*Ledger{bo, other, counterLogin(t, db, "D1"), counterLogin(t, db, "D2")}
	var mu sync.Mutex
	answers := map[int64]string{}
	var wg sync.WaitGroup
	for i, l := range askers {
		wg.Go(func() {
			for k := i; k < len(winners); k += len(askers) {
				who := Identity{Desk: fmt.Sprint("D", k%2+1), Operator: "op"}
				if l.CounterDesk() != "" {
					who.Desk = "" // its login's
				}
				c, err := l.Claim(ctx, claimReq(serialOf(b, winners[k]), who))
				if err != nil {
					t.Errorf("asker %d claim %d: %v", i, k, err)
					return
				}
				if k%2 == 0 {
					lookupWrong(t, l, b, k)
				}
				mu.Lock()
				answers[c.Entry] = c.Hash
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(answers) != len(winners) {
		t.Fatalf("%d payments for %d tickets", len(answers), len(winners))
	}
	for id, h := range answers {
		var hash []byte
		if err := get(ctx, rdb(bo), &hash, "SELECT hash FROM journal WHERE id = ? AND kind = 'claim'", id); err != nil || fmt.Sprintf("%x", hash) != h {
			t.Errorf("entry %d: answered %s, the journal holds %x (%v)", id, h, hash, err)
		}
	}
	if rep, err := journalOnly(bo); err != nil || !rep.OK() || rep.Waiting != 0 {
		t.Errorf("verify: %v %v, %d waiting", rep.Problems, err, rep.Waiting)
	}
}

// lookupWrong looks up ticket pos of b with a wrong secret part: a wrong
// guess, recorded (a counter's counts towards its lock-out; the back
// office asks as its own desk).
func lookupWrong(t *testing.T, l *Ledger, b Block, pos int) {
	wrong := game.Serial{Game: b.Game, Block: b.Number, Position: pos, Secret: (b.Key.Secret(pos) + 1) % 1e16}
	asker := Identity{Desk: "BO", Operator: "op"}
	if l.CounterDesk() != "" {
		asker.Desk = ""
	}
	if _, err := l.Lookup(context.Background(), wrong.String(), asker, NoLimit); !errors.Is(err, ErrUnknownSerial) {
		t.Errorf("lookup of %s: %v, want unknown serial", wrong, err)
	}
}
