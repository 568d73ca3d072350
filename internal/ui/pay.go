package ui

import (
	"context"
	"errors"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/widget"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger"
)

// payResult is what became of a payment, as a verdict the screens show
// (with counterTitle's words).
type payResult struct {
	kind           verdict // verdictJustPaid, verdictPaid, verdictOverLimit or verdictError
	amount, detail string
}

// limitText says that this desk does not pay above its payout limit.
func (d *desk) limitText() string {
	return lang.L("This desk pays up to {{.Limit}}: send the player to a payment centre.",
		map[string]any{"Limit": game.FormatAmount(d.payoutLimit())})
}

// overLimit is the verdict on a prize above this desk's payout limit.
func (d *desk) overLimit(t ledger.Ticket) payResult {
	return payResult{verdictOverLimit, game.FormatAmount(t.Prize), t.Serial.String() + "\n" + d.limitText()}
}

// pay is the one payment flow of the app: the payout limit is checked, a
// confirmation asked (Enter pays, Escape cancels), the limit checked again
// and the claim recorded; then runs with the result, on the app goroutine.
// A cancelled confirmation runs then with a verdictNone result.
func (d *desk) pay(t ledger.Ticket, method string, then func(payResult)) {
	if !d.limit().Pays(t.Prize) {
		then(d.overLimit(t))
		return
	}
	msg := lang.L("Pay {{.Amount}} for ticket {{.Serial}}?", map[string]any{"Amount": game.FormatAmount(t.Prize), "Serial": t.Serial.String()})
	var content fyne.CanvasObject = widget.NewLabel(msg)
	var winner *ledger.Winner
	if t.Verdict == ledger.IdentityRequired {
		// From the identity threshold, the winner's identity is recorded
		// with the payment (and never shown at a counter again).
		name, doc, number := d.newDialogEntry(), d.newDialogEntry(), d.newDialogEntry()
		doc.SetPlaceHolder(lang.L("identity card, passport…"))
		content = container.NewVBox(widget.NewLabel(msg), widget.NewLabel(lang.L("This prize is paid against the winner's identity:")),
			widget.NewForm(widget.NewFormItem(lang.L("Winner's name"), name), widget.NewFormItem(lang.L("Identity document"), doc),
				widget.NewFormItem(lang.L("Document number"), number)))
		winner = &ledger.Winner{}
		name.OnChanged = func(s string) { winner.Name = s }
		doc.OnChanged = func(s string) { winner.DocType = s }
		number.OnChanged = func(s string) { winner.DocNumber = s }
		defer d.win.Canvas().Focus(name)
	}
	d.confirm(lang.L("Pay this ticket"), content, lang.L("PAY"), lang.L("Cancel"), func(ok bool) {
		if !ok {
			then(payResult{kind: verdictNone})
			return
		}
		then(d.claim(t, method, winner))
	})
}

// claim records the claim of t, without a confirmation, unless its prize
// is above the payout limit (which may have been lowered since the lookup).
// winner is the winner's identity, from the identity threshold on.
func (d *desk) claim(t ledger.Ticket, method string, winner *ledger.Winner) payResult {
	if !d.limit().Pays(t.Prize) {
		return d.overLimit(t)
	}
	if d.ledger == nil {
		return payResult{verdictError, "", t.Serial.String() + "\n" + lang.L("No ledger is open: open or create one in Settings.")}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cl, err := d.ledger.Claim(ctx, ledger.ClaimRequest{Serial: t.Serial.String(), Method: method, Who: d.identity(),
		Limit: d.limit(), Winner: winner})
	var r *ledger.Refusal
	if errors.As(err, &r) {
		if k, detail := refusal(r.Verdict, r.Until); k != verdictNone {
			return payResult{k, "", t.Serial.String() + "\n" + detail}
		}
	}
	switch {
	case errors.Is(err, ledger.ErrAlreadyClaimed):
		return payResult{verdictPaid, game.FormatAmount(t.Prize),
			t.Serial.String() + "\n" + claimText(r.First) + "\n" + lang.L("Do not pay again.")}
	case errors.Is(err, ledger.ErrOverLimit):
		return d.overLimit(t)
	case errors.Is(err, ledger.ErrUnreachable):
		return payResult{verdictUnreachable, "", t.Serial.String() + "\n" + unreachableText()}
	case errors.Is(err, ledger.ErrIdentityRequired):
		return payResult{verdictError, "", t.Serial.String() + "\n" + lang.L("Record the winner's name and identity document to pay this prize.")}
	case err != nil:
		return payResult{verdictError, "",
			t.Serial.String() + "\n" + lang.L("The payment was not recorded. Do not pay.") + "\n(" + err.Error() + ")"}
	}
	d.lastPayment = cl.Number
	return payResult{verdictJustPaid, game.FormatAmount(cl.Amount),
		t.Serial.String() + "\n" + lang.L("Claim {{.ID}}", map[string]any{"ID": cl.Number}) + " · " + lang.L("Ready for the next ticket.")}
}

// refer records the referral of t, a prize above this desk's payout limit,
// for the back office, which pays it: a claim the ledger refuses as above
// the limit records it. The limit asked is below the prize whatever the
// settings say now, so that a referral never pays. It returns what to tell
// the cashier, or "" when nothing was recorded.
func (d *desk) refer(t ledger.Ticket) string {
	if d.ledger == nil || d.ledger.ReadOnly() || t.Prize < 2 {
		return ""
	}
	limit := ledger.LimitOf(t.Prize - 1).Lower(d.limit())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := d.ledger.Claim(ctx, ledger.ClaimRequest{Serial: t.Serial.String(), Method: ledger.MethodSerial, Who: d.identity(), Limit: limit})
	var r *ledger.Refusal
	if errors.As(err, &r) && r.Verdict == ledger.OverLimit {
		return lang.L("Referral recorded: the back office expects the player.")
	}
	return ""
}
