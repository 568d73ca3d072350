package ledger

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"vegas-desk/internal/game"
)

// fuzzFixture opens a copy of the fixture for one fuzz target, closed when
// the target ends.
func fuzzFixture(f *testing.F) *Ledger {
	l, err := Open(copyFixture(f))
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { l.Close() })
	return l
}

// FuzzLookup: any typed serial gets a ticket or a clear error, never a panic.
func FuzzLookup(f *testing.F) {
	l := fuzzFixture(f)
	b, _ := l.Block(context.Background(), 531, 1)
	for _, s := range []string{serialOf(b, 0), serialOf(b, 1_999_999), "531-0001-0000000-0000-0000-0000-0000-0", "", "531 0001", "999-9999-9999999-9999-9999-9999-9999-9", "٣٣"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tk, err := l.Lookup(context.Background(), s, Identity{Desk: "fuzz", Operator: "fuzz"}, NoLimit)
		if err == nil {
			if tk.Serial.String() == "" || game.Prize(&tk.Ticket) != tk.Prize {
				t.Fatalf("%q: %+v", s, tk)
			}
			return
		}
		for _, known := range []error{game.ErrCheckDigit, game.ErrSerialFormat, ErrUnknownSerial} {
			if errors.Is(err, known) {
				return
			}
		}
		t.Fatalf("%q: unexpected error %v", s, err)
	})
}

// FuzzCheck: any typed-in contents go through ParseDoc, Check and
// FindByContents without a panic, with a clear error.
func FuzzCheck(f *testing.F) {
	l := fuzzFixture(f)
	b, _ := l.Block(context.Background(), 531, 1)
	for _, pos := range []int{0, 1, 2, 3} {
		tk, _ := l.Lookup(context.Background(), serialOf(b, pos), Identity{}, NoLimit)
		d := game.NewDoc(&tk.Ticket)
		data, _ := jsonMarshal(d)
		f.Add(data)
	}
	f.Add([]byte(`{"roulette":{}}`))
	f.Add([]byte(`not json`))
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := game.ParseDoc(data)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		v := game.Check(&in.Ticket, in.Prize)
		tk, err := l.FindByContents(context.Background(), &in.Ticket, Identity{Desk: "fuzz", Operator: "fuzz"}, NoLimit)
		switch {
		case err == nil:
			if tk.Prize != v.Prize {
				t.Fatalf("found prize %d, check says %d", tk.Prize, v.Prize)
			}
		case errors.Is(err, ErrNotWinner):
			if v.Prize != 0 {
				t.Fatalf("not a winner, check says %d", v.Prize)
			}
		case errors.Is(err, ErrUnknownContents):
		default:
			t.Fatalf("unexpected error %v", err)
		}
	})
}

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }
