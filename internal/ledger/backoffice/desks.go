package backoffice

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"vegas-desk/internal/ledger/core"
)

// AddDesk adds a counter with its payout limit: a row, and its entry. A
// counter asks through a validation server (vegas-desk serve), with a
// desk file the back office writes (server.WriteDeskFile); it has no
// login of its own.
func (o *Store) AddDesk(ctx context.Context, id string, limit int, who core.Identity) (core.Desk, error) {
	if err := core.CheckRealDeskID(id); err != nil {
		return core.Desk{}, err
	}
	return o.addDesk(ctx, id, limit, who)
}

// AddTestDesk adds a load test's i-th desk (core.TestDesk), a name no
// real desk can take (vegas-desk load).
func (o *Store) AddTestDesk(ctx context.Context, i, limit int, who core.Identity) (core.Desk, error) {
	if i < 1 {
		return core.Desk{}, fmt.Errorf("a load test's desk %d: they count from 1", i)
	}
	return o.addDesk(ctx, core.TestDesk(i), limit, who)
}

func (o *Store) addDesk(ctx context.Context, id string, limit int, who core.Identity) (core.Desk, error) {
	if limit < 0 {
		return core.Desk{}, fmt.Errorf("payout limit %d: give 0 or more euros", limit)
	}
	tx, err := o.write(ctx)
	if err != nil {
		return core.Desk{}, err
	}
	defer tx.Rollback()
	if err := o.insertDesk(ctx, tx, id, limit, who); err != nil {
		return core.Desk{}, err
	}
	if err := tx.Commit(); err != nil {
		return core.Desk{}, o.E.Classify(err)
	}
	return core.Desk{ID: id, Limit: limit}, nil
}

// insertDesk adds desk id in tx: its row and its 'added' entry.
func (o *Store) insertDesk(ctx context.Context, tx core.Querier, id string, limit int, who core.Identity) error {
	var n int
	if err := core.Get(ctx, tx, &n, "SELECT count(*) FROM desks WHERE id = ?", id); err != nil {
		return o.E.Classify(err)
	}
	if n > 0 {
		return fmt.Errorf("desk %s exists already (see desks list)", id)
	}
	e := core.Entry{Kind: "desk", Desk: id, State: "added", Amount: limit, Operator: who.Operator}
	if err := o.appendJournal(ctx, tx, &e); err != nil {
		return err
	}
	_, err := core.Exec(ctx, tx, "INSERT INTO desks (id, payout_limit, disabled) VALUES (?, ?, 0)", id, limit)
	return o.E.Classify(err)
}

// NewDesk is a desk AddDesks adds, with the certificate it accepts (its
// serial in lowercase hex and its expiry).
type NewDesk struct {
	ID       string
	Limit    int
	Serial   string
	NotAfter time.Time
}

// AddDesks adds desks, each with the one certificate it accepts, in one
// transaction: every one of them, or, on the first error, none (desks add
// --count). Each desk's entries are AddDesk's and AcceptDeskCert's, in that
// order, desk after desk; the rows go in multi-row inserts, and the
// entries in one append of them all where the engine has one (AppendMany).
func (o *Store) AddDesks(ctx context.Context, desks []NewDesk, who core.Identity) error {
	entries := make([]*core.Entry, 0, 2*len(desks))
	for _, d := range desks {
		if err := core.CheckRealDeskID(d.ID); err != nil {
			return err
		}
		if d.Limit < 0 {
			return fmt.Errorf("payout limit %d: give 0 or more euros", d.Limit)
		}
		if err := checkSerial(d.Serial); err != nil {
			return err
		}
		entries = append(entries,
			&core.Entry{Kind: "desk", Desk: d.ID, State: "added", Amount: d.Limit, Operator: who.Operator},
			&core.Entry{Kind: "desk", Desk: d.ID, State: "certified", Detail: d.Serial + " " + core.FormatTime(d.NotAfter), Operator: who.Operator})
	}
	tx, err := o.write(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var existing []string
	if err := core.Select(ctx, tx, &existing, "SELECT id FROM desks"); err != nil {
		return o.E.Classify(err)
	}
	exists := make(map[string]bool, len(existing))
	for _, id := range existing {
		exists[id] = true
	}
	for _, d := range desks {
		if exists[d.ID] {
			return fmt.Errorf("desk %s exists already (see desks list)", d.ID)
		}
		exists[d.ID] = true // twice in desks: refused the same
	}
	if err := o.appendMany(ctx, tx, entries); err != nil {
		return err
	}
	const rows = 500
	for i := 0; i < len(desks); i += rows {
		chunk := desks[i:min(i+rows, len(desks))]
		var ds, cs []any
		for _, d := range chunk {
			ds = append(ds, d.ID, d.Limit)
			cs = append(cs, d.ID, d.Serial, core.FormatTime(d.NotAfter))
		}
		if _, err := core.Exec(ctx, tx, "INSERT INTO desks (id, payout_limit, disabled) VALUES "+
			strings.TrimSuffix(strings.Repeat("(?, ?, 0), ", len(chunk)), ", "), ds...); err != nil {
			return o.E.Classify(err)
		}
		if _, err := core.Exec(ctx, tx, "INSERT INTO desk_certs (desk, serial, not_after) VALUES "+
			strings.TrimSuffix(strings.Repeat("(?, ?, ?), ", len(chunk)), ", "), cs...); err != nil {
			return o.E.Classify(err)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return o.E.Classify(tx.Commit())
}

// appendMany appends es in order in tx, as appendJournal appends each: in
// one append of them all where the engine has one.
func (o *Store) appendMany(ctx context.Context, tx core.Querier, es []*core.Entry) error {
	for _, e := range es {
		if err := e.CheckTexts(); err != nil {
			return err
		}
		if e.At.IsZero() && o.Now != nil {
			e.At = o.Now()
		}
	}
	if m, ok := o.E.(interface {
		AppendMany(context.Context, core.Querier, []*core.Entry) error
	}); ok {
		if err := m.AppendMany(ctx, tx, es); err != nil {
			return fmt.Errorf("journal: %w", o.E.Classify(err))
		}
		return nil
	}
	for _, e := range es {
		if err := o.appendJournal(ctx, tx, e); err != nil {
			return err
		}
	}
	return nil
}

// Desks lists the counters, in natural order (core.NaturalCompare).
func (o *Store) Desks(ctx context.Context) ([]core.Desk, error) {
	var rows []core.DeskRow
	if err := core.Select(ctx, o.E.Pool(), &rows, "SELECT id, payout_limit, disabled, locked_until, unlocked_at FROM desks ORDER BY id"); err != nil {
		return nil, o.E.Classify(err)
	}
	out := make([]core.Desk, len(rows))
	for i, r := range rows {
		out[i] = o.deskOf(r)
	}
	// In the order a person reads them: load-2 before load-10.
	slices.SortFunc(out, func(a, b core.Desk) int { return core.NaturalCompare(a.ID, b.ID) })
	return out, nil
}

// DeskOf is the desk of its row.
func DeskOf(r core.DeskRow) core.Desk {
	return core.Desk{ID: r.ID, Limit: r.Limit, Disabled: r.Disabled == 1, LockedUntil: core.ParseTime(r.LockedUntil),
		UnlockedAt: core.ParseTime(r.UnlockedAt)}
}

// DeskCols are a desks row's columns (core.DeskRow).
const DeskCols = "id, payout_limit, disabled, locked_until, unlocked_at"

// DeskState is desk id's row, its lock-out the one it keeps (core.Lock),
// and whether it accepts the certificate of serial cert (desk_certs), or
// ErrNotFound: one statement, a row and a key's read.
func (o *Store) DeskState(ctx context.Context, id, cert string) (core.Desk, bool, error) {
	var r struct {
		core.DeskRow
		Accepts bool `db:"accepts"`
	}
	err := core.Get(ctx, o.E.Pool(), &r, "SELECT "+DeskCols+`,
		EXISTS (SELECT 1 FROM desk_certs c WHERE c.desk = desks.id AND c.serial = ?) AS accepts FROM desks WHERE id = ?`, cert, id)
	if errors.Is(err, sql.ErrNoRows) {
		return core.Desk{}, false, fmt.Errorf("desk %s: %w: no such desk (see desks list)", id, core.ErrNotFound)
	}
	return o.deskOf(r.DeskRow), r.Accepts, o.E.Classify(err)
}

// deskOf is DeskOf, a lock-out over by now none.
func (o *Store) deskOf(r core.DeskRow) core.Desk {
	d := DeskOf(r)
	if d.LockedAt(o.now()) == nil {
		d.LockedUntil = time.Time{}
	}
	return d
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
		stmt = "UPDATE desks SET locked_until = '', unlocked_at = ?, guesses = '' WHERE id = ?"
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
		return o.E.Classify(err)
	}
	return o.E.Classify(tx.Commit())
}

// readDesk reads desk id's row, or ErrNotFound.
func (o *Store) readDesk(ctx context.Context, q core.Querier, id string) (core.DeskRow, error) {
	var d core.DeskRow
	err := core.Get(ctx, q, &d, "SELECT "+DeskCols+" FROM desks WHERE id = ?", id)
	if errors.Is(err, sql.ErrNoRows) {
		return d, fmt.Errorf("desk %s: %w: no such desk (see desks list)", id, core.ErrNotFound)
	}
	return d, o.E.Classify(err)
}

// DisableDesk stops a counter: a validation server reads the desk's row
// at each question, and refuses every one from then on.
func (o *Store) DisableDesk(ctx context.Context, id string, who core.Identity) error {
	return o.deskChange(ctx, id, "disabled", 0, who)
}

// EnableDesk lets a disabled counter work again.
func (o *Store) EnableDesk(ctx context.Context, id string, who core.Identity) error {
	return o.deskChange(ctx, id, "enabled", 0, who)
}

// UnlockDesk ends a counter's lock-out; the guesses before it no longer
// count.
func (o *Store) UnlockDesk(ctx context.Context, id string, who core.Identity) error {
	return o.deskChange(ctx, id, "unlocked", 0, who)
}

// SetDeskLimit changes a counter's payout limit.
func (o *Store) SetDeskLimit(ctx context.Context, id string, limit int, who core.Identity) error {
	return o.deskChange(ctx, id, "limit", limit, who)
}
