package ui

import (
	"context"
	"errors"
	"time"

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
	if t.Prize > d.payoutLimit() {
		then(d.overLimit(t))
		return
	}
	msg := lang.L("Pay {{.Amount}} for ticket {{.Serial}}?", map[string]any{"Amount": game.FormatAmount(t.Prize), "Serial": t.Serial.String()})
	d.confirm(lang.L("Pay this ticket"), widget.NewLabel(msg), lang.L("PAY"), lang.L("Cancel"), func(ok bool) {
		if !ok {
			then(payResult{kind: verdictNone})
			return
		}
		then(d.claim(t, method))
	})
}

// claim records the claim of t, without a confirmation, unless its prize
// is above the payout limit (which may have been lowered since the lookup).
func (d *desk) claim(t ledger.Ticket, method string) payResult {
	if t.Prize > d.payoutLimit() {
		return d.overLimit(t)
	}
	if d.ledger == nil {
		return payResult{verdictError, "", t.Serial.String() + "\n" + lang.L("No ledger is open: open or create one in Settings.")}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cl, err := d.ledger.Claim(ctx, t.Serial.String(), method, d.identity())
	var dup *ledger.AlreadyClaimedError
	switch {
	case errors.As(err, &dup):
		first := dup.First
		return payResult{verdictPaid, game.FormatAmount(t.Prize),
			t.Serial.String() + "\n" + claimText(&first) + "\n" + lang.L("Do not pay again.")}
	case err != nil:
		return payResult{verdictError, "",
			t.Serial.String() + "\n" + lang.L("The payment was not recorded. Do not pay.") + "\n(" + err.Error() + ")"}
	}
	return payResult{verdictJustPaid, game.FormatAmount(cl.Amount),
		t.Serial.String() + "\n" + lang.L("Claim {{.ID}}", map[string]any{"ID": cl.ID}) + " · " + lang.L("Ready for the next ticket.")}
}
