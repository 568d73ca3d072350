package ledger

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/conformance"
)

// Issue 23's lock-out oracle, asked of every kind of ledger: a counter
// reuses a request id it paid a ticket it knows with, and guesses the
// secret part of another ticket under it. A wrong guess must answer as a
// wrong guess under a new id (the id names no ticket to whoever does not
// hold it); and once a counter's login is locked out, a right guess must
// answer exactly as a wrong one: locked, the same words (it once answered
// "request id already used for another ticket" to the right guess only).
// The sealed counter ledger and the back offices lock no one out: there a
// right guess is the ticket's holder's, and is told the id is used.
func TestLockOutNoRequestOracle(t *testing.T) {
	dir, world := conformanceWorld(t)
	ctx := context.Background()
	known := conformance.Ticket{Spec: "50@on-sale"}
	target := conformance.Ticket{Spec: "6@on-sale"}
	wrongTarget := target
	wrongTarget.Mod = "secret"
	for _, kind := range conformance.Kinds {
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
			if kind != conformance.Login {
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

// The same attack as psql would ask it of a counter's login: after the
// lock-out, the right and the wrong guess under the used request id give
// the same answer, field for field.
func TestLockOutNoRequestOracleRaw(t *testing.T) {
	bo, db := pgWithDesks(t)
	b := mustBlock(t, bo)
	c := rawCounter(t, db, "D1")
	ps := ticketsWith(t, bo, b, 6, 2)
	known, target := ps[0], ps[1]
	const claim = `CALL vegas.claim(531, 1, $1, $2, 'serial', '', 'mallory', $3, NULL, NULL, NULL, NULL, NULL)`
	if st := status(t, c, claim, known, b.Key.Secret(known), "oracle"); st != "paid" {
		t.Fatalf("the known ticket: %s", st)
	}
	right := b.Key.Secret(target)
	wrong := (right + 1) % game.SecretModulus
	for range 20 {
		if st := status(t, c, `CALL vegas.lookup(531, 1, $1, $2, '', 'mallory', NULL)`, target, wrong); st != "unknown-serial" && st != "locked" {
			t.Fatalf("a wrong guess: %s", st)
		}
	}
	answer := func(secret int64) map[string]any {
		var raw []byte
		if err := c.QueryRow(claim, target, secret, "oracle").Scan(&raw); err != nil {
			return map[string]any{"error": err.Error()}
		}
		var a map[string]any
		if err := json.Unmarshal(raw, &a); err != nil {
			t.Fatal(err)
		}
		delete(a, "secret") // what was asked, said back
		delete(a, "seq")    // the refusal's own entry
		delete(a, "recorded")
		delete(a, "entry")
		delete(a, "chain_ms") // how long the chaining took, the server's
		return a
	}
	r, w := answer(right), answer(wrong)
	rj, _ := json.Marshal(r)
	wj, _ := json.Marshal(w)
	if r["status"] != "locked" || string(rj) != string(wj) {
		t.Errorf("locked out: the right guess answers %s\n\tthe wrong one %s", rj, wj)
	}
}
