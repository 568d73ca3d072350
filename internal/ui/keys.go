package ui

import (
	"context"
	"errors"
	"image/color"
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"vegas-desk/internal/ledger"
)

// The keyboard answers every dialog of the app: Enter confirms and Escape
// cancels (an information closes on either), so that a scanner user never
// needs the mouse. While a dialog is shown and none of its fields has the
// keyboard, the keys reach the window's canvas, where typedKey hands them to
// the dialog shown last; a field of a dialog (dialogEntry) hands them on too.

// answer is what Enter and Escape do in a dialog that is shown.
type answer struct{ ok, cancel func() }

// answerKeys makes Enter run ok and Escape run cancel while dlg is shown.
func (d *desk) answerKeys(dlg dialog.Dialog, ok, cancel func()) {
	a := &answer{ok, cancel}
	d.answers = append(d.answers, a)
	dlg.SetOnClosed(func() {
		d.answers = slices.DeleteFunc(d.answers, func(x *answer) bool { return x == a })
	})
}

// typedKey is the window's key handler: Enter and Escape answer the
// dialog shown last.
func (d *desk) typedKey(ev *fyne.KeyEvent) {
	if len(d.answers) == 0 {
		return
	}
	a := d.answers[len(d.answers)-1]
	switch ev.Name {
	case fyne.KeyReturn, fyne.KeyEnter:
		a.ok()
	case fyne.KeyEscape:
		a.cancel()
	}
}

// confirm asks a question in a dialog: Enter (or the ok button) answers
// true, Escape (or the cancel button) false.
func (d *desk) confirm(title string, content fyne.CanvasObject, ok, cancel string, answer func(bool)) *dialog.ConfirmDialog {
	dlg := dialog.NewCustomConfirm(title, ok, cancel, content, answer, d.win)
	d.answerKeys(dlg, dlg.Confirm, dlg.Dismiss)
	dlg.Show()
	return dlg
}

// inform shows a message that Enter or Escape closes.
func (d *desk) inform(title, message string) {
	dlg := dialog.NewInformation(title, message, d.win)
	d.answerKeys(dlg, dlg.Hide, dlg.Hide)
	dlg.Show()
}

// showError shows err in a dialog that Enter or Escape closes, in the
// app's language (errorText).
func (d *desk) showError(err error) {
	dlg := dialog.NewError(errors.New(errorText(err)), d.win)
	d.answerKeys(dlg, dlg.Hide, dlg.Hide)
	dlg.Show()
}

// errorText says an error in the app's language: the ledger's errors a
// user can cause by what they are, with the ledger's own words in
// parentheses for whoever maintains the desk; the app's own messages are
// translated already.
func errorText(err error) string {
	detail := "\n(" + err.Error() + ")"
	switch {
	case errors.Is(err, ledger.ErrUnreachable):
		return unreachableText() + detail
	case errors.Is(err, context.DeadlineExceeded):
		return lang.L("The ledger did not answer in time. Try again; if it goes on, check the ledger in Settings.") + detail
	case errors.Is(err, ledger.ErrCounterOnly):
		return lang.L("Only the back office does this.") + detail
	case errors.Is(err, ledger.ErrNotDemo):
		return lang.L("Serials to try are listed on a demonstration ledger only.")
	case errors.Is(err, ledger.ErrReadOnly):
		return lang.L("This ledger is open read-only: nothing can be written to it.") + detail
	case errors.Is(err, ledger.ErrDeskDisabled):
		return lang.L("The back office disabled this counter: call it.") + detail
	case errors.Is(err, ledger.ErrNotFound):
		return lang.L("The ledger has no such record.") + detail
	}
	return err.Error()
}

// dialogEntry is a field of a dialog: Enter and Escape answer the dialog
// from it too.
type dialogEntry struct {
	widget.Entry
	d *desk
}

func (d *desk) newDialogEntry() *dialogEntry {
	e := &dialogEntry{d: d}
	e.ExtendBaseWidget(e)
	e.OnSubmitted = func(string) { d.typedKey(&fyne.KeyEvent{Name: fyne.KeyReturn}) }
	return e
}

// TypedKey answers the dialog on Escape; the other keys edit the field.
func (e *dialogEntry) TypedKey(ev *fyne.KeyEvent) {
	if ev.Name == fyne.KeyEscape {
		e.d.typedKey(ev)
		return
	}
	e.Entry.TypedKey(ev)
}

// keyButton is a button that Enter taps, as well as Space: once a check
// has given the keyboard to PAYER, the next Enter asks to pay. It shows
// that it has the keyboard with a ring of the focus colour, plain to see
// from a step back from the counter.
type keyButton struct {
	widget.Button
	focused bool
	escape  func() // what Escape does while it has the keyboard (a dialog's cancel), or nothing
	// typed hears the characters typed while it has the keyboard: at the
	// counter, a scan goes to the serial field whatever button has it.
	typed func(rune)
}

// TypedRune hands r to typed, if set.
func (b *keyButton) TypedRune(r rune) {
	if b.typed != nil {
		b.typed(r)
		return
	}
	b.Button.TypedRune(r)
}

func newKeyButton(label string, icon fyne.Resource, tapped func()) *keyButton {
	b := &keyButton{}
	b.Text, b.Icon, b.OnTapped = label, icon, tapped
	b.ExtendBaseWidget(b)
	return b
}

// TypedKey taps the button on Enter, and runs escape on Escape.
func (b *keyButton) TypedKey(ev *fyne.KeyEvent) {
	switch {
	case ev.Name == fyne.KeyReturn || ev.Name == fyne.KeyEnter:
		if !b.Disabled() {
			b.Tapped(nil)
		}
	case ev.Name == fyne.KeyEscape && b.escape != nil:
		b.escape()
	default:
		b.Button.TypedKey(ev)
	}
}

// FocusGained shows the ring.
func (b *keyButton) FocusGained() {
	b.focused = true
	b.Button.FocusGained()
}

// FocusLost hides the ring.
func (b *keyButton) FocusLost() {
	b.focused = false
	b.Button.FocusLost()
}

// CreateRenderer is the button's own, with the focus ring over it.
func (b *keyButton) CreateRenderer() fyne.WidgetRenderer {
	ring := canvas.NewRectangle(color.Transparent)
	ring.StrokeWidth = 3
	ring.CornerRadius = theme.InputRadiusSize()
	return &ringRenderer{WidgetRenderer: b.Button.CreateRenderer(), ring: ring, b: b}
}

// ringRenderer draws a button and, while it has the keyboard, a ring.
type ringRenderer struct {
	fyne.WidgetRenderer
	ring *canvas.Rectangle
	b    *keyButton
}

func (r *ringRenderer) Objects() []fyne.CanvasObject {
	return append(r.WidgetRenderer.Objects(), r.ring)
}

func (r *ringRenderer) Layout(s fyne.Size) {
	r.WidgetRenderer.Layout(s)
	r.ring.Move(fyne.NewPos(-1, -1))
	r.ring.Resize(s.AddWidthHeight(2, 2))
}

func (r *ringRenderer) Refresh() {
	r.WidgetRenderer.Refresh()
	r.ring.StrokeColor = color.Transparent
	if r.b.focused && !r.b.Disabled() {
		r.ring.StrokeColor = theme.Color(focusRing)
	}
	r.ring.Refresh()
}

// payButton is the PAYER button of the counter and of the contents form.
func payButton(label string, pay func()) *keyButton {
	b := newKeyButton(label, theme.ConfirmIcon(), pay)
	b.Importance = widget.SuccessImportance
	return b
}
