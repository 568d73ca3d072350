package core

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"vegas-desk/internal/game"
)

// A lookup and a search by contents decided in Go (a SQLite back office, a
// sealed counter ledger), in one read: the facts, the rules, Decide.

// Reader is a read of a ledger that decides in Go.
type Reader interface {
	// Facts are the facts of the ticket of s, or a *Refusal UnknownSerial.
	Facts(ctx context.Context, s game.Serial) (*Facts, error)
	// Rules are the game's dates, the identity threshold and the payout
	// limit of desk (its stored limit lowered by asked) at time at.
	Rules(ctx context.Context, gameCode int, desk string, asked Limit, at time.Time) (Rules, error)
}

// DecideLookup is the ticket of s with the verdict a claim of it at desk
// would get at time at (the desk's limit lowered by asked), or a *Refusal
// UnknownSerial.
func DecideLookup(ctx context.Context, r Reader, s game.Serial, desk string, asked Limit, at time.Time) (Ticket, error) {
	f, err := r.Facts(ctx, s)
	if err != nil {
		return Ticket{}, err
	}
	rules, err := r.Rules(ctx, s.Game, desk, asked, at)
	if err != nil {
		return Ticket{}, err
	}
	return TicketOf(f, Decide(f, rules), rules.Dates)
}

// RefusedLookup is the entry a lookup records, or nil: an unknown serial
// (or a wrong secret part: the same), and a ticket of a stolen pack, for
// the back office.
func RefusedLookup(s game.Serial, t Ticket, err error, who Identity) *Entry {
	var r *Refusal
	switch {
	case errors.As(err, &r) && r.Verdict == UnknownSerial:
		return &Entry{Kind: "refusal", Serial: s.String(), Game: s.Game, Block: s.Block, Position: s.Position,
			Desk: who.Desk, Operator: who.Operator, Method: "lookup", Reason: string(UnknownSerial)}
	case err == nil && t.Verdict == Stolen:
		return &Entry{Kind: "refusal", Serial: s.String(), Game: s.Game, Block: s.Block, Position: s.Position,
			Ticket: sql.NullInt64{Int64: t.Block.TicketNumber(t.Position), Valid: true},
			Desk:   who.Desk, Operator: who.Operator, Method: "lookup", Reason: string(Stolen)}
	}
	return nil
}

// Finder is a read of a ledger that finds its winners by their contents.
type Finder interface {
	Reader
	// Blocks are the ledger's blocks, in the order they were made.
	Blocks(ctx context.Context) ([]Block, error)
	// Candidates are the facts of block b's tickets that may show code
	// (its index's entries for code); those that do not are passed over.
	Candidates(ctx context.Context, b Block, code []byte) ([]*Facts, error)
}

// DecideFind lists the ledger's tickets whose encoding is code, each with
// the verdict a claim of it at desk would get at time at.
func DecideFind(ctx context.Context, f Finder, code []byte, desk string, asked Limit, at time.Time) ([]Ticket, error) {
	bs, err := f.Blocks(ctx)
	if err != nil {
		return nil, fmt.Errorf("find by contents: %w", err)
	}
	var found []Ticket
	for _, b := range bs {
		fs, err := f.Candidates(ctx, b, code)
		if err != nil {
			return nil, fmt.Errorf("find by contents: block %s: %w", b.Name(), err)
		}
		for _, c := range fs {
			if !bytes.Equal(c.Code, code) {
				continue
			}
			rules, err := f.Rules(ctx, b.Game, desk, asked, at)
			if err != nil {
				return nil, err
			}
			t, err := TicketOf(c, Decide(c, rules), rules.Dates)
			if err != nil {
				return nil, err
			}
			found = append(found, t)
		}
	}
	return found, nil
}

// FoundTicket is what a search by contents answers from the tickets found:
// the first not yet paid, else the first; none is a *Refusal
// UnknownContents.
func FoundTicket(found []Ticket) (Ticket, error) {
	for _, t := range found {
		if t.Status == StatusUnpaid {
			return t, nil
		}
	}
	if len(found) > 0 {
		return found[0], nil
	}
	return Ticket{}, &Refusal{Verdict: UnknownContents}
}

// RefusedContents is the entry a search by contents that found nothing
// records.
func RefusedContents(who Identity) *Entry {
	return &Entry{Kind: "refusal", Desk: who.Desk, Operator: who.Operator, Method: "contents", Reason: string(UnknownContents)}
}
