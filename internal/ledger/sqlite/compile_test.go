package sqlite_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"modernc.org/sqlite"

	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/ledgertest"
)

// compiles counts the statements SQLite compiles (prepares, or prepares
// again) on the connections of the files whose DSN holds a key: its
// authorizer is asked once for each statement compiled (SELECT, INSERT,
// UPDATE, DELETE, BEGIN, COMMIT, ROLLBACK).
var compiles = struct {
	sync.Mutex
	once  sync.Once
	files map[string]int // by key
}{files: map[string]int{}}

// countCompiles counts the statements compiled on path's connections
// opened from now on; the count is read with compiled(path).
func countCompiles(t *testing.T, path string) {
	compiles.once.Do(func() {
		sqlite.RegisterConnectionHook(func(c sqlite.ExecQuerierContext, dsn string) error {
			compiles.Lock()
			defer compiles.Unlock()
			for key := range compiles.files {
				if strings.Contains(dsn, key) {
					a, ok := c.(sqlite.AuthorizerRegisterer)
					if !ok {
						return fmt.Errorf("the driver's connection %T registers no authorizer", c)
					}
					return a.RegisterAuthorizer(func(action sqlite.AuthorizerActionCode, _, _, _, _ string) sqlite.AuthorizerReturnCode {
						switch action {
						case sqlite.AuthSelect, sqlite.AuthInsert, sqlite.AuthUpdate, sqlite.AuthDelete, sqlite.AuthTransaction:
							compiles.Lock()
							compiles.files[key]++
							compiles.Unlock()
						}
						return sqlite.AuthorizerOK
					})
				}
			}
			return nil
		})
	})
	compiles.Lock()
	compiles.files[path] = 0
	compiles.Unlock()
	t.Cleanup(func() {
		compiles.Lock()
		delete(compiles.files, path)
		compiles.Unlock()
	})
}

func compiled(path string) int {
	compiles.Lock()
	defer compiles.Unlock()
	return compiles.files[path]
}

// A claim on a file, once its statements are prepared, compiles none
// (issue 38): SQLite planned the journal's next number again at every
// claim when the kind was bound (its plan compares a bound kind with the
// partial index's kind = 'claim'), 7 % of serve's processor time, and the
// driver compiled each transaction's BEGIN and COMMIT again. Claims
// that pay and claims refused (a ticket paid twice, a loser), each with
// its request id, as the validation server asks them.
func TestClaimCompilesNothing(t *testing.T) {
	ctx := context.Background()
	path := ledgertest.Copy(t, ledgertest.Demo)
	countCompiles(t, path)
	l, err := ledger.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	l.LockOutGuesses()
	serials := ledgertest.SerialsOf(t, ledgertest.Demo)
	who := ledger.Identity{Desk: "D1", Operator: "op"}
	n := 0
	round := func(i int) {
		t.Helper()
		n++
		win := serials.Winners[3][i]
		if _, err := l.Claim(ctx, ledger.ClaimRequest{Serial: win, Method: ledger.MethodSerial, Who: who, Request: fmt.Sprintf("r%d", n), Limit: ledger.NoLimit}); err != nil {
			t.Fatalf("claim %s: %v", win, err)
		}
		var r *ledger.Refusal
		if _, err := l.Claim(ctx, ledger.ClaimRequest{Serial: win, Method: ledger.MethodSerial, Who: who, Request: fmt.Sprintf("again%d", n), Limit: ledger.NoLimit}); !errors.As(err, &r) {
			t.Fatalf("claim %s again: %v, want a refusal", win, err)
		}
		if _, err := l.Claim(ctx, ledger.ClaimRequest{Serial: serials.Losers[i], Method: ledger.MethodSerial, Who: who, Request: fmt.Sprintf("lose%d", n), Limit: ledger.NoLimit}); !errors.As(err, &r) {
			t.Fatalf("claim loser %s: %v, want a refusal", serials.Losers[i], err)
		}
	}
	for i := range 3 { // the statements prepared
		round(i)
	}
	before := compiled(path)
	if before == 0 {
		t.Fatal("no statement compiled counted: the authorizer counts nothing")
	}
	for i := 3; i < 13; i++ {
		round(i)
	}
	if c := compiled(path) - before; c != 0 {
		t.Errorf("10 rounds of a claim and two refused compiled %d statements once prepared; want none", c)
	}
}
