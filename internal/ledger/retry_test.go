package ledger

import (
	"context"
	"errors"
	"testing"
	"time"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/ledger/protocol"
)

// countingBackend answers every claim unreachable, and counts them.
type countingBackend struct {
	core.Backend
	info   core.Info
	claims int
}

func (b *countingBackend) Info() core.Info { return b.info }
func (b *countingBackend) Claim(ctx context.Context, s game.Serial, req core.ClaimRequest, at time.Time) (core.Claim, error) {
	b.claims++
	return core.Claim{}, core.ErrUnreachable
}

// The retry policy runs once, on the client of a validation server (issue
// 37): a ledger the process reads itself — PostgreSQL in serve, shared
// though it is — answers a claim once, unreachable when it cannot, and
// its counter asks again; a counter on a server asks protocol.Retry's
// attempts. Before, serve's PostgreSQL ledger asked again inside the
// server (whose 10 s left its 15 s attempts no second one).
func TestRetryOnTheClientOnly(t *testing.T) {
	policy := protocol.Retry
	protocol.Retry.Pause = time.Millisecond
	t.Cleanup(func() { protocol.Retry = policy })
	s := "531-0001-0000048-8365-1265-9063-1386-8"
	for _, tc := range []struct {
		name string
		info core.Info
		want int
	}{
		{"PostgreSQL, as serve reads it", core.Info{Kind: "back-office", Shared: true}, 1},
		{"a file", core.Info{Kind: "back-office"}, 1},
		{"a counter on a validation server", core.Info{Kind: "back-office", Shared: true, Served: true, Desk: "C1"}, policy.Attempts},
	} {
		b := &countingBackend{info: tc.info}
		l := &Ledger{b: b, info: b.Info()}
		_, err := l.Claim(context.Background(), ClaimRequest{Serial: s, Method: "serial", Who: Identity{Desk: "C1", Operator: "ann"}, Request: "r1", Limit: NoLimit})
		if !errors.Is(err, ErrUnreachable) || b.claims != tc.want {
			t.Errorf("%s: asked %d times (%v), want %d", tc.name, b.claims, err, tc.want)
		}
	}
}
