package ledger

import (
	"context"
	"errors"
	"testing"

	"vegas-desk/internal/ledger/core"
)

// unreachable is a storage whose every read is unreachable; it counts
// them.
type unreachable struct{ reads int }

func (s *unreachable) Read(context.Context, *core.Question) (*core.Snapshot, core.Held, error) {
	s.reads++
	return nil, nil, core.ErrUnreachable
}
func (s *unreachable) Write(context.Context, *core.Question, core.Held, *core.Snapshot, *core.Outcome) error {
	return nil
}
func (s *unreachable) Durable(context.Context) error { return nil }
func (s *unreachable) Failed() error                 { return nil }

// The retry policy runs once, on the client of a validation server (issue
// 37; package remote's Claim, TestRetryOfALostAnswer counts its attempts):
// a ledger the process reads itself — PostgreSQL in serve, shared though
// it is — answers a claim once, unreachable when it cannot, and its
// counter asks again. Before, serve's PostgreSQL ledger asked again inside
// the server (whose 10 s left its 15 s attempts no second one).
func TestRetryOnTheClientOnly(t *testing.T) {
	s := "531-0001-0000048-8365-1265-9063-1386-8"
	for name, info := range map[string]core.Info{
		"PostgreSQL, as serve reads it": {Kind: "back-office", Shared: true},
		"a file":                        {Kind: "back-office"},
	} {
		st := &unreachable{}
		l := &Ledger{Asker: core.Asker{Questions: core.Local{Storage: st}}, info: info}
		_, err := l.Claim(context.Background(), ClaimRequest{Serial: s, Method: "serial", Who: Identity{Desk: "C1", Operator: "ann"}, Request: "r1", Limit: NoLimit})
		if !errors.Is(err, ErrUnreachable) || st.reads != 1 {
			t.Errorf("%s: asked %d times (%v), want once", name, st.reads, err)
		}
	}
}
