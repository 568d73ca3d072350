package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// The app's lists, tables, drop-down lists and check boxes: Fyne's, which
// hand the desk the keys they do not use, as the app's fields and buttons
// do (keys.go): Escape goes back to the counter (or cancels a dialog), and
// a scan typed while one has the keyboard is checked at the counter.

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
