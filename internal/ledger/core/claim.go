package core

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"vegas-desk/internal/game"
)

// A claim decided in Go, for the ledgers whose rows the process holds (a
// SQLite back office, a sealed counter ledger): the backend opens a write
// transaction (ClaimTx) and the steps below run in it, so that the check
// and the payment are one step. PostgreSQL decides inside the database,
// with the same rule (postgres.sql, made with Decide's constants).

// ClaimTx is a write transaction of a ledger that decides claims in Go.
type ClaimTx interface {
	Reader
	// PriorUse is the entry that answers desk's request id used before:
	// its payment, or else its first use (a refusal, a referral); or nil.
	PriorUse(ctx context.Context, desk, request string) (*Entry, error)
	// ClaimOf is the claim of a claim entry, with its void if any.
	ClaimOf(ctx context.Context, e *Entry) (Claim, error)
	// Record appends e to the journal, filling in its id, number, time and
	// hash (and keeping of a refusal or a referral what the kind of ledger
	// keeps).
	Record(ctx context.Context, e *Entry) error
	// Pay keeps the ticket of claim entry e paid, with the winner's
	// identity when one is given.
	Pay(ctx context.Context, e *Entry, w *Winner) error
	Commit() error
}

// DecideClaim pays a winning ticket once, or records why not, in tx: a
// request id used before answers, to a serial with the right secret part,
// with its payment (or that it was voided since), or is refused if it
// named another ticket; otherwise (never paid) Decide's verdict, recorded.
// req was prepared (PrepareClaim).
func DecideClaim(ctx context.Context, tx ClaimTx, s game.Serial, req ClaimRequest, at time.Time) (Claim, error) {
	refuse := func(e Entry, refusal *Refusal) (Claim, error) {
		e.At, e.Serial, e.Game, e.Block, e.Position = at, s.String(), s.Game, s.Block, s.Position
		e.Desk, e.Operator, e.Request = req.Who.Desk, req.Who.Operator, req.Request
		if err := tx.Record(ctx, &e); err != nil {
			return Claim{}, Refused(refusal, err)
		}
		if err := tx.Commit(); err != nil {
			return Claim{}, errors.Join(refusal, fmt.Errorf("claim: commit: %w", err))
		}
		refusal.Entry = e.ID
		return Claim{}, refusal
	}
	f, err := tx.Facts(ctx, s)
	var r *Refusal
	if err != nil && !errors.As(err, &r) {
		return Claim{}, fmt.Errorf("claim: %w", err)
	}
	// A request id used before answers as it did only to whoever holds
	// the ticket: a wrong secret part is a wrong guess, whatever the id;
	// and any refusal of the facts (an unknown serial, a lock-out if a
	// kind reports one there) answers before the id is looked at, so that
	// the id cannot tell a right guess from a wrong one (issue 23: on
	// PostgreSQL, vegas.claim_record keeps the same order).
	if r == nil {
		prior, err := tx.PriorUse(ctx, req.Who.Desk, req.Request)
		if err != nil {
			return Claim{}, fmt.Errorf("claim: %w", err)
		}
		if prior != nil {
			if c, done, err := replayRequest(ctx, tx, s, prior); done {
				return c, err
			}
		}
	}
	if r != nil {
		return refuse(Entry{Kind: "refusal", Method: "claim", Reason: string(r.Verdict)}, r)
	}
	rules, err := tx.Rules(ctx, s.Game, req.Who.Desk, req.Limit, at)
	if err != nil {
		return Claim{}, fmt.Errorf("claim: %w", err)
	}
	rules.Identity = req.Winner.Given()
	v := Decide(f, rules)
	t, err := TicketOf(f, v, rules.Dates)
	if err != nil {
		return Claim{}, err
	}
	ticket := sql.NullInt64{Int64: f.Ticket, Valid: true}
	switch v {
	case Payable:
	case OverLimit:
		return refuse(Entry{Kind: "referral", Ticket: ticket, Amount: f.Prize, Method: req.Method}, RefusalOf(t, v))
	case AlreadyClaimed:
		return refuse(Entry{Kind: "refusal", Ticket: ticket, Method: "claim", Reason: string(v),
			Ref: sql.NullInt64{Int64: f.Paid.Entry, Valid: true}}, RefusalOf(t, v))
	default:
		return refuse(Entry{Kind: "refusal", Ticket: ticket, Method: "claim", Reason: string(v)}, RefusalOf(t, v))
	}
	e := Entry{Kind: "claim", At: at, Ticket: ticket, Serial: s.String(), Game: s.Game, Block: s.Block, Position: s.Position,
		Amount: f.Prize, Desk: req.Who.Desk, Operator: req.Who.Operator, Method: req.Method, Request: req.Request}
	if req.Winner.Given() {
		e.Detail = IdentityHash(req.Winner)
	}
	if err := tx.Record(ctx, &e); err != nil {
		return Claim{}, err
	}
	if err := tx.Pay(ctx, &e, req.Winner); err != nil {
		return Claim{}, fmt.Errorf("claim: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return Claim{}, fmt.Errorf("claim: commit: %w", err)
	}
	return e.Claim(), nil
}

// replayRequest answers a request id used before, and done: another
// ticket's is refused; a payment is answered again, or said voided. A
// request only refused or referred so far is asked again (done false).
func replayRequest(ctx context.Context, tx ClaimTx, s game.Serial, prior *Entry) (Claim, bool, error) {
	if prior.Game != s.Game || prior.Block != s.Block || prior.Position != s.Position {
		return Claim{}, true, fmt.Errorf("claim %s: %w (ticket %03d-%04d-%07d, on %s): make a new request", s, ErrRequestReused,
			prior.Game, prior.Block, prior.Position, ParseTime(prior.AtText).Local().Format("2006-01-02 15:04:05"))
	}
	if prior.Kind != "claim" {
		return Claim{}, false, nil
	}
	c, err := tx.ClaimOf(ctx, prior)
	switch {
	case err != nil:
		return Claim{}, true, fmt.Errorf("claim: %w", err)
	case c.Voided:
		return c, true, &Refusal{Verdict: Voided, Serial: s.String(), First: &c, Amount: c.Amount}
	}
	return c, true, nil
}

// TicketOf is the Ticket of facts f, with the verdict v.
func TicketOf(f *Facts, v Verdict, d Dates) (Ticket, error) {
	gt, err := game.Decode(f.Code)
	if err != nil {
		return Ticket{}, fmt.Errorf("block %s ticket %d: %w (run verify)", f.Block.Name(), f.Position, err)
	}
	t := Ticket{
		Serial:    game.Serial{Game: f.Block.Game, Block: f.Block.Number, Position: f.Position, Secret: f.Secret},
		Block:     f.Block,
		Pack:      f.Position / game.PackSize,
		Position:  f.Position,
		Ticket:    gt,
		Prize:     f.Prize,
		Claim:     f.Paid,
		PackState: f.PackState,
		Verdict:   v,
	}
	if t.PackState == "" {
		t.PackState = "stock"
	}
	switch {
	case f.Prize == 0:
		t.Status = StatusLoser
	case f.Paid != nil:
		t.Status = StatusPaid
	default:
		t.Status = StatusUnpaid
	}
	switch v {
	case NotYetOnSale:
		t.Until = ParseTime(d.OnSale)
	case Expired:
		t.Until = ParseTime(d.Deadline)
	}
	return t, nil
}

// RefusalOf is the refusal of verdict v on t.
func RefusalOf(t Ticket, v Verdict) *Refusal {
	return &Refusal{Verdict: v, Serial: t.Serial.String(), First: t.Claim, Amount: t.Prize, Until: t.Until}
}
