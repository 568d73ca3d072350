package ui

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger"
)

// settingsScreen is Réglages: the ledger file, this desk's id and operator,
// the payout limit and the language, kept in the app's preferences.
type settingsScreen struct {
	d       *desk
	content fyne.CanvasObject

	path     *widget.Label
	desk     *widget.Entry
	operator *widget.Entry
	limit    *widget.Entry
	language *widget.Select
}

func newSettingsScreen(d *desk) *settingsScreen {
	s := &settingsScreen{d: d}
	p := d.app.Preferences()
	who := d.identity()

	s.path = widget.NewLabel("")
	s.path.Wrapping = fyne.TextWrapBreak
	if d.ledger != nil {
		s.path.SetText(d.ledger.Path())
	}
	open := widget.NewButtonWithIcon(lang.L("Open a ledger…"), theme.FolderOpenIcon(), func() { s.choose(false) })
	create := widget.NewButtonWithIcon(lang.L("Create a ledger…"), theme.DocumentCreateIcon(), func() { s.choose(true) })

	s.desk = widget.NewEntry()
	s.desk.SetText(who.Desk)
	s.desk.Validator = notBlank(lang.L("give this desk's id"))
	s.operator = widget.NewEntry()
	s.operator.SetText(who.Operator)
	s.operator.Validator = notBlank(lang.L("give the operator's name"))
	s.limit = widget.NewEntry()
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
	s.language = widget.NewSelect(names, nil)
	cur := p.StringWithFallback(prefLanguage, "fr")
	for _, l := range languages {
		if l.Code == cur {
			s.language.SetSelected(l.Name)
		}
	}

	form := widget.NewForm(
		widget.NewFormItem(lang.L("Ledger file"), container.NewVBox(s.path, container.NewHBox(open, create))),
		widget.NewFormItem(lang.L("Desk id"), s.desk),
		widget.NewFormItem(lang.L("Operator"), s.operator),
		widget.NewFormItem(lang.L("Payout limit (€)"), s.limit),
		widget.NewFormItem(lang.L("Language"), s.language),
	)
	save := widget.NewButtonWithIcon(lang.L("Save"), theme.DocumentSaveIcon(), s.save)
	save.Importance = widget.HighImportance
	demo := widget.NewButtonWithIcon(lang.L("Serials to try…"), theme.InfoIcon(), func() { d.showSamples() })
	s.content = container.NewPadded(container.NewVBox(form, container.NewHBox(save, demo)))
	return s
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
	for _, e := range []*widget.Entry{s.desk, s.operator, s.limit} {
		if err := e.Validate(); err != nil {
			dialog.ShowError(err, s.d.win)
			return
		}
	}
	p := s.d.app.Preferences()
	p.SetString(prefDesk, strings.TrimSpace(s.desk.Text))
	p.SetString(prefOperator, strings.TrimSpace(s.operator.Text))
	n, _ := strconv.Atoi(strings.TrimSpace(s.limit.Text))
	p.SetInt(prefLimit, n)
	code := "fr"
	for _, l := range languages {
		if l.Name == s.language.Selected {
			code = l.Code
		}
	}
	if code != p.StringWithFallback(prefLanguage, "fr") {
		p.SetString(prefLanguage, code)
		setLanguage(code)
		s.d.build()
		s.d.tabs.SelectIndex(tabSettings)
		return
	}
	s.d.updateStatus()
}

// choose opens an existing ledger or creates one.
func (s *settingsScreen) choose(create bool) {
	if create {
		// Fyne's save dialog opens its writer, which truncates an existing
		// file, before its callback runs: a folder and a name never touch
		// a file before createAt has checked that there is none.
		fd := dialog.NewFolderOpen(func(dir fyne.ListableURI, err error) {
			if err != nil {
				s.d.showError(err)
				return
			}
			if dir != nil {
				s.askName(dir.Path())
			}
		}, s.d.win)
		fd.Show()
		return
	}
	fd := dialog.NewFileOpen(func(r fyne.URIReadCloser, err error) {
		if err != nil || r == nil {
			return
		}
		path := r.URI().Path()
		r.Close()
		s.openAt(path)
	}, s.d.win)
	fd.Show()
}

// askName asks for the file name of a new ledger in dir.
func (s *settingsScreen) askName(dir string) {
	name := widget.NewEntry()
	name.SetText("vegas-desk.db")
	name.Validator = func(v string) error {
		v = strings.TrimSpace(v)
		if v == "" || v == "." || v == ".." || strings.ContainsAny(v, `/\`) {
			return errors.New(lang.L("give a file name"))
		}
		return nil
	}
	items := []*widget.FormItem{
		widget.NewFormItem(lang.L("Folder"), widget.NewLabel(dir)),
		widget.NewFormItem(lang.L("File name"), name),
	}
	dialog.ShowForm(lang.L("Create a ledger"), lang.L("Create"), lang.L("Cancel"), items, func(ok bool) {
		if ok {
			s.createAt(filepath.Join(dir, strings.TrimSpace(name.Text)))
		}
	}, s.d.win)
}

// createAt creates a new ledger at path and uses it. It refuses a path
// where a file already exists: that file, maybe the open ledger, is left
// untouched.
func (s *settingsScreen) createAt(path string) {
	exists, err := storage.Exists(storage.NewFileURI(path))
	if err != nil {
		s.d.showError(err)
		return
	}
	if exists {
		dialog.ShowInformation(lang.L("Create a ledger"),
			lang.L("A file named {{.Path}} already exists: it was left untouched. Choose another name, or open it with Open a ledger….",
				map[string]any{"Path": path}), s.d.win)
		return
	}
	s.openAt(path)
}

// openAt opens the ledger at path (creating it when there is no file) and
// uses it.
func (s *settingsScreen) openAt(path string) {
	l, err := ledger.Open(path)
	if err != nil {
		dialog.ShowError(fmt.Errorf("%s %s: %w", lang.L("Cannot open the ledger"), path, err), s.d.win)
		return
	}
	s.d.useLedger(l)
	s.path.SetText(l.Path())
}

// firstRun offers a demonstration block when the ledger has none.
func (d *desk) firstRun() {
	if d.ledger == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	bs, err := d.ledger.Blocks(ctx)
	if err != nil || len(bs) > 0 {
		return
	}
	dialog.ShowConfirm(lang.L("Welcome to vegas-desk"),
		lang.L("This ledger holds no block yet. Generate a demonstration block of {{.Tickets}} tickets (game {{.Game}}) to try the counter?",
			map[string]any{"Game": DefaultGame, "Tickets": game.GroupDigits(game.BlockSize)}),
		func(ok bool) {
			if !ok {
				return
			}
			d.blocks.startGenerate(func(_ ledger.Block, err error) {
				if err == nil {
					d.showSamples()
				}
			})
		}, d.win)
}

// samples returns a loser and an unpaid winner of each tier of the
// ledger's first block (ledger.Samples), the smallest prizes first.
func samples(ctx context.Context, l *ledger.Ledger) ([]ledger.Ticket, error) {
	bs, err := l.Blocks(ctx)
	if err != nil || len(bs) == 0 {
		return nil, err
	}
	bl := bs[0]
	ts, err := l.Samples(ctx, bl.Game, bl.Number)
	if err != nil {
		return nil, err
	}
	out := ts[:0]
	for _, t := range ts {
		if t.Status != ledger.StatusPaid {
			out = append(out, t)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Prize < out[j].Prize })
	return out, nil
}

// showSamples shows a few serials to try: a loser, small and large winners.
// They are read in a goroutine; the dialog shows "…" meanwhile.
func (d *desk) showSamples() {
	if !d.needLedger() {
		return
	}
	l := d.ledger
	box := container.NewVBox(widget.NewLabel("…"))
	dlg := dialog.NewCustom(lang.L("Serials to try"), lang.L("Close"), container.NewGridWrap(fyne.NewSize(620, box.MinSize().Height), box), d.win)
	dlg.Show()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		ts, err := samples(ctx, l)
		onMain(func() {
			if d.closing || d.ledger != l {
				dlg.Hide()
				return
			}
			d.fillSamples(dlg, ts, err)
		})
	}()
}

// fillSamples replaces the samples dialog by the serials ts, or err.
func (d *desk) fillSamples(wait dialog.Dialog, ts []ledger.Ticket, err error) {
	wait.Hide()
	if err != nil {
		d.showError(err)
		return
	}
	if len(ts) == 0 {
		dialog.ShowInformation(lang.L("Serials to try"), lang.L("Generate a block first."), d.win)
		return
	}
	box := container.NewVBox(widget.NewLabel(lang.L("Type or paste one of these serials at the counter:")))
	var dlg dialog.Dialog
	for _, t := range ts {
		e := widget.NewEntry()
		e.SetText(t.Serial.String())
		e.TextStyle.Monospace = true
		label := lang.L("loser")
		if t.Prize > 0 {
			label = lang.L("winner") + " " + game.FormatAmount(t.Prize)
		}
		serial := t.Serial.String()
		try := widget.NewButton(lang.L("Check"), nil)
		box.Add(container.NewBorder(nil, nil, widget.NewLabel(label), try, e))
		try.OnTapped = func() {
			dlg.Hide()
			d.tabs.SelectIndex(tabCounter)
			d.counter.check(serial)
		}
	}
	dlg = dialog.NewCustom(lang.L("Serials to try"), lang.L("Close"), container.NewGridWrap(fyne.NewSize(620, box.MinSize().Height), box), d.win)
	dlg.Show()
}
