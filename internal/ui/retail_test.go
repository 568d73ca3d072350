package ui

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/ledgertest"
	"vegas-desk/internal/pgtest"
	"vegas-desk/internal/server"
	"vegas-desk/internal/server/servertest"
)

// newRetailLedger is a new ledger of one block whose packs are all in
// stock.
func newRetailLedger(t *testing.T) *ledger.Ledger {
	t.Helper()
	l, err := ledger.Open(ledgertest.Copy(t, ledgertest.Stock))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// packTickets returns the serials of pack's tickets by prize, the first of
// each, and the largest prize of the pack.
func packTickets(t *testing.T, l *ledger.Ledger, pack int) (map[int]string, int) {
	t.Helper()
	out, top := map[int]string{}, 0
	for pos := pack * game.PackSize; pos < (pack+1)*game.PackSize; pos++ {
		tk, err := l.TicketAt(context.Background(), DefaultGame, 1, pos)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := out[tk.Prize]; !ok {
			out[tk.Prize] = tk.Serial.String()
		}
		top = max(top, tk.Prize)
	}
	return out, top
}

// movePacks chooses a move on the Carnets screen, types the packs and
// presses Enter, as a scanner does.
func movePacks(d *desk, move, desk, packs string) {
	p := d.packs
	p.move.SetSelected(moveName(move))
	if !p.desk.Disabled() {
		p.desk.SetText(desk)
	}
	test.Type(p.entry, packs)
	p.entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
}

// code is the pack code of pack of block 531/1.
func code(pack int) string { return game.PackCode{Game: DefaultGame, Block: 1, Pack: pack}.String() }

// The Carnets screen moves packs by scan or by number, says in French why a
// move is refused, and lists the packs by state and counter; the counter
// then gives the verdicts of packs and dates, big and coloured.
func TestPacksScreenAndVerdicts(t *testing.T) {
	l := newRetailLedger(t)
	d := newTestDesk(t, l)
	d.tabs.SelectIndex(tabPacks)
	p := d.packs
	if p.block.Selected != "531/1" || len(p.move.Options) != 7 || p.total.Text != "" && !strings.Contains(p.total.Text, "carnet") {
		t.Fatalf("screen: block %q, moves %v, total %q", p.block.Selected, p.move.Options, p.total.Text)
	}
	if got := d.win.Canvas().Focused(); got != p.entry {
		t.Errorf("focus on the Carnets tab: %v, want the packs field", got)
	}

	steps := []struct {
		name, move, desk, packs string
		ok                      bool
		says                    string
	}{
		{"deliver by numbers", "deliver", "G1", "10-12 13", true, "4 carnets · Livrer à un guichet ✓"},
		{"deliver without a counter", "deliver", "", "14", false, "Indiquez le guichet"},
		{"receive by scanning", "receive", "G1", code(10), true, "1 carnet · Réceptionner ✓\n" + code(10)},
		{"a mistyped code", "receive", "G1", mistype(code(11)), false, "clé de contrôle"},
		{"a code and a number", "receive", "G1", code(11) + " 12", true, "2 carnets"},
		{"activate a pack never received", "activate", "G1", "13", false,
			"Le carnet " + code(13) + " est livré\u00a0: «\u00a0Activer (mettre en vente)\u00a0» demande un carnet réceptionné."},
		{"receive at another counter", "receive", "G2", "13", false, "Le carnet " + code(13) + " a été livré au guichet G1, pas à G2."},
		{"activate", "activate", "G1", "10", true, "1 carnet · Activer (mettre en vente) ✓"},
		{"report stolen", "stolen", "", code(12), true, "Déclarer volé ✓"},
		{"activate a stolen pack", "activate", "G1", "12", false, "est volé"},
		{"settle a pack never on sale", "settle", "G1", "11", false, "demande un carnet en vente"},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			if st.move == "stolen" {
				p.reason.SetText("vitrine brisée")
			}
			movePacks(d, st.move, st.desk, st.packs)
			if got := p.banner.FillColor == verdictStyle[verdictJustPaid]; got != st.ok {
				t.Errorf("banner says ok %v, want %v: %s", got, st.ok, p.result.Text)
			}
			if !strings.Contains(p.result.Text, st.says) {
				t.Errorf("says %q, want %q", p.result.Text, st.says)
			}
			if p.entry.Text != "" || d.win.Canvas().Focused() != p.entry {
				t.Errorf("the field keeps %q or lost the keyboard", p.entry.Text)
			}
		})
	}
	// The list, filtered by state and counter.
	p.state.SetSelected(stateName("on-sale"))
	p.deskList.SetText("G1")
	p.reload()
	if len(p.runs) != 1 || p.runs[0].First != 10 || packCell(p.runs[0], 2) != "en vente" || packCell(p.runs[0], 4) != "Activer (mettre en vente)" ||
		packCell(p.runs[0], 6) != "Alice" || p.total.Text != "1 carnet" {
		t.Errorf("on sale at G1: %+v, total %q", p.runs, p.total.Text)
	}
	// Every state: the packs in stock too, in the order of the block, and
	// the count grouped as the table's.
	p.state.SetSelectedIndex(0)
	p.deskList.SetText("")
	p.reload()
	if p.total.Text != "10 000 carnets" || len(p.runs) != 6 || p.runs[0].State != "stock" ||
		p.runs[1].First != 10 || p.runs[5].First != 14 || p.runs[5].State != "stock" {
		t.Errorf("every pack: %q (%+v)", p.total.Text, p.runs)
	}
	p.state.SetSelected(stateName("stock"))
	if len(p.runs) != 2 || p.runs[0].Last != 9 || p.runs[1].First != 14 || packCell(p.runs[1], 0) != code(14)+" à "+code(9999) {
		t.Errorf("the stock: %+v", p.runs)
	}

	// At the counter: a pack on sale pays, the others do not.
	onSale, top := packTickets(t, l, 10)
	received, _ := packTickets(t, l, 11)
	stolen, _ := packTickets(t, l, 12)
	d.tabs.SelectIndex(tabCounter)
	c := d.counter
	verdicts := []struct {
		name, serial, title string
		k                   verdict
		detail              string
	}{
		{"a loser on sale", onSale[0], "PERDANT", verdictLoser, ""},
		{"a pack received, not on sale", received[0], "CARNET NON ACTIVÉ", verdictNotActivated, "n’est pas en vente"},
		{"a stolen pack", stolen[0], "CARNET DÉCLARÉ VOLÉ — CONSERVER LE TICKET", verdictStolen, "ne rendez pas le ticket"},
	}
	for _, v := range verdicts {
		t.Run(v.name, func(t *testing.T) {
			scan(d, v.serial)
			if c.view.kind != v.k || c.view.title.Text() != v.title || c.view.pay.Visible() || !strings.Contains(c.view.detail.Text, v.detail) {
				t.Errorf("%q (%d) %s, PAYER %v; want %q", c.view.title.Text(), c.view.kind, c.view.detail.Text, c.view.pay.Visible(), v.title)
			}
			if c.view.bg.FillColor != verdictStyle[v.k] {
				t.Errorf("colour %v, want %v", c.view.bg.FillColor, verdictStyle[v.k])
			}
		})
	}
	attempts, err := l.Attempts(context.Background(), time.Time{})
	if err != nil || len(attempts) == 0 || attempts[len(attempts)-1].Reason != ledger.Stolen || attempts[len(attempts)-1].Desk != "G1" {
		t.Errorf("the stolen pack's ticket is not flagged for the back office: %+v, %v", attempts, err)
	}

	// Above this desk's limit: À PAYER PAR LE SERVICE CENTRAL, the amount,
	// and a referral recorded.
	d.app.Preferences().SetInt(prefLimit, top-1)
	scan(d, onSale[top])
	if c.view.title.Text() != "À PAYER PAR LE SERVICE CENTRAL" || c.view.amount.Text() != game.FormatAmount(top) ||
		!strings.Contains(c.view.detail.Text, "Renvoi enregistré") || c.view.pay.Visible() {
		t.Errorf("above the limit: %q %q %s", c.view.title.Text(), c.view.amount.Text(), c.view.detail.Text)
	}
	if rs, err := l.Referrals(context.Background()); err != nil || len(rs) != 1 || rs[0].Amount != top || rs[0].Desk != "G1" {
		t.Errorf("referrals %+v, %v", rs, err)
	}
	d.app.Preferences().SetInt(prefLimit, 5000)

	// The dates, from Réglages.
	s := d.settings
	s.loadRules()
	if !s.rules.Visible() || s.rate.Text != "5" || s.threshold.Text != "5000" || s.claimDays.Text != "60" {
		t.Fatalf("rules: visible %v, rate %q, threshold %q, days %q", s.rules.Visible(), s.rate.Text, s.threshold.Text, s.claimDays.Text)
	}
	tomorrow := time.Now().AddDate(0, 0, 1)
	s.onSale.SetText(tomorrow.Format(dayLayout))
	s.rate.SetText("6,5")
	s.saveRules()
	press(d.win, fyne.KeyEscape) // « Les règles sont enregistrées au registre. »
	pump()
	if v, _ := l.Setting(context.Background(), ledger.SettingCommission); v != 650 {
		t.Errorf("commission %d, want 650", v)
	}
	scan(d, onSale[top])
	if c.view.title.Text() != "PAS ENCORE EN VENTE" || !strings.Contains(c.view.detail.Text, tomorrow.Format(dayLayout)) {
		t.Errorf("before the on-sale day: %q %s", c.view.title.Text(), c.view.detail.Text)
	}
	yesterday := time.Now().AddDate(0, 0, -1)
	s.onSale.SetText(yesterday.AddDate(0, -1, 0).Format(dayLayout))
	s.endSale.SetText(yesterday.AddDate(0, 0, -1).Format(dayLayout))
	s.deadline.SetText(yesterday.Format(dayLayout))
	s.saveRules()
	press(d.win, fyne.KeyEscape) // « Les règles sont enregistrées au registre. »
	scan(d, onSale[top])
	if c.view.title.Text() != "FORCLOS" || !strings.Contains(c.view.detail.Text, "Délai de paiement dépassé le "+yesterday.Format(dayLayout)) {
		t.Errorf("after the deadline: %q %s", c.view.title.Text(), c.view.detail.Text)
	}
	if em, _ := l.Emission(context.Background(), DefaultGame); !em.Deadline.Equal(time.Date(yesterday.Year(), yesterday.Month(), yesterday.Day(), 23, 59, 59, 999_999_999, time.Local)) {
		t.Errorf("the deadline is not the last instant of its day: %v", em.Deadline)
	}
}

// pdfText is the text of the PDF at path.
func pdfText(t *testing.T, path string) string {
	t.Helper()
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Fatal("pdftotext not found: install poppler-utils (make deps-test does)")
	}
	out, err := exec.Command("pdftotext", "-layout", "-enc", "UTF-8", path, "-").Output()
	if err != nil {
		t.Fatalf("pdftotext %s: %v", path, err)
	}
	return strings.ReplaceAll(string(out), "\u00a0", " ")
}

// opened answers the paper's dialog with Ouvrir and returns the path of the
// PDF written.
func opened(t *testing.T, d *desk, name string) string {
	t.Helper()
	test.Tap(findButton(t, d.win, "Ouvrir"))
	dir, err := d.documentsDir()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if b, err := os.ReadFile(path); err != nil || !strings.HasPrefix(string(b), "%PDF") {
		t.Fatalf("%s: not a PDF (%v)", path, err)
	}
	return path
}

// PAYER then « Imprimer le reçu »; the receipt, the day report and the
// settlement from Paiements.
func TestPrintPapers(t *testing.T) {
	l := newRetailLedger(t)
	bo := ledger.Identity{Desk: "BO", Operator: "eve"}
	for _, mv := range []string{"deliver", "receive", "activate"} {
		if err := l.MovePacks(context.Background(), ledger.PackMove{Game: DefaultGame, Block: 1, First: 20, Last: 21, Move: mv, Desk: "G1"}, bo); err != nil {
			t.Fatal(err)
		}
	}
	d := newTestDesk(t, l)
	tickets, _ := packTickets(t, l, 20)
	c := d.counter
	scan(d, tickets[3])
	test.Tap(c.view.pay)
	test.Tap(findButton(t, d.win, "PAYER"))
	settle(t, d)
	if c.view.kind != verdictJustPaid || !c.view.receipt.Visible() || c.view.receipt.Text != "Imprimer le reçu" {
		t.Fatalf("after PAYER: %q, receipt button %v", c.view.title.Text(), c.view.receipt.Visible())
	}
	test.Tap(c.view.receipt)
	text := pdfText(t, opened(t, d, "recu-1.pdf"))
	for _, want := range []string{"REÇU DE PAIEMENT", "n° 1", "G1", "Alice", "3 €", "TROIS EUROS"} {
		if !strings.Contains(text, want) {
			t.Errorf("the receipt lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, tickets[3]) {
		t.Errorf("the receipt shows the whole serial")
	}
	scan(d, tickets[0]) // the next ticket: no receipt button
	if c.view.receipt.Visible() {
		t.Error("the receipt button outlives its payment")
	}

	// Paiements: the selected payment's receipt, the day, a settlement.
	d.tabs.SelectIndex(tabClaims)
	cs := d.claims
	if len(cs.claims) != 1 || !cs.receipt.Disabled() {
		t.Fatalf("payments %d, receipt enabled before a choice: %v", len(cs.claims), !cs.receipt.Disabled())
	}
	cs.table.Select(widget.TableCellID{Row: 0, Col: 0})
	test.Tap(cs.receipt)
	opened(t, d, "recu-1.pdf")
	test.Tap(cs.day2)
	day := pdfText(t, opened(t, d, "jour-G1-"+time.Now().Format("2006-01-02")+".pdf"))
	for _, want := range []string{"Rapport du jour", "Guichet G1", "Carnets reçus (2)", "Carnets mis en vente (2)"} {
		if !strings.Contains(day, want) {
			t.Errorf("the day report lacks %q:\n%s", want, day)
		}
	}
	test.Tap(cs.settle)
	desk := findEntry(t, d.win, "guichet")
	test.Type(desk, "G1")
	for _, o := range d.win.Canvas().Overlays().List() {
		for _, x := range test.LaidOutObjects(o) {
			if de, ok := x.(interface{ SetDate(*time.Time) }); ok {
				now := time.Now()
				de.SetDate(&now)
			}
		}
	}
	test.Tap(findButton(t, d.win, "Imprimer"))
	today := time.Now().Format("2006-01-02")
	statement := pdfText(t, opened(t, d, "releve-G1-"+today+"-"+today+".pdf"))
	// 2 packs × 200 × 3 € = 1 200 €; a 3 € prize; 5 % = 60 €: 1 137 €.
	if !strings.Contains(statement, "Relevé de compte") || !strings.Contains(statement, "Le détaillant doit 1 137,00 € à l’opérateur.") {
		t.Errorf("the settlement:\n%s", statement)
	}
}

// A counter through the validation server of a shared ledger: the Carnets
// screen offers its own packs' receipt and activation only, for its own
// desk, and lists its packs alone.
func TestPacksScreenCounter(t *testing.T) {
	ctx := context.Background()
	pg, err := pgtest.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Stop()
	db := pg.NewDatabase(t)
	bo, err := ledger.Copy(ctx, newRetailLedger(t), pg.URL(pgtest.Owner, db), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer bo.Close()
	eve := ledger.Identity{Desk: "BO", Operator: "eve"}
	for _, id := range []string{"D1", "D2"} {
		if _, err := bo.AddDesk(ctx, id, 100, eve); err != nil {
			t.Fatal(err)
		}
	}
	for _, m := range []ledger.PackMove{{First: 30, Last: 33, Move: "deliver", Desk: "D1"}, {First: 34, Last: 34, Move: "deliver", Desk: "D2"}} {
		m.Game, m.Block = DefaultGame, 1
		if err := bo.MovePacks(ctx, m, eve); err != nil {
			t.Fatal(err)
		}
	}
	s := servertest.Start(t, bo, server.Config{})
	d := newTestDesk(t, nil)
	if !d.settings.openServer(s.URL, s.DeskFile(t, "D1")) || d.ledger == nil || d.ledger.CounterDesk() != "D1" {
		t.Fatalf("not opened as counter D1: %v", d.ledger)
	}
	defer d.closeLedger()
	d.tabs.SelectIndex(tabPacks)
	p := d.packs
	if want := []string{"Réceptionner", "Activer (mettre en vente)"}; strings.Join(p.move.Options, "|") != strings.Join(want, "|") {
		t.Errorf("moves %v, want %v", p.move.Options, want)
	}
	if !p.desk.Disabled() || p.desk.Text != "D1" || !p.deskList.Disabled() {
		t.Errorf("the counter field: %q, disabled %v", p.desk.Text, p.desk.Disabled())
	}
	for _, st := range []struct {
		move, packs string
		ok          bool
		says        string
	}{
		{"receive", "30-32", true, "3 carnets · Réceptionner ✓"},
		{"activate", code(30), true, "1 carnet · Activer (mettre en vente) ✓"},
		{"receive", "34", false, "Le carnet " + code(34) + " n’a pas été livré à ce guichet."},
		{"activate", "33", false, "est livré"},
	} {
		movePacks(d, st.move, "", st.packs)
		if got := p.banner.FillColor == verdictStyle[verdictJustPaid]; got != st.ok || !strings.Contains(p.result.Text, st.says) {
			t.Errorf("%s %s: ok %v, %q; want %v, %q", st.move, st.packs, got, p.result.Text, st.ok, st.says)
		}
	}
	n := 0
	for _, r := range p.runs {
		n += r.Count()
		if r.Desk != "D1" {
			t.Errorf("D1 sees %+v", r)
		}
	}
	if n != 4 {
		t.Errorf("D1 sees %d packs, want its 4", n)
	}
	if d.settings.rules.Visible() {
		t.Error("a counter sees the ledger's rules")
	}
}
