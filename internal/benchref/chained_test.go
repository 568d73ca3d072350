package benchref

import (
	"context"
	"crypto/sha256"
	"fmt"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"vegas-desk/internal/pgtest"
)

// The chained reference pays a ticket once, and appends each payment's
// entry to its journal in the payment's commit, chained: ids one after
// the other, each hash sha256 of the one before it (empty first) and of
// the entry's serial and prize; claims at once included (the chain's row
// orders them), a refusal appending nothing.
func TestChainedStore(t *testing.T) {
	srv, err := pgtest.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	ctx := context.Background()
	var rows []Ticket
	for i := range 40 {
		rows = append(rows, Ticket{fmt.Sprintf("531-001-%07d-00", i), i % 5})
	}
	url := srv.URL(pgtest.Owner, srv.NewDatabase(t))
	if err := CreatePostgres(ctx, url, func(emit func(Ticket) error) error {
		for _, r := range rows {
			if err := emit(r); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	st, err := Open(ctx, Chained+url)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if prize, ok, err := st.Claim(ctx, rows[3].Serial); err != nil || !ok || prize != 3 {
		t.Fatalf("a lone claim: %d %v %v", prize, ok, err)
	}
	var wg sync.WaitGroup
	for _, r := range rows {
		wg.Go(func() {
			prize, ok, err := st.Claim(ctx, r.Serial)
			if err != nil || ok != (r.Serial != rows[3].Serial) || ok && prize != r.Prize {
				t.Errorf("claim of %s at once: %d %v %v", r.Serial, prize, ok, err)
			}
		})
	}
	wg.Wait()
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	got, err := pool.Query(ctx, "SELECT id, serial, prize, hash FROM journal ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	defer got.Close()
	prev, n := []byte{}, int64(0)
	for got.Next() {
		var id int64
		var serial string
		var prize int
		var hash []byte
		if err := got.Scan(&id, &serial, &prize, &hash); err != nil {
			t.Fatal(err)
		}
		n++
		want := sha256.Sum256(append(append([]byte{}, prev...), fmt.Sprintf("%s %d", serial, prize)...))
		if id != n || string(hash) != string(want[:]) {
			t.Fatalf("entry %d (%s): id %d, hash %x; want id %d, hash %x", n, serial, id, hash, n, want)
		}
		prev = hash
	}
	if n != int64(len(rows)) {
		t.Errorf("%d entries in the journal, %d tickets paid", n, len(rows))
	}
}
