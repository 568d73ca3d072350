package core

import (
	"errors"
	"slices"
	"strings"
	"time"
)

// The lock-out of a counter that guesses serials, decided here and
// nowhere else: from the LockRefusals-th refused serial or contents (a
// guess) within LockWindow, the desk is refused as Locked for LockFor
// after that guess, or until the back office unlocks it (the guesses
// before the unlock no longer count). A desk keeps its lock-out with its
// row (Lock: its last guesses, at most LockRefusals of them, and the end
// of its lock-out), so that counting is one row's read whatever the
// desk's history; a guess is counted, and recorded, under the desk's lock
// (the write's re-check, Lock.Guess), so that questions at once, on one
// server or several, never record more guesses than the lock-out allows.
const (
	LockRefusals = 20
	LockWindow   = 10 * time.Minute
	LockFor      = 30 * time.Minute
)

// LockReason says why a desk is locked out.
var LockReason = "20 refused serials or contents within 10 minutes"

// Lock is a desk's lock-out as its row keeps it. On is false for a desk
// that is not locked out: one the ledger does not list (the back office's
// own questions), or a ledger that locks no one out (a file opened by the
// back office, a sealed counter ledger).
type Lock struct {
	On bool
	// Guesses are the times of the desk's last guesses since its unlock,
	// at most LockRefusals, in order.
	Guesses []time.Time
	// Until is the end of its lock-out (zero: none yet).
	Until time.Time
}

// LockOf is the lock of a desk's row: its guesses' text (GuessesText) and
// its locked_until.
func LockOf(guesses, until string) Lock {
	l := Lock{On: true, Until: ParseTime(until)}
	for _, g := range strings.Split(guesses, ",") {
		if t := ParseTime(g); !t.IsZero() {
			l.Guesses = append(l.Guesses, t)
		}
	}
	slices.SortFunc(l.Guesses, func(a, b time.Time) int { return a.Compare(b) })
	return l
}

// GuessesText is what a desk's row keeps of its guesses.
func (l Lock) GuessesText() string {
	ts := make([]string, len(l.Guesses))
	for i, t := range l.Guesses {
		ts[i] = FormatTime(t)
	}
	return strings.Join(ts, ",")
}

// UntilText is the end of the lock-out as a desk's row keeps it ("" for
// none).
func (l Lock) UntilText() string {
	if l.Until.IsZero() {
		return ""
	}
	return FormatTime(l.Until)
}

// Locked is the refusal of a question asked at at (of serial, "" for
// none) by a desk locked out then, or nil.
func (l Lock) Locked(at time.Time, serial string) *Refusal {
	if !l.On || !l.Until.After(at) {
		return nil
	}
	return &Refusal{Verdict: Locked, Serial: serial, Until: l.Until}
}

// LockedAt is the refusal of a question desk d asks at at when its row
// says it is locked out then (Lock.Locked: the one place that decides),
// or nil.
func (d Desk) LockedAt(at time.Time) *Refusal {
	return Lock{On: true, Until: d.LockedUntil}.Locked(at, "")
}

// Guess is the desk's lock after one more guess at at, or a *Refusal
// Locked when the desk is locked out at at (the guess is then not
// recorded). locks says the guess locks the desk out (it is the
// LockRefusals-th within LockWindow): its Until is then at + LockFor. A
// guess recorded first by a question that began later counts as earlier:
// at is then the latest guess's time.
func (l Lock) Guess(at time.Time, serial string) (next Lock, locks bool, err error) {
	if n := len(l.Guesses); n > 0 && l.Guesses[n-1].After(at) {
		at = l.Guesses[n-1]
	}
	if r := l.Locked(at, serial); r != nil {
		return l, false, r
	}
	next = Lock{On: l.On, Until: l.Until, Guesses: append(slices.Clone(l.Guesses), at)}
	if len(next.Guesses) > LockRefusals {
		next.Guesses = next.Guesses[len(next.Guesses)-LockRefusals:]
	}
	if len(next.Guesses) == LockRefusals && at.Sub(next.Guesses[0]) < LockWindow {
		next.Until, locks = at.Add(LockFor), true
	}
	return next, locks, nil
}

// IsGuess reports whether an entry is a guess: a refused serial or
// contents, which counts towards its desk's lock-out.
func (e *Entry) IsGuess() bool {
	return e.Kind == "refusal" && e.Desk != "" && (e.Reason == string(UnknownSerial) || e.Reason == string(UnknownContents))
}

// LockEntry is the entry that records desk's lock-out until until: the
// journal says why its row is locked (verify replays it).
func LockEntry(desk string, limit int, at, until time.Time) *Entry {
	return &Entry{Kind: "desk", At: at, Desk: desk, State: "locked", Amount: limit, Detail: FormatTime(until), Reason: LockReason}
}

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
