package ui

import (
	"context"
	"errors"
	"slices"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger"
)

// The keyboard drives the whole app, so that a counter never needs the
// mouse:
//   - Alt and a letter shown on each tab (tabKeys) opens the tab; Escape
//     goes back to the counter's serial field and clears the contents form.
//   - Every dialog's buttons are keyButtons, which Tab reaches and Enter
//     taps; elsewhere in a dialog Enter confirms and Escape cancels (an
//     information closes on either).
//   - A serial scanned anywhere (31 digits and Enter, each key at most
//     scanGap after the previous, faster than a person types) is checked at
//     the counter, and the field it was typed into gets its text back; a
//     dialog over the screens closes unanswered first (closeForScan).
//   - A dialog takes Enter only at a person's pace: a scanner's Enter,
//     within scanGap of the key before, never confirms (enterSpent).
//   - F10 confirms a dialog that moves money (pay, void, close a double
//     payment: askMoney, the pay dialog), from whatever widget of it has
//     the keyboard: a deliberate key, which no scanner types, shown on the
//     button it presses ("PAYER · F10").
// Fyne hands a key to the widget that has the keyboard, else to the
// window's canvas (typedKey, typedRune). So the app's fields (keyEntry,
// dateEntry) and buttons (keyButton) hand the keys they do not use on to
// the desk, and pass the window's shortcuts, which a field would keep.

// tabKeys are the letters that, with Alt, open the tabs, in their order.
// Letters, not digits or function keys: a French keyboard types digits with
// Shift, and Fyne gives a function key to the field that has the keyboard
// (a shortcut with Alt reaches the window from any widget but a field).
var tabKeys = [...]fyne.KeyName{fyne.KeyG, fyne.KeyS, fyne.KeyP, fyne.KeyC, fyne.KeyB, fyne.KeyR}

// tabLabel is a tab's name with its shortcut: "Guichet · Alt+G".
func tabLabel(name string, i int) string { return name + " · Alt+" + string(tabKeys[i]) }

// addTabKeys makes Alt and each tab's letter open it.
func (d *desk) addTabKeys() {
	for i, k := range tabKeys {
		d.win.Canvas().AddShortcut(&desktop.CustomShortcut{KeyName: k, Modifier: fyne.KeyModifierAlt},
			func(fyne.Shortcut) { d.showTab(i) })
	}
}

// passShortcut hands a shortcut with Alt (a tab's) on from a field to the
// window, and says whether it did.
func (d *desk) passShortcut(s fyne.Shortcut) bool {
	cs, ok := s.(*desktop.CustomShortcut)
	if !ok || cs.Modifier != fyne.KeyModifierAlt {
		return false
	}
	if sc, ok := d.win.Canvas().(fyne.Shortcutable); ok {
		sc.TypedShortcut(s)
	}
	return true
}

// dialogShown says whether a dialog (of the app's, or a file dialog) is
// over the screens.
func (d *desk) dialogShown() bool { return d.win.Canvas().Overlays().Top() != nil }

// showTab opens tab i, with the keyboard on its first field; not while a
// dialog waits for an answer.
func (d *desk) showTab(i int) {
	if d.dialogShown() {
		return
	}
	if d.tabs.SelectedIndex() != i {
		d.tabs.SelectIndex(i) // OnSelected gives the keyboard
		return
	}
	d.focusTab()
}

// focusTab gives the keyboard to the open tab's first field.
func (d *desk) focusTab() {
	switch d.tabs.SelectedIndex() {
	case tabCounter:
		d.counter.focus()
	case tabContents:
		d.contents.focus()
	case tabClaims:
		d.win.Canvas().Focus(d.claims.day)
	case tabPacks:
		d.packs.focus()
	default: // the first widget of the tab that takes the keyboard
		cv := d.win.Canvas()
		cv.Unfocus()
		cv.FocusNext()
	}
}

// home is Escape outside a dialog: back to the counter's serial field,
// the contents form cleared.
func (d *desk) home() {
	d.contents.reset()
	d.counter.entry.SetText("")
	d.showTab(tabCounter)
}

// answer is what Enter and Escape do in a dialog that is shown. A scan
// closes it unanswered (cancel) unless keep: a long task's progress,
// which a scan does not stop.
type answer struct {
	ok, cancel func()
	keep       bool
	money      bool // F10 runs ok too (confirmKey)
}

// confirmKey is the deliberate key that confirms a dialog that moves
// money, whatever has the keyboard in it: a function key, which no
// scanner types and no field keeps (the widgets hand it to the desk).
const confirmKey = fyne.KeyF10

// withConfirmKey is a money dialog's confirming button's label with its
// key: "PAYER · F10", as the tabs show theirs (tabLabel).
func withConfirmKey(label string) string { return label + " · " + string(confirmKey) }

// answerKeys makes Enter run ok and Escape run cancel while dlg is shown;
// a scan runs cancel too, then checks its serial at the counter
// (closeForScan).
func (d *desk) answerKeys(dlg dialog.Dialog, ok, cancel func()) {
	d.addAnswer(dlg, &answer{ok: ok, cancel: cancel})
}

// addAnswer keeps a while dlg is shown.
func (d *desk) addAnswer(dlg dialog.Dialog, a *answer) {
	d.answers = append(d.answers, a)
	dlg.SetOnClosed(func() {
		d.answers = slices.DeleteFunc(d.answers, func(x *answer) bool { return x == a })
	})
}

// typedKey is the window's key handler, and the app's widgets hand it the
// keys they do not use: Enter and Escape answer the dialog shown last;
// without a dialog, Escape goes back to the counter (home), and Enter ends
// a scan (scanned).
func (d *desk) typedKey(ev *fyne.KeyEvent) {
	switch ev.Name {
	case fyne.KeyReturn, fyne.KeyEnter:
		if d.enterSpent(nil) {
			return
		}
		if len(d.answers) > 0 {
			d.answers[len(d.answers)-1].ok()
		}
	case fyne.KeyEscape:
		switch {
		case len(d.answers) > 0:
			d.answers[len(d.answers)-1].cancel()
		case !d.dialogShown():
			d.home()
		}
	case confirmKey:
		if n := len(d.answers); n > 0 && d.answers[n-1].money {
			d.answers[n-1].ok()
		}
	}
}

// deskKey says whether ev is a key every widget of the app hands to the
// desk (typedKey): Escape, and the key that confirms a money dialog.
func deskKey(ev *fyne.KeyEvent) bool { return ev.Name == fyne.KeyEscape || ev.Name == confirmKey }

// typedRune is the window's handler of the characters typed while no
// field has the keyboard: a scan may begin.
func (d *desk) typedRune(r rune) { d.watchScan(nil, "", r) }

// scanGap is the longest time between two keys of a scan: a scanner types
// a key every few milliseconds, a person one every 100 ms at best, so that
// 31 digits and Enter each within scanGap of the previous are a scan.
var scanGap = 50 * time.Millisecond

// keyClock is the time of a key event; the tests set it.
var keyClock = time.Now

// textField is a field whose text a scan typed into it gives back.
type textField interface{ SetText(string) }

// scanWatch follows the digits typed last, to tell a scan from typing.
// (desk.keyAt is when the last character or Enter was typed, whatever.)
type scanWatch struct {
	digits []rune
	last   time.Time // when the last one was typed
	field  textField // where they went (nil: no field, or a button)
	before string    // the field's text before them
}

// watchScan notes r typed into field f (nil: none), whose text is text
// before it.
func (d *desk) watchScan(f textField, text string, r rune) {
	s, t := &d.scan, keyClock()
	d.keyAt = t
	if r < '0' || r > '9' {
		s.digits = nil
		return
	}
	if len(s.digits) == 0 || s.field != f || t.Sub(s.last) > scanGap {
		s.digits, s.field, s.before = nil, f, text
	}
	s.digits = append(s.digits, r)
	s.last = t
}

// enterSpent is what every widget of the app does first with Enter, typed
// in field f (nil: none, or no field). It says whether Enter is spent, so
// that the widget does nothing more with it:
//   - it ended a scan (scanned);
//   - or a dialog is shown and Enter came at a scanner's pace, within
//     scanGap of the key before it. A dialog takes Enter only from a key a
//     person typed (or Space on its button): the Enter of a scanner's
//     burst, whatever it read (a serial misread, a shop's barcode), never
//     pays, voids, closes a case or prints. The digits the burst typed
//     into a dialog's field go with it.
func (d *desk) enterSpent(f textField) bool {
	now := keyClock()
	burst := !d.keyAt.IsZero() && now.Sub(d.keyAt) <= scanGap
	d.keyAt = now
	s := d.scan
	if d.scanned(f) {
		return true
	}
	if !burst || !d.dialogShown() {
		return false
	}
	if f != nil && s.field == f && len(s.digits) > 1 && now.Sub(s.last) <= scanGap {
		f.SetText(s.before) // two digits within scanGap: no person typed them
	}
	return true
}

// scanned is called on Enter in field f (nil: none, or a button). It says
// whether the keys just typed were a scan, and if so gives the field its
// text back and checks the serial at the counter. The counter's serial
// field checks its own scans. A scan under the app's dialogs closes them
// unanswered first (closeForScan); under a dialog that does not close (a
// payment in flight, a long task, a file chooser) it is dropped whole,
// its Enter answering nothing.
func (d *desk) scanned(f textField) bool {
	s := d.scan
	d.scan = scanWatch{}
	if len(s.digits) != game.SerialDigits || s.field != f || keyClock().Sub(s.last) > scanGap {
		return false
	}
	if f != nil && f == textField(d.counter.entry) && !d.dialogShown() {
		return false
	}
	if s.field != nil {
		s.field.SetText(s.before)
	}
	if d.dialogShown() && !d.closeForScan() {
		return true
	}
	d.showTab(tabCounter)
	d.counter.check(string(s.digits))
	return true
}

// closeForScan closes the dialogs shown, unanswered (as Escape would), for
// a serial scanned under them to be checked at the counter: the cashier
// has moved on to another ticket. It says whether none is left. Only the
// app's own questions close so; a dialog that keeps its place (a payment
// in flight, a long task) or another's (a file chooser, a drop-down list
// open) keeps them all.
func (d *desk) closeForScan() bool {
	if len(d.win.Canvas().Overlays().List()) != len(d.answers) {
		return false // an overlay that is not the app's question
	}
	if slices.ContainsFunc(d.answers, func(a *answer) bool { return a.keep }) {
		return false // none closed, none answered
	}
	for len(d.answers) > 0 {
		a := d.answers[len(d.answers)-1]
		if a.keep {
			return false
		}
		a.cancel()
		if slices.Contains(d.answers, a) {
			return false // it did not close
		}
	}
	return !d.dialogShown()
}

// inform shows a message that Enter or Escape closes.
func (d *desk) inform(title, message string) {
	msg := widget.NewLabel(message)
	msg.Wrapping = fyne.TextWrapWord
	dlg := d.ask(title, msg, "", lang.L("OK"), nil)
	dlg.Resize(fyne.NewSize(520, dlg.MinSize().Height))
}

// showError shows err in a dialog that Enter or Escape closes, in the
// app's language (errorText).
func (d *desk) showError(err error) {
	msg := widget.NewLabel(errorText(err))
	msg.Wrapping = fyne.TextWrapWord
	dlg := d.ask(lang.L("Error"), container.NewBorder(nil, nil, widget.NewIcon(theme.ErrorIcon()), nil, msg), "", lang.L("OK"), nil)
	dlg.Resize(fyne.NewSize(560, dlg.MinSize().Height))
}

// ask shows content in a dialog with a cancel button and, unless ok is "",
// an ok button: keyButtons, which Tab reaches and Enter taps. Enter
// elsewhere taps ok (or closes), Escape cancels. answer (if not nil) hears
// which closed it. A content that validates (a widget.Form) must be valid
// for ok: the dialog says what is wrong.
func (d *desk) ask(title string, content fyne.CanvasObject, ok, cancel string, answer func(bool)) dialog.Dialog {
	return d.askAs(false, title, content, ok, cancel, answer)
}

// askMoney is ask for a dialog whose ok moves money (void a payment,
// close a double payment): F10 presses ok too, and its label says so.
func (d *desk) askMoney(title string, content fyne.CanvasObject, ok, cancel string, answer func(bool)) dialog.Dialog {
	return d.askAs(true, title, content, withConfirmKey(ok), cancel, answer)
}

func (d *desk) askAs(money bool, title string, content fyne.CanvasObject, ok, cancel string, answered func(bool)) dialog.Dialog {
	var dlg dialog.Dialog
	done := false
	why := widget.NewLabel("")
	why.Importance = widget.DangerImportance
	why.Hide()
	finish := func(yes bool) {
		if done {
			return
		}
		if v, isForm := content.(interface{ Validate() error }); yes && isForm {
			if err := v.Validate(); err != nil {
				why.SetText(err.Error())
				why.Show()
				return
			}
		}
		done = true
		dlg.Hide()
		if answered != nil {
			answered(yes)
		}
	}
	no := func() { finish(false) }
	cancelB := d.button(cancel, theme.CancelIcon(), no)
	cancelB.escape = no
	buttons := container.NewHBox(layout.NewSpacer(), cancelB)
	yes := no
	if ok != "" {
		yes = func() { finish(true) }
		okB := d.button(ok, theme.ConfirmIcon(), yes)
		okB.Importance = widget.HighImportance
		okB.escape = no
		buttons.Add(okB)
	} else {
		cancelB.Icon = theme.ConfirmIcon()
	}
	dlg = dialog.NewCustomWithoutButtons(title, container.NewBorder(nil, container.NewVBox(why, buttons), nil, nil, content), d.win)
	d.addAnswer(dlg, &answer{ok: yes, cancel: no, money: money})
	dlg.Show()
	return dlg
}

// errorText says an error in the app's language: the ledger's errors a
// user can cause by what they are, with the ledger's own words in
// parentheses for whoever maintains the desk; the app's own messages are
// translated already.
func errorText(err error) string {
	detail := "\n(" + err.Error() + ")"
	if k, why := refused(err); k != verdictNone {
		return counterTitle(k) + "\n" + why + detail
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return lang.L("The ledger did not answer in time. Try again; if it goes on, check the ledger in Settings.") + detail
	case errors.Is(err, ledger.ErrCounterOnly):
		return lang.L("Only the back office does this.") + detail
	case errors.Is(err, ledger.ErrNotDemo):
		return lang.L("Serials to try are listed on a demonstration ledger only.")
	case errors.Is(err, ledger.ErrReadOnly):
		return lang.L("This ledger is open read-only: nothing can be written to it.") + detail
	case errors.Is(err, ledger.ErrNotFound):
		return lang.L("The ledger has no such record.") + detail
	}
	return err.Error()
}
