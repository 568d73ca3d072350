package ui

import (
	"context"
	"errors"
	"fmt"
	"time"

	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/widget"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger"
)

// payResult is what became of a payment, as a verdict the screens show.
type payResult struct {
	kind                  verdict // verdictJustPaid, verdictPaid, verdictOverLimit or verdictError
	title, amount, detail string
}

// limitText says that this desk does not pay above its payout limit.
func (d *desk) limitText() string {
	return lang.L("This desk pays up to {{.Limit}}: send the player to a payment centre.",
		map[string]any{"Limit": game.FormatAmount(d.payoutLimit())})
}

// overLimit is the verdict on a prize above this desk's payout limit.
func (d *desk) overLimit(t ledger.Ticket) payResult {
	return payResult{verdictOverLimit, lang.L("TO BE PAID BY THE BACK OFFICE"), game.FormatAmount(t.Prize), t.Serial.String() + "\n" + d.limitText()}
}

// pay is the one payment flow of the app: the payout limit is checked, a
// confirmation asked, the limit checked again and the claim recorded; then
// runs with the result, on the app goroutine. A cancelled confirmation
// runs then with a verdictNone result.
func (d *desk) pay(t ledger.Ticket, method string, then func(payResult)) {
	if t.Prize > d.payoutLimit() {
		then(d.overLimit(t))
		return
	}
	msg := lang.L("Pay {{.Amount}} for ticket {{.Serial}}?", map[string]any{"Amount": game.FormatAmount(t.Prize), "Serial": t.Serial.String()})
	dialog.ShowCustomConfirm(lang.L("Pay this ticket"), lang.L("PAY"), lang.L("Cancel"), widget.NewLabel(msg), func(ok bool) {
		if !ok {
			then(payResult{kind: verdictNone})
			return
		}
		then(d.claim(t, method))
	}, d.win)
}

// claim records the claim of t, without a confirmation, unless its prize
// is above the payout limit (which may have been lowered since the lookup).
func (d *desk) claim(t ledger.Ticket, method string) payResult {
	if t.Prize > d.payoutLimit() {
		return d.overLimit(t)
	}
	if d.ledger == nil {
		return payResult{verdictError, lang.L("ERROR — DO NOT PAY"), "", t.Serial.String() + "\n" + lang.L("No ledger is open: open or create one in Settings.")}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cl, err := d.ledger.Claim(ctx, ledger.ClaimRequest{Serial: t.Serial.String(), Method: method, Who: d.identity(), Limit: d.payoutLimit()})
	var r *ledger.Refusal
	if errors.As(err, &r) {
		if kind, title, detail := refusalText(r.Verdict, r.Until); kind != verdictNone {
			return payResult{kind, title, "", t.Serial.String() + "\n" + detail}
		}
	}
	switch {
	case errors.Is(err, ledger.ErrAlreadyClaimed):
		return payResult{verdictPaid, lang.L("ALREADY PAID"), game.FormatAmount(t.Prize),
			t.Serial.String() + "\n" + claimText(r.First) + "\n" + lang.L("Do not pay again.")}
	case errors.Is(err, ledger.ErrOverLimit):
		return d.overLimit(t)
	case errors.Is(err, ledger.ErrUnreachable):
		return payResult{verdictError, lang.L("LEDGER UNREACHABLE — DO NOT PAY"), "",
			t.Serial.String() + "\n" + lang.L("The shared ledger does not answer. Check the network, then try again.")}
	case err != nil:
		return payResult{verdictError, lang.L("ERROR — DO NOT PAY"), "",
			t.Serial.String() + "\n" + lang.L("The payment was not recorded. Do not pay.") + "\n(" + err.Error() + ")"}
	}
	return payResult{verdictJustPaid, lang.L("PAID"), game.FormatAmount(cl.Amount),
		fmt.Sprintf("%s\n%s %d · %s", t.Serial.String(), lang.L("Claim"), cl.Number, lang.L("Ready for the next ticket."))}
}
