package ui

import (
	"context"
	"errors"
	"image/color"
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
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

// keyEntry is the app's text field: it hands Escape, a scan's Enter and
// the window's shortcuts on to the desk (see above), and types the rest.
type keyEntry struct {
	widget.Entry
	d *desk
}

// newEntry makes a field of the app.
func (d *desk) newEntry() *keyEntry {
	e := &keyEntry{d: d}
	e.ExtendBaseWidget(e)
	return e
}

// newDialogEntry makes a field of a dialog: Enter answers the dialog.
func (d *desk) newDialogEntry() *keyEntry {
	e := d.newEntry()
	e.OnSubmitted = func(string) { d.answerTop() }
	return e
}

// answerTop answers the dialog shown last: Enter in one of its fields.
func (d *desk) answerTop() {
	if len(d.answers) > 0 {
		d.answers[len(d.answers)-1].ok()
	}
}

// TypedRune types r, noting it for a scan.
func (e *keyEntry) TypedRune(r rune) {
	e.d.watchScan(e, e.Text, r)
	e.Entry.TypedRune(r)
}

// TypedKey hands Escape and a scan's Enter to the desk; the other keys
// edit the field.
func (e *keyEntry) TypedKey(ev *fyne.KeyEvent) {
	switch {
	case deskKey(ev):
		e.d.typedKey(ev)
	case (ev.Name == fyne.KeyReturn || ev.Name == fyne.KeyEnter) && e.d.enterSpent(e):
	default:
		e.Entry.TypedKey(ev)
	}
}

// TypedShortcut passes the window's shortcuts on.
func (e *keyEntry) TypedShortcut(s fyne.Shortcut) {
	if !e.d.passShortcut(s) {
		e.Entry.TypedShortcut(s)
	}
}

// dateEntry is keyEntry's twin for a date (widget.DateEntry).
type dateEntry struct {
	widget.DateEntry
	d *desk
}

func (d *desk) newDateEntry() *dateEntry {
	e := &dateEntry{d: d}
	e.ExtendBaseWidget(e)
	e.Wrapping = fyne.TextWrap(fyne.TextTruncateClip)
	return e
}

// CreateRenderer is DateEntry's, but for two things. An empty field is
// no error (each use says whether a day is needed): Fyne's turned red
// when Tab went through it. The calendar is a tappable icon, off the Tab
// path: Tab goes from a day to the next field; the day is typed.
func (e *dateEntry) CreateRenderer() fyne.WidgetRenderer {
	if e.ActionItem == nil {
		e.ActionItem = newTapIcon(theme.CalendarIcon(), e.showCalendar)
	}
	r := e.DateEntry.CreateRenderer()
	if parse := e.Validator; parse != nil {
		e.Validator = func(s string) error {
			if strings.TrimSpace(s) == "" {
				return nil
			}
			return parse(s)
		}
	}
	return r
}

// showCalendar shows a calendar under the field, that sets its day.
func (e *dateEntry) showCalendar() {
	cv := fyne.CurrentApp().Driver().CanvasForObject(e)
	if cv == nil {
		return
	}
	var pop *widget.PopUp
	start := time.Now()
	if e.Date != nil {
		start = *e.Date
	}
	pop = widget.NewPopUp(widget.NewCalendar(start, func(t time.Time) {
		pop.Hide()
		e.SetDate(&t)
	}), cv)
	at := fyne.CurrentApp().Driver().AbsolutePositionForObject(e)
	pop.ShowAtPosition(at.Add(fyne.NewPos(0, e.Size().Height)))
	pop.Resize(fyne.NewSize(max(e.Size().Width, pop.MinSize().Width), pop.MinSize().Height))
}

// tapIcon is an icon that a tap acts on; the keyboard does not reach it.
type tapIcon struct {
	widget.Icon
	tapped func()
}

func newTapIcon(res fyne.Resource, tapped func()) *tapIcon {
	t := &tapIcon{tapped: tapped}
	t.Resource = res
	t.ExtendBaseWidget(t)
	return t
}

func (t *tapIcon) Tapped(*fyne.PointEvent) { t.tapped() }

func (t *tapIcon) Cursor() desktop.Cursor { return desktop.PointerCursor }

func (e *dateEntry) TypedRune(r rune) {
	e.d.watchScan(e, e.Text, r)
	e.DateEntry.TypedRune(r)
}

func (e *dateEntry) TypedKey(ev *fyne.KeyEvent) {
	switch {
	case deskKey(ev):
		e.d.typedKey(ev)
	case (ev.Name == fyne.KeyReturn || ev.Name == fyne.KeyEnter) && e.d.enterSpent(e):
	default:
		e.DateEntry.TypedKey(ev)
	}
}

func (e *dateEntry) TypedShortcut(s fyne.Shortcut) {
	if !e.d.passShortcut(s) {
		e.DateEntry.TypedShortcut(s)
	}
}

// keyButton is a button that Enter taps, as well as Space: once a check
// has given the keyboard to PAYER, the next Enter asks to pay. It shows
// that it has the keyboard with a ring of the focus colour, plain to see
// from a step back from the counter.
type keyButton struct {
	widget.Button
	d       *desk // hears the keys the button does not use (nil: none)
	focused bool
	escape  func() // what Escape does while it has the keyboard (a dialog's cancel), or nothing
	// typed hears the characters typed while it has the keyboard: at the
	// counter, a scan goes to the serial field whatever button has it.
	typed func(rune)
}

// TypedRune hands r to typed, if set, else to the desk (a scan may begin).
func (b *keyButton) TypedRune(r rune) {
	switch {
	case b.typed != nil:
		b.typed(r)
	case b.d != nil:
		b.d.watchScan(nil, "", r)
	default:
		b.Button.TypedRune(r)
	}
}

// button makes a keyButton of the app.
func (d *desk) button(label string, icon fyne.Resource, tapped func()) *keyButton {
	b := newKeyButton(label, icon, tapped)
	b.d = d
	return b
}

func newKeyButton(label string, icon fyne.Resource, tapped func()) *keyButton {
	b := &keyButton{}
	b.Text, b.Icon, b.OnTapped = label, icon, tapped
	b.ExtendBaseWidget(b)
	return b
}

// TypedKey taps the button on Enter (unless it ends a scan), and runs
// escape on Escape (else hands it to the desk).
func (b *keyButton) TypedKey(ev *fyne.KeyEvent) {
	switch {
	case ev.Name == fyne.KeyReturn || ev.Name == fyne.KeyEnter:
		if b.d != nil && b.d.enterSpent(nil) {
			return
		}
		if !b.Disabled() {
			b.Tapped(nil)
		}
	case ev.Name == fyne.KeyEscape && b.escape != nil:
		b.escape()
	case deskKey(ev) && b.d != nil:
		b.d.typedKey(ev)
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
