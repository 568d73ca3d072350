package ledgertest

import (
	"context"
	"errors"
	"testing"
	"time"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/core"
)

// GateLedger is a back office's ledger as Gate asks it.
type GateLedger interface {
	Questions() core.Questions
	AcceptDeskCert(ctx context.Context, desk, serial string, notAfter time.Time, keepOthers bool, who core.Identity) ([]string, error)
	RevokeDeskCert(ctx context.Context, desk, serial string, who core.Identity) error
	DisableDesk(ctx context.Context, id string, who core.Identity) error
	EnableDesk(ctx context.Context, id string, who core.Identity) error
	Attempts(ctx context.Context, since time.Time) ([]core.Attempt, error)
}

// Gate runs the desk's gate's cases against b, a back office's ledger of
// the Block fixture (serials) that lists desk G1 and locks desks out: a
// question that came with a certificate (core.Identity.Cert, as the
// validation server asks) is refused by the ledger's own read, without the
// server's gate, when its desk is unknown, disabled, or no longer accepts
// the certificate, in that order; it records nothing (a claim of a winner
// pays nothing, a wrong serial or contents counts no guess). A question
// that came with no certificate (the back office's own) has no gate.
func Gate(t *testing.T, b GateLedger, serials Serials) {
	t.Helper()
	q := b.Questions()
	ctx := context.Background()
	bo := core.Identity{Desk: "bureau", Operator: "boss"}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	parse := func(s string) game.Serial {
		g, err := game.ParseSerial(s)
		must(err)
		return g
	}
	winner := parse(serials.Winners[50][0])
	wrong := parse(serials.Losers[0])
	wrong.Secret = (wrong.Secret + 1) % game.SecretModulus
	_, err := b.AcceptDeskCert(ctx, "G1", "0a", time.Now().Add(time.Hour), true, bo)
	must(err)
	attempts, err := b.Attempts(ctx, time.Time{})
	must(err)
	// refused asks every question as who and wants each refused with want.
	refused := func(what string, who core.Identity, want error) {
		t.Helper()
		if _, err := q.Lookup(ctx, wrong, who, core.NoLimit, time.Time{}); !errors.Is(err, want) {
			t.Errorf("%s: a lookup answered %v, want %v", what, err, want)
		}
		req := core.ClaimRequest{Method: "serial", Who: who, Request: what, Limit: core.NoLimit}
		if c, err := q.Claim(ctx, winner, req, time.Time{}); !errors.Is(err, want) {
			t.Errorf("%s: a claim of a winner answered %+v, %v, want %v", what, c, err, want)
		}
		if _, err := q.Find(ctx, make([]byte, game.EncodedSize), who, core.NoLimit, time.Time{}); !errors.Is(err, want) {
			t.Errorf("%s: a search answered %v, want %v", what, err, want)
		}
	}
	g1 := core.Identity{Desk: "G1", Operator: "ann", Cert: "0a"}
	refused("an unknown desk", core.Identity{Desk: "G9", Operator: "ann", Cert: "0a"}, core.ErrDeskUnknown)
	refused("a certificate G1 never accepted", core.Identity{Desk: "G1", Operator: "ann", Cert: "0b"}, core.ErrDeskRevoked)
	must(b.DisableDesk(ctx, "G1", bo))
	refused("a disabled desk", g1, core.ErrDeskDisabled)
	refused("a disabled desk, its certificate not accepted", core.Identity{Desk: "G1", Operator: "ann", Cert: "0b"}, core.ErrDeskDisabled)
	if _, err := q.Lookup(ctx, winner, core.Identity{Desk: "G1", Operator: "boss"}, core.NoLimit, time.Time{}); err != nil {
		t.Errorf("the back office's own lookup at a disabled desk: %v", err)
	}
	must(b.EnableDesk(ctx, "G1", bo))
	must(b.RevokeDeskCert(ctx, "G1", "0a", bo))
	refused("a revoked certificate", g1, core.ErrDeskRevoked)
	if after, err := b.Attempts(ctx, time.Time{}); err != nil || len(after) != len(attempts) {
		t.Errorf("the refused questions recorded %d attempts, want none (%v)", len(after)-len(attempts), err)
	}
	_, err = b.AcceptDeskCert(ctx, "G1", "0c", time.Now().Add(time.Hour), true, bo)
	must(err)
	g1.Cert = "0c"
	if c, err := q.Claim(ctx, winner, core.ClaimRequest{Method: "serial", Who: g1, Request: "paid", Limit: core.NoLimit}, time.Time{}); err != nil || c.Amount != 50 {
		t.Errorf("a claim with its new certificate: %+v, %v", c, err)
	}
}
