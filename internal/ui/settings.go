package ui

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger"
	"vegas-desk/internal/printer"
)

// settingsScreen is Réglages: the ledger file, this desk's id and operator,
// the payout limit and the language, kept in the app's preferences.
type settingsScreen struct {
	d       *desk
	content fyne.CanvasObject

	form     *widget.Form
	path     *widget.Label
	desk     *keyEntry
	operator *keyEntry
	shop     *keyEntry // the shop's name, on the receipts
	limit    *keyEntry
	// On a validation server's counter or a sealed ledger, the desk and the limit are
	// shown (fixed), not offered (the entries), and role says why.
	deskFixed, limitFixed *widget.Label
	role                  *widget.Label
	language              *keySelect
	demo                  *keyButton // the serials to try, on a demonstration ledger

	// The receipt printer: a CUPS queue, and whether each payment prints
	// its receipt at once.
	printer   *keySelect
	autoPrint *keyCheck
	printers  *widget.Label // what CUPS said when it could not list them

	// state says whether what is shown is in effect: the printer applies
	// at once, the fields and the language once saved.
	state *widget.Label
	said  string // the last change put in effect, and when
	// applied says said under state while state names fields unsaved: a
	// printer chosen is in effect whatever else waits for Enregistrer.
	applied *widget.Label

	// The ledger's rules, which the back office sets: the emission's
	// dates, the identity threshold, the commission and the claim days.
	rules                      *fyne.Container
	onSale, endSale, deadline  *dateEntry
	threshold, rate, claimDays *keyEntry

	backups *backupsView
}

func newSettingsScreen(d *desk) *settingsScreen {
	s := &settingsScreen{d: d}
	p := d.app.Preferences()
	who := d.identity()

	s.path = widget.NewLabel(lang.L("no ledger open"))
	s.path.Wrapping = fyne.TextWrapBreak
	if d.ledger != nil {
		s.path.SetText(d.ledger.Path())
	}
	open := d.button(lang.L("Open a ledger…"), theme.FolderOpenIcon(), func() { s.choose(false) })
	create := d.button(lang.L("Create a ledger…"), theme.DocumentCreateIcon(), func() { s.choose(true) })
	shared := d.button(lang.L("Shared ledger…"), theme.ComputerIcon(), s.askAddress)
	served := d.button(lang.L("Validation server…"), theme.ComputerIcon(), s.askServer)

	s.desk = d.newEntry()
	s.desk.SetText(who.Desk)
	s.desk.Validator = notBlank(lang.L("give this desk's id"))
	s.operator = d.newEntry()
	s.operator.SetText(who.Operator)
	s.operator.Validator = notBlank(lang.L("give the operator's name"))
	s.shop = d.newEntry()
	s.shop.SetText(p.String(prefShop))
	s.shop.SetPlaceHolder(lang.L("printed at the top of the receipts"))
	s.limit = d.newEntry()
	s.limit.SetText(strconv.Itoa(d.payoutLimit()))
	s.limit.Validator = func(v string) error {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 0 {
			return fmt.Errorf("%s", lang.L("give a whole number of euros"))
		}
		return nil
	}
	names := make([]string, len(languages))
	for i, l := range languages {
		names[i] = l.Name
	}
	s.language = d.newSelect(names, nil)
	cur := p.StringWithFallback(prefLanguage, defaultLanguage())
	for _, l := range languages {
		if l.Code == cur {
			s.language.SetSelected(l.Name)
		}
	}

	s.role = widget.NewLabel("")
	s.role.Importance = widget.LowImportance
	s.role.Wrapping = fyne.TextWrapWord
	s.role.Hide()
	s.deskFixed = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	s.limitFixed = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	s.deskFixed.Hide()
	s.limitFixed.Hide()
	s.backups = newBackupsView(d)

	s.printer = d.newSelect(nil, nil)
	s.printers = widget.NewLabel("")
	s.printers.Importance = widget.LowImportance
	s.printers.Wrapping = fyne.TextWrapWord
	s.printers.Hide()
	s.autoPrint = d.newCheck(lang.L("Print each payment's receipt at once"), nil)
	s.autoPrint.SetChecked(p.BoolWithFallback(prefAutoPrint, true))
	s.state = widget.NewLabel("")
	s.state.Wrapping = fyne.TextWrapWord
	s.applied = widget.NewLabel("")
	s.applied.Wrapping = fyne.TextWrapWord
	s.applied.Importance = widget.SuccessImportance
	s.applied.Hide()
	// The receipt printer applies at once.
	s.printer.OnChanged = func(string) { s.applyPrinter() }
	s.autoPrint.OnChanged = func(bool) { s.applyPrinter() }
	refresh := d.button("", theme.ViewRefreshIcon(), s.listPrinters)
	s.listPrinters()

	form := widget.NewForm(
		widget.NewFormItem(ledgerWord(d.ledger), container.NewVBox(s.path, container.NewHBox(open, create, shared, served))),
		widget.NewFormItem(lang.L("Backups"), s.backups.content),
		widget.NewFormItem(lang.L("Desk id"), container.NewStack(s.desk, s.deskFixed)),
		widget.NewFormItem(lang.L("Operator"), s.operator),
		widget.NewFormItem(lang.L("Shop name"), s.shop),
		widget.NewFormItem(lang.L("Payout limit (€)"), container.NewVBox(container.NewStack(s.limit, s.limitFixed), s.role)),
		widget.NewFormItem(lang.L("Receipt printer"), container.NewVBox(container.NewBorder(nil, nil, nil, refresh, s.printer), s.autoPrint, s.printers)),
		widget.NewFormItem(lang.L("Language"), s.language),
	)
	save := d.button(lang.L("Save"), theme.DocumentSaveIcon(), s.save)
	save.Importance = widget.HighImportance
	s.demo = d.button(lang.L("Serials to try…"), theme.InfoIcon(), d.showSamples)
	for _, e := range []*keyEntry{s.desk, s.operator, s.shop, s.limit} {
		e.OnChanged = func(string) { s.showState() }
	}
	s.language.OnChanged = func(string) { s.showState() }
	s.buildRules()
	s.form = form
	s.content = container.NewPadded(container.NewVScroll(container.NewVBox(form,
		container.NewBorder(nil, nil, container.NewHBox(save, s.demo), nil, container.NewVBox(s.state, s.applied)), s.rules)))
	s.loadRules()
	s.setRole()
	return s
}

// setRole shows the desk and the payout limit of the ledger open: on a
// validation server, those of the counter's desk file, and on a sealed counter
// ledger those sealed in it, neither of which the settings change: they
// are shown, not offered. The serials to try are offered on a
// demonstration ledger only.
func (s *settingsScreen) setRole() {
	l := s.d.ledger
	if w := ledgerWord(l); s.form.Items[0].Text != w {
		s.form.Items[0].Text = w
		s.form.Refresh()
	}
	if l != nil && l.CounterDesk() != "" {
		s.deskFixed.SetText(l.CounterDesk())
		s.limitFixed.SetText(game.FormatAmount(s.d.payoutLimit()))
		msg := lang.L("The desk and the payout limit of counter {{.Desk}}, which the back office sets on the ledger's server.", map[string]any{"Desk": l.CounterDesk()})
		if l.Kind() == "counter" {
			msg = lang.L("The desk and the payout limit sealed in counter {{.Desk}}'s ledger by the back office.", map[string]any{"Desk": l.CounterDesk()})
		}
		s.role.SetText(msg)
		for _, o := range []fyne.CanvasObject{s.deskFixed, s.limitFixed, s.role} {
			o.Show()
		}
		s.desk.Hide()
		s.limit.Hide()
	} else {
		for _, o := range []fyne.CanvasObject{s.deskFixed, s.limitFixed, s.role} {
			o.Hide()
		}
		s.desk.Show()
		s.limit.Show()
	}
	if l != nil && l.Demo() {
		s.demo.Show()
	} else {
		s.demo.Hide()
	}
	s.backups.show()
	s.d.counter.showSamplesButton()
}

// ledgerWord names what the ledger open is: a file, a validation server
// (a counter's), or the back office's shared ledger.
func ledgerWord(l *ledger.Ledger) string {
	switch {
	case l != nil && ledger.IsServer(l.Path()):
		return lang.L("Validation server")
	case l != nil && l.Shared():
		return lang.L("Shared ledger (back office)")
	}
	return lang.L("Ledger file")
}

// noPrinter is the printer choice that opens receipts as PDF instead.
func noPrinter() string { return lang.L("None: open the receipt as PDF") }

// selectedPrinter is the queue chosen on screen, "" for none.
func (s *settingsScreen) selectedPrinter() string {
	if q := s.printer.Selected; q != noPrinter() {
		return q
	}
	return ""
}

// listPrinters asks CUPS for its queues (lpstat -e), in a goroutine, and
// offers them with the one chosen, even when CUPS no longer lists it.
func (s *settingsScreen) listPrinters() {
	if s.printer.Selected == "" { // not shown yet: the one in effect
		s.setPrinters(nil, s.d.receiptPrinter(), "")
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		qs, err := printer.Queues(ctx)
		cancel()
		onMain(func() {
			chosen, msg := s.d.receiptPrinter(), "" // the one in effect
			switch {
			case err != nil && chosen == "":
				msg = lang.L("CUPS does not answer here: receipts open as PDF.")
			case err != nil:
				msg = printFailure(chosen, err)
			case len(qs) == 0:
				msg = lang.L("CUPS knows no printer here: add the receipt printer to CUPS, then refresh.")
			}
			s.setPrinters(qs, chosen, msg)
		})
	}()
}

// setPrinters offers queues and chosen, chosen selected, and says msg.
func (s *settingsScreen) setPrinters(queues []string, chosen, msg string) {
	opts := []string{noPrinter()}
	for _, q := range queues {
		if q != chosen {
			opts = append(opts, q)
		}
	}
	if chosen != "" {
		opts = append(opts, chosen)
		slices.Sort(opts[1:])
	}
	s.printer.SetOptions(opts)
	if chosen == "" {
		chosen = noPrinter()
	}
	s.printer.SetSelected(chosen)
	s.printers.SetText(msg)
	if msg == "" {
		s.printers.Hide()
	} else {
		s.printers.Show()
	}
	s.showAutoPrint()
}

// showAutoPrint offers to print each receipt at once only with a printer.
func (s *settingsScreen) showAutoPrint() {
	if s.selectedPrinter() == "" {
		s.autoPrint.Disable()
	} else {
		s.autoPrint.Enable()
	}
}

// applyPrinter puts the receipt printer chosen in effect at once, and
// says so.
func (s *settingsScreen) applyPrinter() {
	s.showAutoPrint()
	if s.printer.Selected == "" || s.state == nil {
		return // not built yet
	}
	p := s.d.app.Preferences()
	q, auto := s.selectedPrinter(), s.autoPrint.Checked
	if q == s.d.receiptPrinter() && auto == p.BoolWithFallback(prefAutoPrint, true) {
		return
	}
	p.SetString(prefPrinter, q)
	p.SetBool(prefAutoPrint, auto)
	msg := lang.L("Receipts open as PDF: in effect.")
	switch {
	case q != "" && auto:
		msg = lang.L("Each payment's receipt prints on {{.Printer}}: in effect.", map[string]any{"Printer": q})
	case q != "":
		msg = lang.L("Receipts print on {{.Printer}} when asked: in effect.", map[string]any{"Printer": q})
	}
	s.saidAt(msg)
}

// saidAt shows msg with the time, and what is still unsaved.
func (s *settingsScreen) saidAt(msg string) {
	s.said = time.Now().Format("15:04:05") + " · " + msg
	s.showState()
}

// unsaved names the fields shown that differ from what is in effect.
func (s *settingsScreen) unsaved() []string {
	p, who := s.d.app.Preferences(), s.d.identity()
	var out []string
	if s.desk.Visible() && strings.TrimSpace(s.desk.Text) != who.Desk {
		out = append(out, lang.L("Desk id"))
	}
	if strings.TrimSpace(s.operator.Text) != who.Operator {
		out = append(out, lang.L("Operator"))
	}
	if strings.TrimSpace(s.shop.Text) != p.String(prefShop) {
		out = append(out, lang.L("Shop name"))
	}
	if s.limit.Visible() && strings.TrimSpace(s.limit.Text) != strconv.Itoa(s.d.payoutLimit()) {
		out = append(out, lang.L("Payout limit (€)"))
	}
	if s.languageCode() != p.StringWithFallback(prefLanguage, defaultLanguage()) {
		out = append(out, lang.L("Language"))
	}
	return out
}

// showState says what is not saved yet, in the danger colour, else the
// last thing saved.
func (s *settingsScreen) showState() {
	if s.state == nil {
		return
	}
	if u := s.unsaved(); len(u) > 0 {
		s.state.Importance = widget.DangerImportance
		s.state.SetText(lang.L("Not saved, not in effect: {{.Fields}}. Save to apply.", map[string]any{"Fields": strings.Join(u, ", ")}))
		s.applied.SetText(s.said)
		if s.said != "" {
			s.applied.Show()
		}
		return
	}
	s.applied.Hide()
	s.state.Importance = widget.SuccessImportance
	s.state.SetText(s.said)
}

// languageCode is the code of the language selected.
func (s *settingsScreen) languageCode() string {
	for _, l := range languages {
		if l.Name == s.language.Selected {
			return l.Code
		}
	}
	return "fr"
}

// notBlank is a validator that refuses an empty or blank text with msg.
func notBlank(msg string) fyne.StringValidator {
	return func(v string) error {
		if strings.TrimSpace(v) == "" {
			return errors.New(msg)
		}
		return nil
	}
}

// save stores the settings; a change of language rebuilds the screens.
// Nothing is stored while a field is wrong: every claim records the desk
// and the operator.
func (s *settingsScreen) save() {
	for _, e := range []*keyEntry{s.desk, s.operator, s.limit} {
		if err := e.Validate(); err != nil {
			s.d.showError(err)
			return
		}
	}
	p := s.d.app.Preferences()
	if s.desk.Visible() { // a served counter's desk and limit are the back office's
		p.SetString(prefDesk, strings.TrimSpace(s.desk.Text))
		n, _ := strconv.Atoi(strings.TrimSpace(s.limit.Text))
		p.SetInt(prefLimit, n)
	}
	p.SetString(prefOperator, strings.TrimSpace(s.operator.Text))
	p.SetString(prefShop, strings.TrimSpace(s.shop.Text))
	if code := s.languageCode(); code != p.StringWithFallback(prefLanguage, defaultLanguage()) {
		p.SetString(prefLanguage, code)
		setLanguage(code)
		s.d.build()
		s.d.tabs.SelectIndex(tabSettings)
		s.d.settings.saidAt(lang.L("Settings saved: in effect."))
		return
	}
	s.d.updateStatus()
	s.saidAt(lang.L("Settings saved: in effect."))
}
