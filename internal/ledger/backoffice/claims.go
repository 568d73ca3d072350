package backoffice

import (
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"vegas-desk/internal/ledger/core"
)

// ClaimRow is a claim entry joined with the void entry that cancels it.
type ClaimRow struct {
	ID       int64  `db:"id"`
	Number   int64  `db:"number"`
	Serial   string `db:"serial"`
	Game     int    `db:"game"`
	Block    int    `db:"block"`
	Position int    `db:"position"`
	Amount   int    `db:"amount"`
	Desk     string `db:"desk"`
	Operator string `db:"operator"`
	Method   string `db:"method"`
	Request  string `db:"request"`
	At       string `db:"at"`
	Hash     []byte `db:"hash"`
	Voided   bool   `db:"voided"`
	Reason   string `db:"void_reason"`
	VoidedBy string `db:"voided_by"`
	VoidedAt string `db:"voided_at"`
	VoidDesk string `db:"void_desk"`
}

// ClaimSelect reads ClaimRows: the claims with their voids.
const ClaimSelect = `SELECT c.id, c.number, c.serial, c.game, c.block, c.position, c.amount, c.desk, c.operator, c.method,
	c.request, c.at, c.hash, v.id IS NOT NULL AS voided, coalesce(v.reason, '') AS void_reason,
	coalesce(v.operator, '') AS voided_by, coalesce(v.at, '') AS voided_at, coalesce(v.desk, '') AS void_desk
FROM journal c LEFT JOIN journal v ON v.kind = 'void' AND v.ref = c.id`

// Claim is the claim of a row.
func (r *ClaimRow) Claim() core.Claim {
	c := core.Claim{Number: r.Number, Entry: r.ID, Hash: hex.EncodeToString(r.Hash), Serial: r.Serial, Game: r.Game,
		Block: r.Block, Position: r.Position, Amount: r.Amount, Desk: r.Desk, Operator: r.Operator, Method: r.Method,
		Request: r.Request, At: core.ParseTime(r.At), Voided: r.Voided, VoidReason: r.Reason, VoidedBy: r.VoidedBy, VoidDesk: r.VoidDesk}
	if r.Voided {
		c.VoidedAt = core.ParseTime(r.VoidedAt)
	}
	return c
}

// Void cancels the payment number number with a reason: it appends a void
// entry naming the desk and the operator; the claim entry stays as it was.
// The ticket can then be claimed again, unless another payment of it not
// voided stands (a double payment). Only the back office voids.
func (o *Store) Void(ctx context.Context, number int64, reason string, who core.Identity) (core.Claim, error) {
	reason = strings.TrimSpace(reason)
	if reason == "" {
		return core.Claim{}, errors.New("void: no reason given: say why the payment is voided")
	}
	who.Desk, who.Operator = strings.TrimSpace(who.Desk), strings.TrimSpace(who.Operator)
	if who.Desk == "" || who.Operator == "" {
		return core.Claim{}, fmt.Errorf("void: desk %q, operator %q: a void records both, as a payment does", who.Desk, who.Operator)
	}
	if err := core.CheckText("reason", reason, core.MaxText); err != nil {
		return core.Claim{}, err
	}
	tx, err := o.write(ctx)
	if err != nil {
		return core.Claim{}, fmt.Errorf("void: %w", err)
	}
	defer tx.Rollback()
	var r ClaimRow
	err = core.Get(ctx, tx, &r, ClaimSelect+" WHERE c.kind = 'claim' AND c.number = ?", number)
	if errors.Is(err, sql.ErrNoRows) {
		return core.Claim{}, fmt.Errorf("void payment %d: %w: no payment has this number (see the claims command)", number, core.ErrNotFound)
	}
	if err != nil {
		return core.Claim{}, fmt.Errorf("void payment %d: %w", number, o.E.Classify(err))
	}
	if r.Voided {
		return core.Claim{}, fmt.Errorf("void payment %d: already voided on %s by %q: %q", number,
			core.ParseTime(r.VoidedAt).Local().Format("2006-01-02 15:04:05"), r.VoidedBy, r.Reason)
	}
	var ticket sql.NullInt64
	if err := core.Get(ctx, tx, &ticket, "SELECT ticket FROM journal WHERE id = ?", r.ID); err != nil {
		return core.Claim{}, err
	}
	e := core.Entry{Kind: "void", Ticket: ticket, Serial: r.Serial, Game: r.Game, Block: r.Block,
		Position: r.Position, Amount: r.Amount, Desk: who.Desk, Operator: who.Operator,
		Ref: sql.NullInt64{Int64: r.ID, Valid: true}, Reason: reason}
	if err := o.appendJournal(ctx, tx, &e); err != nil {
		return core.Claim{}, err
	}
	if _, err := core.Exec(ctx, tx, "DELETE FROM paid WHERE ticket = ?", ticket); err != nil {
		return core.Claim{}, fmt.Errorf("void: %w", err)
	}
	// Issue 29: a ticket with any payment not voided is never payable
	// again. A double payment (core.Case) leaves another payment of the
	// ticket standing: the ticket stays paid by the first of them.
	var standing sql.NullInt64
	if err := core.Get(ctx, tx, &standing, `SELECT min(c.id) FROM journal c WHERE c.kind = 'claim' AND c.ticket = ?
		AND NOT EXISTS (SELECT 1 FROM journal v WHERE v.kind = 'void' AND v.ref = c.id)`, ticket); err != nil {
		return core.Claim{}, fmt.Errorf("void: %w", o.E.Classify(err))
	}
	if ticket.Valid && standing.Valid {
		if err := insertPaid(ctx, tx, ticket.Int64, standing.Int64); err != nil {
			return core.Claim{}, fmt.Errorf("void: %w", o.E.Classify(err))
		}
	}
	if err := tx.Commit(); err != nil {
		return core.Claim{}, fmt.Errorf("void: commit: %w", o.E.Classify(err))
	}
	c := r.Claim()
	c.Voided, c.VoidReason, c.VoidedBy, c.VoidDesk, c.VoidedAt = true, reason, e.Operator, e.Desk, core.ParseTime(e.AtText)
	return c, nil
}

func where(f core.ClaimFilter) (string, []any) {
	conds := []string{"c.kind = 'claim'"}
	var args []any
	if f.Game != 0 {
		conds, args = append(conds, "c.game = ?"), append(args, f.Game)
	}
	if f.Block != 0 {
		conds, args = append(conds, "c.block = ?"), append(args, f.Block)
	}
	if !f.Since.IsZero() {
		conds, args = append(conds, "c.at >= ?"), append(args, core.FormatTime(f.Since))
	}
	if !f.Until.IsZero() {
		conds, args = append(conds, "c.at < ?"), append(args, core.FormatTime(f.Until))
	}
	if f.Desk != "" {
		conds, args = append(conds, "c.desk = ?"), append(args, f.Desk)
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

// Claims lists the claims that f selects, voided ones included, in journal
// order.
func (o *Store) Claims(ctx context.Context, f core.ClaimFilter) ([]core.Claim, error) {
	var rows []ClaimRow
	where, args := where(f)
	if err := core.Select(ctx, o.E.Pool(), &rows, ClaimSelect+where+" ORDER BY c.id", args...); err != nil {
		return nil, fmt.Errorf("list claims: %w", o.E.Classify(err))
	}
	out := make([]core.Claim, len(rows))
	for i := range rows {
		out[i] = rows[i].Claim()
	}
	return out, nil
}

// ClaimByNumber returns payment number number, or ErrNotFound.
func (o *Store) ClaimByNumber(ctx context.Context, number int64) (core.Claim, error) {
	var r ClaimRow
	err := core.Get(ctx, o.E.Pool(), &r, ClaimSelect+" WHERE c.kind = 'claim' AND c.number = ?", number)
	if errors.Is(err, sql.ErrNoRows) {
		return core.Claim{}, fmt.Errorf("payment %d: %w: no payment has this number (see the claims command)", number, core.ErrNotFound)
	}
	if err != nil {
		return core.Claim{}, o.E.Classify(err)
	}
	return r.Claim(), nil
}

// Attempts lists the refused attempts since a time (zero = all).
func (o *Store) Attempts(ctx context.Context, since time.Time) ([]core.Attempt, error) {
	var rows []core.Entry
	err := core.Select(ctx, o.E.Pool(), &rows, "SELECT "+core.EntryCols+" FROM journal WHERE kind = 'refusal' AND at >= ? ORDER BY id", core.FormatTime(since))
	if err != nil {
		return nil, fmt.Errorf("list refused attempts: %w", o.E.Classify(err))
	}
	out := make([]core.Attempt, len(rows))
	for i, e := range rows {
		out[i] = core.Attempt{Entry: e.ID, At: core.ParseTime(e.AtText), Reason: core.Verdict(e.Reason), Serial: e.Serial,
			Desk: e.Desk, Operator: e.Operator, Method: e.Method}
	}
	return out, nil
}
