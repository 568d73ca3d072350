package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// The app's lists, tables, drop-down lists and check boxes: Fyne's, which
// hand the desk the keys they do not use, as the app's fields and buttons
// do (keys.go): Escape goes back to the counter (or cancels a dialog), and
// a scan typed while one has the keyboard is checked at the counter.

// otherKey hands ev to the desk if it is Escape or a scan's Enter, and
// says whether it did.
func (d *desk) otherKey(ev *fyne.KeyEvent) bool {
	switch ev.Name {
	case fyne.KeyEscape:
		d.typedKey(ev)
		return true
	case fyne.KeyReturn, fyne.KeyEnter:
		return d.scanned(nil)
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
}

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
	if !t.d.otherKey(ev) {
		t.Table.TypedKey(ev)
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

func (s *keySelect) TypedKey(ev *fyne.KeyEvent) {
	if !s.d.otherKey(ev) {
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
