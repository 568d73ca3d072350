package ui

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"vegas-desk/internal/ledger"
)

// The ledger's rules in Réglages: the emission's dates (local days: on
// sale from 00:00, end of sale and deadline until the end of the day), the
// identity threshold, the retailers' commission and the days from the end
// of sale to the deadline when none is given. They are the back office's:
// a counter on a validation server does not see them.

// buildRules makes the rules' fields and their section.
func (s *settingsScreen) buildRules() {
	s.onSale, s.endSale, s.deadline = s.d.newDateEntry(), s.d.newDateEntry(), s.d.newDateEntry()
	s.threshold, s.rate, s.claimDays = s.d.newEntry(), s.d.newEntry(), s.d.newEntry()
	s.onSale.SetPlaceHolder(lang.L("day DD/MM/YYYY"))
	s.endSale.SetPlaceHolder(lang.L("day DD/MM/YYYY"))
	s.deadline.SetPlaceHolder(lang.L("default: end of sale + claim days"))
	whole := func(v string) error {
		if n, err := strconv.Atoi(strings.TrimSpace(v)); err != nil || n < 1 {
			return errors.New(lang.L("give a whole number, 1 or more"))
		}
		return nil
	}
	s.threshold.Validator = whole
	s.claimDays.Validator = whole
	s.rate.Validator = func(v string) error {
		_, err := parsePercent(v)
		return err
	}
	form := widget.NewForm(
		widget.NewFormItem(lang.L("On sale from"), s.onSale),
		widget.NewFormItem(lang.L("End of sale"), s.endSale),
		widget.NewFormItem(lang.L("Claim deadline"), s.deadline),
		widget.NewFormItem(lang.L("Claim days after the end of sale"), s.claimDays),
		widget.NewFormItem(lang.L("Identity from (€)"), s.threshold),
		widget.NewFormItem(lang.L("Retailers' commission (%)"), s.rate),
	)
	save := s.d.button(lang.L("Save the rules in the ledger"), theme.DocumentSaveIcon(), s.saveRules)
	title := widget.NewLabelWithStyle(lang.L("The ledger's rules (game {{.Game}})", map[string]any{"Game": DefaultGame}),
		fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	s.rules = container.NewVBox(widget.NewSeparator(), title, form, container.NewHBox(save))
}

// parsePercent reads a percentage, "5", "5,5" or "5.25", as hundredths of
// a percent.
func parsePercent(v string) (int, error) {
	v = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(strings.ReplaceAll(v, ",", ".")), "%"))
	whole, frac, _ := strings.Cut(v, ".")
	w, err1 := strconv.Atoi(whole)
	f, err2 := strconv.Atoi((frac + "00")[:2])
	if err1 != nil || err2 != nil || len(frac) > 2 || w < 0 || w*100+f > 10000 {
		return 0, errors.New(lang.L("give a percentage from 0 to 100, like 5 or 5,5"))
	}
	return w*100 + f, nil
}

// percentText writes hundredths of a percent as the field shows them: "5",
// "5,5".
func percentText(r int) string {
	s := strconv.Itoa(r / 100)
	if f := r % 100; f != 0 {
		s += strings.TrimSuffix(fmt.Sprintf(",%02d", f), "0")
	}
	return s
}

// loadRules shows the open ledger's rules, or hides them when this login
// may not set them.
func (s *settingsScreen) loadRules() {
	l := s.d.ledger
	if l == nil || l.CounterDesk() != "" || l.ReadOnly() {
		s.rules.Hide()
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	em, err := l.Emission(ctx, DefaultGame)
	if err != nil {
		s.rules.Hide()
		return
	}
	for _, f := range []struct {
		e *dateEntry
		t time.Time
	}{{s.onSale, em.OnSale}, {s.endSale, em.EndOfSale}, {s.deadline, em.Deadline}} {
		if f.t.IsZero() {
			f.e.SetDate(nil)
			f.e.SetText("")
			continue
		}
		t := f.t.Local()
		f.e.SetDate(&t)
	}
	for _, f := range []struct {
		key string
		e   *keyEntry
	}{{ledger.SettingIdentityThreshold, s.threshold}, {ledger.SettingCommission, s.rate}, {ledger.SettingClaimDays, s.claimDays}} {
		v, err := l.Setting(ctx, f.key)
		if err != nil {
			continue
		}
		if f.key == ledger.SettingCommission {
			f.e.SetText(percentText(v))
		} else {
			f.e.SetText(strconv.Itoa(v))
		}
	}
	s.rules.Show()
}

// dayOf is the day a date entry holds, or the zero time when it is empty;
// last gives its last instant.
func dayOf(e *dateEntry, last bool) (time.Time, error) {
	if strings.TrimSpace(e.Text) == "" {
		return time.Time{}, nil
	}
	t, err := time.ParseInLocation(dayLayout, strings.TrimSpace(e.Text), time.Local)
	if err != nil {
		return time.Time{}, fmt.Errorf("%s: %q", lang.L("give the day as DD/MM/YYYY"), e.Text)
	}
	if last {
		t = time.Date(t.Year(), t.Month(), t.Day(), 23, 59, 59, 999_999_999, time.Local)
	}
	return t, nil
}

// saveRules writes the rules into the ledger's journal: the settings that
// changed, then the dates (an empty deadline takes the claim days' default).
func (s *settingsScreen) saveRules() {
	l := s.d.ledger
	if l == nil {
		return
	}
	for _, e := range []*keyEntry{s.threshold, s.rate, s.claimDays} {
		if err := e.Validate(); err != nil {
			s.d.showError(err)
			return
		}
	}
	var em ledger.Emission
	var err error
	if em.OnSale, err = dayOf(s.onSale, false); err == nil {
		if em.EndOfSale, err = dayOf(s.endSale, true); err == nil {
			em.Deadline, err = dayOf(s.deadline, true)
		}
	}
	if err != nil {
		s.d.showError(err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	who := s.d.identity()
	rate, _ := parsePercent(s.rate.Text)
	threshold, _ := strconv.Atoi(strings.TrimSpace(s.threshold.Text))
	days, _ := strconv.Atoi(strings.TrimSpace(s.claimDays.Text))
	for _, f := range []struct {
		key string
		v   int
	}{{ledger.SettingIdentityThreshold, threshold}, {ledger.SettingCommission, rate}, {ledger.SettingClaimDays, days}} {
		if cur, err := l.Setting(ctx, f.key); err == nil && cur == f.v {
			continue // nothing to record
		}
		if err := l.SetSetting(ctx, f.key, f.v, who); err != nil {
			s.d.showError(err)
			return
		}
	}
	cur, err := l.Emission(ctx, DefaultGame)
	if err == nil && !(cur.OnSale.Equal(em.OnSale) && cur.EndOfSale.Equal(em.EndOfSale) && cur.Deadline.Equal(em.Deadline)) {
		if _, err = l.SetEmission(ctx, DefaultGame, em, who); err != nil {
			s.d.showError(err)
			return
		}
	}
	if err != nil {
		s.d.showError(err)
		return
	}
	s.loadRules()
	s.d.inform(lang.L("Settings"), lang.L("The rules are saved in the ledger."))
}
