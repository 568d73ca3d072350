package ui

import (
	"image/color"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// The app's widgets: its fields, date fields and buttons (keyEntry,
// dateEntry, keyButton), and its lists, tables, drop-down lists and check
// boxes (Fyne's). Each hands the desk the keys it does not use (keys.go):
// Escape goes back to the counter (or cancels a dialog), and a scan typed
// while one has the keyboard is checked at the counter.

// otherKey hands ev to the desk if it is Escape, F10 or a scan's Enter, and
// says whether it did.
func (d *desk) otherKey(ev *fyne.KeyEvent) bool {
	switch ev.Name {
	case fyne.KeyEscape, confirmKey:
		d.typedKey(ev)
		return true
	case fyne.KeyReturn, fyne.KeyEnter:
		return d.enterSpent(nil)
	}
	return false
}

type keyList struct {
	widget.List
	d *desk
}

func (d *desk) newList(length func() int, create func() fyne.CanvasObject, update func(widget.ListItemID, fyne.CanvasObject)) *keyList {
	l := &keyList{d: d}
	l.Length, l.CreateItem, l.UpdateItem = length, create, update
	l.ExtendBaseWidget(l)
	return l
}

func (l *keyList) TypedRune(r rune) { l.d.watchScan(nil, "", r); l.List.TypedRune(r) }

func (l *keyList) TypedKey(ev *fyne.KeyEvent) {
	if !l.d.otherKey(ev) {
		l.List.TypedKey(ev)
	}
}

type keyTable struct {
	widget.Table
	d *desk
	// A table of records (rowKeys): the arrows, Page Up/Down, Home and
	// End select a row, and Enter runs enter on the selected one.
	row   func() int // the row selected, -1 for none
	enter func()
}

// rowKeys makes t a table of records, whose selected row is row() (-1 for
// none): the keys select a row (the buttons that act on it come on the
// Tab path), Enter runs enter, and the keyboard coming to the table
// selects the first row when none is.
func (t *keyTable) rowKeys(row func() int, enter func()) { t.row, t.enter = row, enter }

// newTable is widget.NewTableWithHeaders.
func (d *desk) newTable(length func() (int, int), create func() fyne.CanvasObject, update func(widget.TableCellID, fyne.CanvasObject)) *keyTable {
	t := &keyTable{d: d}
	t.Length, t.CreateCell, t.UpdateCell = length, create, update
	t.ShowHeaderRow, t.ShowHeaderColumn = true, true
	t.ExtendBaseWidget(t)
	return t
}

func (t *keyTable) TypedRune(r rune) { t.d.watchScan(nil, "", r); t.Table.TypedRune(r) }

func (t *keyTable) TypedKey(ev *fyne.KeyEvent) {
	if t.d.otherKey(ev) {
		return
	}
	if t.row == nil {
		t.Table.TypedKey(ev)
		return
	}
	rows, _ := t.Length()
	r := t.row()
	switch ev.Name {
	case fyne.KeyReturn, fyne.KeyEnter:
		if r >= 0 && r < rows && t.enter != nil {
			t.enter()
		}
		return
	case fyne.KeyDown:
		r++
	case fyne.KeyUp:
		r--
	case fyne.KeyPageDown:
		r += pageRows
	case fyne.KeyPageUp:
		r -= pageRows
	case fyne.KeyHome:
		r = 0
	case fyne.KeyEnd:
		r = rows - 1
	default:
		t.Table.TypedKey(ev)
		return
	}
	t.selectRow(max(0, min(r, rows-1)))
}

// pageRows is how many rows Page Up and Page Down move by.
const pageRows = 10

// selectRow selects row r of a table of records, if it has one.
func (t *keyTable) selectRow(r int) {
	if rows, _ := t.Length(); r >= 0 && r < rows {
		t.Select(widget.TableCellID{Row: r, Col: 0})
	}
}

// FocusGained selects the first row of a table of records when none is.
func (t *keyTable) FocusGained() {
	t.Table.FocusGained()
	if t.row != nil && t.row() < 0 {
		t.selectRow(0)
	}
}

type keySelect struct {
	widget.Select
	d *desk
}

func (d *desk) newSelect(options []string, changed func(string)) *keySelect {
	s := &keySelect{d: d}
	s.Options, s.OnChanged = options, changed
	s.PlaceHolder = widget.NewSelect(nil, nil).PlaceHolder // Fyne's, in the app's language
	s.ExtendBaseWidget(s)
	return s
}

func (s *keySelect) TypedRune(r rune) { s.d.watchScan(nil, "", r); s.Select.TypedRune(r) }

// TypedKey opens the list on Enter too (Fyne's, on Space and the arrows
// only), unless it ends a scan or comes at a scanner's pace.
func (s *keySelect) TypedKey(ev *fyne.KeyEvent) {
	switch {
	case s.d.otherKey(ev):
	case ev.Name == fyne.KeyReturn || ev.Name == fyne.KeyEnter:
		s.Select.TypedKey(&fyne.KeyEvent{Name: fyne.KeySpace})
	default:
		s.Select.TypedKey(ev)
	}
}

type keyCheck struct {
	widget.Check
	d *desk
}

func (d *desk) newCheck(label string, changed func(bool)) *keyCheck {
	c := &keyCheck{d: d}
	c.Text, c.OnChanged = label, changed
	c.ExtendBaseWidget(c)
	return c
}

func (c *keyCheck) TypedRune(r rune) { c.d.watchScan(nil, "", r); c.Check.TypedRune(r) }

func (c *keyCheck) TypedKey(ev *fyne.KeyEvent) {
	if !c.d.otherKey(ev) {
		c.Check.TypedKey(ev)
	}
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
