package core

import (
	"errors"
	"testing"
	"time"

	"vegas-desk/internal/game"
)

// The lock-out, decided here alone: 20 guesses within 10 minutes lock the
// desk for 30 minutes after the 20th; fewer, or spread wider, do not; a
// locked desk's guess is refused and not counted; the row keeps at most
// the last 20, and reads back what it wrote.
func TestLockGuess(t *testing.T) {
	t0 := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	l := Lock{On: true}
	for i := range LockRefusals - 1 {
		var locks bool
		var err error
		if l, locks, err = l.Guess(t0.Add(time.Duration(i)*time.Second), ""); err != nil || locks {
			t.Fatalf("guess %d: locks %v, %v", i+1, locks, err)
		}
	}
	at := t0.Add(LockWindow - time.Second)
	next, locks, err := l.Guess(at, "")
	if err != nil || !locks || !next.Until.Equal(at.Add(LockFor)) {
		t.Fatalf("the 20th guess: locks %v until %v, %v", locks, next.Until, err)
	}
	var r *Refusal
	if _, _, err := next.Guess(at.Add(time.Minute), "s"); !errors.As(err, &r) || r.Verdict != Locked || !r.Until.Equal(next.Until) {
		t.Errorf("a guess while locked: %v", err)
	}
	if next.Locked(next.Until, "") != nil || next.Locked(next.Until.Add(-time.Nanosecond), "") == nil {
		t.Error("locked until its end, not at it")
	}
	if (Lock{Until: next.Until}).Locked(at, "") != nil {
		t.Error("a desk the ledger does not lock out (On false) is locked")
	}
	if back := LockOf(next.GuessesText(), FormatTime(next.Until)); len(back.Guesses) != LockRefusals || !back.Until.Equal(next.Until) ||
		!back.Guesses[0].Equal(next.Guesses[0]) {
		t.Errorf("the row reads back %+v", back)
	}

	// The 20th guess 10 minutes after the first does not lock; the
	// window slides: the 21st, within 10 minutes of the 2nd, does.
	l, _, _ = Lock{On: true}.Guess(t0, "")
	for i := 1; i < LockRefusals-1; i++ {
		l, _, _ = l.Guess(t0.Add(time.Minute+time.Duration(i)*time.Second), "")
	}
	l, locks, _ = l.Guess(t0.Add(LockWindow), "")
	if locks {
		t.Error("20 guesses over 10 minutes lock")
	}
	if l, locks, _ = l.Guess(t0.Add(LockWindow+time.Second), ""); !locks || len(l.Guesses) != LockRefusals {
		t.Errorf("the 21st guess, the last 20 within 10 minutes: locks %v, %d kept", locks, len(l.Guesses))
	}

	// A guess recorded first by a question that began later counts at
	// that later time.
	late := t0.Add(time.Hour)
	l, _, _ = Lock{On: true}.Guess(late, "")
	if l, _, _ = l.Guess(t0, ""); !l.Guesses[1].Equal(late) {
		t.Errorf("an earlier question's guess after a later one's: %v", l.Guesses)
	}
}

// The decisions are pure: on a snapshot, a claim's outcome says what to
// record and answer; a locked desk records nothing; an unknown serial is
// recorded (a guess) before the request id is looked at; a request id of
// another ticket records nothing; one that paid answers its payment.
func TestDecideClaim(t *testing.T) {
	at := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	s := game.Serial{Game: 531, Block: 1, Position: 7, Secret: 42}
	req := ClaimRequest{Method: "serial", Who: Identity{Desk: "D1", Operator: "ann"}, Request: "r1", Limit: NoLimit}

	locked := &Snapshot{Desk: Lock{On: true, Until: at.Add(time.Minute)}}
	if o := DecideClaim(locked, s, req, at); o.Record != nil || !errors.Is(o.Err, ErrLocked) {
		t.Errorf("locked: %+v", o)
	}
	unknown := &Snapshot{Prior: &Entry{Game: 531, Block: 1, Position: 8, Kind: "claim"}}
	if o := DecideClaim(unknown, s, req, at); o.Record == nil || !o.Record.IsGuess() || o.Record.Request != "r1" || !errors.Is(o.Err, ErrUnknownSerial) {
		t.Errorf("unknown serial: %+v %v", o.Record, o.Err)
	}
	f := &Facts{Position: 7, Prize: 0, PackState: "on-sale"}
	other := &Snapshot{Facts: f, Prior: &Entry{Game: 531, Block: 1, Position: 8, Kind: "claim", AtText: FormatTime(at)}}
	if o := DecideClaim(other, s, req, at); o.Record != nil || !errors.Is(o.Err, ErrRequestReused) {
		t.Errorf("a request id of another ticket: %+v", o)
	}
	paid := Claim{Entry: 9, Serial: s.String(), Amount: 50}
	again := &Snapshot{Facts: f, Prior: &Entry{Game: 531, Block: 1, Position: 7, Kind: "claim"}, PriorClaim: &paid}
	if o := DecideClaim(again, s, req, at); o.Record != nil || o.Err != nil || o.Claim.Entry != 9 {
		t.Errorf("a request id that paid: %+v", o)
	}
	paid.Voided = true
	if o := DecideClaim(again, s, req, at); o.Record != nil || !errors.Is(o.Err, ErrVoided) {
		t.Errorf("a request id whose payment was voided: %+v", o)
	}
}
