package ui

import (
	"context"
	"image/png"
	"os"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/conformance"
	"vegas-desk/internal/ledger/ledgertest"
)

// The pay dialog's identity form refuses, in the cashier's words, every
// identity of the table that is none (issues 23 and 29: characters that
// print nothing, modifier letters, placeholders, no document of the list,
// a number out of its format), and pays every given one: the dialog stays
// open on the first, with the reason.
func TestIdentityProblem(t *testing.T) {
	setLanguage("fr")
	for _, c := range conformance.Identities() {
		w := c.Winner
		why := identityProblem(&w)
		if (why == "") != c.Given {
			t.Errorf("%s (identities.txt:%d): %q, given %v", c.Name, c.Line, why, c.Given)
		}
	}
	if why := identityProblem(nil); why != "" {
		t.Errorf("no identity asked: %q", why)
	}
	for w, want := range map[ledger.Winner]string{
		{Name: "\u02bc\u02bc", DocType: "CNI", DocNumber: "X4RTBPFW4"}: "Tapez le nom du gagnant tel que le document l’imprime\u00a0: au moins deux lettres d’une même écriture, sans signe ni nom de remplacement.",
		{Name: "Jean Dupont", DocType: "", DocNumber: "X4RTBPFW4"}:     "Choisissez le document d’identité.",
		{Name: "Jean Dupont", DocType: "passeport", DocNumber: "0000"}: "Ce n’est pas un numéro de passeport\u00a0: 2 chiffres, 2 lettres, 5 chiffres (12AB34567).",
		{Name: "Jean Dupont", DocType: "CNI", DocNumber: "٠٠٠٠"}:       "Ce n’est pas un numéro de carte nationale d’identité (CNI)\u00a0: 9 lettres ou chiffres (depuis 2021), ou 12 caractères\u00a0: 4 chiffres, 3 lettres ou chiffres, 5 chiffres (avant 2021).",
	} {
		if got := identityProblem(&w); got != want {
			t.Errorf("%+q: %q, want %q", w, got, want)
		}
	}
}

// From the identity threshold the pay dialog asks the winner's name, the
// document from the list a cashier may accept and its number: a passport
// number out of its format keeps the dialog open, saying why; typed
// again in its format, the prize is paid and the identity kept as typed
// (its number in upper case).
func TestPayDialogIdentity(t *testing.T) {
	ctx := context.Background()
	l, err := ledger.Open(ledgertest.Copy(t, ledgertest.Block))
	if err != nil {
		t.Fatal(err)
	}
	if err := l.SetSetting(ctx, ledger.SettingIdentityThreshold, 100, ledger.Identity{Desk: "BO", Operator: "eve"}); err != nil {
		t.Fatal(err)
	}
	d := newTestDesk(t, l)
	defer d.closeLedger()
	scan(d, takeWinner(t, 100))
	test.Tap(d.counter.view.pay)
	var entries []*keyEntry
	var doc *keySelect
	for _, o := range d.win.Canvas().Overlays().List() {
		for _, x := range test.LaidOutObjects(o) {
			switch x := x.(type) {
			case *keyEntry:
				entries = append(entries, x)
			case *keySelect:
				doc = x
			}
		}
	}
	if len(entries) != 2 || doc == nil {
		t.Fatalf("the identity form: %d entries, select %v", len(entries), doc != nil)
	}
	if strings.Join(doc.Options, "|") != "carte nationale d’identité (CNI)|passeport|titre de séjour|permis de conduire" {
		t.Errorf("documents offered: %q", doc.Options)
	}
	test.Type(entries[0], "Jean Dupont")
	doc.SetSelected("passeport")
	test.Type(entries[1], "0000")
	test.Tap(findButton(t, d.win, "PAYER"))
	if path := os.Getenv("VEGAS_SCREENSHOT"); path != "" {
		f, _ := os.Create(path)
		png.Encode(f, d.win.Canvas().Capture())
		f.Close()
	}
	if !strings.Contains(dialogText(d), "Ce n’est pas un numéro de passeport") {
		t.Fatalf("a passport number of four zeros: %q", dialogText(d))
	}
	entries[1].SetText("12ab 34567")
	test.Tap(findButton(t, d.win, "PAYER"))
	settle(t, d)
	ids, err := l.Identities(ctx)
	if err != nil || len(ids) != 1 {
		t.Fatalf("identities %+v %v", ids, err)
	}
	for _, w := range ids {
		if w != (ledger.Winner{Name: "Jean Dupont", DocType: "passeport", DocNumber: "12AB34567", Skeleton: ledger.NameSkeleton("Jean Dupont")}) {
			t.Errorf("kept %+v", w)
		}
	}
}

// dialogText is the text of the labels of the window's dialogs.
func dialogText(d *desk) string {
	var b strings.Builder
	for _, o := range d.win.Canvas().Overlays().List() {
		for _, x := range test.LaidOutObjects(o) {
			if l, ok := x.(*widget.Label); ok && l.Visible() {
				b.WriteString(l.Text + "\n")
			}
		}
	}
	return b.String()
}
