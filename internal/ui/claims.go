package ui

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/core"
)

// claimsScreen is Paiements: the ledger's claims with filters, totals, a
// CSV export and voids, and the double payments (ledger.Case) to close.
type claimsScreen struct {
	d       *desk
	content fyne.CanvasObject

	day    *dateEntry
	desk   *keyEntry
	block  *keySelect
	table  *keyTable
	totals *widget.Label
	void   *keyButton
	// closeCase closes the selected payment's double payment by a decision.
	closeCase *keyButton
	// The papers: the selected payment's receipt, the day report of the
	// desk and day filtered (this desk's, today, by default), a settlement.
	receipt, day2, settle *keyButton

	claims   []ledger.Claim
	cases    map[int64]ledger.Case // the double payments, by either payment's number (the back office's)
	selected int                   // row in claims, -1 for none
	fitted   float32               // the width the columns were fitted to (fitColumns)
	// What fitColumns made of it: the void's column's width, each row's
	// height.
	voidWidth  float32
	rowHeights []float32
}

// claimColumns are the table's columns; the last, a void's reason, takes
// the width left (the block is in the serial: 531-0001-…). At 1024 px
// every column is in view.
var claimColumns = []struct {
	title string
	width float32
}{
	{"No.", 56}, {"Date", 130}, {"Serial", 312}, {"Amount", 72},
	{"Desk", 70}, {"Operator", 84}, {"Method", 76}, {"Voided", 160},
}

// voidColumn is the column of a void's reason, which wraps.
const voidColumn = 7

// claimsLayout lays out the payments table across its whole width: the
// void's column takes what the others leave, and a voided row is as tall
// as its reason needs.
type claimsLayout struct{ c *claimsScreen }

func (l claimsLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	l.c.fitColumns(size.Width)
	for _, o := range objs {
		o.Move(fyne.NewPos(0, 0))
		o.Resize(size)
	}
}

func (l claimsLayout) MinSize(objs []fyne.CanvasObject) fyne.Size { return objs[0].MinSize() }

func newClaimsScreen(d *desk) *claimsScreen {
	c := &claimsScreen{d: d, selected: -1}
	// The day as the table shows it, JJ/MM/AAAA, typed or picked.
	c.day = d.newDateEntry()
	c.day.SetPlaceHolder(lang.L("day DD/MM/YYYY"))
	c.day.OnChanged = func(*time.Time) { c.reload() }
	c.day.OnSubmitted = func(string) { c.reload() }
	c.desk = d.newEntry()
	c.desk.SetPlaceHolder(lang.L("desk"))
	c.desk.OnSubmitted = func(string) { c.reload() }
	c.block = d.newSelect(nil, func(string) { c.reload() })
	c.block.PlaceHolder = lang.L("all blocks")
	today := d.button(lang.L("Today"), nil, func() {
		now := time.Now()
		c.day.SetDate(&now)
	})
	all := d.button(lang.L("All"), nil, func() {
		c.day.SetDate(nil)
		c.desk.SetText("")
		c.block.ClearSelected()
		c.reload()
	})
	filter := d.button(lang.L("Filter"), theme.SearchIcon(), c.reload)

	c.table = d.newTable(
		func() (int, int) { return len(c.claims), len(claimColumns) },
		func() fyne.CanvasObject { return widget.NewLabel("") },
		func(id widget.TableCellID, o fyne.CanvasObject) {
			l := o.(*widget.Label)
			if id.Col == voidColumn {
				l.Wrapping = fyne.TextWrapWord
			} else {
				l.Wrapping = fyne.TextWrapOff
				l.Truncation = fyne.TextTruncateEllipsis
			}
			l.SetText(c.cell(c.claims[id.Row], id.Col))
			if c.claims[id.Row].Voided {
				l.Importance = widget.LowImportance
			} else {
				l.Importance = widget.MediumImportance
			}
			l.Refresh()
		})
	// The claim's number is its first column: no row numbers beside it.
	c.table.ShowHeaderColumn = false
	c.table.CreateHeader = func() fyne.CanvasObject { return widget.NewLabel("") }
	c.table.UpdateHeader = func(id widget.TableCellID, o fyne.CanvasObject) {
		l := o.(*widget.Label)
		l.TextStyle.Bold = true
		if id.Col >= 0 {
			l.SetText(lang.L(claimColumns[id.Col].title))
		}
	}
	for i, col := range claimColumns {
		c.table.SetColumnWidth(i, col.width)
	}
	c.table.OnSelected = func(id widget.TableCellID) {
		c.selected = id.Row
		c.void.Enable()
		c.receipt.Enable()
		if k, ok := c.cases[c.claims[id.Row].Number]; ok && !k.Closed {
			c.closeCase.Enable()
		} else {
			c.closeCase.Disable()
		}
	}
	c.totals = widget.NewLabel("")
	c.totals.TextStyle.Bold = true
	c.void = d.button(lang.L("Void the payment…"), theme.DeleteIcon(), c.askVoid)
	c.void.Importance = widget.DangerImportance
	c.void.Disable()
	c.closeCase = d.button(lang.L("Close the case…"), theme.ConfirmIcon(), c.askCloseCase)
	c.closeCase.Disable()
	export := d.button(lang.L("Export CSV…"), theme.DocumentSaveIcon(), c.askExport)
	c.receipt = d.button(lang.L("Receipt…"), theme.DocumentPrintIcon(), func() {
		if c.selected >= 0 && c.selected < len(c.claims) {
			c.d.printReceipt(c.claims[c.selected].Number, nil)
		}
	})
	c.receipt.Disable()
	// By keys: the arrows select a payment, Enter opens its receipt, Tab
	// goes on to the buttons that act on it.
	c.table.rowKeys(func() int { return c.selected }, c.receipt.OnTapped)
	c.day2 = d.button(lang.L("Day report…"), theme.DocumentPrintIcon(), c.printDay)
	c.settle = d.button(lang.L("Settlement…"), theme.DocumentPrintIcon(), c.askSettlement)

	bar := container.NewHBox(widget.NewLabel(lang.L("Filters:")),
		container.NewGridWrap(fyne.NewSize(200, c.day.MinSize().Height), c.day), today,
		container.NewGridWrap(fyne.NewSize(130, c.desk.MinSize().Height), c.desk),
		container.NewGridWrap(fyne.NewSize(130, c.block.MinSize().Height), c.block), filter, all)
	// The totals on a line of their own, the buttons under them: neither
	// covers the other at 1024 px.
	bottom := container.NewVBox(c.totals, container.NewHBox(c.receipt, c.day2, c.settle, export, c.void, c.closeCase))
	// In the order Tab visits them: the filters, the table, the buttons
	// that act on the payment selected.
	c.content = container.NewPadded(container.New(layout.NewBorderLayout(bar, bottom, nil, nil),
		bar, container.New(claimsLayout{c}, c.table), bottom))
	return c
}

// fitColumns gives the void's column the width the others leave of width,
// and each voided row the height its reason needs there; once for a width
// and a list of claims.
func (c *claimsScreen) fitColumns(width float32) {
	if width == c.fitted {
		return
	}
	c.fitted = width
	rest := width - theme.ScrollBarSize() - 2*theme.Padding()
	for i, col := range claimColumns {
		if i != voidColumn {
			rest -= col.width + theme.Padding()
		}
	}
	w := max(claimColumns[voidColumn].width, rest)
	c.table.SetColumnWidth(voidColumn, w)
	c.voidWidth = w
	line := fyne.MeasureText("Ég", theme.TextSize(), fyne.TextStyle{})
	base := line.Height + 2*theme.InnerPadding()
	c.rowHeights = c.rowHeights[:0]
	for i, cl := range c.claims {
		h := base
		if note := c.cell(cl, voidColumn); note != "" {
			h = max(base, float32(voidLines(note, w))*line.Height+2*theme.InnerPadding())
		}
		c.table.SetRowHeight(i, h)
		c.rowHeights = append(c.rowHeights, h)
	}
}

// voidLines is the number of lines a void's text takes in a column of
// width w, broken at spaces as a wrapping label does.
func voidLines(text string, w float32) int {
	room := w - 2*theme.InnerPadding()
	lines, line := 1, ""
	for _, word := range strings.Fields(text) {
		try := strings.TrimSpace(line + " " + word)
		if line != "" && fyne.MeasureText(try, theme.TextSize(), fyne.TextStyle{}).Width > room {
			lines++
			try = word
		}
		line = try
	}
	return lines
}

// dayLayout is how the app writes a day, JJ/MM/AAAA, and how the day
// filter reads it (Fyne's date entry writes it so in French and English).
const dayLayout = "02/01/2006"

func claimCell(cl ledger.Claim, col int) string {
	switch col {
	case 0:
		return strconv.FormatInt(cl.Number, 10)
	case 1:
		return cl.At.Local().Format(dayLayout + " 15:04")
	case 2:
		return cl.Serial
	case 3:
		return game.FormatAmount(cl.Amount)
	case 4:
		return cl.Desk
	case 5:
		return cl.Operator
	case 6:
		return lang.L(cl.Method)
	case voidColumn:
		if cl.Voided {
			return lang.L("voided: {{.Reason}} ({{.By}})", map[string]any{"Reason": cl.VoidReason, "By": cl.VoidedBy})
		}
	}
	return ""
}

// cell is a cell's text: claimCell's, and in the last column a double
// payment's case after a void's reason.
func (c *claimsScreen) cell(cl ledger.Claim, col int) string {
	s := claimCell(cl, col)
	if k, ok := c.cases[cl.Number]; ok && col == voidColumn {
		s = strings.TrimSpace(s + " " + caseNote(k))
	}
	return s
}

// caseNote says a payment is half of a double payment, and its case's state.
func caseNote(k ledger.Case) string {
	if k.Closed {
		return lang.L("double payment: case {{.Case}} closed: {{.Decision}}", map[string]any{"Case": k.Number, "Decision": k.Decision})
	}
	return lang.L("double payment: case {{.Case}} open, {{.Amount}} to recover", map[string]any{"Case": k.Number, "Amount": game.FormatAmount(k.Amount)})
}

// filter reads the filter fields.
func (c *claimsScreen) filter() (ledger.ClaimFilter, error) {
	var f ledger.ClaimFilter
	if s := strings.TrimSpace(c.day.Text); s != "" {
		day, err := time.ParseInLocation(dayLayout, s, time.Local)
		if err != nil {
			return f, fmt.Errorf("%s: %q", lang.L("give the day as DD/MM/YYYY"), s)
		}
		f.Since, f.Until = day, day.AddDate(0, 0, 1)
	}
	f.Desk = strings.TrimSpace(c.desk.Text)
	if s := c.block.Selected; s != "" {
		fmt.Sscanf(s, "%d/%d", &f.Game, &f.Block)
	}
	return f, nil
}

// reload reads the claims again with the filters.
func (c *claimsScreen) reload() {
	if c.d.ledger == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if bs, err := c.d.ledger.Blocks(ctx); err == nil {
		opts := make([]string, len(bs))
		for i, b := range bs {
			opts[i] = fmt.Sprintf("%d/%d", b.Game, b.Number)
		}
		c.block.SetOptions(opts)
		if c.block.Selected != "" && !slices.Contains(opts, c.block.Selected) {
			// A block of another ledger: no filter (without a second reload).
			c.block.Selected = ""
			c.block.Refresh()
		}
	}
	f, err := c.filter()
	if err != nil {
		c.d.showError(err)
		return
	}
	cls, err := c.d.ledger.Claims(ctx, f)
	if err != nil {
		c.d.showError(err)
		return
	}
	c.claims, c.cases = cls, nil
	open := 0
	if c.d.ledger.CounterDesk() == "" { // the back office imports, and keeps the double payments
		ks, err := c.d.ledger.Cases(ctx)
		if err != nil {
			c.d.showError(err)
			return
		}
		c.cases = map[int64]ledger.Case{}
		for _, k := range ks {
			c.cases[k.First.Number], c.cases[k.Second.Number] = k, k
			if !k.Closed {
				open++
			}
		}
	}
	c.selected = -1
	c.void.Disable()
	c.receipt.Disable()
	c.closeCase.Disable()
	if c.d.ledger.CounterDesk() != "" {
		c.settle.Hide() // the back office's
		c.void.Hide()
	} else {
		c.settle.Show()
		c.void.Show()
	}
	if len(c.cases) > 0 {
		c.closeCase.Show()
	} else {
		c.closeCase.Hide()
	}
	c.table.UnselectAll()
	c.fitted = -1 // other claims: their rows are fitted again
	c.fitColumns(c.table.Size().Width)
	c.table.Refresh()
	n, sum, voided := 0, 0, 0
	for _, cl := range cls {
		if cl.Voided {
			voided++
			continue
		}
		n++
		sum += cl.Amount
	}
	text := totalsText(n, sum, voided)
	if open > 0 {
		text += " — " + lang.LocalizePlural("{{.Count}} open double payments", open, map[string]any{"Count": game.GroupDigits(open)})
	}
	c.totals.SetText(text)
}

// totalsText sums up the claims shown: "1 paiement, 3 € payés (0 annulé)".
// The counts take the plural forms of the language (translations/*.json).
func totalsText(n, sum, voided int) string {
	return lang.LocalizePlural("{{.Count}} payments", n, map[string]any{"Count": game.GroupDigits(n)}) + ", " +
		lang.L("{{.Sum}} paid", map[string]any{"Sum": game.FormatAmount(sum)}) +
		" (" + lang.LocalizePlural("{{.Count}} voided", voided, map[string]any{"Count": game.GroupDigits(voided)}) + ")"
}

// askVoid asks for a reason and a confirmation, then voids the selected
// claim.
func (c *claimsScreen) askVoid() {
	if c.selected < 0 || c.selected >= len(c.claims) {
		return
	}
	cl := c.claims[c.selected]
	if cl.Voided {
		c.d.inform(lang.L("Void"), lang.L("This payment is already voided."))
		return
	}
	reason := c.d.newDialogEntry()
	reason.SetPlaceHolder(lang.L("reason"))
	reason.Validator = func(s string) error {
		if strings.TrimSpace(s) == "" {
			return fmt.Errorf("%s", lang.L("give a reason"))
		}
		return nil
	}
	items := []*widget.FormItem{
		widget.NewFormItem(lang.L("Payment"), widget.NewLabel(fmt.Sprintf("%d · %s · %s", cl.Number, cl.Serial, game.FormatAmount(cl.Amount)))),
		widget.NewFormItem(lang.L("Reason"), reason),
	}
	// "Back", not "Cancel", beside "Void the payment": both would say
	// annuler in French.
	dlg := c.d.askMoney(lang.L("Void the payment"), widget.NewForm(items...), lang.L("Void"), lang.L("Back"), func(ok bool) {
		if ok {
			c.voidNow(cl.Number, reason.Text)
		}
	})
	dlg.Resize(fyne.NewSize(520, dlg.MinSize().Height))
	c.d.win.Canvas().Focus(reason)
}

func (c *claimsScreen) voidNow(id int64, reason string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.d.ledger.Void(ctx, id, strings.TrimSpace(reason), c.d.identity()); err != nil {
		c.d.showError(err)
	}
	c.reload()
}

// askCloseCase asks for the decision that closes the selected payment's
// double payment, then records it.
func (c *claimsScreen) askCloseCase() {
	if c.selected < 0 || c.selected >= len(c.claims) {
		return
	}
	k, ok := c.cases[c.claims[c.selected].Number]
	if !ok || k.Closed {
		return
	}
	decision := c.d.newDialogEntry()
	decision.SetPlaceHolder(lang.L("decision"))
	decision.Validator = func(s string) error {
		if strings.TrimSpace(s) == "" {
			return fmt.Errorf("%s", lang.L("say what was decided"))
		}
		return nil
	}
	payment := func(p ledger.Claim) string {
		s := fmt.Sprintf("%d · %s · %s · %s", p.Number, p.Desk, p.Operator, p.At.Local().Format(dayLayout+" 15:04"))
		if p.Voided {
			s += " · " + lang.L("voided")
		}
		return s
	}
	items := []*widget.FormItem{
		widget.NewFormItem(lang.L("Ticket"), widget.NewLabel(k.Serial)),
		widget.NewFormItem(lang.L("To recover"), widget.NewLabel(game.FormatAmount(k.Amount))),
		widget.NewFormItem(lang.L("First payment"), widget.NewLabel(payment(k.First))),
		widget.NewFormItem(lang.L("Second payment"), widget.NewLabel(payment(k.Second))),
		widget.NewFormItem(lang.L("Decision"), decision),
	}
	dlg := c.d.askMoney(lang.L("Close the double payment"), widget.NewForm(items...), lang.L("Close the case"), lang.L("Back"), func(ok bool) {
		if ok {
			c.closeCaseNow(k.Number, decision.Text)
		}
	})
	dlg.Resize(fyne.NewSize(560, dlg.MinSize().Height))
	c.d.win.Canvas().Focus(decision)
}

func (c *claimsScreen) closeCaseNow(number int64, decision string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.d.ledger.CloseCase(ctx, number, strings.TrimSpace(decision), c.d.identity()); err != nil {
		c.d.showError(err)
	}
	c.reload()
}

// writeCSV writes the claims shown as CSV.
func (c *claimsScreen) writeCSV(w io.Writer) error { return core.WriteCSV(w, c.claims) }

// askExport asks for a file, then writes the claims shown to it as CSV.
func (c *claimsScreen) askExport() {
	d := dialog.NewFileSave(func(w fyne.URIWriteCloser, err error) {
		if err != nil {
			c.d.showError(err)
			return
		}
		if w != nil {
			c.exportTo(w)
		}
	}, c.d.win)
	d.SetFileName("paiements.csv")
	d.Show()
}

// exportTo writes the claims shown to w as CSV and closes w, then says
// where they went; on an error the partial file is deleted.
func (c *claimsScreen) exportTo(w fyne.URIWriteCloser) {
	if err := exportTo(w, c.writeCSV); err != nil {
		c.d.showError(err)
		return
	}
	c.d.inform(lang.L("Export"), lang.L("Payments exported to {{.Path}}", map[string]any{"Path": w.URI().Path()}))
}

// printDay prints the day report of the desk and the day the filters
// name: this desk and today when they name none.
func (c *claimsScreen) printDay() {
	desk := strings.TrimSpace(c.desk.Text)
	if desk == "" {
		desk = c.d.identity().Desk
	}
	day := time.Now()
	if s := strings.TrimSpace(c.day.Text); s != "" {
		t, err := time.ParseInLocation(dayLayout, s, time.Local)
		if err != nil {
			c.d.showError(fmt.Errorf("%s: %q", lang.L("give the day as DD/MM/YYYY"), s))
			return
		}
		day = t
	}
	c.d.printDay(desk, day)
}

// askSettlement asks for the counter and the period, then prints the
// settlement. The period is the current one, from the first of this month
// to today (today's payments included), unless changed. Enter in any of
// its fields prints.
func (c *claimsScreen) askSettlement() {
	desk := c.d.newDialogEntry()
	desk.SetText(strings.TrimSpace(c.desk.Text))
	desk.SetPlaceHolder(lang.L("counter"))
	now := time.Now()
	first := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.Local)
	last := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.Local)
	from, to := c.d.newDateEntry(), c.d.newDateEntry()
	from.SetDate(&first)
	to.SetDate(&last)
	for _, e := range []*dateEntry{from, to} {
		e.OnSubmitted = func(string) { c.d.answerTop() }
	}
	items := []*widget.FormItem{
		widget.NewFormItem(lang.L("Counter"), desk),
		widget.NewFormItem(lang.L("From"), from),
		widget.NewFormItem(lang.L("To (included)"), to),
	}
	dlg := c.d.ask(lang.L("Settlement"), widget.NewForm(items...), lang.L("Print"), lang.L("Back"), func(ok bool) {
		if !ok {
			return
		}
		if strings.TrimSpace(desk.Text) == "" || from.Date == nil || to.Date == nil {
			c.d.showError(fmt.Errorf("%s", lang.L("name the counter and the period")))
			return
		}
		c.d.printSettlement(strings.TrimSpace(desk.Text), *from.Date, *to.Date)
	})
	dlg.Resize(fyne.NewSize(520, dlg.MinSize().Height))
	c.d.win.Canvas().Focus(desk)
}
