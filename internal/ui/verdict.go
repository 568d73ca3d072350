package ui

import (
	"errors"
	"image/color"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"vegas-desk/internal/ledger"
)

// verdict is what a screen says about the last ticket checked.
type verdict int

const (
	verdictNone         verdict = iota
	verdictWinner               // GAGNANT: payable here
	verdictLoser                // PERDANT
	verdictPaid                 // DÉJÀ PAYÉ
	verdictUnknown              // NUMÉRO INCONNU, TICKET INCONNU
	verdictMistyped             // NUMÉRO MAL SAISI, À CORRIGER
	verdictOverLimit            // a winner above this desk's payout limit
	verdictJustPaid             // PAYÉ: the claim was just recorded
	verdictError                // ERREUR, NE PAS PAYER: nothing may be paid
	verdictNotActivated         // CARNET NON ACTIVÉ: its pack is not on sale
	verdictStolen               // CARNET DÉCLARÉ VOLÉ: keep the ticket
	verdictNotYet               // PAS ENCORE EN VENTE
	verdictExpired              // FORCLOS: the claim deadline passed
	verdictLocked               // GUICHET BLOQUÉ: too many unknown serials
	verdictUnreachable          // REGISTRE INJOIGNABLE: the shared ledger does not answer
	// The validation server refuses this desk:
	verdictDisabled    // GUICHET DÉSACTIVÉ: by the back office
	verdictRevoked     // FICHIER DE GUICHET RÉVOQUÉ: its certificate
	verdictUnknownDesk // GUICHET INCONNU: the ledger has no such desk
	verdictOtherLedger // AUTRE REGISTRE: the server serves another ledger
)

// verdictStyle gives each verdict its background colour: dark enough
// for the white title and the light details on it to read at 4.5:1 at
// least (WCAG AA; TestContrast measures it on the rendered screen).
var verdictStyle = map[verdict]color.NRGBA{
	verdictNone:      {0x2a, 0x20, 0x40, 0xff},
	verdictWinner:    {0x0b, 0x7a, 0x36, 0xff},
	verdictLoser:     {0x4a, 0x4a, 0x55, 0xff},
	verdictPaid:      {0xc0, 0x1a, 0x2a, 0xff},
	verdictUnknown:   {0x23, 0x3a, 0x6e, 0xff},
	verdictMistyped:  {0xa6, 0x58, 0x00, 0xff},
	verdictOverLimit: {0x9a, 0x2b, 0xb0, 0xff},
	verdictJustPaid:  {0x0a, 0x5c, 0x2c, 0xff},
	verdictError:     {0x8b, 0x00, 0x00, 0xff},

	verdictNotActivated: {0xb3, 0x4a, 0x00, 0xff},
	verdictStolen:       {0x6e, 0x00, 0x1a, 0xff},
	verdictNotYet:       {0x5c, 0x4a, 0x00, 0xff},
	verdictExpired:      {0x5a, 0x3a, 0x1a, 0xff},
	verdictLocked:       {0x8b, 0x00, 0x00, 0xff},
	verdictUnreachable:  {0x8b, 0x00, 0x00, 0xff},
	verdictDisabled:     {0x8b, 0x00, 0x00, 0xff},
	verdictRevoked:      {0x8b, 0x00, 0x00, 0xff},
	verdictUnknownDesk:  {0x8b, 0x00, 0x00, 0xff},
	verdictOtherLedger:  {0x8b, 0x00, 0x00, 0xff},
}

// refusal is the verdict and the details of a ticket that a claim would
// refuse for its pack or its dates, or of a desk that may not pay now;
// verdictNone for any other.
func refusal(v ledger.Verdict, until time.Time) (verdict, string) {
	switch v {
	case ledger.NotActivated:
		return verdictNotActivated, lang.L("This ticket's pack is not on sale. Do not pay.")
	case ledger.Stolen:
		return verdictStolen, lang.L("Do not pay and do not give the ticket back: call the back office.")
	case ledger.NotYetOnSale:
		return verdictNotYet, lang.L("The game goes on sale on {{.Date}}. Do not pay.", map[string]any{"Date": until.Local().Format("02/01/2006")})
	case ledger.Expired:
		return verdictExpired, lang.L("Claim deadline passed on {{.Date}}. Do not pay.", map[string]any{"Date": until.Local().Format("02/01/2006")})
	case ledger.Locked:
		return verdictLocked, lang.L("Too many unknown serials: this desk is locked until {{.Time}}. Call the back office.",
			map[string]any{"Time": until.Local().Format("15:04")})
	}
	return verdictNone, ""
}

// refused is the verdict of an error that forbids paying at this desk, and
// whom to call: a validation server's refusal of this desk (disabled, its
// desk file revoked, unknown, another ledger), a lock-out, or a ledger
// that does not answer (the network); verdictNone for any other error.
func refused(err error) (verdict, string) {
	var r *ledger.Refusal
	switch {
	case errors.As(err, &r) && r.Verdict == ledger.Locked:
		return refusal(r.Verdict, r.Until)
	case errors.Is(err, ledger.ErrDeskDisabled):
		return verdictDisabled, lang.L("The back office disabled this desk on the validation server. Pay nothing: call the back office to enable it again.")
	case errors.Is(err, ledger.ErrDeskRevoked):
		return verdictRevoked, lang.L("The validation server no longer accepts this desk file's certificate (revoked or replaced). Pay nothing: call the back office for a new desk file, then choose it in Settings.")
	case errors.Is(err, ledger.ErrDeskUnknown):
		return verdictUnknownDesk, lang.L("The validation server's ledger has no desk of this desk file's id. Pay nothing: call the back office, which adds the desk or gives you the right desk file.")
	case errors.Is(err, ledger.ErrOtherLedger):
		return verdictOtherLedger, lang.L("The validation server at this address serves another ledger than this desk file's. Pay nothing: check the server's address in Settings, or call the back office.")
	case errors.Is(err, ledger.ErrUnavailable): // before ErrUnreachable, which it is too
		return verdictUnreachable, unreachableText(true)
	case errors.Is(err, ledger.ErrUnreachable):
		return verdictUnreachable, unreachableText(false)
	}
	return verdictNone, ""
}

// unreachableText says what to do when the shared ledger does not answer:
// the validation server answered but its ledger did not (ledgerDown: the
// network is fine, the back office is to call), or nothing answered.
func unreachableText(ledgerDown bool) string {
	if ledgerDown {
		return lang.L("The validation server answers, but its ledger does not: the network is not the cause. Pay nothing, and call the back office.")
	}
	return lang.L("The ledger's server does not answer. Check the network, then try again.")
}

// verdictView shows a verdict in a box of its colour: the title and the
// amount as large as the box's width allows, the details, and PAYER when
// the ticket may be paid here. Its minimum size does not depend on what it
// shows, so that nothing on screen moves from one verdict to the next.
type verdictView struct {
	content fyne.CanvasObject
	bg      *canvas.Rectangle
	title   *bigText
	amount  *bigText
	detail  *widget.Label
	scroll  *container.Scroll // the details, when they do not fit
	pay     *keyButton
	kind    verdict
	base    string // the details, without the note (setNote)
	// receipt prints the receipt of payment payment (offerReceipt), with
	// onReceipt.
	receipt   *keyButton
	payment   int64
	onReceipt func(payment int64)
}

// newVerdictView makes a verdict box whose details keep room for lines
// lines at least; pay runs when PAYER is tapped.
func newVerdictView(titleSize, amountSize float32, lines int, pay func()) *verdictView {
	v := &verdictView{
		bg:     canvas.NewRectangle(verdictStyle[verdictNone]),
		title:  newBigText(titleSize),
		amount: newBigText(amountSize),
		detail: widget.NewLabel(""),
		pay:    payButton(lang.L("PAY · Enter"), pay), // Enter on the empty serial field, or on PAYER
	}
	v.receipt = newKeyButton(lang.L("Print the receipt"), theme.DocumentPrintIcon(), func() {
		if v.onReceipt != nil && v.payment > 0 {
			v.onReceipt(v.payment)
		}
	})
	v.receipt.Hide()
	v.bg.CornerRadius = 14
	v.detail.Alignment = fyne.TextAlignCenter
	v.detail.Wrapping = fyne.TextWrapWord
	v.detail.TextStyle.Bold = true
	v.pay.Hide()
	detailRoom := canvas.NewRectangle(color.Transparent)
	detailRoom.SetMinSize(fyne.NewSize(0, float32(lines)*fyne.MeasureText("Ég", theme.TextSize(), v.detail.TextStyle).Height))
	v.scroll = container.NewVScroll(v.detail)
	payRoom := canvas.NewRectangle(color.Transparent)
	payRoom.SetMinSize(v.pay.MinSize())
	v.content = container.NewThemeOverride(container.NewStack(v.bg, container.NewPadded(container.NewBorder(
		container.NewVBox(v.title, v.amount),
		container.NewStack(payRoom, container.NewCenter(v.pay), container.NewCenter(v.receipt)), nil, nil,
		container.NewStack(detailRoom, v.scroll)))), darkVariant{vegasTheme{}})
	return v
}

// darkVariant is a theme in its dark variant whatever the system's: the
// verdict box's, so that its details are light on its coloured backgrounds
// (in the light variant, Windows' default, they were dark grey on green).
type darkVariant struct{ fyne.Theme }

func (t darkVariant) Color(n fyne.ThemeColorName, _ fyne.ThemeVariant) color.Color {
	return t.Theme.Color(n, theme.VariantDark)
}

// show shows a verdict; PAYER only for a winner payable here. It offers no
// receipt (offerReceipt).
func (v *verdictView) show(k verdict, title, amount, detail string) {
	v.kind = k
	v.bg.FillColor = verdictStyle[k]
	v.bg.Refresh()
	v.title.SetText(title)
	v.amount.SetText(amount)
	v.base = detail
	v.detail.SetText(detail)
	if k == verdictWinner {
		v.pay.Show()
	} else {
		v.pay.Hide()
	}
	v.payment = 0
	v.receipt.Hide()
}

// offerReceipt offers to print the receipt of payment, under label: the
// payment just made, or the one a DÉJÀ PAYÉ names.
func (v *verdictView) offerReceipt(payment int64, label string) {
	if payment <= 0 || v.onReceipt == nil {
		return
	}
	v.payment = payment
	v.receipt.SetText(label)
	v.receipt.Show()
}

// setNote adds a line to the details shown (what became of a receipt's
// print), replacing the last note.
func (v *verdictView) setNote(note string) {
	if note == "" {
		v.detail.SetText(v.base)
		return
	}
	v.detail.SetText(v.base + "\n" + note)
}

// bigText is one line of large white bold text, centred, that shrinks to
// fit the width it is given: a long verdict never spills out of its box,
// and its minimum width is none, so that no verdict widens the screen.
type bigText struct {
	widget.BaseWidget
	text *canvas.Text
	max  float32 // the text size when the text fits
}

func newBigText(size float32) *bigText {
	t := canvas.NewText("", color.White)
	t.TextStyle.Bold = true
	t.Alignment = fyne.TextAlignCenter
	t.TextSize = size
	b := &bigText{text: t, max: size}
	b.ExtendBaseWidget(b)
	return b
}

// SetText shows s.
func (b *bigText) SetText(s string) {
	b.text.Text = s
	b.Refresh()
}

// Text is the text shown.
func (b *bigText) Text() string { return b.text.Text }

// CreateRenderer implements fyne.Widget.
func (b *bigText) CreateRenderer() fyne.WidgetRenderer { return &bigTextRenderer{b} }

type bigTextRenderer struct{ b *bigText }

func (r *bigTextRenderer) Destroy()                     {}
func (r *bigTextRenderer) Objects() []fyne.CanvasObject { return []fyne.CanvasObject{r.b.text} }

// MinSize is the height of a line at the largest size, and no width.
func (r *bigTextRenderer) MinSize() fyne.Size {
	return fyne.NewSize(0, fyne.MeasureText("Ég", r.b.max, r.b.text.TextStyle).Height)
}

// Layout sizes the text to fit the width, and centres it.
func (r *bigTextRenderer) Layout(size fyne.Size) {
	t := r.b.text
	t.TextSize = r.b.max
	if w := fyne.MeasureText(t.Text, t.TextSize, t.TextStyle).Width; w > size.Width {
		t.TextSize = float32(int(r.b.max * size.Width / w))
	}
	for t.TextSize > 6 && fyne.MeasureText(t.Text, t.TextSize, t.TextStyle).Width > size.Width {
		t.TextSize--
	}
	h := fyne.MeasureText("Ég", t.TextSize, t.TextStyle).Height
	t.Move(fyne.NewPos(0, (size.Height-h)/2))
	t.Resize(fyne.NewSize(size.Width, h))
}

func (r *bigTextRenderer) Refresh() {
	r.Layout(r.b.Size())
	r.b.text.Refresh()
}
