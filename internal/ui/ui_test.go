package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/ledger/ledgertest"
	"vegas-desk/internal/testcache"
)

// The shared fixture: a demonstration ledger with one generated block, and
// serials of that block (ledgertest.Demo). It is opened once per process,
// so every run of -count=N shares it: tests take winners that no earlier
// run paid (takeWinner), and record claims at a desk of their own.
var (
	fixture     *ledger.Ledger
	losers      []string
	winners     = map[int][]string{} // by prize, a few serials each
	fixturePath string
)

func TestMain(m *testing.M) {
	onMain = func(f func()) { mainQueue <- f }
	keyClock = func() time.Time { return personAt }
	os.Exit(runTests(m))
}

// mainQueue holds what background work hands to the app goroutine; the test
// goroutine runs it (pump), as the real driver's event loop would.
var mainQueue = make(chan func(), 4096)

// pump runs what waits for the app goroutine.
func pump() {
	for {
		select {
		case f := <-mainQueue:
			f()
		default:
			return
		}
	}
}

func runTests(m *testing.M) int {
	dir, err := os.MkdirTemp("", "vegas-desk-ui")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	if err := openFixture(dir); err != nil {
		fmt.Fprintln(os.Stderr, "fixture:", err)
		return 1
	}
	defer fixture.Close()
	return m.Run()
}

// openFixture opens a copy, in dir, of ledgertest's demonstration ledger
// (made once per run), and reads the serials of its block.
func openFixture(dir string) error {
	src, err := ledgertest.Dir(ledgertest.Demo)
	if err != nil {
		return err
	}
	fixturePath = filepath.Join(dir, "fixture.db")
	if err := testcache.CopyFile(filepath.Join(src, "ledger.db"), fixturePath); err != nil {
		return err
	}
	data, err := os.ReadFile(filepath.Join(src, "serials.json"))
	if err != nil {
		return err
	}
	var s ledgertest.Serials
	if err := json.Unmarshal(data, &s); err != nil {
		return err
	}
	losers, winners = s.Losers, s.Winners
	if len(losers) < 2 || len(winners[3]) < 20 || len(winners[6]) < 20 || len(winners[1000]) == 0 {
		return fmt.Errorf("not enough serials: %s", s)
	}
	fixture, err = ledger.Open(fixturePath)
	return err
}

// takeWinner hands out a different winner of the prize to each test.
func takeWinner(t *testing.T, prize int) string {
	t.Helper()
	if len(winners[prize]) == 0 {
		t.Fatalf("no winner of %d € left in the fixture", prize)
	}
	s := winners[prize][0]
	winners[prize] = winners[prize][1:]
	return s
}

// newTestDesk builds the app's screens in a test window on l.
func newTestDesk(t *testing.T, l *ledger.Ledger) *desk {
	t.Helper()
	return newTestDeskIn(t, l, func(fyne.App) fyne.Window { return test.NewTempWindow(t, nil) })
}

// newTestDeskIn is newTestDesk in the window that newWindow makes.
func newTestDeskIn(t *testing.T, l *ledger.Ledger, newWindow func(fyne.App) fyne.Window) *desk {
	t.Helper()
	a := test.NewTempApp(t)
	setLanguage("fr")
	a.Settings().SetTheme(vegasTheme{})
	a.Preferences().SetString(prefDesk, "G1")
	a.Preferences().SetString(prefOperator, "Alice")
	w := newWindow(a)
	w.Resize(fyne.NewSize(1400, 900))
	return newDesk(a, w, l)
}

// scan types a serial in the counter's field and presses Enter, as a
// barcode scanner does.
func scan(d *desk, serial string) {
	test.Type(d.counter.entry, serial)
	d.counter.entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
}

// findButton finds a visible button by its text among the objects of the
// window's overlays (dialogs) and content.
func findButton(t *testing.T, w fyne.Window, text string) *widget.Button {
	t.Helper()
	roots := append([]fyne.CanvasObject{w.Canvas().Content()}, w.Canvas().Overlays().List()...)
	for i := len(roots) - 1; i >= 0; i-- {
		for _, o := range test.LaidOutObjects(roots[i]) {
			// A money dialog's button shows its key too: "PAYER · F10".
			if b := asButton(o); b != nil && (b.Text == text || b.Text == withConfirmKey(text)) && b.Visible() {
				return b
			}
		}
	}
	t.Fatalf("no button %q", text)
	return nil
}

// asButton is o as a button: a Fyne button, or the one a keyButton is.
func asButton(o fyne.CanvasObject) *widget.Button {
	switch b := o.(type) {
	case *widget.Button:
		return b
	case *keyButton:
		return &b.Button
	}
	return nil
}

// settle waits until the payments in flight have their answer on screen.
func settle(t *testing.T, d *desk) {
	t.Helper()
	waitFor(t, "the payment's answer", time.Minute, func() bool { return len(d.payments) == 0 })
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, what string, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for pump(); !cond(); pump() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestCounterVerdicts(t *testing.T) {
	d := newTestDesk(t, fixture)
	c := d.counter
	if got := d.win.Canvas().Focused(); got != c.entry {
		t.Fatalf("focus at open: got %v, want the serial field", got)
	}
	win := takeWinner(t, 6)
	s, err := game.ParseSerial(win)
	if err != nil {
		t.Fatal(err)
	}
	unknown := s
	unknown.Secret = (s.Secret + 1) % 1_000_000
	badDigit := []byte(s.Compact())
	badDigit[len(badDigit)-1] = '0' + (badDigit[len(badDigit)-1]-'0'+1)%10

	tests := []struct {
		name   string
		serial string
		want   verdict
		title  string
		amount string
	}{
		{"loser", losers[0], verdictLoser, "PERDANT", ""},
		{"winner", win, verdictWinner, "GAGNANT", "6 €"},
		{"winner typed without dashes", s.Compact(), verdictWinner, "GAGNANT", "6 €"},
		{"unknown serial", unknown.String(), verdictUnknown, "NUMÉRO INCONNU", ""},
		{"bad check digit", string(badDigit), verdictMistyped, "NUMÉRO MAL SAISI", ""},
		{"too short", "531-0001-12", verdictMistyped, "NUMÉRO MAL SAISI", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Nothing has focus before the scan, so the check below proves
			// that the check gives it back to the serial field.
			d.win.Canvas().Unfocus()
			if got := d.win.Canvas().Focused(); got != nil {
				t.Fatalf("focus before the scan: %v", got)
			}
			scan(d, tt.serial)
			if v := c.view; v.kind != tt.want || v.title.Text() != tt.title {
				t.Errorf("verdict: got %d %q, want %d %q (%s)", v.kind, v.title.Text(), tt.want, tt.title, v.detail.Text)
			}
			if got := c.view.amount.Text(); got != tt.amount {
				t.Errorf("amount: got %q, want %q", got, tt.amount)
			}
			if c.entry.Text != "" {
				t.Errorf("the field keeps %q after the check", c.entry.Text)
			}
			if got := d.win.Canvas().Focused(); got != c.entry {
				t.Errorf("focus after the check: got %v, want the serial field", got)
			}
			if pay := c.view.pay.Visible(); pay != (tt.want == verdictWinner) {
				t.Errorf("PAYER visible: %v", pay)
			}
		})
	}
}

// A failed lookup clears the last verdict, above all its PAYER, and shows
// the error verdict.
func TestCounterLedgerFailure(t *testing.T) {
	d := newTestDesk(t, fixture)
	c := d.counter
	closed, err := ledger.Open(filepath.Join(t.TempDir(), "closed.db"))
	if err != nil {
		t.Fatal(err)
	}
	closed.Close()
	win := takeWinner(t, 6)
	for _, tt := range []struct {
		name   string
		ledger *ledger.Ledger
	}{
		{"no ledger open", nil},
		{"lookup fails", closed},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d.ledger = fixture
			scan(d, win)
			if c.view.kind != verdictWinner || !c.view.pay.Visible() {
				t.Fatalf("before: %q, PAYER visible %v", c.view.title.Text(), c.view.pay.Visible())
			}
			d.ledger = tt.ledger
			defer func() { d.ledger = fixture }()
			scan(d, win)
			if c.view.kind != verdictError || c.view.title.Text() != "ERREUR — NE PAS PAYER" {
				t.Errorf("verdict: got %d %q, want the error verdict", c.view.kind, c.view.title.Text())
			}
			if c.view.pay.Visible() || c.current != nil || c.view.amount.Text() != "" {
				t.Errorf("the last winner survives: PAYER %v, current %v, amount %q", c.view.pay.Visible(), c.current, c.view.amount.Text())
			}
			if !strings.Contains(c.view.detail.Text, win) || !strings.Contains(c.view.detail.Text, "Ne pas payer.") {
				t.Errorf("detail %q lacks the serial or the warning", c.view.detail.Text)
			}
		})
	}
}

func TestCounterPay(t *testing.T) {
	d := newTestDesk(t, fixture)
	c := d.counter
	serial := takeWinner(t, 3)
	scan(d, serial)
	if c.view.kind != verdictWinner {
		t.Fatalf("verdict %q, want GAGNANT", c.view.title.Text())
	}
	test.Tap(c.view.pay)
	test.Tap(findButton(t, d.win, "PAYER")) // the confirmation's button
	settle(t, d)
	if c.view.kind != verdictJustPaid {
		t.Fatalf("after PAYER: %q %s", c.view.title.Text(), c.view.detail.Text)
	}
	cls, err := fixture.Claims(context.Background(), ledger.ClaimFilter{Desk: "G1"})
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, cl := range cls {
		if cl.Serial == serial || strings.ReplaceAll(cl.Serial, "-", "") == strings.ReplaceAll(serial, "-", "") {
			found++
			if cl.Amount != 3 || cl.Operator != "Alice" || cl.Method != ledger.MethodSerial {
				t.Errorf("claim %+v", cl)
			}
		}
	}
	if found != 1 {
		t.Fatalf("%d claims of %s, want 1", found, serial)
	}

	// The same ticket again: DÉJÀ PAYÉ with when, where and who.
	scan(d, serial)
	if c.view.kind != verdictPaid || c.view.title.Text() != "DÉJÀ PAYÉ" {
		t.Fatalf("second check: %q", c.view.title.Text())
	}
	if !strings.Contains(c.view.detail.Text, "G1") || !strings.Contains(c.view.detail.Text, "Alice") {
		t.Errorf("detail %q lacks the desk and the operator", c.view.detail.Text)
	}
	// A second payment, e.g. from another desk at the same moment, is refused.
	tk, err := fixture.Lookup(context.Background(), serial, d.identity(), ledger.NoLimit)
	if err != nil {
		t.Fatal(err)
	}
	c.paid(d.claim(tk, ledger.MethodSerial, nil))
	if c.view.kind != verdictPaid {
		t.Errorf("second payment: %q, want DÉJÀ PAYÉ", c.view.title.Text())
	}

	// Above this desk's payout limit.
	d.app.Preferences().SetInt(prefLimit, 500)
	scan(d, winners[1000][0]) // not paid: every run may use it
	if c.view.kind != verdictOverLimit || c.view.pay.Visible() {
		t.Errorf("1 000 € at a 500 € desk: %q, PAYER visible %v", c.view.title.Text(), c.view.pay.Visible())
	}

	// A limit lowered after the lookup holds at the confirmation.
	d.app.Preferences().SetInt(prefLimit, 5000)
	serial = takeWinner(t, 6)
	scan(d, serial)
	if c.view.kind != verdictWinner {
		t.Fatalf("verdict %q, want GAGNANT", c.view.title.Text())
	}
	test.Tap(c.view.pay)
	d.app.Preferences().SetInt(prefLimit, 5)
	test.Tap(findButton(t, d.win, "PAYER"))
	settle(t, d)
	if c.view.kind != verdictOverLimit || c.view.pay.Visible() {
		t.Errorf("6 € after the limit fell to 5 €: %q, PAYER visible %v", c.view.title.Text(), c.view.pay.Visible())
	}
	if tk, err := fixture.Lookup(context.Background(), serial, d.identity(), ledger.NoLimit); err != nil || tk.Status != ledger.StatusUnpaid {
		t.Errorf("paid above the lowered limit: %v %v", tk.Status, err)
	}
}

// fillContents types t's contents into the form's fields.
func fillContents(c *contentsScreen, tk *game.Ticket) {
	for path, v := range contentsValues(tk) {
		c.fields[path].SetText(v)
	}
}

// contentsValues are the texts of the form's fields for t, by field path.
func contentsValues(tk *game.Ticket) map[string]string {
	doc := game.NewDoc(tk)
	m := map[string]string{}
	set := func(path string, v any) { m[path] = fmt.Sprint(v) }
	for i, n := range doc.Roulette.Winning {
		set(fmt.Sprintf("roulette.winning[%d]", i), n)
	}
	for i, b := range doc.Roulette.Bets {
		set(fmt.Sprintf("roulette.bets[%d].number", i), b.Number)
		set(fmt.Sprintf("roulette.bets[%d].amount", i), b.Amount)
	}
	set("craps.dice[0]", doc.Craps.Dice[0])
	set("craps.dice[1]", doc.Craps.Dice[1])
	set("craps.amount", doc.Craps.Amount)
	for i, s := range doc.Duel.Cards {
		set(fmt.Sprintf("duel.cards[%d]", i), s)
	}
	set("duel.bank", doc.Duel.Bank)
	set("duel.amount", doc.Duel.Amount)
	for i, l := range doc.Jackpot {
		for j, s := range l.Symbols {
			set(fmt.Sprintf("jackpot[%d].symbols[%d]", i, j), s)
		}
		set(fmt.Sprintf("jackpot[%d].amount", i), l.Amount)
	}
	set("bonus", doc.Bonus)
	return m
}

func TestContentsForm(t *testing.T) {
	d := newTestDesk(t, fixture)
	d.tabs.SelectIndex(tabContents)
	c := d.contents

	t.Run("field of an error", func(t *testing.T) {
		for f, want := range map[string]string{
			"craps.amount":     "craps.amount",
			"roulette.bets[0]": "roulette.bets[0].amount",
			"jackpot[1]":       "jackpot[1].amount",
			"craps":            "craps.amount",
			"roulette.bet":     "", // not a boundary
			"jackpot[1":        "",
			"duel.card":        "",
		} {
			if got := c.fieldFor(f); got != want {
				t.Errorf("fieldFor(%q): got %q, want %q", f, got, want)
			}
		}
	})

	t.Run("field errors", func(t *testing.T) {
		tk, _ := sampleTicket()
		fillContents(c, &tk)
		c.fields["craps.amount"].SetText("")
		c.fields["roulette.winning[1]"].SetText("4") // repeats winning[0]
		c.fields["duel.cards[1]"].SetText("X")
		test.Tap(findButton(t, d.win, "Vérifier le contenu"))
		for path, want := range map[string]string{"craps.amount": "montant\u00a0: à renseigner", "roulette.winning[1]": "numéro gagnant 2\u00a0: numéro répété",
			"duel.cards[1]": "X n’est pas une carte\u00a0: 2 à 10, V, D, R ou AS", "duel.bank": ""} {
			if got := c.errs[path]; got.text != want || got.bar.Visible() != (want != "") || want != "" && !strings.Contains(got.row.Text, want) {
				t.Errorf("%s error: got %q (marked %v, its row says %q), want %q", path, got.text, got.bar.Visible(), got.row.Text, want)
			}
		}
		if c.view.kind != verdictMistyped || c.view.title.Text() != "À CORRIGER" || c.view.pay.Visible() {
			t.Errorf("verdict %q, PAYER visible %v", c.view.title.Text(), c.view.pay.Visible())
		}
		if got := d.win.Canvas().Focused(); got != c.fields["roulette.winning[1]"] {
			t.Errorf("focus on %v, want the first faulty field", got)
		}
	})

	t.Run("zones", func(t *testing.T) {
		tk, _ := sampleTicket()
		fillContents(c, &tk)
		test.Tap(findButton(t, d.win, "Vérifier le contenu"))
		// Chip 1 on 12, the dice 3+4, the jack above the bank's 10, three
		// cherries on line 1; nothing else.
		zones := []string{"• ROULETTE mise n°\u00a01\u00a0: 6 €", "• CRAPS\u00a0: 15 €", "• DUEL\u00a0: 9 €", "• JACKPOT ligne 1\u00a0: 6 €"}
		for _, z := range zones {
			if !strings.Contains(c.result.Text, z) {
				t.Errorf("zones %q lack %q", c.result.Text, z)
			}
		}
		if got := strings.Count(c.result.Text, "•"); got != len(zones) {
			t.Errorf("zones %q: %d, want %d", c.result.Text, got, len(zones))
		}
	})

	t.Run("ledger match and pay", func(t *testing.T) {
		serial := takeWinner(t, 3)
		lt, err := fixture.Lookup(context.Background(), serial, d.identity(), ledger.NoLimit)
		if err != nil {
			t.Fatal(err)
		}
		c.reset()
		fillContents(c, &lt.Ticket)
		test.Tap(findButton(t, d.win, "Vérifier le contenu"))
		if c.match == nil {
			t.Fatalf("no ledger match: %s", c.view.detail.Text)
		}
		if c.view.title.Text() != "GAGNANT" || c.view.amount.Text() != "3 €" {
			t.Errorf("verdict %q %q", c.view.title.Text(), c.view.amount.Text())
		}
		if !c.view.pay.Visible() {
			t.Fatalf("PAYER hidden: %s", c.view.detail.Text)
		}
		m := c.match
		// A limit lowered after the check holds too.
		d.app.Preferences().SetInt(prefLimit, 2)
		test.Tap(c.view.pay)
		if lt, err := fixture.Lookup(context.Background(), m.Serial.String(), d.identity(), ledger.NoLimit); err != nil || lt.Status != ledger.StatusUnpaid {
			t.Fatalf("paid above the lowered limit: %v %v", lt.Status, err)
		}
		if c.view.title.Text() != "À PAYER PAR LE SERVICE CENTRAL" || c.view.pay.Visible() {
			t.Errorf("after PAYER above the lowered limit: %q, PAYER visible %v", c.view.title.Text(), c.view.pay.Visible())
		}
		d.app.Preferences().SetInt(prefLimit, 5000)
		test.Tap(findButton(t, d.win, "Vérifier le contenu"))
		if c.match == nil || !c.view.pay.Visible() {
			t.Fatalf("no match after the limit was raised again: %s", c.view.detail.Text)
		}
		test.Tap(c.view.pay)
		test.Tap(findButton(t, d.win, "PAYER"))
		settle(t, d)
		after, err := fixture.Lookup(context.Background(), m.Serial.String(), d.identity(), ledger.NoLimit)
		if err != nil {
			t.Fatal(err)
		}
		if after.Status != ledger.StatusPaid || after.Claim == nil || after.Claim.Method != ledger.MethodContents {
			t.Errorf("after paying by contents: %v %+v", after.Status, after.Claim)
		}
		// The form is ready for the next ticket: empty, PAYÉ in the headline,
		// the keyboard on its receipt.
		for path, e := range c.fields {
			if e.Text != "" {
				t.Errorf("%s keeps %q after the payment", path, e.Text)
			}
		}
		if c.view.kind != verdictJustPaid || c.view.title.Text() != "PAYÉ" {
			t.Errorf("after the payment: %q", c.view.title.Text())
		}
		if got := d.win.Canvas().Focused(); got != c.view.receipt {
			t.Errorf("focus after the payment on %v, want the receipt", got)
		}
	})
}

// findEntry finds a visible entry by its placeholder in the window's
// dialogs.
func findEntry(t *testing.T, w fyne.Window, placeholder string) *keyEntry {
	t.Helper()
	for _, o := range w.Canvas().Overlays().List() {
		for _, x := range test.LaidOutObjects(o) {
			if e, ok := x.(*keyEntry); ok && e.PlaceHolder == placeholder && e.Visible() {
				return e
			}
		}
	}
	t.Fatalf("no entry %q", placeholder)
	return nil
}

func TestClaimsScreen(t *testing.T) {
	d := newTestDesk(t, fixture)
	serial := takeWinner(t, 3)
	// A desk of its own: the fixture is shared by every run of -count.
	desk := fmt.Sprintf("G7-%d", time.Now().UnixNano())
	if _, err := fixture.Claim(context.Background(), ledger.ClaimRequest{Serial: serial, Method: ledger.MethodSerial, Who: ledger.Identity{Desk: desk, Operator: "Bob"}, Limit: ledger.NoLimit}); err != nil {
		t.Fatal(err)
	}
	c := d.claims
	c.desk.SetText(desk)
	c.reload()
	if len(c.claims) != 1 {
		t.Fatalf("%d claims at %s, want 1", len(c.claims), desk)
	}
	if !strings.Contains(c.totals.Text, "1 paiement, 3 € payés (0 annulé)") {
		t.Errorf("totals %q", c.totals.Text)
	}
	var csv bytes.Buffer
	if err := c.writeCSV(&csv); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Count(csv.String(), "\n"); lines != 2 {
		t.Errorf("CSV has %d lines, want 2:\n%s", lines, csv.String())
	}
	path := filepath.Join(t.TempDir(), "paiements.csv")
	w, err := storage.Writer(storage.NewFileURI(path))
	if err != nil {
		t.Fatal(err)
	}
	c.exportTo(w)
	if got, err := os.ReadFile(path); err != nil || string(got) != csv.String() {
		t.Errorf("CSV file: %v\n%s", err, got)
	}
	if !shown(d.win, path) {
		t.Errorf("the export does not say where the file went")
	}
	press(d.win, fyne.KeyReturn) // closes the message
	c.table.Select(widget.TableCellID{Row: 0, Col: 1})
	test.Tap(c.void)
	// Escape closes the dialog; its other button says Retour, not Annuler
	// beside Annuler le paiement.
	if !hasButton(d.win, "Retour") || hasButton(d.win, "Annuler") {
		t.Error("the void dialog's buttons are not Annuler le paiement and Retour")
	}
	press(d.win, fyne.KeyEscape)
	if dialogs(d.win) != 0 {
		t.Fatal("Escape does not close the void dialog")
	}
	test.Tap(c.void)
	reason := findEntry(t, d.win, "motif")
	if d.win.Canvas().Focused() != reason {
		t.Error("the reason field has not the keyboard")
	}
	// An empty reason is refused: the dialog stays, and says why.
	voidBtn := findButton(t, d.win, "Annuler le paiement")
	test.Tap(voidBtn)
	press(d.win, fyne.KeyReturn)
	if c.claims[0].Voided || dialogs(d.win) != 1 || !shown(d.win, "indiquez un motif") {
		t.Fatalf("void without a reason: voided %v, %d dialogs", c.claims[0].Voided, dialogs(d.win))
	}
	if cls, err := fixture.Claims(context.Background(), ledger.ClaimFilter{Desk: desk}); err != nil || len(cls) != 1 || cls[0].Voided {
		t.Fatalf("voided without a reason: %+v %v", cls, err)
	}
	test.Type(reason, "erreur de saisie")
	press(d.win, fyne.KeyReturn)
	if len(c.claims) != 1 || !c.claims[0].Voided || c.claims[0].VoidReason != "erreur de saisie" || c.claims[0].VoidedBy != "Alice" {
		t.Fatalf("after void: %+v", c.claims)
	}
	if !strings.Contains(c.totals.Text, "0 paiement, 0 € payés (1 annulé)") {
		t.Errorf("totals after void %q", c.totals.Text)
	}
}

func TestSettingsCreateLedger(t *testing.T) {
	d := newTestDesk(t, nil)
	s := d.settings
	defer d.closeLedger()

	// An existing file, here the fixture, open in another handle: refused
	// and left untouched.
	before, err := os.Stat(fixturePath)
	if err != nil {
		t.Fatal(err)
	}
	s.createAt(fixturePath)
	after, err := os.Stat(fixturePath)
	if err != nil {
		t.Fatal(err)
	}
	if d.ledger != nil || after.Size() != before.Size() || !after.ModTime().Equal(before.ModTime()) {
		t.Fatalf("creating over an existing file: ledger %v, size %d → %d", d.ledger, before.Size(), after.Size())
	}

	path := filepath.Join(t.TempDir(), "new.db")
	s.createAt(path)
	if d.ledger == nil || d.ledger.Path() != path || s.path.Text != path {
		t.Fatalf("new ledger: %v, path shown %q", d.ledger, s.path.Text)
	}

	// Blank desk id or operator name: nothing is saved.
	for _, e := range []*keyEntry{s.desk, s.operator} {
		e.SetText("  ")
		s.save()
		e.SetText("X")
	}
	if got := d.identity(); got.Desk != "G1" || got.Operator != "Alice" {
		t.Errorf("identity after blank saves: %+v", got)
	}
	s.save()
	if got := d.identity(); got.Desk != "X" || got.Operator != "X" {
		t.Errorf("identity after a good save: %+v", got)
	}
}

// Switching ledgers leaves nothing of the previous one on screen.
func TestUseLedgerResetsScreens(t *testing.T) {
	prev, err := ledger.Open(fixturePath) // a second handle: useLedger closes it
	if err != nil {
		t.Fatal(err)
	}
	d := newTestDesk(t, prev)
	defer d.closeLedger()
	b := d.blocks
	b.reload()
	b.list.Select(0)
	waitFor(t, "the report", time.Minute, func() bool { return len(b.rep.Tiers) > 0 })
	if b.verify.Disabled() || b.digest.Text == "" {
		t.Fatalf("block 0 selected: verify disabled %v, digest %q", b.verify.Disabled(), b.digest.Text)
	}
	tk, err := prev.Lookup(context.Background(), takeWinner(t, 3), d.identity(), ledger.NoLimit)
	if err != nil {
		t.Fatal(err)
	}
	d.contents.match = &tk
	d.contents.view.pay.Show()
	scan(d, losers[0])
	d.claims.reload()
	d.claims.block.SetSelected("531/1")

	next, err := ledger.Open(filepath.Join(t.TempDir(), "next.db"))
	if err != nil {
		t.Fatal(err)
	}
	d.useLedger(next)
	if len(d.checks) != 0 || d.counter.checks.Length() != 0 {
		t.Errorf("the last checks keep %d checks of the other ledger", len(d.checks))
	}
	if c := d.contents; c.match != nil || c.view.pay.Visible() {
		t.Errorf("contents: match %v, PAYER visible %v", c.match, c.view.pay.Visible())
	}
	if b.sel != -1 || len(b.rep.Tiers) != 0 || len(b.chart.rep.Tiers) != 0 {
		t.Errorf("blocks: sel %d, %d tiers in the report, %d in the chart", b.sel, len(b.rep.Tiers), len(b.chart.rep.Tiers))
	}
	if b.title.Text != "Choisissez un bloc." || b.digest.Text != "" || !b.verify.Disabled() || !b.export.Disabled() {
		t.Errorf("blocks: title %q, digest %q, verify disabled %v, export disabled %v",
			b.title.Text, b.digest.Text, b.verify.Disabled(), b.export.Disabled())
	}
	if sel := d.claims.block.Selected; sel != "" {
		t.Errorf("claims: still filtered on block %q of the other ledger", sel)
	}
}

// Cancel once the generation has started: no block is left.
func TestBlocksGenerateCancel(t *testing.T) {
	l, err := ledger.Open(filepath.Join(t.TempDir(), "gen.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	d := newTestDesk(t, l)
	task := d.blocks.startGenerate(nil)
	waitFor(t, "progress", 60*time.Second, func() bool { v, _ := task.progress.Get(); return v > 0 })
	test.Tap(findButton(t, d.win, "Annuler"))
	waitDone(t, task)
	if task.err == nil {
		t.Fatal("cancelled generation returned no error")
	}
	if bs, err := l.Blocks(context.Background()); err != nil || len(bs) != 0 {
		t.Fatalf("after cancel: %d blocks, %v", len(bs), err)
	}
}

// A whole generation reaches 100 % and lists the block with its report.
func TestBlocksGenerate(t *testing.T) {
	l, err := ledger.Open(filepath.Join(t.TempDir(), "gen.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	d := newTestDesk(t, l)
	b := d.blocks
	task := b.startGenerate(nil)
	waitDone(t, task)
	if task.err != nil {
		t.Fatal(task.err)
	}
	if v, _ := task.progress.Get(); v != 1 {
		t.Errorf("progress at the end: %v, want 1", v)
	}
	if len(b.blocks) != 1 || b.blocks[0].Tickets != game.BlockSize {
		t.Fatalf("blocks: %+v", b.blocks)
	}
	if b.sel != 0 {
		t.Errorf("new block not selected: sel %d", b.sel)
	}
	waitFor(t, "the report of the new block", time.Minute, func() bool { return len(b.rep.Tiers) == len(game.PrizeTable) })
	if b.digest.Text != b.blocks[0].Digest {
		t.Errorf("digest shown %q", b.digest.Text)
	}
}

// shown says whether a dialog of the window shows a text that contains s.
func shown(w fyne.Window, s string) bool {
	for _, o := range w.Canvas().Overlays().List() {
		for _, x := range test.LaidOutObjects(o) {
			switch x := x.(type) {
			case *widget.Label:
				if strings.Contains(x.Text, s) && x.Visible() {
					return true
				}
			case *widget.RichText:
				if strings.Contains(x.String(), s) && x.Visible() {
					return true
				}
			}
		}
	}
	return false
}

// Cancelling an export deletes the partial file and says so as
// information; cancelling a verification too.
func TestBlocksCancelExportAndVerify(t *testing.T) {
	d := newTestDesk(t, fixture)
	b := d.blocks
	b.reload()
	b.list.Select(0)
	waitFor(t, "the report", time.Minute, func() bool { return len(b.rep.Tiers) > 0 })

	path := filepath.Join(t.TempDir(), "bloc.jsonl")
	w, err := storage.Writer(storage.NewFileURI(path))
	if err != nil {
		t.Fatal(err)
	}
	task := b.startExport(b.blocks[0], w)
	task.cancel()
	waitDone(t, task)
	if !cancelled(task.err) {
		t.Fatalf("export error %v, want a cancellation", task.err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the partial export is left: %v", err)
	}
	if !shown(d.win, "Export annulé") || shown(d.win, "context canceled") {
		t.Error("no Export annulé information, or the cancellation shown as an error")
	}

	b.runVerify()
	task = b.task
	task.cancel()
	waitDone(t, task)
	if !cancelled(task.err) {
		t.Fatalf("verify error %v, want a cancellation", task.err)
	}
	if !shown(d.win, "Vérification annulée") || shown(d.win, "context canceled") {
		t.Error("no Vérification annulée information, or the cancellation shown as an error")
	}
}

// The serials to try are read in a goroutine: "…" first, then the serials.
func TestSamples(t *testing.T) {
	d := newTestDesk(t, fixture)
	d.showSamples()
	waitFor(t, "the serials to try", time.Minute, func() bool { return shown(d.win, "perdant") })
	if !shown(d.win, "gagnant 1 000 €") {
		t.Error("the serials to try lack the 1 000 € winner")
	}
}

// Closing the window mid-generation cancels the work and waits for it to
// end before the ledger and the window are closed.
func TestCloseDuringTask(t *testing.T) {
	path := filepath.Join(t.TempDir(), "close.db")
	l, err := ledger.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	// Not a temporary window: quit closes it, and a test window closes once.
	d := newTestDeskIn(t, l, func(a fyne.App) fyne.Window { return a.NewWindow("close") })
	defer d.closeLedger()
	closed := make(chan bool, 1)
	task := d.blocks.startGenerate(nil)
	d.win.SetOnClosed(func() {
		select {
		case <-task.ended:
			closed <- d.ledger == nil
		default:
			closed <- false // the window closed while the work ran
		}
	})
	waitFor(t, "progress", 60*time.Second, func() bool { v, _ := task.progress.Get(); return v > 0 })
	d.quit()
	var ok bool
	waitFor(t, "the window to close", 60*time.Second, func() bool {
		select {
		case ok = <-closed:
			return true
		default:
			return false
		}
	})
	if !ok {
		t.Fatal("the window closed before the task ended or with the ledger open")
	}
	waitDone(t, task)
	if task.err == nil {
		t.Fatal("the generation was not cancelled")
	}
	l2, err := ledger.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l2.Close()
	if bs, err := l2.Blocks(context.Background()); err != nil || len(bs) != 0 {
		t.Fatalf("after closing: %d blocks, %v", len(bs), err)
	}
}

// waitDone waits for a task's finish to have run.
func waitDone(t *testing.T, task *task) {
	t.Helper()
	waitFor(t, "the task to end", 2*time.Minute, func() bool {
		select {
		case <-task.done:
			return true
		default:
			return false
		}
	})
}

// TestTranslations checks that every string the app localizes has a French
// translation: the literal keys of lang.L, the plural keys of
// lang.LocalizePlural (with their one and other forms, in English too), and
// the keys built at run time (column titles, claim methods).
func TestTranslations(t *testing.T) {
	load := func(name string) map[string]json.RawMessage {
		data, err := translations.ReadFile("translations/" + name)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return m
	}
	fr, en := load("fr.json"), load("en.json")
	// plural says whether m holds key with its one and other forms.
	plural := func(m map[string]json.RawMessage, key string) bool {
		var forms struct{ One, Other string }
		return json.Unmarshal(m[key], &forms) == nil && forms.One != "" && forms.Other != ""
	}
	simple := func(key string) bool {
		var v string
		return json.Unmarshal(fr[key], &v) == nil && v != ""
	}

	files, _ := filepath.Glob("*.go")
	reL := regexp.MustCompile(`lang\.L\("([^"]*)"`)
	reP := regexp.MustCompile(`lang\.LocalizePlural\("([^"]*)"`)
	nL, nP := 0, 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, _ := os.ReadFile(f)
		for _, m := range reL.FindAllStringSubmatch(string(src), -1) {
			nL++
			if !simple(m[1]) {
				t.Errorf("%s: %q has no French translation", f, m[1])
			}
		}
		for _, m := range reP.FindAllStringSubmatch(string(src), -1) {
			nP++
			if !plural(fr, m[1]) || !plural(en, m[1]) {
				t.Errorf("%s: %q lacks its one and other forms in fr.json or en.json", f, m[1])
			}
		}
	}
	if nL < 100 || nP < 2 {
		t.Errorf("found %d lang.L and %d lang.LocalizePlural keys: the patterns miss the source", nL, nP)
	}

	// French typography, in the French translation only: a no-break
	// space before : ; ! ? » and after «, the typographic apostrophe.
	typo := regexp.MustCompile("[^\u00a0][:;!?»]|«[^\u00a0]|'")
	for k, raw := range fr {
		var forms map[string]string
		var v string
		if json.Unmarshal(raw, &v) == nil {
			forms = map[string]string{"": v}
		} else if err := json.Unmarshal(raw, &forms); err != nil {
			t.Fatal(err)
		}
		for _, f := range forms {
			if m := typo.FindString(f); m != "" {
				t.Errorf("%q: French %q breaks French typography at %q", k, f, m)
			}
		}
	}

	dynamic := append([]string{ledger.MethodSerial, ledger.MethodContents}, reportColumns...)
	for _, c := range claimColumns {
		dynamic = append(dynamic, c.title)
	}
	for _, c := range packColumns {
		dynamic = append(dynamic, c.title)
	}
	for _, doc := range core.Documents {
		dynamic = append(dynamic, append([]string{doc.Label}, doc.Formats...)...)
	}
	for _, k := range dynamic {
		if !simple(k) {
			t.Errorf("run-time key %q has no French translation", k)
		}
	}

	for _, tt := range []struct {
		code           string
		n, sum, voided int
		want           string
	}{
		{"fr", 0, 0, 1, "0 paiement, 0 € payés (1 annulé)"},
		{"fr", 2, 9, 2, "2 paiements, 9 € payés (2 annulés)"},
		{"en", 1, 3, 0, "1 payment, 3 € paid (0 voided)"},
		{"en", 2, 9, 1, "2 payments, 9 € paid (1 voided)"},
	} {
		setLanguage(tt.code)
		if got := totalsText(tt.n, tt.sum, tt.voided); got != tt.want {
			t.Errorf("%s totals: got %q, want %q", tt.code, got, tt.want)
		}
	}
	setLanguage("fr")
}

// lightVariant is a theme in its light variant whatever the system's, as
// Windows' default is.
type lightVariant struct{ fyne.Theme }

func (t lightVariant) Color(n fyne.ThemeColorName, _ fyne.ThemeVariant) color.Color {
	return t.Theme.Color(n, theme.VariantLight)
}

// A verdict's details are light on its coloured background in the light
// variant too (they were dark grey on green under Windows' default).
func TestVerdictReadableInLight(t *testing.T) {
	d := newTestDesk(t, fixture)
	d.app.Settings().SetTheme(lightVariant{vegasTheme{}})
	scan(d, takeWinner(t, 3))
	test.LaidOutObjects(d.win.Canvas().Content())
	want := vegasTheme{}.Color(theme.ColorNameForeground, theme.VariantDark)
	if got := theme.ColorForWidget(theme.ColorNameForeground, d.counter.view.detail); got != want {
		t.Errorf("a winner's details are drawn in %v on %v, want %v", got, d.counter.view.bg.FillColor, want)
	}
}
