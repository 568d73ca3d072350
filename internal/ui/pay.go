package ui

import (
	"context"
	"errors"
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

// payResult is what became of a payment, as a verdict the screens show
// (with counterTitle's words).
type payResult struct {
	kind           verdict // verdictJustPaid, verdictPaid, verdictOverLimit or verdictError
	amount, detail string
	payment        int64  // the payment recorded (verdictJustPaid), or the first one (verdictPaid) when this desk may reprint it
	serial         string // the ticket's
}

// limitText says that this desk does not pay above its payout limit.
func (d *desk) limitText() string {
	return lang.L("This desk pays up to {{.Limit}}: send the player to a payment centre.",
		map[string]any{"Limit": game.FormatAmount(d.payoutLimit())})
}

// overLimit is the verdict on a prize above this desk's payout limit.
func (d *desk) overLimit(t ledger.Ticket) payResult {
	return payResult{kind: verdictOverLimit, amount: game.FormatAmount(t.Prize), detail: t.Serial.String() + "\n" + d.limitText(),
		serial: t.Serial.String()}
}

// claimTimeout bounds a payment: a shared ledger's claim whose answer was
// lost is asked again, with the same request id, by the ledger's retry
// policy, which answers within this time (ledger.ClaimWait). The tests
// shorten it.
var claimTimeout = ledger.ClaimWait()

// pay is the one payment flow of the app: the payout limit is checked, a
// confirmation asked (Enter pays, Escape cancels), the limit checked again
// and the claim recorded; then runs with the result, on the app goroutine.
// A cancelled confirmation runs then with a verdictNone result.
//
// The claim runs in a goroutine: a shared ledger's server may take up to
// claimTimeout to answer. Meanwhile the dialog says "Paiement en cours…",
// its buttons are disabled and Enter and Escape do nothing, so that nothing
// is paid twice and the cashier sees that the app is at work.
func (d *desk) pay(t ledger.Ticket, method string, then func(payResult)) {
	if !d.limit().Pays(t.Prize) {
		then(d.overLimit(t))
		return
	}
	msg := lang.L("Pay {{.Amount}} for ticket {{.Serial}}?", map[string]any{"Amount": game.FormatAmount(t.Prize), "Serial": t.Serial.String()})
	keys := widget.NewLabel(lang.L("Enter or F10: pay · Escape: cancel"))
	keys.Importance = widget.LowImportance
	body := container.NewVBox(widget.NewLabel(msg))
	var winner *ledger.Winner
	var first fyne.Focusable
	var typed func() // the identity typed again: the problem said before goes
	if t.Verdict == ledger.IdentityRequired {
		// From the identity threshold, the winner's identity is recorded
		// with the payment (and never shown at a counter again).
		// The document from the list a cashier may accept (issue 29), its
		// number in its format, the name as the document prints it.
		winner = &ledger.Winner{}
		// A CNI, a passport, a titre de séjour: their machine-readable
		// zone (issue 44), which an MRZ reader acting as a keyboard types
		// here, its lines ended by Enter; the name, document and number
		// are the zone's, shown as read. A driving licence: typed.
		zone := d.newEntry()
		zone.MultiLine, zone.Wrapping = true, fyne.TextWrapOff
		zone.TextStyle.Monospace = true
		zone.SetMinRowsVisible(3)
		zone.SetPlaceHolder(lang.L("the lines of capitals, digits and < at the foot of the document"))
		read := widget.NewLabel("")
		read.TextStyle.Bold = true
		name, number := d.newDialogEntry(), d.newDialogEntry()
		doc := d.newSelect(documentLabels(), func(s string) { winner.DocType = documentOfLabel(s) })
		doc.PlaceHolder = lang.L("choose the document")
		hint := widget.NewLabel(lang.L("CNI, passport, residence permit: read the MRZ at the foot of the document with the reader (or type it). Driving licence: type the name and the number."))
		hint.Wrapping = fyne.TextWrapWord
		body.Add(widget.NewLabel(lang.L("This prize is paid against the winner's identity:")))
		body.Add(hint)
		body.Add(widget.NewForm(widget.NewFormItem(lang.L("Machine-readable zone"), zone), widget.NewFormItem("", read),
			widget.NewFormItem(lang.L("Identity document"), doc), widget.NewFormItem(lang.L("Winner's name"), name),
			widget.NewFormItem(lang.L("Document number"), number)))
		name.OnChanged = func(s string) { winner.Name = s }
		number.OnChanged = func(s string) { winner.DocNumber = s }
		zone.OnChanged = func(s string) {
			winner.MRZ = s
			read.SetText(zoneRead(winner))
			if typed != nil {
				typed()
			}
		}
		first = zone
	}
	working := widget.NewActivity()
	state := widget.NewLabel("")
	state.TextStyle.Bold = true
	progress := container.NewHBox(working, state)
	progress.Hide()
	var dlg dialog.Dialog
	busy := false
	typed = func() {
		if !busy {
			state.SetText("")
			progress.Hide()
		}
	}
	var payB, cancelB *keyButton
	cancel := func() {
		if busy {
			return // a payment in flight is not cancelled: it ends on its own
		}
		dlg.Hide()
		then(payResult{kind: verdictNone})
	}
	confirm := func() {
		if busy {
			return // a second Enter pays nothing more
		}
		if why := identityProblem(winner, time.Now()); why != "" {
			state.SetText(why) // the dialog stays open for the identity to be typed again
			progress.Show()
			return
		}
		req, res, ok := d.claimRequest(t, method, winner)
		if !ok {
			dlg.Hide()
			then(res)
			return
		}
		busy = true
		payB.Disable()
		cancelB.Disable()
		state.SetText(lang.L("Payment in progress…"))
		progress.Show()
		working.Start()
		d.startPayment(req, func(cl ledger.Claim, err error) {
			working.Stop()
			busy = false
			dlg.Hide()
			then(d.claimResult(t, cl, err))
		})
	}
	// The desk hears their keys: a scan's Enter does not pay (enterSpent),
	// a serial scanned closes the dialog unpaid and is checked (scanned).
	payB = payButton(withConfirmKey(lang.L("PAY")), confirm)
	cancelB = d.button(lang.L("Cancel"), theme.CancelIcon(), cancel)
	payB.d = d
	payB.escape, cancelB.escape = cancel, cancel
	body.Add(progress)
	body.Add(container.NewHBox(keys, layout.NewSpacer(), cancelB, payB))
	dlg = dialog.NewCustomWithoutButtons(lang.L("Pay this ticket"), body, d.win)
	d.addAnswer(dlg, &answer{ok: confirm, cancel: cancel, money: true})
	dlg.Show()
	if first != nil {
		d.win.Canvas().Focus(first)
	} else {
		d.win.Canvas().Focus(payB)
	}
}

// documentLabels are the documents a cashier may accept, as the pay
// dialog's list shows them.
func documentLabels() []string {
	var out []string
	for _, doc := range core.Documents {
		out = append(out, lang.L(doc.Label))
	}
	return out
}

// documentOfLabel is the document type of a label of the list.
func documentOfLabel(label string) string {
	for _, doc := range core.Documents {
		if lang.L(doc.Label) == label {
			return doc.Type
		}
	}
	return ""
}

// zoneRead says what the zone typed so far gives, "Read: NAME, CNI
// NUMBER", or "" while it does not read.
func zoneRead(w *ledger.Winner) string {
	if strings.TrimSpace(w.MRZ) == "" || errors.Is(w.Check(), ledger.ErrIdentityMRZ) {
		return ""
	}
	n := w.Normal()
	doc, _ := core.DocumentOf(n.DocType)
	return lang.L("Read: {{.Name}}, {{.Doc}} {{.Number}}", map[string]any{"Name": n.Name, "Doc": lang.L(doc.Label), "Number": n.DocNumber})
}

// identityProblem says in the cashier's words why the winner's identity
// typed is none (ledger.Winner.Check: a name that is not letters of one
// script as on the document, no document chosen, a document that carries
// a machine-readable zone without it or a zone that does not read, a
// number out of its document's format), or why a payment at at does not
// take it (Winner.CheckAt: a minor, a document expired), or "" when it is
// given or not asked.
func identityProblem(w *ledger.Winner, at time.Time) string {
	if w == nil {
		return ""
	}
	zone := strings.TrimSpace(w.MRZ) != ""
	switch err := w.Check(); {
	case err == nil:
	case errors.Is(err, ledger.ErrMRZCheckDigit):
		return lang.L("A check digit of the MRZ does not match: read it again (a character misread, or a made-up number).")
	case errors.Is(err, ledger.ErrMRZFormat):
		return lang.L("This is not an MRZ: 2 lines of 44 (passport), 3 lines of 30 (identity card, residence permit) or 2 lines of 36 (identity card before 2021). Read it again.")
	case errors.Is(err, ledger.ErrIdentityMRZ) && zone:
		return lang.L("This document is not one a cashier may accept: a French identity card, passport or residence permit, or a driving licence.")
	case errors.Is(err, ledger.ErrIdentityName) && zone:
		return lang.L("The MRZ gives a name that is no name (a placeholder): do not pay.")
	case errors.Is(err, ledger.ErrIdentityNumber) && zone:
		return lang.L("The MRZ gives a number that is no document's (a placeholder or a specimen's): do not pay.")
	case errors.Is(err, ledger.ErrIdentityName):
		return lang.L("Type the winner's name as the document prints it: at least two letters of one script, no sign or placeholder.")
	case errors.Is(err, ledger.ErrIdentityDoc):
		return lang.L("Choose the identity document.")
	case errors.Is(err, ledger.ErrIdentityMRZ):
		doc, _ := core.DocumentOf(w.DocType)
		return lang.L("A {{.Doc}} carries a machine-readable zone: read it with the MRZ reader (or type its lines) rather than the name and the number.", map[string]any{"Doc": lang.L(doc.Label)})
	default:
		doc, _ := core.DocumentOf(w.DocType)
		var formats []string
		for _, f := range doc.Formats {
			formats = append(formats, lang.L(f))
		}
		return lang.L("This is not a number of a {{.Doc}}: {{.Formats}}.", map[string]any{"Doc": lang.L(doc.Label), "Formats": strings.Join(formats, lang.L(", or "))})
	}
	return datesProblem(w.CheckAt(at))
}

// datesProblem says in the cashier's words what err, a refusal of
// Winner.CheckAt (here or from the ledger), means, or "".
func datesProblem(err error) string {
	switch {
	case errors.Is(err, ledger.ErrMinor):
		return lang.L("The winner is under 18: a prize is never paid to a minor. Do not pay.")
	case errors.Is(err, ledger.ErrDocumentExpired):
		return lang.L("This identity document has expired: ask for a valid one.")
	}
	return ""
}

// claimRequest is the claim of t at this desk, or the result without a
// claim: a prize above the payout limit (which may have been lowered since
// the lookup), or no ledger open.
func (d *desk) claimRequest(t ledger.Ticket, method string, winner *ledger.Winner) (ledger.ClaimRequest, payResult, bool) {
	if !d.limit().Pays(t.Prize) {
		return ledger.ClaimRequest{}, d.overLimit(t), false
	}
	if d.ledger == nil {
		return ledger.ClaimRequest{}, payResult{kind: verdictError, serial: t.Serial.String(),
			detail: t.Serial.String() + "\n" + lang.L("No ledger is open: open or create one in Settings.")}, false
	}
	return ledger.ClaimRequest{Serial: t.Serial.String(), Method: method, Who: d.identity(), Limit: d.limit(), Winner: winner}, payResult{}, true
}

// startPayment records the claim req in a goroutine, then runs done with
// its answer on the app goroutine. The window waits for it before it
// closes (quit).
func (d *desk) startPayment(req ledger.ClaimRequest, done func(ledger.Claim, error)) {
	l, ended := d.ledger, make(chan struct{})
	d.payments[ended] = struct{}{}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), claimTimeout)
		cl, err := l.Claim(ctx, req)
		cancel()
		close(ended)
		onMain(func() {
			delete(d.payments, ended)
			if !d.closing {
				done(cl, err)
			}
		})
	}()
}

// claim records the claim of t, without a confirmation and on the app
// goroutine, unless its prize is above the payout limit. winner is the
// winner's identity, from the identity threshold on.
func (d *desk) claim(t ledger.Ticket, method string, winner *ledger.Winner) payResult {
	req, res, ok := d.claimRequest(t, method, winner)
	if !ok {
		return res
	}
	ctx, cancel := context.WithTimeout(context.Background(), claimTimeout)
	defer cancel()
	cl, err := d.ledger.Claim(ctx, req)
	return d.claimResult(t, cl, err)
}

// claimResult is what the ledger's answer to the claim of t means at the
// counter.
func (d *desk) claimResult(t ledger.Ticket, cl ledger.Claim, err error) (res payResult) {
	defer func() { res.serial = t.Serial.String() }()
	var r *ledger.Refusal
	if errors.As(err, &r) {
		if k, detail := refusal(r.Verdict, r.Until); k != verdictNone {
			return payResult{kind: k, detail: t.Serial.String() + "\n" + detail}
		}
	}
	if k, why := refused(err); k != verdictNone {
		if k == verdictUnreachable {
			d.setOnline(false)
		}
		return payResult{kind: k, detail: t.Serial.String() + "\n" + why}
	}
	switch {
	case errors.Is(err, ledger.ErrAlreadyClaimed):
		return payResult{kind: verdictPaid, amount: game.FormatAmount(t.Prize),
			detail: t.Serial.String() + "\n" + claimText(r.First) + "\n" + lang.L("Do not pay again."), payment: d.reprintable(r.First)}
	case errors.Is(err, ledger.ErrOverLimit):
		return d.overLimit(t)
	case errors.Is(err, ledger.ErrIdentityRequired):
		return payResult{kind: verdictError, detail: t.Serial.String() + "\n" + lang.L("Record the winner's name and identity document to pay this prize.")}
	case datesProblem(err) != "":
		return payResult{kind: verdictError, detail: t.Serial.String() + "\n" + datesProblem(err)}
	case err != nil:
		return payResult{kind: verdictError,
			detail: t.Serial.String() + "\n" + lang.L("The payment was not recorded. Do not pay.") + "\n(" + err.Error() + ")"}
	}
	d.answered()
	return payResult{kind: verdictJustPaid, amount: game.FormatAmount(cl.Amount),
		detail:  t.Serial.String() + "\n" + lang.L("Claim {{.ID}}", map[string]any{"ID": cl.Number}) + " · " + lang.L("Ready for the next ticket."),
		payment: cl.Number}
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
