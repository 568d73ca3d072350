package ui

import (
	"context"
	"flag"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"vegas-desk/internal/ledger"
	"vegas-desk/internal/printer/printertest"
)

// shots is where TestScreenshots writes the screens it renders (go test
// ./internal/ui -run TestScreenshots -shots ../../docs); by default a
// temporary folder.
var shots = flag.String("shots", "", "write the screenshots of TestScreenshots to this folder")

// shooter renders a desk's window, headless (Fyne's test driver and its
// software painter), at the sizes of the screens the app serves.
type shooter struct {
	t   *testing.T
	dir string
}

func newShooter(t *testing.T) *shooter {
	dir := *shots
	if dir == "" {
		dir = t.TempDir()
	}
	return &shooter{t, dir}
}

// newDesk is a desk in a window that renders, of size.
func (s *shooter) newDesk(size fyne.Size) *desk {
	d := newTestDeskIn(s.t, fixture, func(a fyne.App) fyne.Window { return test.NewTempWindow(s.t, nil) })
	d.win.Resize(size)
	return d
}

// shoot writes the window as name.png, and checks it has the window's size.
func (s *shooter) shoot(d *desk, name string) {
	s.t.Helper()
	img := d.win.Canvas().Capture()
	if got, want := img.Bounds().Size(), d.win.Canvas().Size(); got.X != int(want.Width) || got.Y != int(want.Height) {
		s.t.Errorf("%s: captured %v, the window is %v", name, got, want)
	}
	f, err := os.Create(filepath.Join(s.dir, name+".png"))
	if err != nil {
		s.t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, img); err != nil {
		s.t.Fatal(err)
	}
}

// The screens issues 30 and 39 changed, driven by keys, at 1366 × 768
// and 1024 × 768, in French.
func TestScreenshots(t *testing.T) {
	s := newShooter(t)
	cups := printertest.Install(t, "Recus", "Bureau")
	cups.Refuse(t, "Bureau")
	for _, size := range []fyne.Size{{Width: 1366, Height: 768}, {Width: 1024, Height: 768}} {
		w := fmt.Sprint(size.Width)
		d := s.newDesk(size)
		k := newKeys(t, d.win)
		// A scan on Saisir le contenu, checked at the counter.
		k.alt(fyne.KeyS)
		k.text("12")
		k.scan(takeWinner(t, 3))
		s.shoot(d, "keys-scan-anywhere-"+w)

		// A payment on the contents form, its receipt refused by the printer.
		d.app.Preferences().SetString(prefPrinter, "Bureau")
		d.app.Preferences().SetBool(prefAutoPrint, true)
		serial := takeWinner(t, 6)
		tk, err := fixture.Lookup(context.Background(), serial, d.identity(), ledger.NoLimit)
		if err != nil {
			t.Fatal(err)
		}
		k.key(fyne.KeyEscape) // the form cleared
		k.alt(fyne.KeyS)
		values := contentsValues(&tk.Ticket)
		for i, p := range d.contents.paths {
			if i > 0 {
				k.key(fyne.KeyTab)
			}
			k.text(values[p])
		}
		k.key(fyne.KeyReturn)
		k.key(fyne.KeyReturn)
		k.key(fyne.KeyReturn)
		settle(t, d)
		waitFor(t, "the printer's answer", time.Minute, func() bool { return strings.Contains(d.contents.view.detail.Text, "refusé") })
		s.shoot(d, "keys-contents-paid-"+w)

		// Réglages: the printer in effect, a field typed not yet saved.
		k.alt(fyne.KeyR)
		waitFor(t, "the printers", time.Minute, func() bool { pump(); return len(d.settings.printer.Options) == 3 })
		d.settings.printer.SetSelected("Recus")
		d.win.Canvas().Focus(d.settings.operator)
		k.text("B")
		s.shoot(d, "keys-settings-"+w)

		// Carnets: labels of a range typed, then the paper's printer.
		k.key(fyne.KeyEscape)
		k.alt(fyne.KeyC)
		d.win.Canvas().Focus(d.packs.labels)
		k.key(fyne.KeyReturn)
		k.text("30-32")
		s.shoot(d, "keys-labels-"+w)
		k.key(fyne.KeyReturn)
		waitFor(t, "the printers", time.Minute, func() bool {
			pump()
			for _, x := range test.LaidOutObjects(d.win.Canvas().Overlays().Top()) {
				if s, ok := x.(*keySelect); ok && len(s.Options) == 2 {
					return true
				}
			}
			return false
		})
		s.shoot(d, "keys-paper-printer-"+w)
		k.key(fyne.KeyEscape)

		// The validation server refuses this desk: whom to call.
		k.key(fyne.KeyEscape)
		d.pinged(ledger.ErrDeskDisabled)
		s.shoot(d, "counter-desk-disabled-"+w)
		d.pinged(nil)

		// A serial mistyped: echoed with its dashes, the group at fault
		// in brackets.
		k.scan(strings.ReplaceAll(takeWinner(t, 3), "-", "")[:29])
		s.shoot(d, "keys-counter-mistyped-"+w)

		// A winner: PAYER shows its key; its confirmation, the keys it
		// takes.
		k.scan(takeWinner(t, 9))
		s.shoot(d, "counter-winner-"+w)
		k.key(fyne.KeyReturn)
		s.shoot(d, "pay-dialog-"+w)
		k.key(fyne.KeyEscape)

		// Paiements by keys: the table has the keyboard and a payment
		// selected, its buttons on.
		k.alt(fyne.KeyP)
		d.win.Canvas().Focus(d.claims.table)
		k.key(fyne.KeyDown)
		s.shoot(d, "keys-claims-"+w)
		k.key(fyne.KeyEscape)

		// Numéros à essayer: each serial with its Vérifier, Fermer under
		// them.
		d.showSamples()
		waitFor(t, "the serials to try", time.Minute, func() bool { pump(); return shown(d.win, "gagnant 50") })
		s.shoot(d, "samples-"+w)
		k.key(fyne.KeyEscape)

		// Réglages: the ledger typed, or browsed for.
		k.alt(fyne.KeyR)
		d.settings.choose(false)
		s.shoot(d, "keys-open-ledger-"+w)
		k.key(fyne.KeyEscape)
	}
}
