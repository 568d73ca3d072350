package ui

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/printer/printertest"
)

// printedText is the text of the PDF a stand-in lp was given, without its
// spaces.
func printedText(t *testing.T, job printertest.Job) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "job.pdf")
	if err := os.WriteFile(f, job.File, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("pdftotext", "-layout", "-enc", "UTF-8", f, "-").Output()
	if err != nil {
		t.Fatalf("pdftotext: %v", err)
	}
	// Without spaces, for the lines pdftotext cuts (a serial on two).
	return strings.Join(strings.FieldsFunc(string(out), func(r rune) bool { return unicode.IsSpace(r) }), "")
}

// A receipt printer named in Réglages (a CUPS queue that lpstat -e lists):
// a payment prints its receipt at once through lp -d QUEUE, Tab from the
// serial field reaches "Imprimer le reçu" and Enter prints it again, DÉJÀ
// PAYÉ reprints that payment's receipt, and a printer that is missing or
// refuses says so in French, on the verdict.
func TestReceiptPrinter(t *testing.T) {
	cups := printertest.Install(t, "Recus", "Bureau")
	d := newTestDesk(t, fixture)
	c, s, cv := d.counter, d.settings, d.win.Canvas()
	s.listPrinters()
	waitFor(t, "the printers", time.Minute, func() bool { return slices.Contains(s.printer.Options, "Recus") })
	if s.printer.Selected != noPrinter() || !s.autoPrint.Disabled() {
		t.Errorf("before a choice: printer %q, auto print disabled %v", s.printer.Selected, s.autoPrint.Disabled())
	}
	s.printer.SetSelected("Recus")
	if s.autoPrint.Disabled() || !s.autoPrint.Checked {
		t.Error("with a printer, each receipt does not print at once by default")
	}
	s.save()

	jobs := func(n int) []printertest.Job {
		t.Helper()
		waitFor(t, "lp", time.Minute, func() bool {
			return len(cups.Jobs(t)) >= n && !strings.Contains(c.view.detail.Text, "Impression du reçu")
		})
		return cups.Jobs(t)
	}
	serial := takeWinner(t, 3)
	scan(d, serial)
	s0, _ := game.ParseSerial(serial)
	if pack := (game.PackCode{Game: s0.Game, Block: s0.Block, Pack: s0.Pack()}).String(); !strings.Contains(c.view.detail.Text, "carnet "+pack) {
		t.Errorf("the verdict does not name the pack by its code %s: %q", pack, c.view.detail.Text)
	}
	press(d.win, fyne.KeyReturn)
	press(d.win, fyne.KeyReturn)
	settle(t, d)
	if c.view.kind != verdictJustPaid {
		t.Fatalf("after Enter, Enter: %q %s", c.view.title.Text(), c.view.detail.Text)
	}
	js := jobs(1)
	if len(js) != 1 || strings.Join(js[0].Args[:2], " ") != "-d Recus" || !strings.Contains(c.view.detail.Text, "imprimé sur Recus") {
		t.Fatalf("the payment printed %d receipts; the verdict says %q", len(js), c.view.detail.Text)
	}
	number := c.view.payment
	// The job's title says what it is (issue 39), not a temporary file.
	if want := fmt.Sprintf("Reçu du paiement n° %d", number); len(js[0].Args) != 5 || js[0].Args[3] != want {
		t.Errorf("lp was given %q, want the title %q", js[0].Args, want)
	}
	text := printedText(t, js[0])
	if !strings.Contains(text, "REÇUDEPAIEMENT") || !strings.Contains(text, core.MaskSerial(serial)) {
		t.Errorf("the receipt printed:\n%s", text)
	}

	// Tab from the serial field goes straight to "Imprimer le reçu".
	if cv.Focused() != c.entry {
		t.Fatal("the serial field lost the keyboard")
	}
	test.FocusNext(cv)
	if cv.Focused() != c.view.receipt || c.view.receipt.Text != "Imprimer le reçu" {
		t.Fatalf("Tab from the serial field goes to %v", cv.Focused())
	}
	if ring := test.WidgetRenderer(c.view.receipt).(*ringRenderer).ring; ring.StrokeColor != d.app.Settings().Theme().Color(focusRing, d.app.Settings().ThemeVariant()) {
		t.Errorf("the receipt button does not show that it has the keyboard: ring %v", ring.StrokeColor)
	}
	press(d.win, fyne.KeyReturn)
	if js = jobs(2); len(js) != 2 || cv.Focused() != c.entry {
		t.Fatalf("Enter on Imprimer le reçu: %d receipts, the keyboard on %v", len(js), cv.Focused())
	}

	// A scan while a button has the keyboard goes to the serial field.
	test.FocusNext(cv)
	typeOn(d.win, serial[:4])
	if cv.Focused() != c.entry || c.entry.Text != serial[:4] {
		t.Fatalf("typed on a button: the keyboard on %v, the field holds %q", cv.Focused(), c.entry.Text)
	}
	c.entry.SetText("")

	// The ticket again: DÉJÀ PAYÉ offers that payment's receipt again.
	scan(d, serial)
	if c.view.kind != verdictPaid || !c.view.receipt.Visible() || c.view.receipt.Text != "Réimprimer le reçu" || c.view.payment != number {
		t.Fatalf("DÉJÀ PAYÉ: receipt button %v %q for payment %d, want %d", c.view.receipt.Visible(), c.view.receipt.Text, c.view.payment, number)
	}
	test.Tap(c.view.receipt)
	if js = jobs(3); len(js) != 3 || !strings.Contains(printedText(t, js[2]), fmt.Sprintf("Paiement:n°%dDate", number)) {
		t.Errorf("the reprint: %d jobs", len(js))
	}

	// A printer that does not exist, then one that refuses: the verdict
	// says why and what to do, and a second try is still offered.
	for _, tc := range []struct {
		queue, says string
		setup       func()
	}{
		{"Recu", "L’imprimante «\u00a0Recu\u00a0» n’existe pas\u00a0: choisissez-en une dans Réglages.", func() {}},
		{"Bureau", "L’imprimante «\u00a0Bureau\u00a0» a refusé le reçu", func() { cups.Refuse(t, "Bureau") }},
	} {
		tc.setup()
		d.app.Preferences().SetString(prefPrinter, tc.queue)
		before := len(cups.Jobs(t))
		test.Tap(c.view.receipt)
		waitFor(t, "the printer's answer", time.Minute, func() bool { return strings.Contains(c.view.detail.Text, tc.says) })
		if len(cups.Jobs(t)) != before+1 || !c.view.receipt.Visible() {
			t.Errorf("%s: %d jobs tried, receipt button %v", tc.queue, len(cups.Jobs(t))-before, c.view.receipt.Visible())
		}
	}
}

// The window opens at the size it had when it closed, or its default, and
// never larger than the screen's work area less a title bar: on a 1280 ×
// 800 screen and a 1366 × 768 laptop the whole ticket is in view.
func TestWindowSize(t *testing.T) {
	d := newTestDesk(t, fixture)
	area := func(w, h int) func() (int, int, bool) { return func() (int, int, bool) { return w, h, true } }
	min := d.win.Content().MinSize()
	if min.Width > 1024 || min.Height > 700 {
		t.Errorf("the screens need %v: more than a 1366 × 768 laptop shows under its panel and title bar", min)
	}
	for _, tc := range []struct {
		name  string
		saved fyne.Size
		area  func() (int, int, bool)
		want  fyne.Size
	}{
		{"first run, 1280 × 800", fyne.Size{}, area(1280, 800), fyne.NewSize(1272, 760)},
		{"first run, 1366 × 768", fyne.Size{}, area(1366, 768), fyne.NewSize(1358, 728)},
		{"first run, a large screen", fyne.Size{}, area(2560, 1440), defaultWindow},
		{"remembered", fyne.NewSize(1200, 700), area(1920, 1080), fyne.NewSize(1200, 700)},
		{"remembered on a larger screen, shown on a smaller one", fyne.NewSize(1900, 1000), area(1024, 768), fyne.NewSize(1016, 728)},
		{"screen unknown", fyne.NewSize(1100, 720), func() (int, int, bool) { return 0, 0, false }, fyne.NewSize(1100, 720)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := d.app.Preferences()
			p.RemoveValue(prefWidth)
			p.RemoveValue(prefHeight)
			if tc.saved.Width > 0 {
				d.win.Resize(tc.saved)
				d.rememberSize()
			}
			if got := d.windowSize(tc.area); got != tc.want.Max(min) {
				t.Errorf("opens at %v, want %v", got, tc.want.Max(min))
			}
		})
	}
}

// Paiements at 1024 × 768: every column in view, the buttons under the
// totals, and a void's reason whole, in French typography.
func TestClaimsAt1024(t *testing.T) {
	d := newTestDesk(t, fixture)
	d.win.Resize(fyne.NewSize(1024, 768))
	desk := "G9-" + time.Now().Format("150405.000000")
	cl, err := fixture.Claim(context.Background(), ledger.ClaimRequest{Serial: takeWinner(t, 3), Method: ledger.MethodSerial,
		Who: ledger.Identity{Desk: desk, Operator: "Bob"}, Limit: ledger.NoLimit})
	if err != nil {
		t.Fatal(err)
	}
	reason := "erreur de saisie, ticket rendu au joueur qui en tendait deux"
	if _, err := fixture.Void(context.Background(), cl.Number, reason, ledger.Identity{Desk: desk, Operator: "Bob"}); err != nil {
		t.Fatal(err)
	}
	d.tabs.SelectIndex(tabClaims)
	c := d.claims
	c.desk.SetText(desk)
	c.reload()
	c.table.Refresh() // the cells, now the table has its size
	if len(c.claims) != 1 {
		t.Fatalf("%d claims", len(c.claims))
	}
	text := claimCell(c.claims[0], voidColumn)
	if text != "annulé\u00a0: "+reason+" (Bob)" {
		t.Errorf("the void says %q", text)
	}
	// Every column in view: the void's takes what the others leave, and a
	// voided row is as tall as its reason's lines there.
	width := c.voidWidth + theme.ScrollBarSize()
	for i, col := range claimColumns {
		if i != voidColumn {
			width += col.width + theme.Padding()
		}
	}
	if tw := c.table.Size().Width; width > tw || c.voidWidth < claimColumns[voidColumn].width {
		t.Errorf("the columns need %.0f px, the table has %.0f", width, tw)
	}
	line := fyne.MeasureText("Ég", theme.TextSize(), fyne.TextStyle{}).Height
	if lines := voidLines(text, c.voidWidth); lines < 2 || c.rowHeights[0] < float32(lines)*line {
		t.Errorf("the reason takes %d lines of %.0f px, its row is %.0f px tall", lines, line, c.rowHeights[0])
	}
	totals, buttons := abs(c.totals), abs(c.void)
	if totals.Y+c.totals.Size().Height > buttons.Y {
		t.Errorf("the totals (y %v to %v) run into the buttons (y %v)", totals.Y, totals.Y+c.totals.Size().Height, buttons.Y)
	}
	if right := abs(c.void).X + c.void.Size().Width; right > 1024 {
		t.Errorf("the last button ends at %.0f px", right)
	}
}

// Carnets: Tab from the packs field goes to Apply, then to the counter;
// the packs listed get labels, one a pack with its code, on a roll.
func TestPacksLabelsAndTab(t *testing.T) {
	l := newRetailLedger(t)
	d := newTestDesk(t, l)
	d.tabs.SelectIndex(tabPacks)
	p, cv := d.packs, d.win.Canvas()
	if cv.Focused() != p.entry {
		t.Fatalf("the packs field has not the keyboard: %v", cv.Focused())
	}
	test.FocusNext(cv)
	if cv.Focused() != p.apply {
		t.Errorf("Tab from the packs field goes to %v, want Appliquer", cv.Focused())
	}
	test.FocusNext(cv)
	if cv.Focused() != p.desk {
		t.Errorf("then to %v, want the counter", cv.Focused())
	}
	movePacks(d, "deliver", "G1", "30-32")
	p.state.SetSelected(stateName("delivered"))
	p.reload()
	if p.total.Text != "3 carnets" || p.labels.Disabled() {
		t.Fatalf("delivered: %q, labels disabled %v", p.total.Text, p.labels.Disabled())
	}
	test.Tap(p.labels)
	for _, o := range cv.Overlays().List() {
		for _, x := range test.LaidOutObjects(o) {
			if r, ok := x.(*widget.RadioGroup); ok {
				r.SetSelected(r.Options[1]) // a roll
			}
		}
	}
	test.Tap(findButton(t, d.win, "Faire les étiquettes"))
	path := opened(t, d, "etiquettes.pdf")
	out, err := exec.Command("pdfinfo", path).Output()
	if err != nil || !strings.Contains(string(out), "Pages:           3") {
		t.Errorf("the labels: %v\n%s", err, out)
	}
	text, _ := exec.Command("pdftotext", path, "-").Output()
	for pack := 30; pack <= 32; pack++ {
		if c := code(pack); !strings.Contains(string(text), c) {
			t.Errorf("no label of %s:\n%s", c, text)
		}
	}
}

// A demonstration ledger's generation says that its packs go on sale at
// once.
func TestGenerateSaysOnSale(t *testing.T) {
	l, err := ledger.CreateDemo(filepath.Join(t.TempDir(), "demo.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	d := newTestDesk(t, l)
	d.blocks.generate()
	if !shown(d.win, "ses 10 000 carnets sont mis en vente aussitôt") {
		t.Error("the generation of a demonstration block does not say that its packs go on sale")
	}
}

// Each fault of the contents form says why, in French: the value and what
// the ticket shows instead, or which field and what it lacks.
func TestFaultText(t *testing.T) {
	d := newTestDesk(t, nil)
	for _, tc := range []struct {
		path  string
		kind  game.Kind
		value string
		want  string
	}{
		{"roulette.winning[2]", game.KindValue, "3", "3 n’est pas sur la roulette"},
		{"roulette.winning[1]", game.KindRepeat, "4", "numéro gagnant 2\u00a0: numéro répété"},
		{"roulette.bets[0].amount", game.KindValue, "12", "12\u00a0€ n’est pas un montant du jeu"},
		{"craps.dice[1]", game.KindValue, "7", "7 n’est pas une face de dé\u00a0: 1 à 6"},
		{"craps.dice[0]", game.KindMissing, "", "dé 1\u00a0: à renseigner"},
		{"duel.bank", game.KindValue, "AS", "la banque n’a jamais l’AS"},
		{"duel.cards[2]", game.KindValue, "X", "X n’est pas une carte\u00a0: 2 à 10, V, D, R ou AS"},
		{"jackpot[1].symbols[2]", game.KindValue, "ZZ", "ZZ n’est pas un symbole du JACKPOT"},
		{"bonus", game.KindValue, "4", "4\u00a0€ n’est pas un montant du jeu"},
	} {
		kind := d.contents.kinds[tc.path]
		if got := faultText(&game.FieldError{Field: tc.path, Kind: tc.kind}, tc.path, kind, tc.value); got != tc.want {
			t.Errorf("%s %q: %q, want %q", tc.path, tc.value, got, tc.want)
		}
	}
}

// A symbol typed by its first letters shows as printed, with its accent;
// the form reads it back as the interchange format's.
func TestCompleteSymbols(t *testing.T) {
	for typed, want := range map[string]string{"tr": "TRÈFLE", "TRÈ": "TRÈFLE", "pa": "PASTÈQUE", "ce": "CERISE", "c": "C", "7": "7"} {
		if got := symbolField.complete(typed); got != want {
			t.Errorf("%q completes to %q, want %q", typed, got, want)
		}
	}
}
