package backoffice

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"time"

	"vegas-desk/internal/ledger/core"
)

// AddDesk adds a counter with its payout limit, and the counter's own
// login where the engine has logins (PostgreSQL: with password); a desk
// that exists without a login (after a copy) gets one.
func (o *Store) AddDesk(ctx context.Context, id string, limit int, password string, who core.Identity) (core.Desk, error) {
	if err := core.CheckDeskID(id); err != nil {
		return core.Desk{}, err
	}
	if limit < 0 {
		return core.Desk{}, fmt.Errorf("payout limit %d: give 0 or more euros", limit)
	}
	tx, err := o.write(ctx)
	if err != nil {
		return core.Desk{}, err
	}
	defer tx.Rollback()
	var existing core.DeskRow
	err = core.Get(ctx, tx, &existing, "SELECT id, role, payout_limit, disabled, locked_until, unlocked_at FROM desks WHERE id = ?", id)
	found := err == nil
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return core.Desk{}, o.classify(err)
	}
	exists := fmt.Errorf("desk %s exists already (see desks list)", id)
	if found && existing.Role != nil {
		return core.Desk{}, exists
	}
	role, err := o.E.Login(ctx, tx, id, password)
	if err != nil {
		return core.Desk{}, err
	}
	if found && role == "" {
		return core.Desk{}, exists
	}
	e := core.Entry{Kind: "desk", Desk: id, State: "added", Amount: limit, Operator: who.Operator, Detail: role}
	if err := o.appendJournal(ctx, tx, &e); err != nil {
		return core.Desk{}, err
	}
	var r *string
	if role != "" {
		r = &role
	}
	if _, err := core.Exec(ctx, tx, `INSERT INTO desks (id, role, payout_limit, disabled) VALUES (?, ?, ?, 0)
		ON CONFLICT (id) DO UPDATE SET role = excluded.role, payout_limit = excluded.payout_limit, disabled = 0`, id, r, limit); err != nil {
		return core.Desk{}, o.classify(err)
	}
	if err := tx.Commit(); err != nil {
		return core.Desk{}, o.classify(err)
	}
	return core.Desk{ID: id, Role: role, Limit: limit}, nil
}

// Desks lists the counters.
func (o *Store) Desks(ctx context.Context) ([]core.Desk, error) {
	var rows []core.DeskRow
	if err := core.Select(ctx, o.E.Pool(), &rows, "SELECT id, role, payout_limit, disabled, locked_until, unlocked_at FROM desks ORDER BY id"); err != nil {
		return nil, o.classify(err)
	}
	out := make([]core.Desk, len(rows))
	for i, r := range rows {
		out[i] = DeskOf(r)
	}
	return out, nil
}

// DeskOf is the desk of its row.
func DeskOf(r core.DeskRow) core.Desk {
	d := core.Desk{ID: r.ID, Limit: r.Limit, Disabled: r.Disabled == 1, LockedUntil: core.ParseTime(r.LockedUntil),
		UnlockedAt: core.ParseTime(r.UnlockedAt)}
	if r.Role != nil {
		d.Role = *r.Role
	}
	return d
}

// DeskCols are a desks row's columns (core.DeskRow).
const DeskCols = "id, role, payout_limit, disabled, locked_until, unlocked_at"

// DeskGuesses is desk id's row and the times of its refused serials and
// contents since a time (the lock-out's count, core.LockOf), or
// ErrNotFound.
func (o *Store) DeskGuesses(ctx context.Context, id string, since time.Time) (core.Desk, []time.Time, error) {
	r, err := o.readDesk(ctx, o.E.Pool(), id)
	if err != nil {
		return core.Desk{}, nil, err
	}
	var ats []string
	err = core.Select(ctx, o.E.Pool(), &ats, "SELECT at FROM journal WHERE desk = ? AND kind = 'refusal' AND at >= ? AND reason IN (?, ?)",
		id, core.FormatTime(since), core.UnknownSerial, core.UnknownContents)
	if err != nil {
		return core.Desk{}, nil, fmt.Errorf("desk %s's refused serials: %w", id, o.classify(err))
	}
	return DeskOf(r), core.Times(ats), nil
}

// deskChange records a change of a desk: state is "disabled", "enabled",
// "unlocked" or "limit" (with limit).
func (o *Store) deskChange(ctx context.Context, id, state string, limit int, who core.Identity) error {
	tx, err := o.write(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	d, err := o.readDesk(ctx, tx, id)
	if err != nil {
		return err
	}
	e := core.Entry{Kind: "desk", Desk: id, State: state, Amount: d.Limit, Operator: who.Operator}
	var stmt string
	switch state {
	case "disabled":
		stmt = "UPDATE desks SET disabled = 1 WHERE id = ?"
	case "enabled":
		stmt = "UPDATE desks SET disabled = 0 WHERE id = ?"
	case "unlocked":
		stmt = "UPDATE desks SET locked_until = '', unlocked_at = ? WHERE id = ?"
	case "limit":
		if limit < 0 {
			return fmt.Errorf("payout limit %d: give 0 or more euros", limit)
		}
		e.Amount = limit
		stmt = "UPDATE desks SET payout_limit = " + strconv.Itoa(limit) + " WHERE id = ?"
	}
	if err := o.appendJournal(ctx, tx, &e); err != nil {
		return err
	}
	args := []any{id}
	if state == "unlocked" {
		args = []any{e.AtText, id}
	}
	if _, err := core.Exec(ctx, tx, stmt, args...); err != nil {
		return o.classify(err)
	}
	if err := o.E.Change(ctx, tx, d, state); err != nil {
		return o.classify(err)
	}
	if err := tx.Commit(); err != nil {
		return o.classify(err)
	}
	if d.Role != nil && state == "disabled" {
		// Its sessions end now, whatever they hold.
		return o.classify(o.E.Disabled(ctx, *d.Role))
	}
	return nil
}

// readDesk reads desk id's row, or ErrNotFound.
func (o *Store) readDesk(ctx context.Context, q core.Querier, id string) (core.DeskRow, error) {
	var d core.DeskRow
	err := core.Get(ctx, q, &d, "SELECT "+DeskCols+" FROM desks WHERE id = ?", id)
	if errors.Is(err, sql.ErrNoRows) {
		return d, fmt.Errorf("desk %s: %w: no such desk (see desks list)", id, core.ErrNotFound)
	}
	return d, o.classify(err)
}

// DisableDesk stops a counter: its login is refused, and so is every call
// it makes.
func (o *Store) DisableDesk(ctx context.Context, id string, who core.Identity) error {
	return o.deskChange(ctx, id, "disabled", 0, who)
}

// EnableDesk lets a disabled counter work again.
func (o *Store) EnableDesk(ctx context.Context, id string, who core.Identity) error {
	return o.deskChange(ctx, id, "enabled", 0, who)
}

// UnlockDesk ends a counter's lock-out; the refused serials before it no
// longer count.
func (o *Store) UnlockDesk(ctx context.Context, id string, who core.Identity) error {
	return o.deskChange(ctx, id, "unlocked", 0, who)
}

// SetDeskPassword gives a counter's login a new password (a shared
// ledger's desks have logins; a file's have none), and records that it
// changed.
func (o *Store) SetDeskPassword(ctx context.Context, id, password string, who core.Identity) error {
	tx, err := o.write(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	d, err := o.readDesk(ctx, tx, id)
	switch {
	case err != nil:
		return err
	case d.Role == nil:
		return fmt.Errorf("desk %s has no login: a file's desks have none (a shared ledger's get one with desks add)", id)
	}
	e := core.Entry{Kind: "desk", Desk: id, State: "password", Amount: d.Limit, Operator: who.Operator}
	if err := o.appendJournal(ctx, tx, &e); err != nil {
		return err
	}
	if err := o.E.Password(ctx, tx, *d.Role, password); err != nil {
		return o.classify(err)
	}
	return o.classify(tx.Commit())
}

// SetDeskLimit changes a counter's payout limit.
func (o *Store) SetDeskLimit(ctx context.Context, id string, limit int, who core.Identity) error {
	return o.deskChange(ctx, id, "limit", limit, who)
}
