package ui

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"image/color"
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/core"
)

// packsScreen is Carnets: scan or type packs to deliver, receive, activate,
// return or report them, and the packs where they are, filtered by state
// and counter. A counter on a validation server receives and activates
// its own packs, and sees only those.
type packsScreen struct {
	d       *desk
	content fyne.CanvasObject

	move   *keySelect
	block  *keySelect
	entry  *keyEntry
	desk   *keyEntry
	reason *keyEntry
	apply  *keyButton
	form   *widget.Form

	banner *canvas.Rectangle
	result *widget.Label

	state    *keySelect
	deskList *keyEntry
	table    *keyTable
	total    *widget.Label
	labels   *keyButton
	runs     []ledger.PackRun
	selected int // the run selected in the list, or -1
}

// packMoves are the moves the screen offers, in the order of a pack's life.
var packMoves = []string{"deliver", "receive", "activate", "settle", "return", "stolen", "destroyed"}

// moveName is a move as the screen says it.
func moveName(m string) string {
	switch m {
	case "deliver":
		return lang.L("Deliver to a counter")
	case "receive":
		return lang.L("Receive")
	case "activate":
		return lang.L("Activate (put on sale)")
	case "settle":
		return lang.L("Settle")
	case "return":
		return lang.L("Return")
	case "stolen":
		return lang.L("Report stolen")
	case "destroyed":
		return lang.L("Report destroyed")
	case "generate":
		return lang.L("Put on sale at generation")
	case "issue":
		return lang.L("Sealed at the ledger's issue")
	}
	return m
}

// stateName is a pack state as the screen says it.
func stateName(s string) string {
	switch s {
	case "stock", "":
		return lang.L("in stock")
	case "delivered":
		return lang.L("delivered")
	case "received":
		return lang.L("received")
	case "on-sale":
		return lang.L("on sale")
	case "settled":
		return lang.L("settled")
	case "returned":
		return lang.L("returned")
	case "stolen":
		return lang.L("stolen")
	case "destroyed":
		return lang.L("destroyed")
	}
	return s
}

// packEntry is the field packs are scanned or typed in: Enter applies the
// move, as a scanner sends it after the digits.
func (d *desk) newPackEntry() *keyEntry {
	e := d.newEntry()
	e.SetPlaceHolder(game.PackCode{Game: DefaultGame, Block: 1, Pack: 120}.String() + " · 120 · 120-139")
	e.TextStyle = fyne.TextStyle{Monospace: true, Bold: true}
	return e
}

var packColumns = []struct {
	title string
	width float32
}{
	{"Packs", 290}, {"Count", 70}, {"State", 100}, {"Desk", 90}, {"Last move", 200}, {"On", 130}, {"By", 90},
}

func newPacksScreen(d *desk) *packsScreen {
	p := &packsScreen{d: d}
	p.move = d.newSelect(nil, func(string) { p.moveChanged() })
	p.block = d.newSelect(nil, nil)
	p.block.PlaceHolder = lang.L("block")
	p.entry = d.newPackEntry()
	p.entry.OnSubmitted = func(string) { p.applyMove() }
	p.desk = d.newEntry()
	p.desk.SetPlaceHolder(lang.L("counter"))
	p.reason = d.newEntry()
	p.reason.SetPlaceHolder(lang.L("reason (return, theft, destruction)"))
	p.apply = d.button(lang.L("Apply"), theme.ConfirmIcon(), p.applyMove)
	p.apply.Importance = widget.HighImportance

	p.banner = canvas.NewRectangle(verdictStyle[verdictNone])
	p.banner.CornerRadius = 10
	p.result = widget.NewLabel(lang.L("Choose the move, then scan or type the packs and press Enter."))
	p.result.Wrapping = fyne.TextWrapWord
	p.result.TextStyle.Bold = true

	p.state = d.newSelect(nil, func(string) { p.reload() })
	p.deskList = d.newEntry()
	p.deskList.SetPlaceHolder(lang.L("counter"))
	p.deskList.OnSubmitted = func(string) { p.reload() }
	filter := d.button(lang.L("Filter"), theme.SearchIcon(), p.reload)
	all := d.button(lang.L("All"), nil, func() {
		p.deskList.SetText("")
		p.state.SetSelectedIndex(0)
	})
	p.table = d.newTable(
		func() (int, int) { return len(p.runs), len(packColumns) },
		func() fyne.CanvasObject { return widget.NewLabel("") },
		func(id widget.TableCellID, o fyne.CanvasObject) {
			o.(*widget.Label).SetText(packCell(p.runs[id.Row], id.Col))
		})
	p.selected = -1
	p.table.OnSelected = func(id widget.TableCellID) { p.selected = id.Row }
	p.table.OnUnselected = func(widget.TableCellID) { p.selected = -1 }
	p.table.ShowHeaderColumn = false
	p.table.CreateHeader = func() fyne.CanvasObject { return widget.NewLabel("") }
	p.table.UpdateHeader = func(id widget.TableCellID, o fyne.CanvasObject) {
		l := o.(*widget.Label)
		l.TextStyle.Bold = true
		if id.Col >= 0 {
			l.SetText(lang.L(packColumns[id.Col].title))
		}
	}
	for i, col := range packColumns {
		p.table.SetColumnWidth(i, col.width)
	}
	p.total = widget.NewLabel("")
	p.total.TextStyle.Bold = true

	// The block left of the packs field, Apply right of it; Tab goes from
	// the field to Apply, then to the counter, Shift+Tab back to the block.
	block := container.NewGridWrap(fyne.NewSize(120, p.block.MinSize().Height), p.block)
	p.form = widget.NewForm(
		widget.NewFormItem(lang.L("Move"), p.move),
		widget.NewFormItem(lang.L("Packs"), container.New(layout.NewBorderLayout(nil, nil, block, p.apply), block, p.entry, p.apply)),
		widget.NewFormItem(lang.L("Counter"), p.desk),
		widget.NewFormItem(lang.L("Reason"), p.reason),
	)
	// Room for two lines, so that the list does not move from one result
	// to the next.
	room := canvas.NewRectangle(color.Transparent)
	room.SetMinSize(fyne.NewSize(0, 2*fyne.MeasureText("Ég", theme.TextSize(), p.result.TextStyle).Height+2*theme.Padding()))
	banner := container.NewStack(p.banner, room, container.NewPadded(p.result))
	bar := container.NewHBox(widget.NewLabel(lang.L("Filters:")),
		container.NewGridWrap(fyne.NewSize(170, p.state.MinSize().Height), p.state),
		container.NewGridWrap(fyne.NewSize(130, p.deskList.MinSize().Height), p.deskList), filter, all)
	p.labels = d.button(lang.L("Labels…"), theme.DocumentPrintIcon(), p.askLabels)
	top := container.NewVBox(p.form, banner, widget.NewSeparator(), bar)
	p.content = container.NewPadded(container.NewBorder(top, container.NewBorder(nil, nil, p.total, p.labels), nil, nil, p.table))
	p.setRole()
	return p
}

// setRole offers the moves this login may make: a counter its own
// packs' receipt and activation, the back office every move, a sealed
// counter ledger none (its packs are sealed as they were at its issue).
func (p *packsScreen) setRole() {
	if p.d.ledger != nil && p.d.ledger.Kind() == "counter" {
		p.form.Hide()
		p.deskList.SetText("")
		p.deskList.Disable()
		p.banner.FillColor = verdictStyle[verdictNone]
		p.banner.Refresh()
		p.result.SetText(lang.L("Counter {{.Desk}}'s sealed ledger: its packs are as they were at its issue. The back office moves packs, then issues a new sealed ledger.",
			map[string]any{"Desk": p.d.ledger.CounterDesk()}))
		return
	}
	if p.form.Hidden {
		p.form.Show()
		p.banner.FillColor = verdictStyle[verdictNone]
		p.banner.Refresh()
		p.result.SetText(lang.L("Choose the move, then scan or type the packs and press Enter."))
	}
	moves := packMoves
	counter := p.d.ledger != nil && p.d.ledger.CounterDesk() != ""
	if counter {
		moves = []string{"receive", "activate"}
	}
	names := make([]string, len(moves))
	for i, m := range moves {
		names[i] = moveName(m)
	}
	p.move.SetOptions(names)
	if slices.Index(names, p.move.Selected) < 0 {
		p.move.SetSelectedIndex(0)
	}
	states := []string{lang.L("all states")}
	for _, s := range core.PackStates {
		states = append(states, stateName(s))
	}
	sel := p.state.SelectedIndex()
	p.state.Options = states
	if sel < 0 {
		sel = 0
	}
	p.state.SetSelectedIndex(sel)
	if counter {
		p.desk.SetText(p.d.ledger.CounterDesk())
		p.desk.Disable()
		p.deskList.SetText(p.d.ledger.CounterDesk())
		p.deskList.Disable()
	} else {
		p.desk.Enable()
		p.deskList.Enable()
	}
}

// selectedMove is the move chosen, by its name in packMoves.
func (p *packsScreen) selectedMove() string {
	for _, m := range packMoves {
		if moveName(m) == p.move.Selected {
			return m
		}
	}
	return ""
}

// moveChanged shows the fields the move needs.
func (p *packsScreen) moveChanged() {
	if p.reason == nil {
		return
	}
	switch p.selectedMove() {
	case "return", "stolen", "destroyed":
		p.reason.Enable()
	default:
		p.reason.Disable()
	}
	p.focus()
}

// focus gives the packs field the keyboard, ready for the next scan, when
// Carnets is the tab shown: a reload behind another tab (a new ledger, the
// app's start) must not take the keyboard from the counter.
func (p *packsScreen) focus() {
	if p.entry == nil || p.d.tabs == nil || p.d.tabs.Selected() == nil || p.d.tabs.Selected().Content != p.content {
		return
	}
	if cv := p.d.win.Canvas(); cv != nil {
		cv.Focus(p.entry)
	}
}

// say shows the result of a move in the banner: ok green, else red.
func (p *packsScreen) say(ok bool, text string) {
	k := verdictJustPaid
	if !ok {
		k = verdictError
	}
	p.banner.FillColor = verdictStyle[k]
	p.banner.Refresh()
	p.result.SetText(text)
}

// blockOf is the block chosen ("531/1"), or 0, 0.
func (p *packsScreen) blockOf() (int, int) {
	var g, b int
	if p.block.Selected != "" {
		fmt.Sscanf(p.block.Selected, "%d/%d", &g, &b)
	}
	return g, b
}

// applyMove moves the packs typed or scanned; each run of consecutive
// packs is one move, all or nothing. A refusal says why, in the screen's
// language.
func (p *packsScreen) applyMove() {
	defer func() {
		p.entry.SetText("")
		p.focus()
	}()
	text := strings.TrimSpace(p.entry.Text)
	if text == "" {
		return
	}
	if !p.d.needLedger() {
		return
	}
	move := p.selectedMove()
	g, b := p.blockOf()
	ranges, err := game.ParsePacks(strings.FieldsFunc(text, func(r rune) bool { return r == ' ' || r == ',' || r == ';' }), g, b)
	if err != nil {
		msg := lang.L("Type pack numbers (with their block), ranges A-B, or scan the packs' codes.")
		if errors.Is(err, game.ErrCheckDigit) {
			msg = lang.L("The check digit does not match: a digit was mistyped. Scan or type the pack's code again.")
		}
		p.say(false, text+"\n"+msg)
		return
	}
	desk := strings.TrimSpace(p.desk.Text)
	if move == "deliver" && desk == "" {
		p.say(false, lang.L("Name the counter the packs are delivered to."))
		return
	}
	if move != "deliver" && move != "receive" && move != "activate" && move != "settle" && move != "return" {
		desk = "" // stolen and destroyed: wherever the packs are
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var done []string
	for _, r := range ranges {
		err := p.d.ledger.MovePacks(ctx, ledger.PackMove{Game: r.Game, Block: r.Block, First: r.First, Last: r.Last, Move: move,
			Desk: desk, Reason: strings.TrimSpace(p.reason.Text)}, p.d.identity())
		if err != nil {
			msg := p.refusal(ctx, move, r, desk, err)
			if len(done) > 0 {
				msg += "\n" + lang.L("Moved before this refusal: {{.Packs}}", map[string]any{"Packs": strings.Join(done, ", ")})
			}
			p.say(false, msg)
			p.reload()
			return
		}
		done = append(done, rangeText(r))
	}
	n := 0
	for _, r := range ranges {
		n += r.Count()
	}
	p.say(true, packCount(n)+" · "+moveName(move)+" ✓\n"+strings.Join(done, ", "))
	p.reload()
}

// rangeText names packs by their codes: "531-0001-0120-7 à 531-0001-0139-4".
func rangeText(r game.PackRange) string {
	first := game.PackCode{Game: r.Game, Block: r.Block, Pack: r.First}.String()
	if r.First == r.Last {
		return first
	}
	return lang.L("{{.First}} to {{.Last}}", map[string]any{"First": first,
		"Last": game.PackCode{Game: r.Game, Block: r.Block, Pack: r.Last}.String()})
}

// refusal says why move of r was refused: the first pack whose state or
// counter does not allow it, from the packs as the ledger has them now.
func (p *packsScreen) refusal(ctx context.Context, move string, r game.PackRange, desk string, err error) string {
	if !errors.Is(err, ledger.ErrPackMove) {
		if errors.Is(err, ledger.ErrCounterOnly) {
			return lang.L("Only the back office does this.")
		}
		return lang.L("Refused.") + "\n(" + err.Error() + ")"
	}
	from, _, _ := core.PackMoveFrom(move)
	runs, lerr := p.d.ledger.Packs(ctx, ledger.PackFilter{Game: r.Game, Block: r.Block})
	if lerr != nil {
		return lang.L("Refused.") + "\n(" + err.Error() + ")"
	}
	own := p.d.ledger.CounterDesk() // a counter sees its own packs only
	at := func(pack int) (string, string, bool) {
		for _, x := range runs {
			if pack >= x.First && pack <= x.Last {
				return x.State, x.Desk, true
			}
		}
		return "stock", "", own == ""
	}
	states := make([]string, len(from))
	for i, s := range from {
		states[i] = stateName(s)
	}
	for pack := r.First; pack <= r.Last; pack++ {
		code := game.PackCode{Game: r.Game, Block: r.Block, Pack: pack}.String()
		state, where, known := at(pack)
		if !known {
			return lang.L("Pack {{.Pack}} was not delivered to this counter.", map[string]any{"Pack": code})
		}
		if !slices.Contains(from, state) {
			return lang.L("Pack {{.Pack}} is {{.State}}: “{{.Move}}” takes a pack {{.From}}.", map[string]any{
				"Pack": code, "State": stateName(state), "Move": moveName(move), "From": strings.Join(states, lang.L(" or "))})
		}
		if desk != "" && where != desk {
			return lang.L("Pack {{.Pack}} was delivered to counter {{.Where}}, not {{.Desk}}.", map[string]any{
				"Pack": code, "Where": where, "Desk": desk})
		}
	}
	return lang.L("Refused.") + "\n(" + err.Error() + ")"
}

// packCell is a cell of the packs table.
func packCell(r ledger.PackRun, col int) string {
	switch col {
	case 0:
		return rangeText(game.PackRange{Game: r.Game, Block: r.Block, First: r.First, Last: r.Last})
	case 1:
		return game.GroupDigits(r.Count())
	case 2:
		return stateName(r.State)
	case 3:
		return r.Desk
	case 4:
		if r.Entry != 0 {
			return moveName(r.Move)
		}
	case 5:
		if !r.At.IsZero() {
			return r.At.Local().Format(dayLayout + " 15:04")
		}
	case 6:
		return r.Operator
	}
	return ""
}

// reload reads the blocks and the packs again, with the filters.
func (p *packsScreen) reload() {
	if p.d.ledger == nil || p.table == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if bs, err := p.d.ledger.Blocks(ctx); err == nil {
		opts := make([]string, len(bs))
		for i, b := range bs {
			opts[i] = fmt.Sprintf("%d/%d", b.Game, b.Number)
		}
		p.block.SetOptions(opts)
		if !slices.Contains(opts, p.block.Selected) {
			p.block.Selected = ""
			if len(opts) > 0 {
				p.block.Selected = opts[len(opts)-1]
			}
			p.block.Refresh()
		}
	}
	f := ledger.PackFilter{Desk: strings.TrimSpace(p.deskList.Text)}
	if i := p.state.SelectedIndex(); i > 0 {
		f.State = core.PackStates[i-1]
	}
	runs, err := p.d.ledger.Packs(ctx, f)
	if err == nil && f.State == "" {
		// Every state: the packs in stock too, which the ledger lists
		// apart (none at a counter's, or for a counter).
		var stock []ledger.PackRun
		if stock, err = p.d.ledger.Packs(ctx, ledger.PackFilter{Desk: f.Desk, State: "stock"}); err == nil {
			runs = append(runs, stock...)
			slices.SortStableFunc(runs, func(a, b ledger.PackRun) int {
				return cmp.Or(cmp.Compare(a.Game, b.Game), cmp.Compare(a.Block, b.Block), cmp.Compare(a.First, b.First))
			})
		}
	}
	if err != nil {
		p.d.showError(err)
		return
	}
	p.runs = runs
	p.table.UnselectAll()
	p.table.Refresh()
	n := 0
	for _, r := range runs {
		n += r.Count()
	}
	p.total.SetText(packCount(n))
	if n == 0 {
		p.labels.Disable()
	} else {
		p.labels.Enable()
	}
}

// packCount says a number of packs, its digits grouped as in the table:
// "20 020 carnets".
func packCount(n int) string {
	return lang.LocalizePlural("{{.Count}} packs", n, map[string]any{"Count": game.GroupDigits(n)})
}

// clear forgets what the last ledger showed.
func (p *packsScreen) clear() {
	p.runs = nil
	p.table.UnselectAll()
	p.table.Refresh()
	p.total.SetText("")
	p.banner.FillColor = verdictStyle[verdictNone]
	p.banner.Refresh()
	p.result.SetText(lang.L("Choose the move, then scan or type the packs and press Enter."))
	p.block.ClearSelected()
	p.setRole()
}
