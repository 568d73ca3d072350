package ui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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

// contentsScreen is Saisir le contenu: the five surfaces typed in with
// selects that offer only the values a ticket may show, checked by the
// rules, and matched against the ledger so that a ticket with a torn serial
// can still be paid.
type contentsScreen struct {
	d       *desk
	content fyne.CanvasObject

	fields  map[string]*widget.Select // by field path of the interchange format
	errs    map[string]*canvas.Text   // the error shown beside each field
	general *widget.Label
	result  *widget.Label
	prize   *canvas.Text
	picture *TicketPicture
	pay     *widget.Button
	match   *ledger.Ticket
}

var (
	numberChoices = func() []string {
		s := make([]string, len(game.RouletteNumbers))
		for i, n := range game.RouletteNumbers {
			s[i] = strconv.Itoa(n)
		}
		return s
	}()
	amountChoices = func() []string {
		s := make([]string, len(game.Amounts))
		for i, a := range game.Amounts {
			s[i] = strconv.Itoa(a)
		}
		return s
	}()
	bonusChoices = append([]string{"0"}, amountChoices...)
	dieChoices   = []string{"1", "2", "3", "4", "5", "6"}
	cardChoices  = func() []string {
		s := make([]string, game.NumCards)
		for i := range s {
			s[i] = game.Card(i).String()
		}
		return s
	}()
	bankChoices   = cardChoices[:game.NumCards-1] // never AS
	symbolChoices = func() []string {
		s := make([]string, game.NumSymbols)
		for i := range s {
			s[i] = game.Symbol(i).String()
		}
		return s
	}()
)

func newContentsScreen(d *desk) *contentsScreen {
	c := &contentsScreen{d: d, fields: map[string]*widget.Select{}, errs: map[string]*canvas.Text{}}

	// field makes a select for a field path, with its error beside it.
	field := func(path string, choices []string, width float32) fyne.CanvasObject {
		s := widget.NewSelect(choices, nil)
		s.PlaceHolder = "—"
		c.fields[path] = s
		e := canvas.NewText("", theme.Color(theme.ColorNameError))
		e.TextSize = 11
		c.errs[path] = e
		return container.NewVBox(container.NewGridWrap(fyne.NewSize(width, s.MinSize().Height), s), e)
	}
	heading := func(s string) fyne.CanvasObject {
		t := canvas.NewText(s, theme.Color(theme.ColorNamePrimary))
		t.TextStyle.Bold = true
		t.TextSize = 16
		return t
	}
	label := func(s string) fyne.CanvasObject { return widget.NewLabel(s) }

	roul := container.NewVBox(heading("ROULETTE"), label("NUMÉROS GAGNANTS"))
	row := container.NewHBox()
	for i := 0; i < 4; i++ {
		row.Add(field(fmt.Sprintf("roulette.winning[%d]", i), numberChoices, 80))
	}
	roul.Add(row)
	roul.Add(label("VOS MISES (" + lang.L("number, amount €") + ")"))
	row = container.NewHBox()
	for i := 0; i < 3; i++ {
		row.Add(field(fmt.Sprintf("roulette.bets[%d].number", i), numberChoices, 80))
		row.Add(field(fmt.Sprintf("roulette.bets[%d].amount", i), amountChoices, 100))
	}
	roul.Add(row)

	craps := container.NewVBox(heading("CRAPS"), container.NewHBox(
		field("craps.dice[0]", dieChoices, 70), field("craps.dice[1]", dieChoices, 70),
		widget.NewLabel("€"), field("craps.amount", amountChoices, 100)))

	duel := container.NewVBox(heading("DUEL"), container.NewHBox(
		label("VOS CARTES"),
		field("duel.cards[0]", cardChoices, 72), field("duel.cards[1]", cardChoices, 72), field("duel.cards[2]", cardChoices, 72),
		label("BANQUE"), field("duel.bank", bankChoices, 72),
		label("€"), field("duel.amount", amountChoices, 100)))

	jack := container.NewVBox(heading("JACKPOT"))
	for i := 0; i < 3; i++ {
		jack.Add(container.NewHBox(label(fmt.Sprintf("LIGNE %d", i+1)),
			field(fmt.Sprintf("jackpot[%d].symbols[0]", i), symbolChoices, 120),
			field(fmt.Sprintf("jackpot[%d].symbols[1]", i), symbolChoices, 120),
			field(fmt.Sprintf("jackpot[%d].symbols[2]", i), symbolChoices, 120),
			label("€"), field(fmt.Sprintf("jackpot[%d].amount", i), amountChoices, 100)))
	}
	bonus := container.NewVBox(heading("BONUS"), container.NewHBox(label("€"), field("bonus", bonusChoices, 100)))

	c.general = widget.NewLabel("")
	c.general.Importance = widget.DangerImportance
	c.general.Wrapping = fyne.TextWrapWord
	checkBtn := widget.NewButtonWithIcon(lang.L("Check the contents"), theme.SearchIcon(), c.check)
	checkBtn.Importance = widget.HighImportance
	clearBtn := widget.NewButtonWithIcon(lang.L("Clear"), theme.ContentClearIcon(), c.reset)
	form := container.NewVBox(roul, widget.NewSeparator(), craps, widget.NewSeparator(), duel,
		widget.NewSeparator(), jack, widget.NewSeparator(), bonus, widget.NewSeparator(),
		container.NewHBox(checkBtn, clearBtn), c.general)

	c.prize = canvas.NewText("", theme.Color(theme.ColorNamePrimary))
	c.prize.TextSize = 40
	c.prize.TextStyle.Bold = true
	c.result = widget.NewLabel(lang.L("Choose the values printed on the ticket, then check."))
	c.result.Wrapping = fyne.TextWrapWord
	c.pay = widget.NewButtonWithIcon(lang.L("PAY"), theme.ConfirmIcon(), c.askPay)
	c.pay.Importance = widget.SuccessImportance
	c.pay.Hide()
	c.picture = NewTicketPicture()
	right := container.NewBorder(container.NewVBox(c.prize, c.result, c.pay), nil, nil, nil, c.picture)
	split := container.NewHSplit(container.NewVScroll(container.NewPadded(form)), container.NewPadded(right))
	split.Offset = 0.5
	c.content = split
	return c
}

// reset empties the form.
func (c *contentsScreen) reset() {
	for _, s := range c.fields {
		s.ClearSelected()
	}
	c.clearErrors()
	c.prize.Text = ""
	c.prize.Refresh()
	c.result.SetText(lang.L("Choose the values printed on the ticket, then check."))
	c.picture.SetTicket(nil, nil)
	c.pay.Hide()
	c.match = nil
}

func (c *contentsScreen) clearErrors() {
	for _, e := range c.errs {
		e.Text = ""
		e.Refresh()
	}
	c.general.SetText("")
}

// doc builds the interchange document of the form; an empty select is a
// null, which the parser reports against its field.
func (c *contentsScreen) doc() map[string]any {
	num := func(path string) any {
		v := c.fields[path].Selected
		if v == "" {
			return nil
		}
		n, _ := strconv.Atoi(v)
		return n
	}
	str := func(path string) any {
		if v := c.fields[path].Selected; v != "" {
			return v
		}
		return nil
	}
	var winning, bets, lines []any
	for i := 0; i < 4; i++ {
		winning = append(winning, num(fmt.Sprintf("roulette.winning[%d]", i)))
	}
	for i := 0; i < 3; i++ {
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

// check validates the form, shows errors beside their fields, or the prize,
// its breakdown and the ledger's matching ticket.
func (c *contentsScreen) check() {
	c.clearErrors()
	c.match = nil
	c.pay.Hide()
	data, _ := json.Marshal(c.doc())
	in, err := game.ParseDoc(data)
	if err != nil {
		var es game.Errors
		if !errors.As(err, &es) {
			c.general.SetText(err.Error())
			return
		}
		var other []string
		for _, fe := range es {
			msg := fe.Problem
			switch {
			case fe.Kind == game.KindMissing || fe.Value == "":
				msg = lang.L("to fill in")
			case fe.Kind == game.KindRepeat:
				msg = lang.L("already in this zone: a number appears once")
			case fe.Kind == game.KindValue:
				msg = lang.L("not a value this zone can show")
			}
			if k := c.fieldFor(fe.Field); k != "" {
				if c.errs[k].Text == "" {
					c.errs[k].Text = msg
					c.errs[k].Refresh()
				}
			} else {
				other = append(other, fe.Error())
			}
		}
		c.general.SetText(lang.L("Correct the fields marked in red.") + "\n" + strings.Join(other, "\n"))
		c.prize.Text = ""
		c.prize.Refresh()
		c.result.SetText("")
		c.picture.SetTicket(nil, nil)
		return
	}
	t := in.Ticket
	v := game.Check(&t, nil)
	c.picture.SetTicket(&t, nil)
	c.prize.Text = lang.L("Prize") + " " + game.FormatAmount(v.Prize)
	c.prize.Refresh()
	var b strings.Builder
	for _, w := range v.Wins {
		fmt.Fprintf(&b, "• %s : %s\n", zoneName(w), game.FormatAmount(w.Amount))
	}
	if len(v.Wins) == 0 {
		b.WriteString(lang.L("No winning zone: this ticket loses.") + "\n")
	}
	if !v.Genuine {
		// Without a stated prize, the one reason: a sum that is not a prize.
		b.WriteString(lang.L("No genuine ticket can show these contents: its zones add up to {{.Sum}}, which is not a prize of the game.",
			map[string]any{"Sum": game.FormatAmount(v.Prize)}) + "\n")
	}
	if v.Prize > 0 && v.Genuine && c.d.ledger != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		m, err := c.d.ledger.FindByContents(ctx, &t, c.d.identity(), c.d.payoutLimit())
		switch {
		case errors.Is(err, ledger.ErrUnknownContents):
			b.WriteString(lang.L("No ticket of the ledger has these contents. Do not pay."))
		case err != nil:
			b.WriteString(err.Error())
		default:
			c.match = &m
			c.picture.SetTicket(&m.Ticket, &m.Serial)
			fmt.Fprintf(&b, "%s %s · %s\n", lang.L("Ledger ticket"), m.Serial.String(), statusText(m))
			switch {
			case m.Status == ledger.StatusPaid:
				b.WriteString(claimText(m.Claim))
			case m.Prize > c.d.payoutLimit():
				b.WriteString(c.d.limitText())
			default:
				c.pay.Show()
			}
		}
	}
	c.result.SetText(strings.TrimSpace(b.String()))
}

// statusText names a ledger ticket's status.
func statusText(t ledger.Ticket) string {
	switch t.Status {
	case ledger.StatusPaid:
		return lang.L("ALREADY PAID")
	case ledger.StatusUnpaid:
		return lang.L("not paid yet")
	}
	return lang.L("LOSER")
}

// askPay pays the matching ticket after a confirmation.
func (c *contentsScreen) askPay() {
	if c.match == nil {
		return
	}
	c.d.pay(*c.match, ledger.MethodContents, func(r payResult) {
		if r.kind == verdictNone {
			return // not confirmed
		}
		c.result.SetText(strings.TrimSpace(r.title + " " + r.amount + "\n" + r.detail))
		c.pay.Hide()
		c.match = nil
	})
}
