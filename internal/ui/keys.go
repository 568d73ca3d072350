package ui

import (
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
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

// showError shows err in a dialog that Enter or Escape closes.
func (d *desk) showError(err error) {
	dlg := dialog.NewError(err, d.win)
	d.answerKeys(dlg, dlg.Hide, dlg.Hide)
	dlg.Show()
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
// has given the keyboard to PAYER, the next Enter asks to pay.
type keyButton struct{ widget.Button }

func newKeyButton(label string, icon fyne.Resource, tapped func()) *keyButton {
	b := &keyButton{}
	b.Text, b.Icon, b.OnTapped = label, icon, tapped
	b.ExtendBaseWidget(b)
	return b
}

// TypedKey taps the button on Enter.
func (b *keyButton) TypedKey(ev *fyne.KeyEvent) {
	if ev.Name == fyne.KeyReturn || ev.Name == fyne.KeyEnter {
		b.Tapped(nil)
		return
	}
	b.Button.TypedKey(ev)
}

// payButton is the PAYER button of the counter and of the contents form.
func payButton(label string, pay func()) *keyButton {
	b := newKeyButton(label, theme.ConfirmIcon(), pay)
	b.Importance = widget.SuccessImportance
	return b
}
