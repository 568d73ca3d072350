package backoffice

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"vegas-desk/internal/ledger/core"
)

// Emission returns game code's dates.
func (o *Store) Emission(ctx context.Context, code int) (core.Emission, error) {
	var row struct {
		Name  string `db:"name"`
		Price int    `db:"price"`
		core.Dates
	}
	err := core.Get(ctx, o.E.Pool(), &row, "SELECT name, price, on_sale, end_of_sale, deadline FROM games WHERE code = ?", code)
	if err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return core.Emission{}, fmt.Errorf("game %d: %w: the ledger knows no such game", code, core.ErrNotFound)
		}
		return core.Emission{}, o.E.Classify(err)
	}
	return row.Dates.Emission(code, row.Name, row.Price), nil
}

// SetEmission sets game code's dates to em's (a zero date unsets it). A
// deadline left zero while an end of sale is given becomes the end of sale
// plus DefaultClaimDays. The dates must come in order.
func (o *Store) SetEmission(ctx context.Context, code int, em core.Emission, who core.Identity) (core.Emission, error) {
	if em.Deadline.IsZero() && !em.EndOfSale.IsZero() {
		days, err := o.Setting(ctx, core.SettingClaimDays)
		if err != nil {
			return core.Emission{}, err
		}
		em.Deadline = em.EndOfSale.AddDate(0, 0, days)
	}
	switch {
	case !em.OnSale.IsZero() && !em.EndOfSale.IsZero() && em.EndOfSale.Before(em.OnSale):
		return core.Emission{}, errors.New("the end of sale comes before the on-sale date: give dates in order")
	case !em.EndOfSale.IsZero() && !em.Deadline.IsZero() && em.Deadline.Before(em.EndOfSale):
		return core.Emission{}, errors.New("the claim deadline comes before the end of sale: give dates in order")
	case !em.OnSale.IsZero() && !em.Deadline.IsZero() && em.Deadline.Before(em.OnSale):
		return core.Emission{}, errors.New("the claim deadline comes before the on-sale date: give dates in order")
	}
	stored := core.Dates{OnSale: core.InstantText(em.OnSale), EndOfSale: core.InstantText(em.EndOfSale), Deadline: core.InstantText(em.Deadline)}
	tx, err := o.write(ctx)
	if err != nil {
		return core.Emission{}, err
	}
	defer tx.Rollback()
	res, err := core.Exec(ctx, tx, "UPDATE games SET on_sale = ?, end_of_sale = ?, deadline = ? WHERE code = ?",
		stored.OnSale, stored.EndOfSale, stored.Deadline, code)
	if err != nil {
		return core.Emission{}, o.E.Classify(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return core.Emission{}, fmt.Errorf("game %d: %w: the ledger knows no such game", code, core.ErrNotFound)
	}
	e := core.Entry{Kind: "emission", Game: code, Desk: who.Desk, Operator: who.Operator, Detail: core.EmissionText(stored)}
	if err := o.appendJournal(ctx, tx, &e); err != nil {
		return core.Emission{}, err
	}
	if err := tx.Commit(); err != nil {
		return core.Emission{}, o.E.Classify(err)
	}
	return o.Emission(ctx, code)
}

// Setting returns a setting's value.
func (o *Store) Setting(ctx context.Context, key string) (int, error) {
	def, ok := core.SettingDefaults[key]
	if !ok {
		return 0, fmt.Errorf("setting %q: no such setting", key)
	}
	var v string
	err := core.Get(ctx, o.E.Pool(), &v, "SELECT value FROM settings WHERE key = ?", key)
	if errors.Is(err, sql.ErrNoRows) {
		return def, nil
	}
	if err != nil {
		return 0, o.E.Classify(err)
	}
	return strconv.Atoi(v)
}

// SetSetting changes a setting, in the journal.
func (o *Store) SetSetting(ctx context.Context, key string, value int, who core.Identity) error {
	if _, ok := core.SettingDefaults[key]; !ok {
		return fmt.Errorf("setting %q: no such setting", key)
	}
	if value < 0 || key == core.SettingCommission && value > 10000 || key == core.SettingClaimDays && value > 3660 {
		return fmt.Errorf("setting %s = %d: out of range", key, value)
	}
	tx, err := o.write(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	e := core.Entry{Kind: "setting", Desk: who.Desk, Operator: who.Operator, Reason: key, Detail: strconv.Itoa(value)}
	if err := o.appendJournal(ctx, tx, &e); err != nil {
		return err
	}
	if _, err := core.Exec(ctx, tx, "INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
		key, e.Detail); err != nil {
		return o.E.Classify(err)
	}
	return o.E.Classify(tx.Commit())
}
