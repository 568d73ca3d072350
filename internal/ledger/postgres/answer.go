package postgres

import (
	"context"
	"database/sql"
	"encoding/hex"
	"fmt"
	"time"
	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/core"
)

// answer is a row of PostgreSQL's vegas.answer: what lookup, find and
// claim say.
type answer struct {
	Status        string         `db:"status"`
	Game          sql.NullInt64  `db:"game"`
	Block         sql.NullInt64  `db:"block"`
	Position      sql.NullInt64  `db:"position"`
	Secret        sql.NullInt64  `db:"secret"`
	Prize         sql.NullInt64  `db:"prize"`
	Code          []byte         `db:"code"`
	PackState     sql.NullString `db:"pack_state"`
	Digest        []byte         `db:"digest"`
	CreatedAt     sql.NullString `db:"created_at"`
	ClaimEntry    sql.NullInt64  `db:"claim_entry"`
	ClaimNumber   sql.NullInt64  `db:"claim_number"`
	ClaimAt       sql.NullString `db:"claim_at"`
	ClaimAmount   sql.NullInt64  `db:"claim_amount"`
	ClaimDesk     sql.NullString `db:"claim_desk"`
	ClaimOperator sql.NullString `db:"claim_operator"`
	ClaimMethod   sql.NullString `db:"claim_method"`
	ClaimHash     []byte         `db:"claim_hash"`
	Entry         sql.NullInt64  `db:"entry"`
	Until         sql.NullString `db:"until"`
	VoidAt        sql.NullString `db:"void_at"`
	VoidReason    sql.NullString `db:"void_reason"`
	VoidedBy      sql.NullString `db:"voided_by"`
	VoidDesk      sql.NullString `db:"void_desk"`
}

const answerCols = "status, game, block, position, secret, prize, code, pack_state, digest, created_at, claim_entry, claim_number, claim_at, claim_amount, claim_desk, claim_operator, claim_method, claim_hash, entry, until, void_at, void_reason, voided_by, void_desk"

// claim is the claim of the answer, if any.
func (a *answer) claim() *core.Claim {
	if !a.ClaimEntry.Valid {
		return nil
	}
	s := game.Serial{Game: int(a.Game.Int64), Block: int(a.Block.Int64), Position: int(a.Position.Int64), Secret: a.Secret.Int64}
	return &core.Claim{Number: a.ClaimNumber.Int64, Entry: a.ClaimEntry.Int64, Hash: hex.EncodeToString(a.ClaimHash),
		Serial: s.String(), Game: s.Game, Block: s.Block, Position: s.Position, Amount: int(a.ClaimAmount.Int64),
		Desk: a.ClaimDesk.String, Operator: a.ClaimOperator.String, Method: a.ClaimMethod.String, At: core.ParseTime(a.ClaimAt.String)}
}

// ticket is the ticket of an answer that names one.
func (a *answer) ticket() (core.Ticket, error) {
	s := game.Serial{Game: int(a.Game.Int64), Block: int(a.Block.Int64), Position: int(a.Position.Int64), Secret: a.Secret.Int64}
	t := core.Ticket{Serial: s, Pack: s.Pack(), Position: s.Position, Prize: int(a.Prize.Int64), Claim: a.claim(),
		PackState: a.PackState.String, Verdict: core.Verdict(a.Status), Until: core.ParseTime(a.Until.String),
		Block: core.Block{Game: s.Game, Number: s.Block, Digest: hex.EncodeToString(a.Digest), PackSize: game.PackSize,
			Tickets: game.BlockSize, Winners: game.Winners, Payout: game.Payout, CreatedAt: core.ParseTime(a.CreatedAt.String)}}
	if a.Code != nil {
		gt, err := game.Decode(a.Code)
		if err != nil {
			return core.Ticket{}, fmt.Errorf("ticket %s: %w (the back office should run verify)", s, err)
		}
		t.Ticket = gt
	}
	switch {
	case t.Prize == 0:
		t.Status = core.StatusLoser
	case t.Claim != nil:
		t.Status = core.StatusPaid
	default:
		t.Status = core.StatusUnpaid
	}
	return t, nil
}

// refusal is the error of an answer that refuses, or nil.
func (a *answer) refusal(serial string) error {
	switch core.Verdict(a.Status) {
	case core.UnknownSerial, core.UnknownContents, core.Locked:
		return &core.Refusal{Verdict: core.Verdict(a.Status), Serial: serial, Until: core.ParseTime(a.Until.String), Entry: a.Entry.Int64}
	}
	return nil
}

// asked is a limit as the functions take it: NULL for NoLimit.
func asked(l core.Limit) *int {
	if n, ok := l.Euros(); ok {
		return &n
	}
	return nil
}

// lookup asks vegas.lookup.
func lookup(ctx context.Context, q core.Querier, s game.Serial, who core.Identity, limit core.Limit) (core.Ticket, error) {
	var a answer
	err := core.Get(ctx, q, &a, "SELECT "+answerCols+" FROM vegas.lookup(?, ?, ?, ?, ?, ?, ?)",
		s.Game, s.Block, s.Position, s.Secret, who.Desk, who.Operator, asked(limit))
	if err != nil {
		return core.Ticket{}, fmt.Errorf("lookup %s: %w", s, Classify(err))
	}
	if err := a.refusal(s.String()); err != nil {
		return core.Ticket{}, err
	}
	return a.ticket()
}

// find asks vegas.find.
func find(ctx context.Context, q core.Querier, code []byte, who core.Identity, limit core.Limit) ([]core.Ticket, error) {
	var as []answer
	if err := core.Select(ctx, q, &as, "SELECT "+answerCols+" FROM vegas.find(?, ?, ?, ?)", code, who.Desk, who.Operator, asked(limit)); err != nil {
		return nil, fmt.Errorf("find by contents: %w", Classify(err))
	}
	var out []core.Ticket
	for i := range as {
		if err := as[i].refusal(""); err != nil {
			return nil, err
		}
		t, err := as[i].ticket()
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	if len(out) == 0 {
		return nil, &core.Refusal{Verdict: core.UnknownContents} // recorded by vegas.find
	}
	return out, nil
}

// claim asks vegas.claim, and then vegas.durable: the claim committed
// without waiting for the disk, and its answer holds once the WAL is
// flushed past it (postgres.sql, vegas.claim). at is the time the back
// office gives (zero: the server's; a counter's login's is ignored).
func claim(ctx context.Context, q core.Querier, s game.Serial, req core.ClaimRequest, at time.Time) (core.Claim, error) {
	w := req.Winner
	if !w.Given() {
		w = &core.Winner{}
	}
	var when *string
	if !at.IsZero() {
		t := core.FormatTime(at)
		when = &t
	}
	var a answer
	err := core.Get(ctx, q, &a, "SELECT "+answerCols+" FROM vegas.claim(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		s.Game, s.Block, s.Position, s.Secret, req.Method, req.Who.Desk, req.Who.Operator, req.Request, asked(req.Limit),
		w.Name, w.DocType, w.DocNumber, when)
	if err != nil {
		return core.Claim{}, fmt.Errorf("claim %s: %w", s, Classify(err))
	}
	if _, err := q.ExecContext(ctx, "SELECT vegas.durable()"); err != nil {
		return core.Claim{}, fmt.Errorf("claim %s: %w", s, Classify(err))
	}
	switch core.Verdict(a.Status) {
	case core.Paid:
		c := a.claim()
		c.Request = req.Request
		return *c, nil
	case core.Voided:
		c := a.claim()
		c.Request, c.Voided = req.Request, true
		c.VoidedAt, c.VoidReason, c.VoidedBy, c.VoidDesk = core.ParseTime(a.VoidAt.String), a.VoidReason.String, a.VoidedBy.String, a.VoidDesk.String
		return *c, &core.Refusal{Verdict: core.Voided, Serial: s.String(), First: c, Amount: c.Amount}
	}
	if err := a.refusal(s.String()); err != nil {
		return core.Claim{}, err
	}
	t, err := a.ticket()
	if err != nil {
		return core.Claim{}, err
	}
	r := core.RefusalOf(t, core.Verdict(a.Status))
	r.Entry = a.Entry.Int64
	return core.Claim{}, r
}
