package ui

import (
	"context"
	"errors"
	"fmt"
	"image/color"
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

// verdict is what the counter says about the last serial checked.
type verdict int

const (
	verdictNone      verdict = iota
	verdictWinner            // GAGNANT: payable here
	verdictLoser             // PERDANT
	verdictPaid              // DÉJÀ PAYÉ
	verdictUnknown           // NUMÉRO INCONNU
	verdictMistyped          // NUMÉRO MAL SAISI
	verdictOverLimit         // a winner above this desk's payout limit
	verdictJustPaid          // PAYÉ: the claim was just recorded
	verdictError             // ERREUR: the ledger could not answer; do not pay
	verdictRefused           // CARNET NON ACTIVÉ, PAS ENCORE EN VENTE, FORCLOS: do not pay
	verdictStolen            // CARNET DÉCLARÉ VOLÉ: keep the ticket
)

// verdictStyle gives each verdict its background colour.
var verdictStyle = map[verdict]color.NRGBA{
	verdictNone:      {0x2a, 0x20, 0x40, 0xff},
	verdictWinner:    {0x0e, 0x8a, 0x3e, 0xff},
	verdictLoser:     {0x4a, 0x4a, 0x55, 0xff},
	verdictPaid:      {0xc0, 0x1a, 0x2a, 0xff},
	verdictUnknown:   {0x23, 0x3a, 0x6e, 0xff},
	verdictMistyped:  {0xd8, 0x6a, 0x00, 0xff},
	verdictOverLimit: {0x9a, 0x2b, 0xb0, 0xff},
	verdictJustPaid:  {0x0a, 0x5c, 0x2c, 0xff},
	verdictError:     {0x8b, 0x00, 0x00, 0xff},
	verdictRefused:   {0xb3, 0x4a, 0x00, 0xff},
	verdictStolen:    {0x6e, 0x00, 0x1a, 0xff},
}

// counterScreen is the Guichet: scan or type a serial, read the verdict,
// pay.
type counterScreen struct {
	d       *desk
	content fyne.CanvasObject

	entry   *serialEntry
	bg      *canvas.Rectangle
	title   *canvas.Text
	amount  *canvas.Text
	detail  *widget.Label
	picture *TicketPicture
	pay     *widget.Button
	tries   *widget.Label

	history []string // the last verdicts, newest first
	kind    verdict
	current *ledger.Ticket // the ticket last looked up, nil when none
}

// serialEntry is an entry that checks its text on Enter, the key a barcode
// scanner sends after the digits.
type serialEntry struct{ widget.Entry }

func newSerialEntry() *serialEntry {
	e := &serialEntry{}
	e.ExtendBaseWidget(e)
	e.SetPlaceHolder("531-0001-0456789-304172-6")
	e.TextStyle = fyne.TextStyle{Monospace: true, Bold: true}
	return e
}

func newCounterScreen(d *desk) *counterScreen {
	c := &counterScreen{d: d}
	c.entry = newSerialEntry()
	c.entry.OnSubmitted = c.check
	check := widget.NewButtonWithIcon(lang.L("Check"), theme.SearchIcon(), func() { c.check(c.entry.Text) })
	check.Importance = widget.HighImportance
	byContents := widget.NewButtonWithIcon(lang.L("Enter contents"), theme.DocumentCreateIcon(), func() {
		d.tabs.SelectIndex(tabContents)
	})
	prompt := canvas.NewText(lang.L("Scan or type the serial, then Enter"), theme.Color(theme.ColorNameForeground))
	prompt.TextSize = 16
	prompt.TextStyle.Bold = true

	c.bg = canvas.NewRectangle(verdictStyle[verdictNone])
	c.bg.CornerRadius = 14
	c.title = canvas.NewText("", color.White)
	c.title.TextSize = 64
	c.title.TextStyle.Bold = true
	c.title.Alignment = fyne.TextAlignCenter
	c.amount = canvas.NewText("", color.White)
	c.amount.TextSize = 44
	c.amount.TextStyle.Bold = true
	c.amount.Alignment = fyne.TextAlignCenter
	c.detail = widget.NewLabel("")
	c.detail.Alignment = fyne.TextAlignCenter
	c.detail.Wrapping = fyne.TextWrapWord
	c.detail.TextStyle.Bold = true
	c.pay = widget.NewButtonWithIcon(lang.L("PAY"), theme.ConfirmIcon(), c.askPay)
	c.pay.Importance = widget.SuccessImportance
	c.pay.Hide()
	verdictBox := container.NewStack(c.bg, container.NewPadded(container.NewVBox(
		c.title, c.amount, c.detail, container.NewCenter(c.pay))))

	c.picture = NewTicketPicture()
	c.tries = widget.NewLabel("")
	c.tries.Wrapping = fyne.TextWrapWord

	top := container.NewVBox(prompt, c.entry, container.NewHBox(check, byContents))
	left := container.NewBorder(top, c.tries, nil, nil, container.NewVBox(verdictBox))
	split := container.NewHSplit(container.NewPadded(left), container.NewPadded(c.picture))
	split.Offset = 0.4
	c.content = split
	c.show(verdictNone, lang.L("READY"), "", lang.L("The verdict appears here."))
	return c
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
	c.show(verdictNone, lang.L("READY"), "", lang.L("The verdict appears here."))
}

func (c *counterScreen) show(k verdict, title, amount, detail string) {
	c.kind = k
	if k != verdictNone {
		line := time.Now().Format("15:04:05") + "  " + title
		if amount != "" {
			line += " " + amount
		}
		c.history = append([]string{line}, c.history...)
		if len(c.history) > 8 {
			c.history = c.history[:8]
		}
		c.tries.SetText(lang.L("Last checks") + "\n" + strings.Join(c.history, "\n"))
	}
	c.bg.FillColor = verdictStyle[k]
	c.bg.Refresh()
	c.title.Text = title
	c.title.Refresh()
	c.amount.Text = amount
	c.amount.Refresh()
	c.detail.SetText(detail)
	if k == verdictWinner {
		c.pay.Show()
	} else {
		c.pay.Hide()
	}
}

// check looks up a serial and shows the verdict. The serial's check digit is
// checked before any lookup. The previous verdict is cleared first, so that
// nothing of the last ticket (its PAYER above all) survives a failed check.
func (c *counterScreen) check(text string) {
	defer func() {
		c.entry.SetText("")
		c.focus()
	}()
	if text == "" {
		return
	}
	c.blank()
	if _, err := game.ParseSerial(text); err != nil {
		msg := lang.L("The serial has 21 digits: check them and type it again.")
		if errors.Is(err, game.ErrCheckDigit) {
			msg = lang.L("The check digit does not match: a digit was mistyped. Type the serial again.")
		}
		c.show(verdictMistyped, lang.L("MISTYPED SERIAL"), "", text+"\n"+msg)
		return
	}
	if c.d.ledger == nil {
		c.showFailure(text, lang.L("No ledger is open: open or create one in Settings."), nil)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	t, err := c.d.ledger.Lookup(ctx, text, c.d.identity(), c.d.payoutLimit())
	var r *ledger.Refusal
	switch {
	case errors.Is(err, ledger.ErrUnknownSerial):
		c.show(verdictUnknown, lang.L("UNKNOWN SERIAL"), "", text+"\n"+lang.L("No ticket of this ledger has this serial. Do not pay."))
	case errors.As(err, &r) && r.Verdict == ledger.Locked:
		c.show(verdictError, lang.L("DESK LOCKED — DO NOT PAY"), "", lang.L("Too many unknown serials: this desk is locked until {{.Time}}. Call the back office.",
			map[string]any{"Time": r.Until.Local().Format("15:04")}))
	case errors.Is(err, ledger.ErrUnreachable):
		c.show(verdictError, lang.L("LEDGER UNREACHABLE — DO NOT PAY"), "", text+"\n"+lang.L("The shared ledger does not answer. Check the network, then try again."))
	case err != nil:
		c.showFailure(text, lang.L("The ledger could not be read. Try again; if it goes on, check the ledger in Settings."), err)
	default:
		c.showTicket(t)
	}
}

// blank clears the verdict, the ticket and PAYER without recording a check.
func (c *counterScreen) blank() {
	c.current = nil
	c.kind = verdictNone
	c.picture.SetTicket(nil, nil)
	c.pay.Hide()
	c.bg.FillColor = verdictStyle[verdictNone]
	c.bg.Refresh()
	c.title.Text = ""
	c.title.Refresh()
	c.amount.Text = ""
	c.amount.Refresh()
	c.detail.SetText("")
}

// showFailure shows the error verdict: the ledger gave no answer for serial,
// so nothing may be paid. err, when not nil, is added for whoever maintains
// the desk.
func (c *counterScreen) showFailure(serial, msg string, err error) {
	detail := serial + "\n" + msg + "\n" + lang.L("Do not pay.")
	if err != nil {
		detail += "\n(" + err.Error() + ")"
	}
	c.show(verdictError, lang.L("ERROR — DO NOT PAY"), "", detail)
}

// showTicket shows the verdict of a ticket found in the ledger.
func (c *counterScreen) showTicket(t ledger.Ticket) {
	c.current = &t
	c.picture.SetTicket(&t.Ticket, &t.Serial)
	where := fmt.Sprintf("%s · %s %d/%d · %s %d", t.Serial.String(), lang.L("block"), t.Block.Game, t.Block.Number, lang.L("pack"), t.Pack)
	if kind, title, detail := refusalText(t.Verdict, t.Until); kind != verdictNone {
		c.show(kind, title, "", where+"\n"+detail)
		return
	}
	switch t.Verdict {
	case ledger.NotWinner:
		c.show(verdictLoser, lang.L("LOSER"), "", where+"\n"+lang.L("This ticket wins nothing."))
	case ledger.AlreadyClaimed:
		c.show(verdictPaid, lang.L("ALREADY PAID"), game.FormatAmount(t.Prize), where+"\n"+claimText(t.Claim)+"\n"+lang.L("Do not pay again."))
	case ledger.OverLimit:
		c.show(verdictOverLimit, lang.L("TO BE PAID BY THE BACK OFFICE"), game.FormatAmount(t.Prize), where+"\n"+c.d.limitText())
	default: // Payable, IdentityRequired (the payment asks for it)
		c.show(verdictWinner, lang.L("WINNER"), game.FormatAmount(t.Prize), where+"\n"+winsText(&t.Ticket))
	}
}

// refusalText is the verdict of a ticket whose pack or dates refuse it,
// or verdictNone.
func refusalText(v ledger.Verdict, until time.Time) (verdict, string, string) {
	switch v {
	case ledger.NotActivated:
		return verdictRefused, lang.L("PACK NOT ACTIVATED"), lang.L("This ticket's pack is not on sale. Do not pay.")
	case ledger.Stolen:
		return verdictStolen, lang.L("PACK REPORTED STOLEN — KEEP THE TICKET"), lang.L("Do not pay and do not give the ticket back: call the back office.")
	case ledger.NotYetOnSale:
		return verdictRefused, lang.L("NOT YET ON SALE"), lang.L("The game goes on sale on {{.Date}}. Do not pay.", map[string]any{"Date": until.Local().Format("02/01/2006")})
	case ledger.Expired:
		return verdictRefused, lang.L("EXPIRED — CLAIM DEADLINE PASSED ON {{.Date}}", map[string]any{"Date": until.Local().Format("02/01/2006")}),
			lang.L("The claim period is over. Do not pay.")
	}
	return verdictNone, "", ""
}

// claimText says when, where and by whom a ticket was paid.
func claimText(cl *ledger.Claim) string {
	if cl == nil {
		return ""
	}
	return lang.L("Paid on {{.When}} at desk {{.Desk}} by {{.Operator}}", map[string]any{
		"When": cl.At.Local().Format("02/01/2006 15:04:05"), "Desk": cl.Desk, "Operator": cl.Operator})
}

// winsText lists the winning zones: "ROULETTE mise 2 : 6 € · CRAPS : 15 €".
func winsText(t *game.Ticket) string {
	_, wins := game.Evaluate(t)
	s := ""
	for i, w := range wins {
		if i > 0 {
			s += " · "
		}
		s += zoneName(w) + " " + game.FormatAmount(w.Amount)
	}
	return s
}

// zoneName names a winning zone as a player reads it.
func zoneName(w game.Win) string {
	switch w.Surface {
	case game.Roulette:
		return fmt.Sprintf("ROULETTE %s %d", lang.L("chip"), w.Index+1)
	case game.Jackpot:
		return fmt.Sprintf("JACKPOT %s %d", lang.L("line"), w.Index+1)
	}
	return w.Surface.String()
}

// askPay pays the ticket shown, after a confirmation.
func (c *counterScreen) askPay() {
	t := c.current
	if t == nil || c.kind != verdictWinner {
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
	c.show(r.kind, r.title, r.amount, r.detail)
}
