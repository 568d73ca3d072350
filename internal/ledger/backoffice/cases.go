package backoffice

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"vegas-desk/internal/ledger/core"
)

// Cases lists the double payments (core.Case), open and closed, in the
// order they were recorded.
func (o *Store) Cases(ctx context.Context) ([]core.Case, error) {
	tx, err := o.E.Read(ctx)
	if err != nil {
		return nil, fmt.Errorf("cases: %w", err)
	}
	defer tx.Rollback()
	return readCases(ctx, tx)
}

func readCases(ctx context.Context, q core.Querier) ([]core.Case, error) {
	var pairs []struct {
		ID  int64         `db:"id"`
		Ref sql.NullInt64 `db:"ref"`
	}
	if err := core.Select(ctx, q, &pairs, "SELECT id, ref FROM journal WHERE kind = 'claim' AND reason = ? ORDER BY id", core.ReasonDoublePayment); err != nil {
		return nil, fmt.Errorf("cases: %w", err)
	}
	if len(pairs) == 0 {
		return nil, nil
	}
	var rows []ClaimRow
	if err := core.Select(ctx, q, &rows, ClaimSelect+` WHERE c.kind = 'claim' AND (c.reason = ?
		OR c.id IN (SELECT ref FROM journal WHERE kind = 'claim' AND reason = ?))`, core.ReasonDoublePayment, core.ReasonDoublePayment); err != nil {
		return nil, fmt.Errorf("cases: %w", err)
	}
	claims := map[int64]core.Claim{}
	for i := range rows {
		claims[rows[i].ID] = rows[i].Claim()
	}
	var closings []core.Entry
	if err := core.Select(ctx, q, &closings, "SELECT "+core.EntryCols+" FROM journal WHERE kind = 'import' AND reason = ? ORDER BY id", core.ReasonCaseClosed); err != nil {
		return nil, fmt.Errorf("cases: %w", err)
	}
	closed := map[int64]core.Entry{}
	for _, e := range closings {
		if _, ok := closed[e.Ref.Int64]; !ok {
			closed[e.Ref.Int64] = e
		}
	}
	out := make([]core.Case, 0, len(pairs))
	for _, p := range pairs {
		second := claims[p.ID]
		c := core.Case{Number: second.Number, Serial: second.Serial, Amount: second.Amount, First: claims[p.Ref.Int64], Second: second}
		if e, ok := closed[p.ID]; ok {
			c.Closed, c.Decision, c.ClosedAt, c.ClosedBy, c.ClosedDesk = true, e.Detail, core.ParseTime(e.AtText), e.Operator, e.Desk
		}
		out = append(out, c)
	}
	return out, nil
}

// CloseCase closes the double payment whose second payment is number
// with a decision (what was done: the money recovered, written off…): an
// 'import' entry, reason core.ReasonCaseClosed, naming the payment, the
// desk and the operator. Neither payment changes: they are facts.
func (o *Store) CloseCase(ctx context.Context, number int64, decision string, who core.Identity) (core.Case, error) {
	decision = strings.TrimSpace(decision)
	if decision == "" {
		return core.Case{}, errors.New("close case: no decision given: say what was decided (the money recovered, written off…)")
	}
	if err := core.CheckText("decision", decision, core.MaxText); err != nil {
		return core.Case{}, err
	}
	if err := core.CheckWho("close case", who); err != nil {
		return core.Case{}, err
	}
	if core.Blank(who.Desk) || core.Blank(who.Operator) {
		return core.Case{}, fmt.Errorf("close case: desk %q, operator %q: a decision records both, as a payment does", who.Desk, who.Operator)
	}
	tx, err := o.write(ctx)
	if err != nil {
		return core.Case{}, fmt.Errorf("close case: %w", err)
	}
	defer tx.Rollback()
	cases, err := readCases(ctx, tx)
	if err != nil {
		return core.Case{}, o.E.Classify(err)
	}
	i := -1
	for j := range cases {
		if cases[j].Number == number {
			i = j
		}
	}
	switch {
	case i < 0:
		return core.Case{}, fmt.Errorf("close case %d: %w: payment %d is no double payment (see the cases command)", number, core.ErrNotFound, number)
	case cases[i].Closed:
		c := cases[i]
		return core.Case{}, fmt.Errorf("close case %d: already closed on %s by %q: %q", number,
			c.ClosedAt.Local().Format("2006-01-02 15:04:05"), c.ClosedBy, c.Decision)
	}
	c := cases[i]
	e := core.Entry{Kind: "import", Reason: core.ReasonCaseClosed, Serial: c.Serial, Game: c.Second.Game, Block: c.Second.Block,
		Position: c.Second.Position, Amount: c.Amount, Desk: who.Desk, Operator: who.Operator,
		Ref: sql.NullInt64{Int64: c.Second.Entry, Valid: true}, Detail: decision}
	if err := o.appendJournal(ctx, tx, &e); err != nil {
		return core.Case{}, err
	}
	if err := tx.Commit(); err != nil {
		return core.Case{}, fmt.Errorf("close case: commit: %w", o.E.Classify(err))
	}
	c.Closed, c.Decision, c.ClosedAt, c.ClosedBy, c.ClosedDesk = true, decision, core.ParseTime(e.AtText), who.Operator, who.Desk
	return c, nil
}
