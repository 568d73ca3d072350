package ui

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"vegas-desk/internal/ledger"
	"vegas-desk/internal/printer/printertest"
)

// keys drives a window's keyboard as Fyne's desktop driver does
// (internal/driver/glfw's processKeyPressed and processCharInput): a key
// with Alt is a shortcut, for the widget that has the keyboard if it takes
// shortcuts, else for the window; Tab moves the keyboard; any other key and
// the characters go to the widget that has the keyboard, else to the
// window's handlers. Each key is typed step after the previous one, on
// keyClock.
type keys struct {
	t    *testing.T
	w    fyne.Window
	at   time.Time
	step time.Duration
}

func newKeys(t *testing.T, w fyne.Window) *keys {
	k := &keys{t: t, w: w, at: time.Date(2026, 12, 3, 9, 0, 0, 0, time.Local), step: 200 * time.Millisecond}
	old := keyClock
	keyClock = func() time.Time { return k.at }
	t.Cleanup(func() { keyClock = old })
	return k
}

// alt types Alt and a letter.
func (k *keys) alt(name fyne.KeyName) {
	k.at = k.at.Add(k.step)
	s := &desktop.CustomShortcut{KeyName: name, Modifier: fyne.KeyModifierAlt}
	if f, ok := k.w.Canvas().Focused().(fyne.Shortcutable); ok {
		f.TypedShortcut(s)
		return
	}
	k.w.Canvas().(fyne.Shortcutable).TypedShortcut(s)
}

// key types a key without modifier.
func (k *keys) key(name fyne.KeyName) {
	k.at = k.at.Add(k.step)
	if name == fyne.KeyTab {
		k.w.Canvas().FocusNext()
		return
	}
	press(k.w, name)
}

// text types s.
func (k *keys) text(s string) {
	for _, r := range s {
		k.at = k.at.Add(k.step)
		typeOn(k.w, string(r))
	}
}

// scan types serial's digits and Enter as a barcode scanner does: a key
// every 8 ms.
func (k *keys) scan(serial string) {
	step := k.step
	k.at = k.at.Add(time.Second) // the scanner is picked up
	k.step = 8 * time.Millisecond
	k.text(strings.ReplaceAll(serial, "-", ""))
	k.key(fyne.KeyReturn)
	k.step = step
}

// tabOf says which tab's content holds o.
func tabOf(d *desk, o fyne.CanvasObject) int {
	for i, item := range d.tabs.Items {
		for _, x := range test.LaidOutObjects(item.Content) {
			if x == o {
				return i
			}
		}
	}
	return -1
}

// Each tab shows its shortcut and opens on it, whatever has the keyboard
// (a field of the contents form, a button, a list), with the keyboard on
// one of its own widgets; Escape goes back to the counter's serial field
// and clears the contents form; a dialog's buttons are reached by Tab and
// tapped by Enter, and no tab opens under a dialog. Keys only.
func TestTabKeys(t *testing.T) {
	d := newTestDesk(t, fixture)
	k := newKeys(t, d.win)
	cv := d.win.Canvas()
	want := []string{"Guichet · Alt+G", "Saisir le contenu · Alt+S", "Paiements · Alt+P", "Carnets · Alt+C", "Blocs · Alt+B", "Réglages · Alt+R"}
	for i, item := range d.tabs.Items {
		if item.Text != want[i] {
			t.Errorf("tab %d: %q, want %q", i, item.Text, want[i])
		}
	}
	if cv.Focused() != d.counter.entry {
		t.Fatal("the serial field has not the keyboard")
	}
	// From the serial field to every tab and back, each from the one before.
	for _, i := range []int{tabContents, tabClaims, tabPacks, tabBlocks, tabSettings, tabCounter, tabSettings, tabContents} {
		k.alt(tabKeys[i])
		if d.tabs.SelectedIndex() != i {
			t.Fatalf("Alt+%s opens tab %d", tabKeys[i], d.tabs.SelectedIndex())
		}
		if f := cv.Focused(); f == nil || tabOf(d, f.(fyne.CanvasObject)) != i {
			t.Fatalf("tab %d: the keyboard is on %T, not in the tab", i, f)
		}
	}
	// Escape from the contents form: its values gone, back to the serial
	// field.
	k.text("12")
	k.key(fyne.KeyTab)
	k.text("7")
	k.key(fyne.KeyEscape)
	if d.tabs.SelectedIndex() != tabCounter || cv.Focused() != d.counter.entry {
		t.Fatalf("Escape: tab %d, keyboard on %T", d.tabs.SelectedIndex(), cv.Focused())
	}
	for p, e := range d.contents.fields {
		if e.Text != "" {
			t.Errorf("Escape left %q in %s", e.Text, p)
		}
	}
	// Leaving the contents form clears it.
	k.alt(fyne.KeyS)
	k.text("12")
	k.alt(fyne.KeyP)
	if e := d.contents.fields[d.contents.paths[0]]; e.Text != "" {
		t.Errorf("the contents form left holds %q", e.Text)
	}
	// Escape from the list of Blocs, a button of Blocs, a drop-down list
	// of Carnets, the table of Paiements too.
	for _, c := range []struct {
		tab  int
		what func(fyne.Focusable) bool
	}{
		{tabBlocks, func(f fyne.Focusable) bool { _, ok := f.(*keyList); return ok }},
		{tabBlocks, func(f fyne.Focusable) bool { _, ok := f.(*keyButton); return ok }},
		{tabPacks, func(f fyne.Focusable) bool { _, ok := f.(*keySelect); return ok }},
		{tabClaims, func(f fyne.Focusable) bool { _, ok := f.(*keyTable); return ok }},
	} {
		k.alt(tabKeys[c.tab])
		for range 12 {
			if c.what(cv.Focused()) {
				break
			}
			k.key(fyne.KeyTab)
		}
		if !c.what(cv.Focused()) {
			t.Fatalf("tab %d: the keyboard is on %T", c.tab, cv.Focused())
		}
		k.key(fyne.KeyEscape)
		if d.tabs.SelectedIndex() != tabCounter || cv.Focused() != d.counter.entry {
			t.Fatalf("Escape from %T: tab %d, keyboard on %T", c.what, d.tabs.SelectedIndex(), cv.Focused())
		}
	}

	// A question: Tab reaches each button, Enter taps it; no tab opens
	// under it.
	for _, c := range []struct {
		tabs int
		want bool
	}{{1, false}, {2, true}} {
		var got *bool
		d.ask("Question", widget.NewLabel("?"), "Oui", "Non", func(ok bool) { got = &ok })
		k.alt(fyne.KeyP)
		if d.tabs.SelectedIndex() != tabCounter {
			t.Fatal("Alt+P opened Paiements under a question")
		}
		for range c.tabs {
			k.key(fyne.KeyTab)
		}
		if b, ok := cv.Focused().(*keyButton); !ok || b.Text != map[bool]string{false: "Non", true: "Oui"}[c.want] {
			t.Fatalf("%d Tab: the keyboard is on %v", c.tabs, cv.Focused())
		}
		k.key(fyne.KeyReturn)
		if got == nil || *got != c.want || dialogs(d.win) != 0 {
			t.Fatalf("%d Tab, Enter: answer %v, %d dialogs", c.tabs, got, dialogs(d.win))
		}
	}
	// An information: Tab, Enter closes it.
	d.inform("Information", "message")
	k.key(fyne.KeyTab)
	k.key(fyne.KeyReturn)
	if dialogs(d.win) != 0 {
		t.Fatal("Tab, Enter does not close an information")
	}
	// The payment's confirmation: Tab to Annuler, Enter cancels.
	d.counter.focus()
	k.scan(takeWinner(t, 3))
	k.key(fyne.KeyReturn)
	if dialogs(d.win) != 1 {
		t.Fatal("Enter after a winner asks nothing")
	}
	cv.Unfocus()
	k.key(fyne.KeyTab)
	if b, ok := cv.Focused().(*keyButton); !ok || b.Text != "Annuler" {
		t.Fatalf("Tab in the payment: the keyboard is on %v", cv.Focused())
	}
	k.key(fyne.KeyReturn)
	if dialogs(d.win) != 0 || d.counter.view.kind != verdictWinner {
		t.Fatalf("Enter on Annuler: %d dialogs, %q", dialogs(d.win), d.counter.view.title.Text())
	}
}

// A serial scanned on any tab, into any field, is checked at the counter,
// and the field it went into keeps what it held; the same digits typed at
// a person's pace are typing, and 32 digits are no serial; a question
// shown closes unanswered. Keys only.
func TestScanAnywhere(t *testing.T) {
	d := newTestDesk(t, fixture)
	k := newKeys(t, d.win)
	cv := d.win.Canvas()
	c := d.counter
	lookup := func(s string) ledger.Ticket {
		tk, err := fixture.Lookup(context.Background(), s, d.identity(), ledger.NoLimit)
		if err != nil {
			t.Fatal(err)
		}
		return tk
	}
	atCounter := func(where, serial string) {
		t.Helper()
		if d.tabs.SelectedIndex() != tabCounter || c.view.kind != verdictWinner || c.current == nil || c.current.Serial.String() != lookup(serial).Serial.String() {
			t.Fatalf("%s: tab %d, %q", where, d.tabs.SelectedIndex(), c.view.title.Text())
		}
		if cv.Focused() != c.entry || c.entry.Text != "" {
			t.Fatalf("%s: the serial field has not the keyboard, or holds %q", where, c.entry.Text)
		}
	}

	// Into an amount of the contents form, which held 12.
	k.alt(fyne.KeyS)
	first := d.contents.fields[d.contents.paths[0]]
	k.text("12")
	serial := takeWinner(t, 3)
	k.scan(serial)
	atCounter("a scan on Saisir le contenu", serial)
	if first.Text != "" {
		t.Errorf("the contents form left holds %q", first.Text)
	}

	// The same digits at a person's pace are typed into the field, and
	// Enter checks the form.
	k.alt(fyne.KeyS)
	k.key(fyne.KeyTab)
	k.text(strings.ReplaceAll(serial, "-", ""))
	k.key(fyne.KeyReturn)
	if d.tabs.SelectedIndex() != tabContents || d.contents.view.kind != verdictMistyped {
		t.Fatalf("typed digits: tab %d, %q", d.tabs.SelectedIndex(), d.contents.view.title.Text())
	}
	// 32 digits at a scanner's pace are no serial either.
	k.alt(fyne.KeyS)
	k.scan(strings.ReplaceAll(serial, "-", "") + "1")
	if d.tabs.SelectedIndex() != tabContents {
		t.Fatal("32 digits were taken for a serial")
	}

	// Into the day of Paiements, the packs field of Carnets, on the list of
	// Blocs and on a button of Blocs.
	for i, tab := range []int{tabClaims, tabPacks, tabBlocks, tabBlocks} {
		k.alt(tabKeys[tab])
		if i == 3 {
			k.key(fyne.KeyTab) // from the list of blocks to a button
		}
		text := func() string { return "" }
		switch e := cv.Focused().(type) {
		case *keyEntry:
			text = func() string { return e.Text }
		case *dateEntry:
			text = func() string { return e.Text }
		}
		before := text()
		serial := takeWinner(t, 3)
		k.scan(serial)
		atCounter(d.tabs.Items[tab].Text, serial)
		if text() != before {
			t.Errorf("%s: the field holds %q, not %q", d.tabs.Items[tab].Text, text(), before)
		}
	}
	// With nothing that has the keyboard.
	k.alt(fyne.KeyB)
	cv.Unfocus()
	serial = takeWinner(t, 3)
	k.scan(serial)
	atCounter("no widget with the keyboard", serial)

	// Under a question, a scan closes it unanswered (as Escape would) and
	// is checked at the counter (TestScanUnderDialogs for those that pay).
	var answered *bool
	d.ask("Question", widget.NewLabel("?"), "Oui", "Non", func(ok bool) { answered = &ok })
	serial = takeWinner(t, 3)
	k.scan(serial)
	if answered == nil || *answered || dialogs(d.win) != 0 {
		t.Fatalf("a scan under a question: answered %v, %d dialogs", answered, dialogs(d.win))
	}
	atCounter("under a question", serial)
}

// After a payment on the contents form, the receipt has the keyboard: Tab
// goes on to the form's first field and Shift+Tab back to the receipt,
// Enter prints it; a printer's refusal is read whole in the verdict box, in
// a window of 1366 × 768 and of 1024 × 768. Keys only.
func TestContentsReceiptByKeys(t *testing.T) {
	cups := printertest.Install(t, "Bureau")
	cups.Refuse(t, "Bureau")
	for _, size := range []fyne.Size{{Width: 1366, Height: 768}, {Width: 1024, Height: 768}} {
		d := newTestDesk(t, fixture)
		d.win.Resize(size)
		d.app.Preferences().SetString(prefPrinter, "Bureau")
		d.app.Preferences().SetBool(prefAutoPrint, false)
		c, cv := d.contents, d.win.Canvas()
		k := newKeys(t, d.win)
		serial := takeWinner(t, 6)
		tk, err := fixture.Lookup(context.Background(), serial, d.identity(), ledger.NoLimit)
		if err != nil {
			t.Fatal(err)
		}
		k.alt(fyne.KeyS)
		values := contentsValues(&tk.Ticket)
		for i, p := range c.paths {
			if i > 0 {
				k.key(fyne.KeyTab)
			}
			k.text(values[p])
		}
		k.key(fyne.KeyReturn) // check
		k.key(fyne.KeyReturn) // PAYER
		k.key(fyne.KeyReturn) // confirm
		settle(t, d)
		if c.view.kind != verdictJustPaid || cv.Focused() != c.view.receipt {
			t.Fatalf("%v: after the payment %q, the keyboard on %T", size, c.view.title.Text(), cv.Focused())
		}
		k.key(fyne.KeyTab)
		if cv.Focused() != c.fields[c.paths[0]] {
			t.Fatalf("%v: Tab from the receipt goes to %T", size, cv.Focused())
		}
		cv.FocusPrevious() // Shift+Tab
		if cv.Focused() != c.view.receipt {
			t.Fatalf("%v: Shift+Tab from the first field goes to %T", size, cv.Focused())
		}
		k.key(fyne.KeyReturn)
		says := "L’imprimante «\u00a0Bureau\u00a0» a refusé le reçu"
		waitFor(t, "the printer's answer", time.Minute, func() bool { return strings.Contains(c.view.detail.Text, says) })
		c.view.content.Refresh()
		if need, room := c.view.detail.MinSize().Height, c.view.scroll.Size().Height; need > room {
			t.Errorf("%v: the details need %v, the box shows %v: %q", size, need, room, c.view.detail.Text)
		}
		if c.view.kind != verdictJustPaid || !c.view.receipt.Visible() || cv.Focused() != c.fields[c.paths[0]] {
			t.Errorf("%v: after the print %q, receipt %v, the keyboard on %T", size, c.view.title.Text(), c.view.receipt.Visible(), cv.Focused())
		}
	}
}

// findKeyButton finds a visible keyButton by its text in the window's
// dialogs and content.
func findKeyButton(t *testing.T, w fyne.Window, text string) *keyButton {
	t.Helper()
	for _, root := range append(w.Canvas().Overlays().List(), w.Canvas().Content()) {
		for _, o := range test.LaidOutObjects(root) {
			if b, ok := o.(*keyButton); ok && b.Text == text && b.Visible() {
				return b
			}
		}
	}
	t.Fatalf("no button %q", text)
	return nil
}

// Réglages shows nothing as in effect that is not: the receipt printer
// applies when chosen and says so, a field typed is marked unsaved until
// Enregistrer, which says it saved; the printers are listed again each time
// the screen opens.
func TestSettingsInEffect(t *testing.T) {
	cups := printertest.Install(t, "Recus")
	d := newTestDesk(t, fixture)
	s, cv := d.settings, d.win.Canvas()
	k := newKeys(t, d.win)
	waitFor(t, "the printers", time.Minute, func() bool { pump(); return slices.Contains(s.printer.Options, "Recus") })
	cups.AddQueue(t, "Bureau")
	k.alt(fyne.KeyR)
	waitFor(t, "the printer added", time.Minute, func() bool { pump(); return slices.Contains(s.printer.Options, "Bureau") })

	s.printer.SetSelected("Bureau")
	if d.receiptPrinter() != "Bureau" || !d.printsEachReceipt() || !strings.Contains(s.state.Text, "s’imprime sur Bureau\u00a0: en vigueur") {
		t.Fatalf("a printer chosen: in effect %q, says %q", d.receiptPrinter(), s.state.Text)
	}
	s.autoPrint.SetChecked(false)
	if d.printsEachReceipt() || !strings.Contains(s.state.Text, "à la demande") {
		t.Fatalf("unticked: prints each %v, says %q", d.printsEachReceipt(), s.state.Text)
	}

	cv.Focus(s.operator)
	k.text("Bob")
	if d.identity().Operator != "Alice" || !strings.Contains(s.state.Text, "Pas enregistré, pas en vigueur\u00a0: Opérateur") {
		t.Fatalf("typed, not saved: operator %q, says %q", d.identity().Operator, s.state.Text)
	}
	k.key(fyne.KeyEscape) // to the counter and back: still unsaved
	k.alt(fyne.KeyR)
	if !strings.Contains(s.state.Text, "Pas enregistré") {
		t.Fatalf("back on Réglages: says %q", s.state.Text)
	}
	cv.Focus(findKeyButton(t, d.win, "Enregistrer"))
	k.key(fyne.KeyReturn)
	if d.identity().Operator != "BobAlice" || !strings.Contains(s.state.Text, "Réglages enregistrés\u00a0: en vigueur") {
		t.Fatalf("saved: operator %q, says %q", d.identity().Operator, s.state.Text)
	}
}

// The day report and the labels print on a CUPS queue from the app: the
// paper's dialog offers the printer (the receipt printer at first, then
// the one used last), Enter prints; labels are for the packs typed (a
// range) or the run selected in the list, not every pack listed.
func TestPapersToPrinter(t *testing.T) {
	cups := printertest.Install(t, "Bureau", "Etiquettes")
	l := newRetailLedger(t)
	d := newTestDesk(t, l)
	d.app.Preferences().SetString(prefPrinter, "Bureau")
	cv := d.win.Canvas()
	k := newKeys(t, d.win)
	movePacks(d, "deliver", "G1", "40-45")
	jobs := func(n int) []printertest.Job {
		t.Helper()
		waitFor(t, "lp", time.Minute, func() bool { pump(); return len(cups.Jobs(t)) >= n })
		return cups.Jobs(t)
	}

	// Paiements: Rapport du jour…, Enter prints it on the receipt printer.
	k.alt(fyne.KeyP)
	cv.Focus(d.claims.day2)
	k.key(fyne.KeyReturn)
	if b, ok := cv.Focused().(*keyButton); !ok || b.Text != "Imprimer" {
		t.Fatalf("the day report's dialog: the keyboard on %v", cv.Focused())
	}
	k.key(fyne.KeyReturn)
	waitFor(t, "the information", time.Minute, func() bool { pump(); return shown(d.win, "imprimé sur Bureau") })
	js := jobs(1)
	if strings.Join(js[0].Args[:2], " ") != "-d Bureau" || !strings.Contains(printedText(t, js[0]), "Rapportdujour") {
		t.Fatalf("the day report printed with %v", js[0].Args)
	}
	k.key(fyne.KeyReturn)

	// Carnets: 10 000 packs listed; labels of three, typed, on another queue.
	k.alt(fyne.KeyC)
	cv.Focus(d.packs.labels)
	k.key(fyne.KeyReturn)
	field, ok := cv.Focused().(*keyEntry)
	if !ok || field.Text != "" {
		t.Fatalf("the labels' packs field: %T %v", cv.Focused(), field)
	}
	k.text("abc")
	k.key(fyne.KeyReturn)
	if dialogs(d.win) != 1 || !shown(d.win, "Tapez des numéros de carnet") {
		t.Fatal("a wrong range is not refused in the dialog")
	}
	field.SetText("")
	k.text("30-32")
	k.key(fyne.KeyReturn)
	waitFor(t, "the printers", time.Minute, func() bool {
		pump()
		for _, x := range test.LaidOutObjects(cv.Overlays().Top()) {
			if s, ok := x.(*keySelect); ok && slices.Contains(s.Options, "Etiquettes") {
				s.SetSelected("Etiquettes")
				return true
			}
		}
		return false
	})
	k.key(fyne.KeyReturn)
	waitFor(t, "the information", time.Minute, func() bool { pump(); return shown(d.win, "imprimé sur Etiquettes") })
	js = jobs(2)
	text := printedText(t, js[1])
	if strings.Join(js[1].Args[:2], " ") != "-d Etiquettes" || !strings.Contains(text, code(30)) || !strings.Contains(text, code(32)) || strings.Contains(text, code(33)) {
		t.Fatalf("the labels printed with %v:\n%s", js[1].Args, text)
	}
	k.key(fyne.KeyReturn)

	// The run selected in the list is offered.
	p := d.packs
	row := slices.IndexFunc(p.runs, func(r ledger.PackRun) bool { return r.First == 40 })
	p.table.Select(widget.TableCellID{Row: row, Col: 0})
	cv.Focus(p.labels)
	k.key(fyne.KeyReturn)
	if field, ok := cv.Focused().(*keyEntry); !ok || field.Text != "40-45" {
		t.Fatalf("the run selected is not offered: %v", cv.Focused())
	}
}
