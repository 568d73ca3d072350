package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// DefaultClaimDays is the claim period after the end of sale, unless the
// claim_days setting says otherwise: setting an end-of-sale date without a
// deadline sets the deadline this many days later.
const DefaultClaimDays = 60

// Emission is a game's dates; a zero time is not set. Claims are refused
// before OnSale and after Deadline.
type Emission struct {
	Game      int
	Name      string
	Price     int // euros
	OnSale    time.Time
	EndOfSale time.Time
	Deadline  time.Time
}

func (em emission) Emission(code int, name string, price int) Emission {
	return Emission{Game: code, Name: name, Price: price, OnSale: parseTime(em.OnSale),
		EndOfSale: parseTime(em.EndOfSale), Deadline: parseTime(em.Deadline)}
}

func instantText(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return formatTime(t)
}

// Emission returns game code's dates.
func (l *Ledger) Emission(ctx context.Context, code int) (Emission, error) {
	if err := l.backOffice("emission"); err != nil {
		return Emission{}, err
	}
	var row struct {
		Name  string `db:"name"`
		Price int    `db:"price"`
		emission
	}
	err := get(ctx, l.r, &row, "SELECT name, price, on_sale, end_of_sale, deadline FROM games WHERE code = ?", code)
	if err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return Emission{}, fmt.Errorf("game %d: %w: the ledger knows no such game", code, ErrNotFound)
		}
		return Emission{}, l.classify(err)
	}
	return row.emission.Emission(code, row.Name, row.Price), nil
}

// SetEmission sets game code's dates to em's (a zero date unsets it). A
// deadline left zero while an end of sale is given becomes the end of sale
// plus DefaultClaimDays. The dates must come in order.
func (l *Ledger) SetEmission(ctx context.Context, code int, em Emission, who Identity) (Emission, error) {
	if err := l.backOffice("set the emission's dates"); err != nil {
		return Emission{}, err
	}
	if em.Deadline.IsZero() && !em.EndOfSale.IsZero() {
		days, err := l.Setting(ctx, SettingClaimDays)
		if err != nil {
			return Emission{}, err
		}
		em.Deadline = em.EndOfSale.AddDate(0, 0, days)
	}
	switch {
	case !em.OnSale.IsZero() && !em.EndOfSale.IsZero() && em.EndOfSale.Before(em.OnSale):
		return Emission{}, errors.New("the end of sale comes before the on-sale date: give dates in order")
	case !em.EndOfSale.IsZero() && !em.Deadline.IsZero() && em.Deadline.Before(em.EndOfSale):
		return Emission{}, errors.New("the claim deadline comes before the end of sale: give dates in order")
	case !em.OnSale.IsZero() && !em.Deadline.IsZero() && em.Deadline.Before(em.OnSale):
		return Emission{}, errors.New("the claim deadline comes before the on-sale date: give dates in order")
	}
	stored := emission{OnSale: instantText(em.OnSale), EndOfSale: instantText(em.EndOfSale), Deadline: instantText(em.Deadline)}
	tx, err := l.begin(ctx)
	if err != nil {
		return Emission{}, err
	}
	defer tx.Rollback()
	res, err := execute(ctx, tx, "UPDATE games SET on_sale = ?, end_of_sale = ?, deadline = ? WHERE code = ?",
		stored.OnSale, stored.EndOfSale, stored.Deadline, code)
	if err != nil {
		return Emission{}, l.classify(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return Emission{}, fmt.Errorf("game %d: %w: the ledger knows no such game", code, ErrNotFound)
	}
	e := entry{Kind: "emission", Game: code, Desk: who.Desk, Operator: who.Operator, Detail: emissionText(stored)}
	if err := l.appendJournal(ctx, tx, &e); err != nil {
		return Emission{}, err
	}
	if err := tx.Commit(); err != nil {
		return Emission{}, l.classify(err)
	}
	return l.Emission(ctx, code)
}

// Settings a ledger keeps, with their defaults.
const (
	// SettingIdentityThreshold: the prize, in euros, from which a payment
	// records the winner's identity (default 5,000).
	SettingIdentityThreshold = "identity_threshold"
	// SettingCommission: the retailer's commission on sales, in hundredths
	// of a percent (default 500 = 5 %).
	SettingCommission = "commission"
	// SettingClaimDays: the days from the end of sale to the claim
	// deadline when none is given (default DefaultClaimDays).
	SettingClaimDays = "claim_days"
)

var settingDefaults = map[string]int{SettingIdentityThreshold: defaultIdentityThreshold, SettingCommission: 500,
	SettingClaimDays: DefaultClaimDays}

// Setting returns a setting's value.
func (l *Ledger) Setting(ctx context.Context, key string) (int, error) {
	def, ok := settingDefaults[key]
	if !ok {
		return 0, fmt.Errorf("setting %q: no such setting", key)
	}
	if err := l.backOffice("settings"); err != nil {
		return 0, err
	}
	var v string
	err := get(ctx, l.r, &v, "SELECT value FROM settings WHERE key = ?", key)
	if errors.Is(err, sql.ErrNoRows) {
		return def, nil
	}
	if err != nil {
		return 0, l.classify(err)
	}
	return strconv.Atoi(v)
}

// SetSetting changes a setting, in the journal.
func (l *Ledger) SetSetting(ctx context.Context, key string, value int, who Identity) error {
	if _, ok := settingDefaults[key]; !ok {
		return fmt.Errorf("setting %q: no such setting", key)
	}
	if value < 0 || key == SettingCommission && value > 10000 || key == SettingClaimDays && value > 3660 {
		return fmt.Errorf("setting %s = %d: out of range", key, value)
	}
	if err := l.backOffice("settings"); err != nil {
		return err
	}
	tx, err := l.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	e := entry{Kind: "setting", Desk: who.Desk, Operator: who.Operator, Reason: key, Detail: strconv.Itoa(value)}
	if err := l.appendJournal(ctx, tx, &e); err != nil {
		return err
	}
	if _, err := execute(ctx, tx, "INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
		key, e.Detail); err != nil {
		return l.classify(err)
	}
	return l.classify(tx.Commit())
}
