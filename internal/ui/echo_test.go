package ui

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/ledgertest"
	"vegas-desk/internal/printer/printertest"
)

// A serial mistyped is echoed with its dashes, the group at fault in
// brackets; none when only the check digit does not match, which cannot
// tell which digit was mistyped (issue 39).
func TestSerialEcho(t *testing.T) {
	good := "531-0001-0456789-1234-5678-9012-3456-0"
	if _, err := game.ParseSerial(good); err != nil {
		t.Fatal(err)
	}
	digits := strings.ReplaceAll(good, "-", "")
	for _, c := range []struct{ typed, want string }{
		{digits[:30] + "1", "531-0001-0456789-1234-5678-9012-3456-1"},                       // the check digit: which digit, it cannot tell
		{digits[:9] + "8" + digits[10:], "531-0001-0486789-1234-5678-9012-3456-0"},          // a digit of the position, likewise
		{digits[:30], "531-0001-0456789-1234-5678-9012-3456-[_]"},                           // one missing
		{digits[:20], "531-0001-0456789-1234-[56__]-____-____-_"},                           // eleven missing
		{digits + "7", "531-0001-0456789-1234-5678-9012-3456-0-[7]"},                        // one too many
		{"531 0001 0456789 1234 5678 9012 345", "531-0001-0456789-1234-5678-9012-[345_]-_"}, // spaces
		{"53l-0001", "53l-0001"}, // a letter: as typed
	} {
		_, err := game.ParseSerial(c.typed)
		if err == nil {
			t.Fatalf("%s parses", c.typed)
		}
		if got, _ := serialEcho(c.typed, err); got != c.want {
			t.Errorf("%s: echoed %s, want %s", c.typed, got, c.want)
		}
	}
	// Game 000, block 0000, a position past the block: that group, when the
	// check digit matches.
	for _, c := range []struct {
		s    game.Serial
		want string
	}{
		{game.Serial{Game: 0, Block: 1, Position: 5, Secret: 1}, "[000]-"},
		{game.Serial{Game: 531, Block: 0, Position: 5, Secret: 1}, "531-[0000]-"},
	} {
		typed := c.s.String()
		_, err := game.ParseSerial(typed)
		if got, _ := serialEcho(typed, err); err == nil || !strings.HasPrefix(got, c.want) {
			t.Errorf("%s (%v): echoed %s, want %s…", typed, err, got, c.want)
		}
	}
}

// The receipt bears the shop's name typed in Réglages; the first receipt
// of a payment is the original, every other print (again from PAYÉ, from
// DÉJÀ PAYÉ) says DUPLICATA.
func TestReceiptDuplicate(t *testing.T) {
	cups := printertest.Install(t, "Recus")
	d := newTestDesk(t, fixture)
	d.app.Preferences().SetString(prefPrinter, "Recus")
	c, cv := d.counter, d.win.Canvas()
	k := newKeys(t, d.win)
	k.alt(fyne.KeyR)
	cv.Focus(d.settings.shop)
	k.text("Tabac du Port")
	cv.Focus(findKeyButton(t, d.win, "Enregistrer"))
	k.key(fyne.KeyReturn)
	k.key(fyne.KeyEscape)

	printed := func(n int) string {
		t.Helper()
		waitFor(t, "lp", time.Minute, func() bool {
			pump()
			return len(cups.Jobs(t)) >= n && strings.Contains(c.view.detail.Text, "imprimé sur Recus")
		})
		return printedText(t, cups.Jobs(t)[n-1])
	}
	serial := takeWinner(t, 3)
	k.scan(serial)
	k.key(fyne.KeyReturn)
	k.key(fyne.KeyReturn)
	settle(t, d)
	if text := printed(1); !strings.Contains(text, "TabacduPort") || strings.Contains(text, "DUPLICATA") {
		t.Fatalf("the first receipt:\n%s", text)
	}
	c.view.setNote("")
	k.key(fyne.KeyTab) // to Imprimer le reçu
	k.key(fyne.KeyReturn)
	if text := printed(2); !strings.Contains(text, "DUPLICATA") {
		t.Fatalf("the receipt printed again:\n%s", text)
	}
	k.scan(serial)
	if c.view.kind != verdictPaid {
		t.Fatalf("the ticket again: %q", c.view.title.Text())
	}
	k.key(fyne.KeyTab) // to Réimprimer le reçu
	k.key(fyne.KeyReturn)
	if text := printed(3); !strings.Contains(text, "DUPLICATA") || !strings.Contains(text, "TabacduPort") {
		t.Fatalf("the reprint from DÉJÀ PAYÉ:\n%s", text)
	}
}

// Réglages opens a ledger by its path typed; a path where there is no
// file is refused, and makes no ledger there.
func TestOpenLedgerTyped(t *testing.T) {
	l := newRetailLedger(t)
	d := newTestDesk(t, l)
	t.Cleanup(d.closeLedger)
	k := newKeys(t, d.win)
	cv := d.win.Canvas()
	other := ledgertest.Copy(t, ledgertest.Stock)
	d.settings.choose(false)
	path, ok := cv.Focused().(*keyEntry)
	if !ok || path.Text != l.Path() {
		t.Fatalf("the path field: %T, %v", cv.Focused(), path)
	}
	missing := filepath.Join(filepath.Dir(other), "mistyped.db")
	path.SetText("")
	k.text(missing)
	k.key(fyne.KeyReturn)
	if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) || !shown(d.win, "Il n’y a pas de fichier à") {
		t.Fatalf("a missing file: %v", err)
	}
	k.key(fyne.KeyReturn) // closes the error
	d.settings.choose(false)
	path = cv.Focused().(*keyEntry)
	path.SetText("")
	k.text(other)
	k.key(fyne.KeyReturn)
	if d.ledger == nil || d.ledger.Path() != other {
		t.Fatalf("the ledger open: %v", d.ledger)
	}
	if d.settings.form.Items[0].Text != "Fichier du registre" {
		t.Errorf("Réglages names the ledger %q", d.settings.form.Items[0].Text)
	}
}
