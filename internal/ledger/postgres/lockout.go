package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"vegas-desk/internal/ledger/backoffice"
	"vegas-desk/internal/ledger/core"
)

// The lock-out on PostgreSQL: a desk's guesses (refused serials and
// contents) are those chained and those still waiting in vegas.waiting,
// read in one statement; and a guess is recorded only under its desk's
// row lock, after the desk's guesses are counted again, so that questions
// at once, on several servers, never record more than the lock-out allows.

// LockOutGuesses makes the questions of a desk the ledger lists record a
// guess only while the desk is not locked out (checkGuess): the validation
// server's, which refuses a locked-out desk's questions (package server).
// The back office's own questions lock no one out.
func (b *Backend) LockOutGuesses() { b.lockOut.Store(true) }

// guessesSQL reads the times of desk $1's guesses since $2, chained or
// waiting: one statement, one snapshot (a chain's commit moves a row from
// one table to the other whole).
const guessesSQL = `SELECT at FROM journal WHERE desk = $1 AND kind = 'refusal' AND at >= $2 AND reason IN ($3, $4)
	UNION ALL SELECT at FROM waiting WHERE desk = $1 AND kind = 'refusal' AND at >= $2 AND reason IN ($3, $4)`

// DeskGuesses is desk id's row and the times of its refused serials and
// contents since a time, chained or waiting to be: one statement.
func (b *Backend) DeskGuesses(ctx context.Context, id string, since time.Time) (core.Desk, []time.Time, error) {
	var r struct {
		core.DeskRow
		Guesses string `db:"guesses"`
	}
	err := b.db.GetContext(ctx, &r, `SELECT `+backoffice.DeskCols+`, array_to_string(ARRAY(`+guessesSQL+`), ',') AS guesses
		FROM desks WHERE id = $1`, id, core.FormatTime(since), core.UnknownSerial, core.UnknownContents)
	if errors.Is(err, sql.ErrNoRows) {
		return core.Desk{}, nil, fmt.Errorf("desk %s: %w: no such desk (see desks list)", id, core.ErrNotFound)
	}
	if err != nil {
		return core.Desk{}, nil, fmt.Errorf("desk %s: %w", id, Classify(err))
	}
	var ats []string
	if r.Guesses != "" {
		ats = strings.Split(r.Guesses, ",")
	}
	return backoffice.DeskOf(r.DeskRow), core.Times(ats), nil
}

// checkGuess is run by a question before it records e, a guess of a desk
// of the ledger: it locks the desk's row (the guesses of one desk are
// recorded one after the other, whichever server asks), counts its
// guesses again, and answers a *core.Refusal Locked, recording nothing,
// when the desk is locked out at e's time. A desk the ledger does not list
// (the back office's own questions) is not locked out.
func (t *questionTx) checkGuess(ctx context.Context, e *core.Entry) error {
	var d struct {
		Locked   string `db:"locked_until"`
		Unlocked string `db:"unlocked_at"`
	}
	err := t.GetContext(ctx, &d, "SELECT locked_until, unlocked_at FROM desks WHERE id = $1 FOR UPDATE", e.Desk)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("desk %s: %w", e.Desk, Classify(err))
	}
	// A statement of its own: its snapshot sees what the lock waited for.
	var ats []string
	if err := t.SelectContext(ctx, &ats, guessesSQL, e.Desk, core.FormatTime(e.At.Add(-core.GuessesSince)),
		core.UnknownSerial, core.UnknownContents); err != nil {
		return fmt.Errorf("desk %s's refused serials: %w", e.Desk, Classify(err))
	}
	// At e's time, or at the latest guess's if a question that began
	// later recorded it first.
	times, now := core.Times(ats), e.At
	for _, g := range times {
		if g.After(now) {
			now = g
		}
	}
	if until := core.LockOf(times, core.ParseTime(d.Unlocked), core.ParseTime(d.Locked), now); !until.IsZero() {
		return &core.Refusal{Verdict: core.Locked, Serial: e.Serial, Until: until}
	}
	return nil
}
