package ui

import (
	"context"
	"errors"
	"fmt"
	"image/color"
	"strconv"
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
)

// counterTitle is the counter's word for a verdict.
func counterTitle(k verdict) string {
	switch k {
	case verdictWinner:
		return lang.L("WINNER")
	case verdictLoser:
		return lang.L("LOSER")
	case verdictPaid:
		return lang.L("ALREADY PAID")
	case verdictUnknown:
		return lang.L("UNKNOWN SERIAL")
	case verdictMistyped:
		return lang.L("MISTYPED SERIAL")
	case verdictOverLimit:
		return lang.L("TO BE PAID BY THE BACK OFFICE")
	case verdictJustPaid:
		return lang.L("PAID")
	case verdictError:
		return lang.L("ERROR — DO NOT PAY")
	case verdictNotActivated:
		return lang.L("PACK NOT ACTIVATED")
	case verdictStolen:
		return lang.L("PACK REPORTED STOLEN — KEEP THE TICKET")
	case verdictNotYet:
		return lang.L("NOT YET ON SALE")
	case verdictExpired:
		return lang.L("EXPIRED")
	case verdictLocked:
		return lang.L("DESK LOCKED — DO NOT PAY")
	case verdictUnreachable:
		return lang.L("LEDGER UNREACHABLE — DO NOT PAY")
	case verdictDisabled:
		return lang.L("DESK DISABLED — DO NOT PAY")
	case verdictRevoked:
		return lang.L("DESK FILE REVOKED — DO NOT PAY")
	case verdictUnknownDesk:
		return lang.L("UNKNOWN DESK — DO NOT PAY")
	case verdictOtherLedger:
		return lang.L("ANOTHER LEDGER — DO NOT PAY")
	}
	return lang.L("READY")
}

// checked is one check at the counter. The desk keeps them for the
// session, newest first, whatever the screens are rebuilt for.
type checked struct {
	at     time.Time
	serial string // as typed
	kind   verdict
	amount string // the amount shown, or ""
}

// maxChecks is how many checks the counter lists.
const maxChecks = 500

// counterScreen is the Guichet: scan or type a serial, read the verdict,
// pay.
type counterScreen struct {
	d       *desk
	content fyne.CanvasObject

	entry   *keyEntry
	view    *verdictView
	picture *TicketPicture
	checks  *keyList // the desk's checks
	samples *keyButton

	current *ledger.Ticket // the ticket last looked up, nil when none
}

// newSerialEntry makes the serial field, which checks its text on Enter,
// the key a barcode scanner sends after the digits.
func (d *desk) newSerialEntry() *keyEntry {
	e := d.newEntry()
	e.SetPlaceHolder(game.Serial{Game: DefaultGame, Block: 1, Position: 456789, Secret: 1234_5678_9012_3456}.String())
	e.TextStyle = fyne.TextStyle{Monospace: true, Bold: true}
	return e
}

func newCounterScreen(d *desk) *counterScreen {
	c := &counterScreen{d: d}
	c.entry = d.newSerialEntry()
	c.entry.OnSubmitted = c.check
	check := newKeyButton(lang.L("Check"), theme.SearchIcon(), func() { c.check(c.entry.Text) })
	check.Importance = widget.HighImportance
	byContents := newKeyButton(lang.L("Enter contents"), theme.DocumentCreateIcon(), func() {
		d.tabs.SelectIndex(tabContents)
	})
	prompt := canvas.NewText(lang.L("Scan or type the serial, then Enter"), theme.Color(theme.ColorNameForeground))
	prompt.TextSize = 16
	prompt.TextStyle.Bold = true

	c.view = newVerdictView(64, 44, 4, c.askPay)
	// A scan while a button has the keyboard goes to the serial field.
	toEntry := func(r rune) {
		c.focus()
		c.entry.TypedRune(r)
	}
	for _, b := range []*keyButton{check, byContents, c.view.pay, c.view.receipt} {
		b.typed = toEntry
		b.d = d // Escape goes back to the serial field
	}
	c.view.onReceipt = func(n int64) {
		d.printReceiptIn(c.view, n)
		c.focus() // ready for the next scan
	}
	c.picture = NewTicketPicture()

	c.checks = d.newList(
		func() int { return len(d.checks) },
		func() fyne.CanvasObject {
			head := widget.NewLabel("")
			head.TextStyle.Bold = true
			head.Truncation = fyne.TextTruncateEllipsis
			serial := widget.NewLabel("")
			serial.TextStyle.Monospace = true
			serial.Truncation = fyne.TextTruncateEllipsis
			return container.New(layout.NewCustomPaddedVBoxLayout(-2*theme.Padding()), head, serial)
		},
		func(id widget.ListItemID, o fyne.CanvasObject) {
			box := o.(*fyne.Container)
			box.Objects[0].(*widget.Label).SetText(checkLine(d.checks[id]))
			box.Objects[1].(*widget.Label).SetText(d.checks[id].serial)
		})
	c.checks.OnSelected = func(id widget.ListItemID) {
		c.checks.UnselectAll()
		if id < len(d.checks) {
			c.check(d.checks[id].serial)
		}
	}
	c.samples = d.button(lang.L("Serials to try…"), theme.InfoIcon(), d.showSamples)
	header := container.NewBorder(nil, nil, widget.NewLabelWithStyle(lang.L("Last checks"), fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), c.samples)
	room := canvas.NewRectangle(color.Transparent)
	room.SetMinSize(fyne.NewSize(0, 150))
	history := container.NewBorder(header, nil, nil, nil, container.NewStack(room, c.checks))

	// The serial field, then the verdict's button (PAYER, or the receipt),
	// then the others: Tab from the field goes first to what the verdict
	// offers, wherever they are drawn.
	left := container.New(counterLayout{}, prompt, c.entry, c.view.content, container.NewHBox(check, byContents), history)
	split := container.NewHSplit(container.NewPadded(left), container.NewPadded(c.picture))
	split.Offset = 0.4
	c.content = split
	c.showSamplesButton()
	c.clear()
	return c
}

// counterLayout lays out the counter's left side: the prompt, the serial
// field and the row of buttons at the top, the last checks at the bottom,
// and the verdict between them, taking the rest. Its objects are in the
// order Tab visits them: prompt, field, verdict, buttons, last checks.
type counterLayout struct{}

func (counterLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	pad := theme.Padding()
	y := float32(0)
	for _, o := range []fyne.CanvasObject{objs[0], objs[1], objs[3]} {
		h := o.MinSize().Height
		o.Move(fyne.NewPos(0, y))
		o.Resize(fyne.NewSize(size.Width, h))
		y += h + pad
	}
	hist := objs[4].MinSize().Height
	objs[4].Move(fyne.NewPos(0, size.Height-hist))
	objs[4].Resize(fyne.NewSize(size.Width, hist))
	objs[2].Move(fyne.NewPos(0, y))
	objs[2].Resize(fyne.NewSize(size.Width, max(0, size.Height-hist-pad-y)))
}

func (counterLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var s fyne.Size
	for _, o := range objs {
		m := o.MinSize()
		s = fyne.NewSize(max(s.Width, m.Width), s.Height+m.Height)
	}
	return s.AddWidthHeight(0, float32(len(objs)-1)*theme.Padding())
}

// showSamplesButton offers the serials to try where there are some to
// list: on a demonstration ledger (Samples refuses any other).
func (c *counterScreen) showSamplesButton() {
	if c.d.ledger != nil && c.d.ledger.Demo() {
		c.samples.Show()
	} else {
		c.samples.Hide()
	}
}

// checkLine is the first line of a check in the last checks: time,
// verdict, amount; the serial is under it.
func checkLine(ch checked) string {
	s := ch.at.Format("15:04:05") + " · " + counterTitle(ch.kind)
	if ch.amount != "" {
		s += " · " + ch.amount
	}
	return s
}

// focus gives the serial field the keyboard, ready for the next scan.
func (c *counterScreen) focus() {
	if cv := c.d.win.Canvas(); cv != nil {
		cv.Focus(c.entry)
	}
}

// clear forgets the last ticket.
func (c *counterScreen) clear() {
	c.current = nil
	c.picture.SetTicket(nil, nil)
	c.view.show(verdictNone, counterTitle(verdictNone), "", lang.L("The verdict appears here."))
}

// show shows a verdict on serial and adds it to the last checks.
func (c *counterScreen) show(serial string, k verdict, amount, detail string) {
	c.view.show(k, counterTitle(k), amount, detail)
	c.d.checks = append([]checked{{time.Now(), serial, k, amount}}, c.d.checks...)
	if len(c.d.checks) > maxChecks {
		c.d.checks = c.d.checks[:maxChecks]
	}
	c.checks.Refresh()
}

// check looks up a serial and shows the verdict. The serial's check digit is
// checked before any lookup. The previous verdict is cleared first, so that
// nothing of the last ticket (its PAYER above all) survives a failed check.
// Enter on the empty field asks to pay the winner shown: a scanner user
// pays without the mouse.
func (c *counterScreen) check(text string) {
	text = strings.TrimSpace(text)
	if text == "" {
		if c.view.kind == verdictWinner {
			c.askPay()
		}
		return
	}
	defer func() {
		c.entry.SetText("")
		c.focus()
	}()
	c.blank()
	if _, err := game.ParseSerial(text); err != nil {
		msg := lang.L("The serial has 31 digits: check them and type it again.")
		if errors.Is(err, game.ErrCheckDigit) {
			msg = lang.L("The check digit does not match: a digit was mistyped, which one it cannot tell. Type the whole serial again.")
		}
		echo, marked := serialEcho(text, err)
		if marked {
			msg += "\n" + lang.L("Check the group in brackets.")
		}
		// The last checks list what was typed with its dashes: no
		// brackets, no place of a digit missing.
		c.show(strings.TrimRight(strings.NewReplacer("[", "", "]", "").Replace(echo), "_-"), verdictMistyped, "", echo+"\n"+msg)
		return
	}
	if c.d.ledger == nil {
		c.showFailure(text, lang.L("No ledger is open: open or create one in Settings."), nil)
		return
	}
	if c.d.offline() {
		// The shared ledger did not answer its last check: no lookup that
		// would keep the counter waiting. The screen says when it answers.
		c.show(text, verdictUnreachable, "", text+"\n"+unreachableText(c.d.down))
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	t, err := c.d.ledger.Lookup(ctx, text, c.d.identity(), c.d.limit())
	if err == nil || errors.Is(err, ledger.ErrUnknownSerial) {
		c.d.answered()
	}
	k, why := refused(err)
	switch {
	case errors.Is(err, ledger.ErrUnknownSerial):
		c.show(text, verdictUnknown, "", text+"\n"+lang.L("No ticket of this ledger has this serial. Do not pay."))
	case k != verdictNone:
		if k == verdictUnreachable {
			c.d.setOnline(false)
		}
		c.show(text, k, "", text+"\n"+why)
	case err != nil:
		c.showFailure(text, lang.L("The ledger could not be read. Try again; if it goes on, check the ledger in Settings."), err)
	default:
		c.showTicket(t)
	}
}

// serialGroups are the lengths of a serial's groups (game.SerialLayout).
var serialGroups = []int{3, 4, 7, 4, 4, 4, 4, 1}

// serialEcho shows a serial that does not parse (err) with its dashes, and
// the group at fault in brackets: the first with a digit missing (each shown
// _), the digits too many, the game, block or position when they cannot be;
// none when only the check digit does not match (a digit was mistyped, which
// one it cannot say). A text with other characters than digits, spaces and
// dashes is echoed as typed. It says whether a group is marked.
func serialEcho(text string, err error) (string, bool) {
	var digits []byte
	for _, r := range text {
		switch {
		case r >= '0' && r <= '9':
			digits = append(digits, byte(r))
		case r != ' ' && r != '-' && r != '\t':
			return text, false
		}
	}
	if len(digits) == 0 {
		return text, false
	}
	var groups []string
	rest := string(digits) + strings.Repeat("_", max(0, game.SerialDigits-len(digits)))
	bad := -1
	for i, n := range serialGroups {
		if bad < 0 && strings.Contains(rest[:n], "_") {
			bad = i // the first group a digit is missing from
		}
		groups, rest = append(groups, rest[:n]), rest[n:]
	}
	if rest != "" {
		groups, bad = append(groups, rest), len(groups) // too many
	}
	if len(digits) == game.SerialDigits {
		switch atoi := func(s string) int { n, _ := strconv.Atoi(s); return n }; {
		case errors.Is(err, game.ErrCheckDigit):
			// Any digit of any group may be the one mistyped: the check
			// digit says that one is, not which. No group is marked.
			return strings.Join(groups, "-"), false
		case atoi(groups[0]) < game.MinGameCode:
			bad = 0
		case atoi(groups[1]) < 1:
			bad = 1
		case atoi(groups[2]) >= game.BlockSize:
			bad = 2
		default:
			return strings.Join(groups, "-"), false
		}
	}
	groups[bad] = "[" + groups[bad] + "]"
	return strings.Join(groups, "-"), true
}

// blank clears the verdict, the ticket and PAYER without recording a check.
func (c *counterScreen) blank() {
	c.current = nil
	c.picture.SetTicket(nil, nil)
	c.view.show(verdictNone, "", "", "")
}

// showFailure shows the error verdict: the ledger gave no answer for serial,
// so nothing may be paid. err, when not nil, is added for whoever maintains
// the desk.
func (c *counterScreen) showFailure(serial, msg string, err error) {
	detail := serial + "\n" + msg + "\n" + lang.L("Do not pay.")
	if err != nil {
		detail += "\n(" + err.Error() + ")"
	}
	c.show(serial, verdictError, "", detail)
}

// showTicket shows the verdict of a ticket found in the ledger.
func (c *counterScreen) showTicket(t ledger.Ticket) {
	c.current = &t
	c.picture.SetTicket(&t.Ticket, &t.Serial)
	serial := t.Serial.String()
	// The pack by its code, check digit included, as its label and the
	// papers write it.
	where := fmt.Sprintf("%s · %s %s", serial, lang.L("pack"), game.PackCode{Game: t.Block.Game, Block: t.Block.Number, Pack: t.Pack})
	if k, detail := refusal(t.Verdict, t.Until); k != verdictNone {
		c.show(serial, k, "", where+"\n"+detail)
		return
	}
	switch t.Verdict {
	case ledger.NotWinner:
		c.show(serial, verdictLoser, "", where+"\n"+lang.L("This ticket wins nothing."))
	case ledger.AlreadyClaimed:
		c.show(serial, verdictPaid, game.FormatAmount(t.Prize), where+"\n"+claimText(t.Claim)+"\n"+lang.L("Do not pay again."))
		c.view.offerReceipt(c.d.reprintable(t.Claim), lang.L("Reprint the receipt"))
	case ledger.OverLimit:
		detail := where + "\n" + c.d.limitText()
		if msg := c.d.refer(t); msg != "" {
			detail += "\n" + msg
		}
		c.show(serial, verdictOverLimit, game.FormatAmount(t.Prize), detail)
	default: // Payable, and IdentityRequired: the payment asks for it
		c.show(serial, verdictWinner, game.FormatAmount(t.Prize), where+"\n"+winsText(&t.Ticket))
	}
}

// claimText says when, where and by whom a ticket was paid.
func claimText(cl *ledger.Claim) string {
	if cl == nil {
		return ""
	}
	if cl.Desk == "" { // another desk's payment, which a validation server shows by its date only
		return lang.L("Already paid on {{.When}} at another desk", map[string]any{"When": cl.At.Local().Format("02/01/2006")})
	}
	return lang.L("Paid on {{.When}} at desk {{.Desk}} by {{.Operator}}", map[string]any{
		"When": cl.At.Local().Format("02/01/2006 15:04:05"), "Desk": cl.Desk, "Operator": cl.Operator})
}

// winsText lists the winning zones: "ROULETTE mise n° 2 : 6 € · CRAPS : 15 €".
func winsText(t *game.Ticket) string {
	_, wins := game.Evaluate(t)
	s := make([]string, len(wins))
	for i, w := range wins {
		s[i] = winText(w)
	}
	return strings.Join(s, " · ")
}

// winText names a winning zone and its amount, as a player reads them:
// "ROULETTE mise n° 2 : 50 €", never "mise 2 50 €".
func winText(w game.Win) string {
	zone := w.Surface.String()
	switch w.Surface {
	case game.Roulette:
		zone += " " + lang.L("chip no. {{.N}}", map[string]any{"N": w.Index + 1})
	case game.Jackpot:
		zone += " " + lang.L("line {{.N}}", map[string]any{"N": w.Index + 1})
	}
	return lang.L("{{.Zone}}: {{.Amount}}", map[string]any{"Zone": zone, "Amount": game.FormatAmount(w.Amount)})
}

// askPay pays the ticket shown, after a confirmation.
func (c *counterScreen) askPay() {
	t := c.current
	if t == nil || c.view.kind != verdictWinner {
		return
	}
	c.d.pay(*t, ledger.MethodSerial, c.paid)
}

// paid shows the result of a payment; the screen is then ready for the next
// ticket.
func (c *counterScreen) paid(r payResult) {
	defer c.focus()
	if r.kind == verdictNone {
		return // not confirmed: the verdict stays
	}
	c.current = nil
	c.picture.SetTicket(nil, nil)
	c.show(r.serial, r.kind, r.amount, r.detail)
	c.d.offerPaid(c.view, r)
}

// offline shows, as soon as the shared ledger stops answering, that
// nothing may be paid: the ticket shown is forgotten, PAYER goes.
func (c *counterScreen) offline() {
	c.current = nil
	c.picture.SetTicket(nil, nil)
	when := map[string]any{"Time": time.Now().Format("15:04:05")}
	if c.d.down {
		c.view.show(verdictUnreachable, counterTitle(verdictUnreachable), "",
			lang.L("The validation server answers, but its ledger has not since {{.Time}}: the network is not the cause. Pay nothing, and call the back office: this screen says when it answers again.", when))
		return
	}
	c.view.show(verdictUnreachable, counterTitle(verdictUnreachable), "",
		lang.L("The ledger's server has not answered since {{.Time}}. Pay nothing, and check the network: this screen says when it answers again.", when))
}

// refuse shows, as soon as the validation server refuses this desk, that
// nothing may be paid, why and whom to call: the ticket shown is
// forgotten, PAYER goes.
func (c *counterScreen) refuse(k verdict, why string) {
	c.current = nil
	c.picture.SetTicket(nil, nil)
	c.view.show(k, counterTitle(k), "", why+"\n"+lang.L("Since {{.Time}}.", map[string]any{"Time": time.Now().Format("15:04:05")}))
}

// waiting says whether k is a verdict that the server's next answer ends:
// no answer, or a refusal of this desk.
func waiting(k verdict) bool {
	switch k {
	case verdictUnreachable, verdictDisabled, verdictRevoked, verdictUnknownDesk, verdictOtherLedger:
		return true
	}
	return false
}

// online says that the shared ledger answers again, when the counter
// still shows it unreachable or refusing this desk.
func (c *counterScreen) online() {
	if !waiting(c.view.kind) {
		return
	}
	c.view.show(verdictNone, counterTitle(verdictNone), "",
		lang.L("The ledger's server answers again since {{.Time}}: scan the ticket again.", map[string]any{"Time": time.Now().Format("15:04:05")}))
	c.focus()
}
