package core

import (
	"errors"
	"slices"
	"time"
)

// The lock-out of a counter that guesses serials, in Go: the validation
// server (package server) asks it of every question of a desk, on every
// kind of back office. From the LockRefusals-th refused serial or contents
// in any LockWindow, the desk is refused as Locked for LockFor after that
// refusal, or until the back office unlocks it (the refusals before the
// unlock no longer count).
const (
	LockRefusals = 20
	LockWindow   = 10 * time.Minute
	LockFor      = 30 * time.Minute
)

// LockedUntil is the end of the lock-out that refusals (the times of a
// desk's refused serials and contents, any order) put the desk in at now,
// or the zero time when it may ask. unlocked is the back office's last
// unlock (zero: never).
func LockedUntil(refusals []time.Time, unlocked, now time.Time) time.Time {
	ts := make([]time.Time, 0, len(refusals))
	for _, t := range refusals {
		if t.After(unlocked) && !t.After(now) {
			ts = append(ts, t)
		}
	}
	slices.SortFunc(ts, func(a, b time.Time) int { return a.Compare(b) })
	var until time.Time
	for i := LockRefusals - 1; i < len(ts); i++ {
		if ts[i].Sub(ts[i-LockRefusals+1]) < LockWindow {
			if end := ts[i].Add(LockFor); end.After(now) && end.After(until) {
				until = end
			}
		}
	}
	return until
}

// Guess reports whether a refusal's reason counts towards the lock-out.
func Guess(reason Verdict) bool { return reason == UnknownSerial || reason == UnknownContents }

// LockOf is the end of the lock-out a desk is in at now (zero: none): its
// stored lock-out (stored), or the one its guesses (the times of its
// refused serials and contents) put it in since the back office's last
// unlock (LockedUntil).
func LockOf(guesses []time.Time, unlocked, stored, now time.Time) time.Time {
	until := LockedUntil(guesses, unlocked, now)
	if stored.After(until) {
		until = stored
	}
	if !until.After(now) {
		return time.Time{}
	}
	return until
}

// GuessesSince is how far back a desk's guesses may count for its
// lock-out at a time.
const GuessesSince = LockWindow + LockFor

// Refused is the answer of a question that answered answer (a refusal,
// or nil) and whose record failed with err: a refusal that err holds (the
// desk found locked out when its guess was to be recorded) answers in its
// place; otherwise both.
func Refused(answer, err error) error {
	var r *Refusal
	if errors.As(err, &r) {
		return r
	}
	return errors.Join(answer, err)
}

// Times are the times of entries' at texts (FormatTime).
func Times(ats []string) []time.Time {
	out := make([]time.Time, len(ats))
	for i, at := range ats {
		out[i] = ParseTime(at)
	}
	return out
}
