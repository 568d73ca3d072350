package ledger

import (
	"context"
	"errors"
	"slices"
	"testing"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/core"
)

// fakeSheets records what PrintPacks did with the sheets; atKeep runs in
// Keep, to see the ledger as it is then.
type fakeSheets struct {
	kept, dropped bool
	atKeep        func()
}

func (s *fakeSheets) Keep() error {
	s.kept = true
	if s.atKeep != nil {
		s.atKeep()
	}
	return nil
}

func (s *fakeSheets) Drop() { s.dropped = true }

// packState is the state of pack p of block 531/1 of l, "stock" for none.
func packState(tb testing.TB, l *Ledger, p int) string {
	tb.Helper()
	runs, err := l.Packs(context.Background(), PackFilter{Game: 531, Block: 1})
	if err != nil {
		tb.Fatal(err)
	}
	for _, r := range runs {
		if r.First <= p && p <= r.Last {
			return r.State
		}
	}
	return "stock"
}

// Printing a real ledger's packs (issue 15): only packs in stock, written
// with their serials covered, destroyed in one journal entry before the
// sheets are kept; a pack moved meanwhile, a failed write, packs that are
// not one run, or a read-only ledger leave every pack as it was and keep
// no sheet. Before, print drew any pack, serials and barcodes in view, and
// left it payable.
func TestPrintPacks(t *testing.T) {
	forEngines(t, func(t *testing.T, e engineCase) {
		ctx := context.Background()
		loc := e.stock(t)
		l := mustOpen(t, loc)
		eve := Identity{Desk: "BO", Operator: "eve"}
		if _, err := l.AddDesk(ctx, "D1", 100, eve); err != nil {
			t.Fatal(err)
		}
		if err := l.MovePacks(ctx, PackMove{Game: 531, Block: 1, First: 3, Last: 3, Move: "deliver", Desk: "D1"}, eve); err != nil {
			t.Fatal(err)
		}
		packs := func(first, last int) []game.PackRange {
			return []game.PackRange{{Game: 531, Block: 1, First: first, Last: last}}
		}
		// try prints rs with write, and checks that when refused (want
		// not nil) the journal has no entry but those of others (moved
		// while the sheets were written).
		try := func(t *testing.T, rs []game.PackRange, want error, write func(cover bool) (Sheets, error), others ...string) {
			t.Helper()
			last := lastEntry(t, l)
			err := l.PrintPacks(ctx, rs, eve, write)
			if want == nil && err != nil || want != nil && !errors.Is(err, want) {
				t.Fatalf("err = %v, want %v", err, want)
			}
			if kinds := journalKinds(t, l, last); want != nil && !slices.Equal(kinds, others) {
				t.Errorf("refused, and the journal has %v", kinds)
			}
		}
		notCalled := func(t *testing.T) func(bool) (Sheets, error) {
			return func(bool) (Sheets, error) { t.Error("write called"); return &fakeSheets{}, nil }
		}

		t.Run("a pack delivered", func(t *testing.T) {
			try(t, packs(2, 4), ErrPackMove, notCalled(t))
			if got := packState(t, l, 3); got != "delivered" {
				t.Errorf("pack 3 is %s", got)
			}
		})
		t.Run("packs that are not one run", func(t *testing.T) {
			try(t, append(packs(10, 11), packs(13, 13)...), ErrPackMove, notCalled(t))
		})
		t.Run("the write fails", func(t *testing.T) {
			bad := errors.New("disk full")
			try(t, packs(10, 11), bad, func(bool) (Sheets, error) { return nil, bad })
			if got := packState(t, l, 10); got != "stock" {
				t.Errorf("pack 10 is %s", got)
			}
		})
		t.Run("a pack delivered while the sheets are written", func(t *testing.T) {
			s := &fakeSheets{}
			try(t, packs(12, 12), ErrPackMove, func(bool) (Sheets, error) {
				err := l.MovePacks(ctx, PackMove{Game: 531, Block: 1, First: 12, Last: 12, Move: "deliver", Desk: "D1"}, eve)
				return s, err
			}, "packs")
			if s.kept || !s.dropped {
				t.Errorf("sheets kept %v, dropped %v; want dropped", s.kept, s.dropped)
			}
			if got := packState(t, l, 12); got != "delivered" {
				t.Errorf("pack 12 is %s, want delivered (not destroyed at the counter's)", got)
			}
		})
		t.Run("packs in stock", func(t *testing.T) {
			last := lastEntry(t, l)
			s := &fakeSheets{}
			covered := false
			s.atKeep = func() { // the packs are out of play before the sheets are kept
				if got := packState(t, l, 21); got != "destroyed" {
					t.Errorf("sheets kept with pack 21 %s", got)
				}
			}
			try(t, append(packs(20, 20), packs(21, 21)...), nil, func(cover bool) (Sheets, error) { covered = cover; return s, nil })
			if !covered || !s.kept || s.dropped {
				t.Errorf("cover %v, kept %v, dropped %v; want covered and kept", covered, s.kept, s.dropped)
			}
			if kinds := journalKinds(t, l, last); !slices.Equal(kinds, []string{"packs/" + PrintedReason}) {
				t.Errorf("journal: %v", kinds)
			}
			es, err := l.PackEntries(ctx, PackEntryFilter{})
			if err != nil {
				t.Fatal(err)
			}
			if e := es[len(es)-1]; e.Move != "destroyed" || e.State != "destroyed" || e.First != 20 || e.Last != 21 || e.Operator != "eve" || e.Reason != PrintedReason {
				t.Errorf("the entry: %+v", e)
			}
			// No printed ticket is payable: the winners of the packs
			// looked up and claimed.
			winners := 0
			for pos := 20 * game.PackSize; pos < 22*game.PackSize && winners < 5; pos++ {
				tk, err := l.TicketAt(ctx, 531, 1, pos)
				if err != nil {
					t.Fatal(err)
				}
				if tk.Prize == 0 {
					continue
				}
				winners++
				serial := tk.Serial.String()
				tk, err = l.Lookup(ctx, serial, Identity{Desk: "D1"}, NoLimit)
				if err != nil || tk.PackState != "destroyed" || tk.Verdict != NotActivated {
					t.Errorf("lookup %s: pack %s, verdict %s, %v", serial, tk.PackState, tk.Verdict, err)
				}
				if _, err := l.Claim(ctx, claimReq(serial, Identity{Desk: "D1", Operator: "ann"})); !errors.Is(err, core.ErrNotActivated) {
					t.Errorf("claim %s: %v, want refused", serial, err)
				}
			}
			if winners == 0 {
				t.Fatal("no winner in packs 20-21")
			}
			try(t, packs(20, 20), ErrPackMove, notCalled(t)) // printed once
		})
		t.Run("a read-only ledger", func(t *testing.T) {
			ro, err := OpenReadOnly(loc)
			if err != nil {
				t.Fatal(err)
			}
			defer ro.Close()
			if err := ro.PrintPacks(ctx, packs(30, 30), eve, notCalled(t)); !errors.Is(err, ErrReadOnly) {
				t.Errorf("err = %v, want ErrReadOnly", err)
			}
		})
		t.Run("a demonstration ledger", func(t *testing.T) {
			demo := mustOpen(t, e.copyOf(t, "demo"))
			last := lastEntry(t, demo)
			s, covered := &fakeSheets{}, true
			err := demo.PrintPacks(ctx, packs(0, 0), eve, func(cover bool) (Sheets, error) { covered = cover; return s, nil })
			if err != nil || covered || !s.kept {
				t.Errorf("err %v, cover %v, kept %v; want in view and kept", err, covered, s.kept)
			}
			if kinds := journalKinds(t, demo, last); len(kinds) > 0 || packState(t, demo, 0) != "on-sale" {
				t.Errorf("journal %v, pack 0 %s; want nothing moved", kinds, packState(t, demo, 0))
			}
		})
	})
}
