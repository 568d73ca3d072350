package ui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/ledgertest"
	"vegas-desk/internal/printer/printertest"
)

// burst types text, then Enter, as a barcode scanner does: after a pause,
// a key every 10 ms (keyClock).
func (k *keys) burst(text string) {
	step := k.step
	k.at = k.at.Add(time.Second)
	k.step = 10 * time.Millisecond
	k.text(text)
	k.key(fyne.KeyReturn)
	k.step = step
}

// underDialog is a dialog of the counter that moves money or state.
type underDialog struct {
	name string
	d    *desk
	// open shows the dialog, ready to confirm (what it asks typed), with
	// the keyboard where it puts it.
	open func(t *testing.T, k *keys)
	// moved says what the dialog's confirmation did, or "" when nothing.
	moved func(t *testing.T) string
}

// focusables are the widgets of the dialog shown that Tab visits, from
// the one that has the keyboard.
func focusables(w fyne.Window) []fyne.Focusable {
	cv := w.Canvas()
	if cv.Focused() == nil {
		cv.FocusNext()
	}
	var out []fyne.Focusable
	for range 20 {
		f := cv.Focused()
		if f == nil || (len(out) > 0 && f == out[0]) {
			break
		}
		out = append(out, f)
		cv.FocusNext()
	}
	return out
}

// textOf is the text of a field of the app, or "".
func textOf(f fyne.Focusable) (string, bool) {
	switch e := f.(type) {
	case *keyEntry:
		return e.Text, true
	case *dateEntry:
		return e.Text, true
	}
	return "", false
}

// moneyDialogs are the dialogs of the counter that move money (pay at the
// counter, pay with the winner's identity, pay on the contents form, void
// a payment, close a double payment), each on a desk of its own.
func moneyDialogs(t *testing.T) []underDialog {
	ctx := context.Background()
	var cases []underDialog

	// Pay at the counter: a winner scanned, Enter on the empty field.
	{
		d := newTestDesk(t, fixture)
		w := takeWinner(t, 3)
		cases = append(cases, underDialog{name: "Payer ce ticket (Guichet)", d: d,
			open: func(t *testing.T, k *keys) {
				d.counter.focus()
				k.scan(w)
				k.key(fyne.KeyReturn)
			},
			moved: paidIn(fixture, w)})
	}
	// Pay with the winner's identity, all of it typed.
	{
		l, err := ledger.Open(ledgertest.Copy(t, ledgertest.Block))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		if err := l.SetSetting(ctx, ledger.SettingIdentityThreshold, 100, ledger.Identity{Desk: "BO", Operator: "eve"}); err != nil {
			t.Fatal(err)
		}
		d := newTestDesk(t, l)
		w := takeWinner(t, 100)
		cases = append(cases, underDialog{name: "Payer ce ticket (identité)", d: d,
			open: func(t *testing.T, k *keys) {
				d.counter.focus()
				k.scan(w)
				k.key(fyne.KeyReturn)
				var entries []*keyEntry
				for _, x := range test.LaidOutObjects(d.win.Canvas().Overlays().Top()) {
					switch x := x.(type) {
					case *keyEntry:
						entries = append(entries, x)
					case *keySelect:
						x.SetSelected("permis de conduire") // typed: no zone to read
					}
				}
				if len(entries) != 3 {
					t.Fatalf("the identity form has %d fields, want the zone, the name and the number", len(entries))
				}
				entries[1].SetText("Jean Dupont")
				entries[2].SetText("19AZ71864")
				// The number's field, where Enter answers (the zone's,
				// several lines, takes Enter as a line's end).
				d.win.Canvas().Focus(entries[2])
			},
			moved: paidIn(l, w)})
	}
	// Pay on the contents form: the contents typed, Enter checks, Enter
	// on PAYER.
	{
		d := newTestDesk(t, fixture)
		w := takeWinner(t, 6)
		tk, err := fixture.Lookup(ctx, w, d.identity(), ledger.NoLimit)
		if err != nil {
			t.Fatal(err)
		}
		values := contentsValues(&tk.Ticket)
		cases = append(cases, underDialog{name: "Payer ce ticket (Saisir le contenu)", d: d,
			open: func(t *testing.T, k *keys) {
				k.key(fyne.KeyEscape) // the form cleared
				k.alt(fyne.KeyS)
				for i, p := range d.contents.paths {
					if i > 0 {
						k.key(fyne.KeyTab)
					}
					k.text(values[p])
				}
				k.key(fyne.KeyReturn) // check
				k.key(fyne.KeyReturn) // PAYER
			},
			moved: paidIn(fixture, w)})
	}
	// Void a payment, its reason typed.
	{
		d := newTestDesk(t, fixture)
		desk := "V9-" + time.Now().Format("150405.000000")
		cl, err := fixture.Claim(ctx, ledger.ClaimRequest{Serial: takeWinner(t, 9), Method: ledger.MethodSerial,
			Who: ledger.Identity{Desk: desk, Operator: "Bob"}, Limit: ledger.NoLimit})
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, underDialog{name: "Annuler le paiement", d: d,
			open: func(t *testing.T, k *keys) {
				k.alt(fyne.KeyP)
				c := d.claims
				c.desk.SetText(desk)
				c.reload()
				c.table.Select(widget.TableCellID{Row: 0, Col: 0})
				c.askVoid()
				k.text("erreur de saisie")
			},
			moved: func(t *testing.T) string {
				cls, err := fixture.Claims(ctx, ledger.ClaimFilter{Desk: desk})
				if err != nil || len(cls) != 1 {
					t.Fatalf("claims of %s: %+v %v", desk, cls, err)
				}
				if cls[0].Voided {
					return "payment " + cl.Serial + " voided"
				}
				return ""
			}})
	}
	// Close a double payment, the decision typed.
	{
		bo := doublePaid(t)
		d := newTestDesk(t, bo)
		t.Cleanup(d.closeLedger)
		cases = append(cases, underDialog{name: "Clore le dossier", d: d,
			open: func(t *testing.T, k *keys) {
				k.alt(fyne.KeyP)
				c := d.claims
				c.reload()
				c.table.Select(widget.TableCellID{Row: 1, Col: 0})
				c.askCloseCase()
				k.text("recouvert")
			},
			moved: func(t *testing.T) string {
				ks, err := bo.Cases(ctx)
				if err != nil || len(ks) != 1 {
					t.Fatalf("cases: %+v %v", ks, err)
				}
				if ks[0].Closed {
					return "case closed: " + ks[0].Decision
				}
				return ""
			}})
	}
	return cases
}

// issue 36 item 1: under every dialog of the counter that moves money or
// state (pay at the counter, pay with the winner's identity, pay on the
// contents form, void a payment, close a double payment, generate a
// block, print a paper), whatever has the keyboard in it (each widget Tab
// visits, or none), a scanner's burst pays nothing and moves nothing:
//   - a burst that is no serial (a shop's 13-digit barcode, a serial
//     misread short) leaves the dialog open, unanswered, its field as it
//     was;
//   - a serial scanned closes the dialog unanswered and is checked at the
//     counter, as a scan anywhere else is.
//
// Then a key a person types answers the dialog: its Enter confirms. Keys
// only, on keyClock.
func TestScanUnderDialogs(t *testing.T) {
	printertest.Install(t, "Bureau")
	cases := moneyDialogs(t)
	// Generate a block.
	{
		l, err := ledger.CreateDemo(filepath.Join(t.TempDir(), "demo.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		d := newTestDesk(t, l)
		cases = append(cases, underDialog{name: "Générer un bloc", d: d,
			open: func(t *testing.T, k *keys) {
				k.alt(fyne.KeyB)
				d.blocks.generate()
			},
			moved: func(t *testing.T) string {
				if len(d.tasks) > 0 {
					for tk := range d.tasks {
						tk.cancel()
						waitDone(t, tk)
					}
					return "a block generated"
				}
				return ""
			}})
	}
	// Print the day report on the receipt printer.
	{
		d := newTestDesk(t, fixture)
		d.app.Preferences().SetString(prefPrinter, "Bureau")
		cases = append(cases, underDialog{name: "Rapport du jour", d: d,
			open: func(t *testing.T, k *keys) {
				k.alt(fyne.KeyP)
				d.win.Canvas().Focus(d.claims.day2)
				k.key(fyne.KeyReturn)
			},
			moved: func(t *testing.T) string {
				if q := d.app.Preferences().String(prefPaperPrinter); q != "" {
					d.app.Preferences().SetString(prefPaperPrinter, "")
					// lp's answer, before the test's CUPS goes.
					waitFor(t, "the print", time.Minute, func() bool { pump(); return shown(d.win, "imprimé sur "+q) })
					return "printed on " + q
				}
				return ""
			}})
	}

	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, cv := c.d, c.d.win.Canvas()
			k := newKeys(t, d.win)
			c.open(t, k)
			if dialogs(d.win) != 1 {
				t.Fatalf("%d dialogs shown", dialogs(d.win))
			}
			n := len(focusables(d.win))
			if n == 0 {
				t.Fatal("nothing in the dialog has the keyboard")
			}
			k.key(fyne.KeyEscape)
			if dialogs(d.win) != 0 {
				t.Fatal("Escape does not close the dialog")
			}
			// openAt opens the dialog with the keyboard on its at-th
			// widget from the one it gives it to (-1: none), and names it.
			openAt := func(at int) string {
				c.open(t, k)
				if dialogs(d.win) != 1 {
					t.Fatalf("%d dialogs shown", dialogs(d.win))
				}
				fs := focusables(d.win)
				if at < 0 {
					cv.Unfocus()
					return "nothing"
				}
				cv.Focus(fs[at])
				return describe(fs[at])
			}
			order := []int{}
			for i := range n {
				order = append(order, i)
			}
			other := losers[0] // scanned under the dialog: checked at the counter
			for _, at := range append(order, -1) {
				// A serial (the case: PAYER has the keyboard): the
				// dialog closes unanswered, the serial is checked at the
				// counter, as it is anywhere else.
				where := openAt(at)
				k.burst(digitsOf(other))
				settle(t, d)
				if m := c.moved(t); m != "" {
					t.Fatalf("keyboard on %s: a serial scanned under the dialog: %s", where, m)
				}
				if dialogs(d.win) != 0 {
					t.Fatalf("keyboard on %s: a serial scanned under the dialog left %d dialogs", where, dialogs(d.win))
				}
				if d.tabs.SelectedIndex() != tabCounter || len(d.checks) == 0 || digitsOf(d.checks[0].serial) != digitsOf(other) || d.counter.view.kind == verdictJustPaid {
					t.Fatalf("keyboard on %s: after the scan, tab %d, the counter shows %q", where, d.tabs.SelectedIndex(), d.counter.view.title.Text())
				}
				if cv.Focused() != d.counter.entry {
					t.Errorf("keyboard on %s: after the scan the keyboard is on %T", where, cv.Focused())
				}
				if m := paidIn(d.ledger, other)(t); m != "" {
					t.Fatalf("keyboard on %s: the serial scanned was %s", where, m)
				}

				// A shop's barcode: nothing answered, the field as it was.
				where = openAt(at)
				before, isField := textOf(cv.Focused())
				k.burst("3017620422003")
				settle(t, d)
				if m := c.moved(t); m != "" {
					t.Fatalf("keyboard on %s: a 13-digit burst under the dialog: %s", where, m)
				}
				if dialogs(d.win) != 1 {
					t.Fatalf("keyboard on %s: a 13-digit burst closed the dialog", where)
				}
				if after, _ := textOf(cv.Focused()); isField && after != before {
					t.Errorf("keyboard on %s: the burst left %q in the field, not %q", where, after, before)
				}
				k.key(fyne.KeyEscape)
			}

			// A person's Enter answers it.
			c.open(t, k)
			k.key(fyne.KeyReturn)
			settle(t, d)
			if m := c.moved(t); m == "" {
				t.Fatalf("Enter typed by a person moved nothing; dialogs %d", dialogs(d.win))
			}
		})
	}
}

// paidIn says whether serial is paid in l ("" when not).
func paidIn(l *ledger.Ledger, serial string) func(*testing.T) string {
	return func(t *testing.T) string {
		tk, err := l.Lookup(context.Background(), serial, ledger.Identity{Desk: "T0", Operator: "x"}, ledger.NoLimit)
		if errors.Is(err, ledger.ErrUnknownSerial) {
			return "" // not of this ledger
		}
		if err != nil {
			t.Fatal(err)
		}
		if tk.Verdict == ledger.AlreadyClaimed {
			return serial + " paid"
		}
		return ""
	}
}

// describe names a widget of a dialog.
func describe(f fyne.Focusable) string {
	switch w := f.(type) {
	case *keyButton:
		return "button " + w.Text
	case *keyEntry:
		return "field " + w.PlaceHolder
	case *keySelect:
		return "list " + w.PlaceHolder
	}
	return fmt.Sprintf("%T", f)
}

// digitsOf is a serial without its dashes.
func digitsOf(serial string) string { return strings.ReplaceAll(serial, "-", "") }

// doublePaid is a back office's ledger with one open double payment: the
// second of its two payments (row 1 in Paiements) has it.
func doublePaid(t *testing.T) *ledger.Ledger {
	ctx := context.Background()
	bo, err := ledger.Open(ledgertest.Copy(t, ledgertest.Sealed))
	if err != nil {
		t.Fatal(err)
	}
	c1, err := ledger.Open(ledgertest.Copy(t, ledgertest.Sealed, "C1.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer c1.Close()
	serial := takeWinner(t, 6)
	for _, x := range []struct {
		l    *ledger.Ledger
		desk string
	}{{c1, "C1"}, {bo, "BO"}} {
		if _, err := x.l.Claim(ctx, ledger.ClaimRequest{Serial: serial, Method: ledger.MethodSerial, Who: ledger.Identity{Desk: x.desk, Operator: "ann"}, Limit: ledger.NoLimit}); err != nil {
			t.Fatal(err)
		}
	}
	var export bytes.Buffer
	if err := c1.ExportJournal(ctx, &export); err != nil {
		t.Fatal(err)
	}
	if rep, err := bo.ImportClaims(ctx, &export, ledger.Identity{Desk: "BO", Operator: "eve"}); err != nil || rep.Recorded != 1 {
		t.Fatalf("import: %+v %v", rep, err)
	}
	return bo
}
