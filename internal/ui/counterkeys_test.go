package ui

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"vegas-desk/internal/ledger"
	"vegas-desk/internal/printer/printertest"
)

// tabTo presses Tab until ok holds of what has the keyboard, at most 20
// times.
func tabTo(t *testing.T, k *keys, what string, ok func(fyne.Focusable) bool) {
	t.Helper()
	for range 20 {
		if f := k.w.Canvas().Focused(); f != nil && ok(f) {
			return
		}
		k.key(fyne.KeyTab)
	}
	t.Fatalf("Tab never reaches %s", what)
}

// isButton says whether f is the app's button labelled text.
func isButton(text string) func(fyne.Focusable) bool {
	return func(f fyne.Focusable) bool { b, ok := f.(*keyButton); return ok && b.Text == text }
}

// issue 39 item 2: Paiements by keys. Tab reaches the table, which
// selects its first payment; the arrows move the selection, Enter opens
// the selected payment's receipt; Tab goes on to Reçu… and Annuler le
// paiement…, which Enter taps.
func TestClaimsByKeys(t *testing.T) {
	d := newTestDesk(t, fixture)
	k := newKeys(t, d.win)
	cv := d.win.Canvas()
	desk := "K9-" + time.Now().Format("150405.000000")
	for range 3 {
		if _, err := fixture.Claim(context.Background(), ledger.ClaimRequest{Serial: takeWinner(t, 15), Method: ledger.MethodSerial,
			Who: ledger.Identity{Desk: desk, Operator: "Bob"}, Limit: ledger.NoLimit}); err != nil {
			t.Fatal(err)
		}
	}
	k.alt(fyne.KeyP)
	tabTo(t, k, "the desk filter", func(f fyne.Focusable) bool { return f == d.claims.desk })
	k.text(desk)
	k.key(fyne.KeyReturn)
	c := d.claims
	if len(c.claims) != 3 {
		t.Fatalf("%d payments of %s", len(c.claims), desk)
	}
	tabTo(t, k, "the table", func(f fyne.Focusable) bool { return f == c.table })
	if c.selected != 0 || c.receipt.Disabled() {
		t.Fatalf("the table has the keyboard: row %d selected, Reçu… disabled %v", c.selected, c.receipt.Disabled())
	}
	k.key(fyne.KeyDown)
	k.key(fyne.KeyDown)
	k.key(fyne.KeyDown) // past the last: stays there
	k.key(fyne.KeyUp)
	if c.selected != 1 {
		t.Fatalf("Down, Down, Down, Up: row %d selected", c.selected)
	}
	k.key(fyne.KeyReturn)
	want := fmt.Sprintf("Reçu du paiement n°\u00a0%d", c.claims[1].Number)
	if dialogs(d.win) != 1 || !shown(d.win, want) {
		t.Fatalf("Enter on the table: %d dialogs, %q", dialogs(d.win), dialogText(d))
	}
	k.key(fyne.KeyEscape)
	cv.Focus(c.table)
	k.key(fyne.KeyTab)
	if !isButton("Reçu…")(cv.Focused()) {
		t.Fatalf("Tab from the table goes to %T", cv.Focused())
	}
	tabTo(t, k, "Annuler le paiement…", isButton("Annuler le paiement…"))
	k.key(fyne.KeyReturn)
	if dialogs(d.win) != 1 || !shown(d.win, fmt.Sprintf("%d · %s", c.claims[1].Number, c.claims[1].Serial)) {
		t.Fatalf("Enter on Annuler le paiement…: %d dialogs, %q", dialogs(d.win), dialogText(d))
	}
	k.key(fyne.KeyEscape)
}

// issue 39 item 2: a serial whose check digit does not match marks no
// group (the check digit cannot tell which digit is wrong) and says so;
// one a digit short marks its group. Derniers contrôles lists each with
// its dashes, without brackets, and a click on it checks it again.
func TestMistypedSerialSaysWhat(t *testing.T) {
	d := newTestDesk(t, fixture)
	k := newKeys(t, d.win)
	c := d.counter
	digits := digitsOf(losers[1])
	wrong := digits[:9] + string('0'+(digits[9]-'0'+1)%10) + digits[10:] // one digit of the position
	k.scan(wrong)
	if c.view.kind != verdictMistyped {
		t.Fatalf("a digit changed: %q", c.view.title.Text())
	}
	dashed := digits[:3] + "-" + digits[3:7] + "-" + wrong[7:14] + "-" + digits[14:18] + "-" + digits[18:22] + "-" + digits[22:26] + "-" + digits[26:30] + "-" + digits[30:]
	if det := c.view.detail.Text; !strings.HasPrefix(det, dashed+"\n") || strings.Contains(det, "[") ||
		!strings.Contains(det, "il ne peut pas dire lequel") || strings.Contains(det, "crochets") {
		t.Errorf("the check digit wrong: %q", det)
	}
	if got := d.checks[0].serial; got != dashed {
		t.Errorf("Derniers contrôles lists %q, want %q", got, dashed)
	}
	k.text(digits[:29])
	k.key(fyne.KeyReturn)
	if det := c.view.detail.Text; !strings.Contains(det, "-[") || !strings.Contains(det, "crochets") {
		t.Errorf("two digits short: %q", det)
	}
	if got := d.checks[0].serial; strings.ContainsAny(got, "[]") || !strings.Contains(got, "-") {
		t.Errorf("Derniers contrôles lists %q", got)
	}
	c.checks.Select(1) // the first one again
	if c.view.kind != verdictMistyped || d.checks[0].serial != dashed {
		t.Errorf("checked again from the list: %q, listed %q", c.view.title.Text(), d.checks[0].serial)
	}
}

// issue 39 item 2: Paiements' day, Relevé de compte and the drop-down
// lists by keys. Tab goes through the empty day filter without marking it
// wrong, and from it to « Aujourd’hui », not to the calendar; Relevé de
// compte offers the current period (today's payments in it), and Enter in
// a day field prints; Enter opens a drop-down list.
func TestDatesAndListsByKeys(t *testing.T) {
	d := newTestDesk(t, fixture)
	k := newKeys(t, d.win)
	cv := d.win.Canvas()
	c := d.claims
	k.alt(fyne.KeyP)
	if cv.Focused() != c.day {
		t.Fatalf("Paiements opens with the keyboard on %T", cv.Focused())
	}
	k.key(fyne.KeyTab)
	if err := c.day.Validate(); err != nil {
		t.Errorf("the empty day, Tab gone through it, is wrong: %v", err)
	}
	if !isButton("Aujourd’hui")(cv.Focused()) {
		t.Errorf("Tab from the day goes to %T", cv.Focused())
	}

	// Relevé de compte: the current period; Enter in « au » prints.
	cv.Focus(c.settle)
	k.key(fyne.KeyReturn)
	var dates []*dateEntry
	for _, o := range test.LaidOutObjects(cv.Overlays().Top()) {
		if e, ok := o.(*dateEntry); ok {
			dates = append(dates, e)
		}
	}
	now := time.Now()
	if len(dates) != 2 || dates[0].Text != time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.Local).Format(dayLayout) || dates[1].Text != now.Format(dayLayout) {
		t.Fatalf("the period offered: %d fields, %v", len(dates), dates)
	}
	k.text("G1")
	tabTo(t, k, "« au »", func(f fyne.Focusable) bool { return f == dates[1] })
	k.key(fyne.KeyReturn)
	if !shown(d.win, "Relevé de compte du guichet G1") {
		t.Fatalf("Enter in a day of Relevé de compte: %q", dialogText(d))
	}
	k.key(fyne.KeyEscape)

	// A drop-down list opens on Enter.
	cv.Focus(c.block)
	k.key(fyne.KeyReturn)
	if dialogs(d.win) != 1 {
		t.Fatalf("Enter on the blocks' list: %d pop-ups", dialogs(d.win))
	}
}

// issue 39 item 2: on Saisir le contenu, the field Tab gives the keyboard
// to is in view, down to Jackpot's third line and Bonus, and back up with
// Shift+Tab, at 1366 × 768 and 1024 × 768.
func TestContentsFieldInView(t *testing.T) {
	for _, size := range []fyne.Size{{Width: 1366, Height: 768}, {Width: 1024, Height: 768}} {
		d := newTestDesk(t, fixture)
		d.win.Resize(size)
		k := newKeys(t, d.win)
		cv := d.win.Canvas()
		c := d.contents
		k.alt(fyne.KeyS)
		var scroll fyne.CanvasObject
		for _, o := range test.LaidOutObjects(c.content) {
			if s, ok := o.(*container.Scroll); ok {
				scroll = s
				break
			}
		}
		if scroll == nil {
			t.Fatal("the contents form does not scroll")
		}
		inView := func(step string) {
			t.Helper()
			f := cv.Focused().(fyne.CanvasObject)
			top, view := abs(f).Y, abs(scroll).Y
			if top < view || top+f.Size().Height > view+scroll.Size().Height {
				t.Fatalf("%v, %s: the field with the keyboard is at %.0f to %.0f px, the form shows %.0f to %.0f px", size, step, top, top+f.Size().Height, view, view+scroll.Size().Height)
			}
		}
		for i := range c.paths {
			if cv.Focused() != c.fields[c.paths[i]] {
				t.Fatalf("Tab %d: the keyboard is on %T", i, cv.Focused())
			}
			inView(c.paths[i])
			k.key(fyne.KeyTab)
		}
		for i := len(c.paths) - 1; i >= 0; i-- {
			cv.FocusPrevious() // Shift+Tab
			if cv.Focused() == c.fields[c.paths[i]] {
				inView("back to " + c.paths[i])
			}
		}
	}
}

// bigText is the app's theme with its text a third larger, as a screen
// of more dots per inch draws it (the issue was seen under Xvfb).
type bigTextTheme struct{ fyne.Theme }

func (t bigTextTheme) Size(n fyne.ThemeSizeName) float32 {
	if n == theme.SizeNameText {
		return t.Theme.Size(n) * 4 / 3
	}
	return t.Theme.Size(n)
}

// issue 39 item 2: Numéros à essayer lists each serial with its Vérifier,
// and Fermer under the list, never on a row, at a larger text size and on
// a short screen too: the list scrolls.
func TestSamplesCloseUnderList(t *testing.T) {
	for _, th := range []fyne.Theme{darkVariant{vegasTheme{}}, bigTextTheme{darkVariant{vegasTheme{}}}} {
		d := newTestDesk(t, fixture)
		d.app.Settings().SetTheme(th)
		d.win.Resize(fyne.NewSize(1024, 600))
		d.showSamples()
		waitFor(t, "the serials to try", time.Minute, func() bool { pump(); return shown(d.win, "gagnant 50") })
		var checks []fyne.CanvasObject
		var close fyne.CanvasObject
		var scroll *container.Scroll
		for _, o := range test.LaidOutObjects(d.win.Canvas().Overlays().Top()) {
			switch b := o.(type) {
			case *keyButton:
				switch {
				case !b.Visible():
				case b.Text == "Vérifier":
					checks = append(checks, b)
				case b.Text == "Fermer":
					close = b
				}
			case *container.Scroll:
				scroll = b
			}
		}
		if len(checks) != 9 || close == nil {
			t.Fatalf("%d Vérifier, Fermer %v", len(checks), close != nil)
		}
		// The part of the list in view ends above Fermer.
		bottom := abs(checks[len(checks)-1]).Y + checks[len(checks)-1].Size().Height
		if scroll != nil {
			bottom = min(bottom, abs(scroll).Y+scroll.Size().Height)
		}
		if top := abs(close).Y; top < bottom {
			t.Errorf("text size %.0f: Fermer at %.0f px, on the list shown down to %.0f px", th.Size(theme.SizeNameText), top, bottom)
		}
		if end := abs(close).Y + close.Size().Height; end > d.win.Canvas().Size().Height {
			t.Errorf("text size %.0f: Fermer ends at %.0f px, below the window", th.Size(theme.SizeNameText), end)
		}
		d.win.Canvas().Overlays().Top().Hide()
	}
}

// issue 39 item 2: a paper's dialog says « Document prêt : » before its
// title, which agrees with any (« Étiquettes de 7 carnets est prêt » did
// not).
func TestPaperReadySays(t *testing.T) {
	d := newTestDesk(t, fixture)
	d.offerPDF("Étiquettes de 7 carnets", "etiquettes.pdf", func(w io.Writer) error { _, err := io.WriteString(w, "%PDF-1.4\n"); return err })
	if !shown(d.win, "Document prêt\u00a0: Étiquettes de 7 carnets. Imprimez-le") || shown(d.win, "est prêt") {
		t.Errorf("the paper's dialog says %q", dialogText(d))
	}
}

// issue 39 item 2: a receipt printer chosen in Réglages says « en
// vigueur » even while another field waits for Enregistrer.
func TestPrinterInEffectWhileUnsaved(t *testing.T) {
	printertest.Install(t, "Recus")
	d := newTestDesk(t, fixture)
	s := d.settings
	k := newKeys(t, d.win)
	k.alt(fyne.KeyR)
	waitFor(t, "the printers", time.Minute, func() bool { pump(); return slices.Contains(s.printer.Options, "Recus") })
	d.win.Canvas().Focus(s.operator)
	k.text("B")
	s.printer.SetSelected("Recus")
	if d.receiptPrinter() != "Recus" || !strings.Contains(s.state.Text, "Pas enregistré, pas en vigueur\u00a0: Opérateur") ||
		!s.applied.Visible() || !strings.Contains(s.applied.Text, "s’imprime sur Recus\u00a0: en vigueur") {
		t.Errorf("a printer chosen, the operator unsaved: says %q and %q (shown %v)", s.state.Text, s.applied.Text, s.applied.Visible())
	}
}
