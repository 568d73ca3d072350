package core

import (
	"context"
	"errors"
	"testing"
)

// unreachable is a storage whose every read is unreachable; it counts
// them.
type unreachable struct{ reads int }

func (s *unreachable) Read(context.Context, *Question) (*Snapshot, Held, error) {
	s.reads++
	return nil, nil, ErrUnreachable
}
func (s *unreachable) Write(context.Context, *Question, Held, *Snapshot, *Outcome) error {
	return nil
}
func (s *unreachable) Durable(context.Context) error { return nil }
func (s *unreachable) Failed() error                 { return nil }

// The retry policy runs once, on the client of a validation server (issue
// 37; package remote's Claim, TestRetryOfALostAnswer counts its attempts):
// a ledger the process reads itself — PostgreSQL in serve, shared though
// it is — answers a claim once, unreachable when it cannot, and its
// counter asks again. Before, serve's PostgreSQL ledger asked again inside
// the server (whose 10 s left its 15 s attempts no second one). The
// question is asked as package ledger's Ledger asks it (Asker, moved here
// from package ledger): whatever the ledger's kind, Ask on its storage,
// once.
func TestRetryOnTheClientOnly(t *testing.T) {
	s := "531-0001-0000048-8365-1265-9063-1386-8"
	for name, own := range map[string]string{
		"PostgreSQL, as serve reads it": "",
		"a counter's ledger (its desk)": "C1",
	} {
		st := &unreachable{}
		a := &Asker{Questions: Local{Storage: st}, Desk: own}
		_, err := a.Claim(context.Background(), ClaimRequest{Serial: s, Method: "serial", Who: Identity{Desk: "C1", Operator: "ann"}, Request: "r1", Limit: NoLimit})
		if !errors.Is(err, ErrUnreachable) || st.reads != 1 {
			t.Errorf("%s: asked %d times (%v), want once", name, st.reads, err)
		}
	}
}
