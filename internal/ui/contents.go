package ui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image/color"
	"sort"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger"
)

// contentsScreen is Saisir le contenu: the five surfaces typed in from the
// keyboard (digits, Tab to the next field, Enter to check), checked by the
// rules and matched against the ledger, so that a ticket with a torn serial
// can still be paid. The headline carries the verdict in the counter's
// colours.
type contentsScreen struct {
	d       *desk
	content fyne.CanvasObject

	paths   []string               // the fields' paths, in the order Tab visits them
	fields  map[string]*valueEntry // by field path of the interchange format
	kinds   map[string]fieldKind
	errs    map[string]*fault // by field path
	general *widget.Label
	view    *verdictView
	result  *widget.Label // the winning zones and the ledger's ticket
	picture *TicketPicture
	match   *ledger.Ticket
}

func newContentsScreen(d *desk) *contentsScreen {
	c := &contentsScreen{d: d, fields: map[string]*valueEntry{}, kinds: map[string]fieldKind{}, errs: map[string]*fault{}}
	split := container.NewHSplit(container.NewPadded(c.formPanel()), container.NewPadded(c.verdictPanel()))
	split.Offset = 0.5
	c.content = split
	c.reset()
	return c
}

// formPanel is the form, with its buttons and its general fault kept in
// view under it, whatever its faults make it scroll.
func (c *contentsScreen) formPanel() fyne.CanvasObject {
	c.general = widget.NewLabel("")
	c.general.Importance = widget.DangerImportance
	c.general.Wrapping = fyne.TextWrapWord
	// Enter on the buttons taps them: Tab from the last field leads to
	// "Vérifier le contenu".
	checkBtn := c.d.button(lang.L("Check the contents"), theme.SearchIcon(), c.check)
	checkBtn.Importance = widget.HighImportance
	clearBtn := c.d.button(lang.L("Clear"), theme.ContentClearIcon(), func() {
		c.reset()
		c.focus()
	})
	scroll := container.NewVScroll(container.NewPadded(c.form()))
	for _, e := range c.fields {
		e.gained = func() { scrollInto(scroll, e) }
	}
	return container.NewBorder(nil, container.NewVBox(widget.NewSeparator(), container.NewHBox(checkBtn, clearBtn), c.general), nil, nil, scroll)
}

// scrollInto scrolls s for o, and a line under it (its row's faults), to
// be in view: the field Tab gives the keyboard to is never typed out of
// sight.
func scrollInto(s *container.Scroll, o fyne.CanvasObject) {
	drv := fyne.CurrentApp().Driver()
	y := drv.AbsolutePositionForObject(o).Y - drv.AbsolutePositionForObject(s.Content).Y
	top, bottom := y-theme.Padding(), y+o.Size().Height+o.Size().Height
	off := s.Offset.Y
	switch view := s.Size().Height; {
	case top < off:
		off = top
	case bottom > off+view:
		off = bottom - view
	default:
		return
	}
	s.ScrollToOffset(fyne.NewPos(s.Offset.X, max(0, off)))
}

// verdictPanel is the verdict, the winning zones and the ledger's ticket,
// above the ticket's picture.
func (c *contentsScreen) verdictPanel() fyne.CanvasObject {
	// Room for seven lines of details: a payment's serial, its number and
	// what became of its receipt's print, wrapped on half the window.
	c.view = newVerdictView(44, 32, 7, c.askPay)
	c.view.onReceipt = func(n int64) {
		c.d.printReceiptIn(c.view, n)
		c.focus() // ready for the next ticket
	}
	// The values of the next ticket go to the form whatever button has
	// the keyboard.
	// The desk hears the keys PAYER and the receipt do not use: Escape,
	// a scan (never an Enter that taps PAYER).
	c.view.pay.d, c.view.receipt.d = c.d, c.d
	c.view.receipt.typed = func(r rune) {
		c.focus()
		c.fields[c.paths[0]].TypedRune(r)
	}
	c.result = widget.NewLabel("")
	c.result.Wrapping = fyne.TextWrapWord
	c.picture = NewTicketPicture()
	return container.NewBorder(container.NewVBox(c.view.content, c.result), nil, nil, nil, c.picture)
}

// form lays out the five surfaces' fields, in the order Tab visits them.
func (c *contentsScreen) form() fyne.CanvasObject {
	b := newFormBuilder(c)
	amount := lang.L("amount")
	var winning []fyne.CanvasObject
	for i := range 4 {
		winning = append(winning, b.field(fmt.Sprintf("roulette.winning[%d]", i), numberField))
	}
	roul := []fyne.CanvasObject{b.row("NUMÉROS GAGNANTS", winning...)}
	for i := range 3 {
		roul = append(roul, b.row(lang.L("Chip no. {{.N}}", map[string]any{"N": i + 1}),
			word(lang.L("number")), b.field(fmt.Sprintf("roulette.bets[%d].number", i), numberField),
			word(amount), b.field(fmt.Sprintf("roulette.bets[%d].amount", i), amountField), word("€")))
	}
	craps := b.row(lang.L("dice"),
		b.field("craps.dice[0]", dieField), word("+"), b.field("craps.dice[1]", dieField),
		word(amount), b.field("craps.amount", amountField), word("€"))
	duel := []fyne.CanvasObject{
		b.row("VOS CARTES", b.field("duel.cards[0]", cardField), b.field("duel.cards[1]", cardField), b.field("duel.cards[2]", cardField)),
		b.row("BANQUE", b.field("duel.bank", cardField), word(amount), b.field("duel.amount", amountField), word("€")),
	}
	var jack []fyne.CanvasObject
	for i := range 3 {
		jack = append(jack, b.row(fmt.Sprintf("LIGNE %d", i+1),
			b.field(fmt.Sprintf("jackpot[%d].symbols[0]", i), symbolField),
			b.field(fmt.Sprintf("jackpot[%d].symbols[1]", i), symbolField),
			b.field(fmt.Sprintf("jackpot[%d].symbols[2]", i), symbolField),
			b.field(fmt.Sprintf("jackpot[%d].amount", i), amountField), word("€")))
	}
	bonus := b.row(amount, b.field("bonus", bonusField), word("€"))
	hint := widget.NewLabel(lang.L("Type each value, Tab to the next field, Enter to check."))
	hint.Importance = widget.LowImportance
	hint.Wrapping = fyne.TextWrapWord
	return container.NewVBox(hint, surface("ROULETTE", roul...), widget.NewSeparator(),
		surface("CRAPS", craps), widget.NewSeparator(), surface("DUEL", duel...), widget.NewSeparator(),
		surface("JACKPOT", jack...), widget.NewSeparator(), surface("BONUS", bonus))
}

// formBuilder makes the form's fields and rows, recording each field, its
// kind and its fault marks in the screen.
type formBuilder struct {
	c          *contentsScreen
	pending    []string // the fields of the row being made
	labelWidth float32  // row labels take the width of the longest
}

func newFormBuilder(c *contentsScreen) *formBuilder {
	b := &formBuilder{c: c}
	for _, l := range []string{"NUMÉROS GAGNANTS", "VOS CARTES", lang.L("Chip no. {{.N}}", map[string]any{"N": 3}), lang.L("dice"), lang.L("amount")} {
		b.labelWidth = max(b.labelWidth, widget.NewLabel(l).MinSize().Width)
	}
	return b
}

// field makes the entry of a field path, with the red bar under it that
// marks a fault (in room kept for it, so that nothing moves).
func (b *formBuilder) field(path string, kind fieldKind) fyne.CanvasObject {
	c := b.c
	e := newValueEntry(c.d, kind, c.check)
	c.fields[path], c.kinds[path] = e, kind
	c.paths = append(c.paths, path)
	b.pending = append(b.pending, path)
	bar := canvas.NewRectangle(theme.Color(theme.ColorNameError))
	bar.Hide()
	c.errs[path] = &fault{bar: bar}
	room := canvas.NewRectangle(color.Transparent)
	room.SetMinSize(fyne.NewSize(kind.width(), 3))
	return container.NewVBox(container.NewGridWrap(fyne.NewSize(kind.width(), e.MinSize().Height), e), container.NewStack(room, bar))
}

// row lays out a label, then the fields and words, and under them the
// faults of its fields, in words, when there are some.
func (b *formBuilder) row(label string, items ...fyne.CanvasObject) fyne.CanvasObject {
	l := widget.NewLabel(label)
	faults := widget.NewLabel("")
	faults.Importance = widget.DangerImportance
	faults.Wrapping = fyne.TextWrapWord
	faults.Hide()
	for _, p := range b.pending {
		b.c.errs[p].row = faults
	}
	b.pending = nil
	return container.NewVBox(container.NewHBox(append([]fyne.CanvasObject{container.NewGridWrap(fyne.NewSize(b.labelWidth, l.MinSize().Height), l)}, items...)...),
		faults)
}

// surface puts a surface's name above its rows.
func surface(name string, rows ...fyne.CanvasObject) fyne.CanvasObject {
	t := canvas.NewText(name, theme.Color(theme.ColorNamePrimary))
	t.TextStyle.Bold = true
	t.TextSize = 16
	return container.NewVBox(append([]fyne.CanvasObject{t}, rows...)...)
}

func word(s string) fyne.CanvasObject { return widget.NewLabel(s) }

// focus gives the keyboard to the first field.
func (c *contentsScreen) focus() {
	c.d.win.Canvas().Focus(c.fields[c.paths[0]])
}

// reset empties the form and the verdict.
func (c *contentsScreen) reset() {
	c.clearFields()
	c.view.show(verdictNone, "", "", lang.L("Type the values printed on the ticket, then check."))
	c.result.SetText("")
	c.picture.SetTicket(nil, nil)
	c.match = nil
}

// clearFields empties every field and its error.
func (c *contentsScreen) clearFields() {
	for _, e := range c.fields {
		e.SetText("")
	}
	c.clearErrors()
}

func (c *contentsScreen) clearErrors() {
	for _, f := range c.errs {
		f.text = ""
		f.bar.Hide()
		f.row.SetText("")
		f.row.Hide()
	}
	c.general.SetText("")
	c.general.Hide()
}

// doc builds the interchange document of the form: an empty field is a
// null, a field that holds no number where one is wanted a string, which
// the parser reports against its field.
func (c *contentsScreen) doc() map[string]any {
	num := func(path string) any {
		v := c.fields[path].value()
		if v == "" {
			return nil
		}
		if n, err := strconv.Atoi(v); err == nil {
			return n
		}
		return v
	}
	str := func(path string) any {
		if v := c.fields[path].value(); v != "" {
			return v
		}
		return nil
	}
	var winning, bets, lines []any
	for i := range 4 {
		winning = append(winning, num(fmt.Sprintf("roulette.winning[%d]", i)))
	}
	for i := range 3 {
		bets = append(bets, map[string]any{
			"number": num(fmt.Sprintf("roulette.bets[%d].number", i)),
			"amount": num(fmt.Sprintf("roulette.bets[%d].amount", i)),
		})
		lines = append(lines, map[string]any{
			"symbols": []any{str(fmt.Sprintf("jackpot[%d].symbols[0]", i)), str(fmt.Sprintf("jackpot[%d].symbols[1]", i)), str(fmt.Sprintf("jackpot[%d].symbols[2]", i))},
			"amount":  num(fmt.Sprintf("jackpot[%d].amount", i)),
		})
	}
	return map[string]any{
		"roulette": map[string]any{"winning": winning, "bets": bets},
		"craps":    map[string]any{"dice": []any{num("craps.dice[0]"), num("craps.dice[1]")}, "amount": num("craps.amount")},
		"duel": map[string]any{"cards": []any{str("duel.cards[0]"), str("duel.cards[1]"), str("duel.cards[2]")},
			"bank": str("duel.bank"), "amount": num("duel.amount")},
		"jackpot": lines,
		"bonus":   num("bonus"),
	}
}

// fieldFor returns the field path of the form beside which an error of the
// parser on field f is shown: f itself when the form has it, or else the
// first, in sorted order, of the form's fields inside f (those that go on
// from f with "." or "["): an error on "roulette.bets[0]" shows beside
// "roulette.bets[0].amount". It returns "" when no field of the form is f
// or inside it.
func (c *contentsScreen) fieldFor(f string) string {
	if _, ok := c.errs[f]; ok {
		return f
	}
	keys := make([]string, 0, len(c.errs))
	for k := range c.errs {
		if strings.HasPrefix(k, f+".") || strings.HasPrefix(k, f+"[") {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return ""
	}
	sort.Strings(keys)
	return keys[0]
}

// fieldName names a field in its row: "numéro gagnant 2", "carte 1".
func fieldName(path string) string {
	var i, j int
	switch {
	case strings.HasPrefix(path, "roulette.winning["):
		fmt.Sscanf(path, "roulette.winning[%d]", &i)
		return lang.L("winning number {{.N}}", map[string]any{"N": i + 1})
	case strings.HasSuffix(path, "].number"):
		return lang.L("number")
	case strings.HasPrefix(path, "craps.dice["):
		fmt.Sscanf(path, "craps.dice[%d]", &i)
		return lang.L("die {{.N}}", map[string]any{"N": i + 1})
	case strings.HasPrefix(path, "duel.cards["):
		fmt.Sscanf(path, "duel.cards[%d]", &i)
		return lang.L("card {{.N}}", map[string]any{"N": i + 1})
	case path == "duel.bank":
		return lang.L("the bank")
	case strings.Contains(path, ".symbols["):
		fmt.Sscanf(path, "jackpot[%d].symbols[%d]", &i, &j)
		return lang.L("symbol {{.N}}", map[string]any{"N": j + 1})
	}
	return lang.L("amount")
}

// faultText says in words what is wrong with the field path, whose text is
// value: "3 n'est pas sur la roulette", "numéro gagnant 2 : numéro répété".
func faultText(fe *game.FieldError, path string, kind fieldKind, value string) string {
	named := func(why string) string {
		return lang.L("{{.Field}}: {{.Why}}", map[string]any{"Field": fieldName(path), "Why": why})
	}
	v := map[string]any{"Value": value}
	switch {
	case fe.Kind == game.KindMissing || value == "":
		return named(lang.L("to fill in"))
	case fe.Kind == game.KindRepeat:
		return named(lang.L("number repeated"))
	case fe.Kind != game.KindValue:
		return named(lang.L("to correct"))
	}
	switch kind {
	case numberField:
		return lang.L("{{.Value}} is not on the roulette", v)
	case dieField:
		return lang.L("{{.Value}} is not a die's face: 1 to 6", v)
	case amountField, bonusField:
		return lang.L("{{.Value}} € is not an amount of the game", v)
	case cardField:
		if path == "duel.bank" && value == game.As.String() {
			return lang.L("the bank never shows the AS")
		}
		return lang.L("{{.Value}} is not a card: 2 to 10, V, D, R or AS", v)
	case symbolField:
		return lang.L("{{.Value}} is not a jackpot symbol", v)
	}
	return named(lang.L("to correct"))
}

// check validates the form and shows the errors beside their fields, or
// the verdict: whether the contents are genuine, the ledger's ticket with
// them, and PAYER when it may be paid here, with the keyboard on it.
func (c *contentsScreen) check() {
	c.clearErrors()
	c.match = nil
	c.result.SetText("")
	data, _ := json.Marshal(c.doc())
	in, err := game.ParseDoc(data)
	if err != nil {
		c.showFaults(err)
		return
	}
	t := in.Ticket
	// The rules, and the ledger's ticket with these contents: one check,
	// the check command's (ledger.CheckContents).
	var v ledger.ContentsCheck
	var err2 error
	if c.d.ledger != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		v, err2 = c.d.ledger.CheckContents(ctx, in, c.d.identity(), c.d.limit())
		cancel()
		if err2 == nil {
			c.d.answered()
		}
	} else {
		v.Verdict = game.Check(&t, nil)
	}
	c.picture.SetTicket(&t, nil)
	var zones []string
	for _, w := range v.Wins {
		zones = append(zones, "• "+winText(w))
	}
	c.result.SetText(strings.Join(zones, "\n"))
	prize := game.FormatAmount(v.Prize)
	k, why := refused(err2)
	switch {
	case err2 == nil && !v.Genuine && !v.NotInLedger:
		// Without a stated prize, the one reason: a sum that is not a prize.
		c.picture.SetUnmarked(&t)
		c.view.show(verdictError, lang.L("DO NOT PAY"), "", lang.L("No genuine ticket can show these contents: its zones add up to {{.Sum}}, which is not a prize of the game.",
			map[string]any{"Sum": prize}))
		return
	case err2 == nil && v.Prize == 0:
		c.view.show(verdictLoser, lang.L("LOSER"), "", lang.L("No winning zone: this ticket loses."))
		return
	case c.d.ledger == nil:
		c.picture.SetUnmarked(&t)
		c.view.show(verdictError, lang.L("ERROR — DO NOT PAY"), "", lang.L("No ledger is open: open or create one in Settings."))
		return
	case err2 == nil && v.NotInLedger:
		c.picture.SetUnmarked(&t)
		c.view.show(verdictUnknown, lang.L("UNKNOWN TICKET"), "", lang.L("No ticket of the ledger has these contents. Do not pay."))
		return
	case k != verdictNone:
		c.picture.SetUnmarked(&t)
		c.view.show(k, counterTitle(k), "", why)
		return
	case err2 != nil:
		c.picture.SetUnmarked(&t)
		c.view.show(verdictError, lang.L("ERROR — DO NOT PAY"), "", lang.L("The ledger could not be read. Try again; if it goes on, check the ledger in Settings.")+"\n("+err2.Error()+")")
		return
	}
	m := *v.Ticket
	c.match = &m
	c.picture.SetTicket(&m.Ticket, &m.Serial)
	ticket := lang.L("Ledger ticket") + " " + m.Serial.String()
	if k, detail := refusal(m.Verdict, m.Until); k != verdictNone {
		c.match = nil
		c.view.show(k, counterTitle(k), "", ticket+"\n"+detail)
		return
	}
	switch m.Verdict {
	case ledger.AlreadyClaimed:
		c.match = nil
		c.view.show(verdictPaid, lang.L("ALREADY PAID"), prize, ticket+"\n"+claimText(m.Claim)+"\n"+lang.L("Do not pay again."))
		c.view.offerReceipt(c.d.reprintable(m.Claim), lang.L("Reprint the receipt"))
	case ledger.OverLimit:
		c.view.show(verdictOverLimit, counterTitle(verdictOverLimit), prize, ticket+"\n"+c.d.limitText())
	default:
		c.view.show(verdictWinner, lang.L("WINNER"), prize, ticket+" · "+lang.L("not paid yet"))
		c.d.win.Canvas().Focus(c.view.pay)
	}
}

// showFaults shows each fault of the form under its field, and gives the
// keyboard to the first faulty field.
func (c *contentsScreen) showFaults(err error) {
	c.picture.SetTicket(nil, nil)
	c.view.show(verdictMistyped, lang.L("TO CORRECT"), "", lang.L("Correct the fields marked in red."))
	var es game.Errors
	if !errors.As(err, &es) {
		c.general.SetText(err.Error())
		c.general.Show()
		return
	}
	var other []string
	for _, fe := range es {
		k := c.fieldFor(fe.Field)
		if k == "" {
			other = append(other, fe.Error())
			continue
		}
		if f := c.errs[k]; f.text == "" {
			f.text = faultText(fe, k, c.kinds[k], c.fields[k].value())
			f.bar.Show()
		}
	}
	c.general.SetText(strings.Join(other, "\n"))
	if len(other) > 0 {
		c.general.Show()
	}
	// Each row says its faults, in the order of its fields.
	rows := map[*widget.Label][]string{}
	for _, p := range c.paths {
		if f := c.errs[p]; f.text != "" {
			rows[f.row] = append(rows[f.row], f.text)
		}
	}
	for row, texts := range rows {
		row.SetText(strings.Join(texts, " · "))
		row.Show()
	}
	for _, p := range c.paths {
		if c.errs[p].text != "" {
			c.d.win.Canvas().Focus(c.fields[p])
			return
		}
	}
}

// askPay pays the matching ticket after a confirmation. A payment clears
// the form for the next ticket, and gives the keyboard to its receipt.
func (c *contentsScreen) askPay() {
	if c.match == nil || c.view.kind != verdictWinner {
		return
	}
	c.d.pay(*c.match, ledger.MethodContents, func(r payResult) {
		if r.kind == verdictNone {
			return // not confirmed
		}
		c.match = nil
		c.view.show(r.kind, counterTitle(r.kind), r.amount, r.detail)
		c.d.offerPaid(c.view, r)
		if r.kind == verdictJustPaid {
			c.clearFields()
			c.result.SetText("")
			c.picture.SetTicket(nil, nil)
		}
		// The receipt has the keyboard (Enter prints it, Tab goes on to
		// the form's first field, typing types there), else the form.
		if c.view.receipt.Visible() {
			c.d.win.Canvas().Focus(c.view.receipt)
		} else {
			c.focus()
		}
	})
}

// offline shows, as soon as the shared ledger stops answering, that
// nothing may be paid: the matching ticket is forgotten, PAYER goes.
func (c *contentsScreen) offline() {
	c.match = nil
	c.view.show(verdictUnreachable, counterTitle(verdictUnreachable), "", unreachableText(c.d.down))
}

// refuse shows, as soon as the validation server refuses this desk, that
// nothing may be paid, and whom to call.
func (c *contentsScreen) refuse(k verdict, why string) {
	c.match = nil
	c.view.show(k, counterTitle(k), "", why)
}

// online says that the shared ledger answers again, when the form still
// shows it unreachable or refusing this desk.
func (c *contentsScreen) online() {
	if waiting(c.view.kind) {
		c.view.show(verdictNone, "", "", lang.L("The ledger's server answers again since {{.Time}}: check the contents again.",
			map[string]any{"Time": time.Now().Format("15:04:05")}))
	}
}
