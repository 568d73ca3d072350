package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/backoffice"
	"vegas-desk/internal/ledger/core"
)

// The back office's questions, decided in Go (decide.go): each answers
// once what it recorded is chained, with the entry's id, number and hash.

// raceRetries bounds how many times a claim that lost its ticket's race
// is asked again (the second finds the ticket paid, and answers so).
const raceRetries = 3

// Lookup is the ticket of s with the verdict a claim at who.Desk would
// get at time at (zero: now); an unknown serial and a stolen pack's
// ticket are recorded, unless the login is read-only.
func (b *Backend) Lookup(ctx context.Context, s game.Serial, who core.Identity, asked core.Limit, at time.Time) (core.Ticket, error) {
	tx, err := b.begin(ctx)
	if err != nil {
		return core.Ticket{}, fmt.Errorf("lookup %s: %w", s, err)
	}
	defer tx.Rollback()
	at = clock(at)
	tx.rulesOf = &backoffice.RulesOf{Desk: who.Desk, Asked: asked, At: at}
	t, err := core.DecideLookup(ctx, tx, s, who.Desk, asked, at)
	if e := core.RefusedLookup(s, t, err, who); e != nil && !b.ReadOnly {
		e.At = at
		if rerr := b.recordAlone(ctx, tx, e); rerr != nil {
			return core.Ticket{}, core.Refused(err, rerr)
		}
		if r := (*core.Refusal)(nil); errors.As(err, &r) {
			r.Entry = e.ID
		}
	}
	tx.Rollback()
	if err == nil {
		err = b.chainedClaim(ctx, t.Claim)
	}
	return t, classified(err)
}

// Find lists the tickets of the ledger with encoding code, each with its
// verdict at who.Desk; none is recorded as refused (unless read-only).
func (b *Backend) Find(ctx context.Context, code []byte, who core.Identity, asked core.Limit, at time.Time) ([]core.Ticket, error) {
	if len(code) != game.EncodedSize {
		return nil, fmt.Errorf("find by contents: an encoding has %d bytes, not %d", game.EncodedSize, len(code))
	}
	tx, err := b.begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("find by contents: %w", err)
	}
	defer tx.Rollback()
	found, err := core.DecideFind(ctx, tx, code, who.Desk, asked, clock(at))
	if err != nil {
		return nil, classified(err)
	}
	if len(found) == 0 {
		r := &core.Refusal{Verdict: core.UnknownContents}
		if b.ReadOnly {
			return nil, r
		}
		e := core.RefusedContents(who)
		e.At = clock(at)
		if err := b.recordAlone(ctx, tx, e); err != nil {
			return nil, core.Refused(r, err)
		}
		r.Entry = e.ID
		return nil, r
	}
	tx.Rollback()
	for i := range found {
		if err := b.chainedClaim(ctx, found[i].Claim); err != nil {
			return nil, classified(err)
		}
	}
	return found, nil
}

// Claim decides and records a claim in one transaction (core.DecideClaim),
// at time at (zero: now), and answers once its entry is chained.
func (b *Backend) Claim(ctx context.Context, s game.Serial, req core.ClaimRequest, at time.Time) (core.Claim, error) {
	if b.ReadOnly {
		return core.Claim{}, core.ErrReadOnly
	}
	at = clock(at)
	for try := 0; ; try++ {
		tx, err := b.begin(ctx)
		if err != nil {
			return core.Claim{}, fmt.Errorf("claim %s: %w", s, err)
		}
		tx.rulesOf = &backoffice.RulesOf{Desk: req.Who.Desk, Asked: req.Limit, At: at}
		c, err := core.DecideClaim(ctx, tx, s, req, at)
		tx.Rollback()
		if errors.Is(err, errRaced) && try < raceRetries {
			continue
		}
		w, ok, werr := b.waited(ctx, tx)
		if werr != nil {
			return core.Claim{}, errors.Join(classified(err), werr)
		}
		var r *core.Refusal
		switch {
		case ok && err == nil:
			c.Entry, c.Number, c.Hash = w.ID, w.Number, fmt.Sprintf("%x", w.Hash)
			if !tx.prior {
				c.Chained = time.Since(tx.recorded)
			}
		case ok && errors.As(err, &r) && !tx.prior:
			r.Entry = w.ID
		}
		if r != nil || errors.As(err, &r) {
			if cerr := b.chainedClaim(ctx, r.First); cerr != nil {
				return core.Claim{}, errors.Join(err, cerr)
			}
		}
		return c, classified(err)
	}
}

// recordAlone records e in tx, commits, and waits for it to be chained:
// e's id is then its own.
func (b *Backend) recordAlone(ctx context.Context, tx *questionTx, e *core.Entry) error {
	if err := tx.Record(ctx, e); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("journal: commit: %w", err)
	}
	c, _, err := b.waited(ctx, tx)
	if err != nil {
		return err
	}
	e.ID, e.Number, e.Hash = c.ID, c.Number, c.Hash
	return nil
}

// chainedClaim fills in a payment read while it waited to be chained
// (entry -seq), once it is.
func (b *Backend) chainedClaim(ctx context.Context, c *core.Claim) error {
	if c == nil || c.Entry >= 0 {
		return nil
	}
	w, err := b.seq.wait(ctx, -c.Entry)
	if err != nil {
		return err
	}
	c.Entry, c.Number, c.Hash = w.ID, w.Number, fmt.Sprintf("%x", w.Hash)
	return nil
}

// classified is err with PostgreSQL's errors mapped to the ledger's; a
// refusal is kept as it is.
func classified(err error) error {
	var r *core.Refusal
	if err == nil || errors.As(err, &r) {
		return err
	}
	return Classify(err)
}
