package ledger

import (
	"context"
	"errors"
	"slices"
	"testing"

	"vegas-desk/internal/ledger/conformance"
)

// Issue 23's lock-out oracle, asked of every kind of ledger: a counter
// reuses a request id it paid a ticket it knows with, and guesses the
// secret part of another ticket under it. A wrong guess must answer as a
// wrong guess under a new id (the id names no ticket to whoever does not
// hold it); and once a counter on a validation server is locked out, a
// right guess must answer exactly as a wrong one: locked, the same words
// (it once answered "request id already used for another ticket" to the
// right guess only). The sealed counter ledger and the back offices lock
// no one out: there a right guess is the ticket's holder's, and is told
// the id is used. (TestLockOutNoRequestOracleRaw, in package server, asks
// the server's JSON itself.)
func TestLockOutNoRequestOracle(t *testing.T) {
	dir, world := conformanceWorld(t)
	ctx := context.Background()
	known := conformance.Ticket{Spec: "50@on-sale"}
	target := conformance.Ticket{Spec: "6@on-sale"}
	wrongTarget := target
	wrongTarget.Mod = "secret"
	for _, kind := range append(slices.Clip(conformance.Kinds), conformance.ServedKinds...) {
		t.Run(kind, func(t *testing.T) {
			k := newKind(t, kind, dir)
			l := k.desks["D1"]
			who := Identity{Desk: "D1", Operator: "mallory"}
			claim := func(serial, request string) error {
				_, err := l.Claim(ctx, ClaimRequest{Serial: serial, Method: MethodSerial, Who: who, Limit: NoLimit, Request: request})
				return err
			}
			if err := claim(world.Serial(known), "oracle"); err != nil {
				t.Fatalf("the known ticket: %v", err)
			}
			wrongFresh, wrongReused := claim(world.Serial(wrongTarget), "fresh"), claim(world.Serial(wrongTarget), "oracle")
			if !errors.Is(wrongReused, ErrUnknownSerial) || errText(wrongReused) != errText(wrongFresh) {
				t.Errorf("a wrong guess under a used id: %v; under a new one: %v", wrongReused, wrongFresh)
			}
			for range 20 { // the lock-out's count of refused serials
				if _, err := l.Lookup(ctx, world.Serial(wrongTarget), who, NoLimit); err == nil {
					t.Fatal("a wrong guess answered")
				}
			}
			right, wrong := claim(world.Serial(target), "oracle"), claim(world.Serial(wrongTarget), "oracle")
			if kind != conformance.ServedFile && kind != conformance.ServedShared {
				if !errors.Is(right, ErrRequestReused) || !errors.Is(wrong, ErrUnknownSerial) {
					t.Errorf("no lock-out: the holder's right serial %v, a wrong one %v", right, wrong)
				}
				return
			}
			if !errors.Is(right, ErrLocked) || !errors.Is(wrong, ErrLocked) || errText(right) != errText(wrong) {
				t.Errorf("locked out: a right guess answers %v\n\ta wrong one %v", right, wrong)
			}
		})
	}
}

func errText(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}
