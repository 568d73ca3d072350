package ui

import (
	"strings"
	"unicode"

	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/widget"

	"vegas-desk/internal/game"
)

// fieldKind is what a field of the form holds.
type fieldKind int

const (
	numberField fieldKind = iota // a roulette number
	dieField
	amountField
	bonusField // an amount or 0
	cardField
	symbolField
)

// width is the field's width on screen.
func (k fieldKind) width() float32 {
	switch k {
	case symbolField:
		return 108
	case amountField, bonusField:
		return 84
	}
	return 64
}

// placeholder hints at what the field takes.
func (k fieldKind) placeholder() string {
	switch k {
	case numberField:
		return "1–36"
	case dieField:
		return "1–6"
	case amountField:
		return "€"
	case bonusField:
		return "0, €"
	case cardField:
		return "2…AS"
	}
	return "CERISE…"
}

// accepts says whether r can be typed into the field.
func (k fieldKind) accepts(r rune) bool {
	switch k {
	case cardField, symbolField:
		return unicode.IsLetter(r) || unicode.IsDigit(r)
	case amountField, bonusField:
		return unicode.IsDigit(r) || r == ' '
	}
	return unicode.IsDigit(r)
}

// complete reads what was typed: a card or a symbol may be typed by its
// first letters, without regard to case or accents ("CE" is CERISE, "A"
// is AS, "1" is 10, "TRE" is TRÈFLE, shown with its accent as on the
// ticket); a number may hold spaces ("1 000").
func (k fieldKind) complete(s string) string {
	s = strings.ToUpper(strings.TrimSpace(s))
	var names, labels []string
	switch k {
	case cardField:
		names, labels = cardChoices, cardChoices
	case symbolField:
		names, labels = symbolChoices, symbolLabels
		s = strings.NewReplacer("È", "E", "É", "E", "Ê", "E", "À", "A", "Â", "A").Replace(s)
	default:
		return strings.ReplaceAll(s, " ", "")
	}
	found := -1
	for i, n := range names {
		if n == s {
			return labels[i]
		}
		if s != "" && strings.HasPrefix(n, s) {
			if found >= 0 {
				return s // more than one: as typed
			}
			found = i
		}
	}
	if found >= 0 {
		return labels[found]
	}
	return s
}

var (
	cardChoices = func() []string {
		s := make([]string, game.NumCards)
		for i := range s {
			s[i] = game.Card(i).String()
		}
		return s
	}()
	// The symbols by their interchange names, and as a person reads them.
	symbolChoices, symbolLabels = func() ([]string, []string) {
		names, labels := make([]string, game.NumSymbols), make([]string, game.NumSymbols)
		for i := range names {
			names[i], labels[i] = game.Symbol(i).String(), game.Symbol(i).Label()
		}
		return names, labels
	}()
)

// fault is what is wrong with a field of the form: a red bar under the
// field marks it, and its row says why, with the others of the row.
type fault struct {
	text string
	bar  *canvas.Rectangle
	row  *widget.Label // the row's faults
}

// valueEntry is a field of the contents form: it takes only what can be
// typed for its kind, completes a card or symbol when the keyboard leaves
// it, and checks the form on Enter.
type valueEntry struct {
	keyEntry
	kind   fieldKind
	gained func() // when it gets the keyboard (the form scrolls it into view)
}

// FocusGained brings the field into view.
func (e *valueEntry) FocusGained() {
	e.Entry.FocusGained()
	if e.gained != nil {
		e.gained()
	}
}

func newValueEntry(d *desk, kind fieldKind, submit func()) *valueEntry {
	e := &valueEntry{keyEntry: keyEntry{d: d}, kind: kind}
	e.ExtendBaseWidget(e)
	e.SetPlaceHolder(kind.placeholder())
	e.OnSubmitted = func(string) { submit() }
	return e
}

// TypedRune types r when the field takes it, in capitals.
func (e *valueEntry) TypedRune(r rune) {
	if e.kind.accepts(r) {
		e.keyEntry.TypedRune(unicode.ToUpper(r))
	}
}

// FocusLost shows the completed value.
func (e *valueEntry) FocusLost() {
	if v := e.value(); v != e.Text {
		e.SetText(v)
	}
	e.Entry.FocusLost()
}

// value is the field's value as the form reads it.
func (e *valueEntry) value() string { return e.kind.complete(e.Text) }
