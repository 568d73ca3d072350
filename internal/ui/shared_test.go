package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/ledgertest"
	"vegas-desk/internal/pgtest"
	"vegas-desk/internal/server"
	"vegas-desk/internal/server/servertest"
)

// The app on a shared ledger. The back office: Réglages opens it by its
// address and asks the password the server wants, which shows nowhere and
// is never stored. A counter: Réglages opens the ledger's validation
// server (vegas-desk serve) with its desk file; the status line names the
// counter and says the server answers; the counter pays with the ledger's
// limit; the payments are the counter's; and when PostgreSQL does not
// answer behind the server, the counter says REGISTRE INJOIGNABLE and the
// status line INJOIGNABLE.
func TestSharedLedger(t *testing.T) {
	ctx := context.Background()
	// Pings in a fraction of their real period. A payment keeps its real
	// bound (claimTimeout): the server answers at once that its ledger is
	// away, and a bound of 2 s could cut a payment only slow on a
	// loaded machine (-race, CPU pressure).
	defer func(p time.Duration) { pingEvery = p }(pingEvery)
	pingEvery = 100 * time.Millisecond
	// A real ledger (no serials to try), every pack on sale: ledgertest's
	// block, loaded in the server's saved data directory (copying the
	// block into PostgreSQL under the race detector was most of the
	// test's time), copied from that template.
	pg, err := ledgertest.StartPostgres(ledgertest.Block)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Stop()
	tmpl, err := ledgertest.Postgres(pg, ledgertest.Block)
	if err != nil {
		t.Fatal(err)
	}
	db := pg.NewDatabaseFrom(t, tmpl)
	office, err := ledger.Open(pg.URL(pgtest.Owner, db))
	if err != nil {
		t.Fatal(err)
	}
	defer office.Close()
	winners := ledgertest.SerialsOf(t, ledgertest.Block).Winners
	takeWinner := func(t *testing.T, prize int) string {
		s := winners[prize][0]
		winners[prize] = winners[prize][1:]
		return s
	}
	if _, err := office.AddDesk(ctx, "D1", 100, ledger.Identity{Desk: "BO", Operator: "eve"}); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PGPASSWORD", "") // the password comes from the dialog

	d := newTestDesk(t, nil)
	d.settings.openShared(pg.URLWithout(pgtest.Owner, db), "")
	test.Type(findEntry(t, d.win, ""), pg.Password)
	test.Tap(findButton(t, d.win, "Se connecter"))
	if d.ledger == nil || !d.ledger.Shared() || d.ledger.CounterDesk() != "" {
		t.Fatalf("not opened as the back office: %v", d.ledger)
	}
	if strings.Contains(d.status.Text, pg.Password) || strings.Contains(d.app.Preferences().String(prefLedger), pg.Password) {
		t.Errorf("the password shows: %q / %q", d.status.Text, d.app.Preferences().String(prefLedger))
	}
	d.closeLedger()

	srv := servertest.Start(t, office, server.Config{})
	if !d.settings.openServer(srv.URL, srv.DeskFile(t, "D1")) || d.ledger == nil || d.ledger.CounterDesk() != "D1" {
		t.Fatalf("not opened as counter D1: %v", d.ledger)
	}
	defer d.closeLedger()
	waitFor(t, "the status line", time.Minute, func() bool {
		return strings.Contains(d.status.Text, "Guichet D1 (serveur de validation)") && strings.Contains(d.status.Text, "connecté")
	})

	c := d.counter
	serial := takeWinner(t, 3)
	scan(d, serial)
	if c.view.kind != verdictWinner {
		t.Fatalf("verdict %q %s, want GAGNANT", c.view.title.Text(), c.view.detail.Text)
	}
	test.Tap(c.view.pay)
	test.Tap(findButton(t, d.win, "PAYER"))
	settle(t, d)
	if c.view.kind != verdictJustPaid {
		t.Fatalf("after PAYER: %q %s", c.view.title.Text(), c.view.detail.Text)
	}
	scan(d, winners[1000][0]) // read, not taken: a referral pays nothing
	if c.view.title.Text() != "À PAYER PAR LE SERVICE CENTRAL" {
		t.Errorf("1,000 € at a desk of 100 €: %q", c.view.title.Text())
	}
	d.tabs.SelectIndex(tabClaims)
	if len(d.claims.claims) != 1 || d.claims.claims[0].Desk != "D1" {
		t.Errorf("payments: %+v", d.claims.claims)
	}

	// Réglages shows the counter's desk and limit, which it does not change;
	// no serials to try are offered (this is no demonstration ledger).
	s := d.settings
	if s.deskFixed.Text != "D1" || !s.deskFixed.Visible() || s.desk.Visible() || s.limitFixed.Text != "100 €" || s.limit.Visible() || !s.role.Visible() {
		t.Errorf("Réglages: desk %q (offered %v), limit %q (offered %v)", s.deskFixed.Text, s.desk.Visible(), s.limitFixed.Text, s.limit.Visible())
	}
	s.save()
	if got := d.app.Preferences().String(prefDesk); got != "G1" {
		t.Errorf("saving Réglages on a served counter changed this desk's own id to %q", got)
	}
	if c.samples.Visible() || s.demo.Visible() {
		t.Error("serials to try offered on a shared ledger")
	}

	// PostgreSQL stops while a winner is shown: as soon as a ping fails,
	// the verdict says REGISTRE INJOIGNABLE and PAYER goes, and that the
	// server answers but its ledger does not — not to check the network
	// (issue 36 item 4); when the server answers again, the verdict says so.
	d.showTab(tabCounter)
	scan(d, takeWinner(t, 3))
	if c.view.kind != verdictWinner {
		t.Fatalf("verdict %q, want GAGNANT", c.view.title.Text())
	}
	start, err := pg.Stopped()
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "REGISTRE INJOIGNABLE", time.Minute, func() bool { return c.view.kind == verdictUnreachable })
	if c.view.title.Text() != "REGISTRE INJOIGNABLE — NE PAS PAYER" || c.view.pay.Visible() || c.current != nil ||
		!strings.Contains(c.view.detail.Text, "mais pas son registre depuis") || strings.Contains(c.view.detail.Text, "vérifiez le réseau") ||
		!strings.Contains(d.status.Text, "INJOIGNABLE") {
		t.Errorf("the server away: %q, PAYER %v, %s; status %q", c.view.title.Text(), c.view.pay.Visible(), c.view.detail.Text, d.status.Text)
	}
	press(d.win, fyne.KeyReturn)
	if dialogs(d.win) != 0 {
		t.Error("Enter asks to pay while the server is away")
	}
	if err := start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the server's answer", time.Minute, func() bool { return strings.Contains(c.view.detail.Text, "répond de nouveau") })
	if c.view.kind != verdictNone || c.view.pay.Visible() {
		t.Errorf("the server back: %q", c.view.title.Text())
	}

	// A payment that waits on a server that stopped: "Paiement en cours…"
	// at once, the buttons disabled, a second Enter and Escape that do
	// nothing; then the answer: REGISTRE INJOIGNABLE.
	paying := takeWinner(t, 3)
	scan(d, paying)
	press(d.win, fyne.KeyReturn)
	if c.view.kind != verdictWinner || dialogs(d.win) != 1 {
		t.Fatalf("no confirmation: %q, %d dialogs", c.view.title.Text(), dialogs(d.win))
	}
	if start, err = pg.Stopped(); err != nil {
		t.Fatal(err)
	}
	defer start()
	press(d.win, fyne.KeyReturn)
	if len(d.payments) != 1 || !shown(d.win, "Paiement en cours…") || !findButton(t, d.win, "PAYER").Disabled() || !findButton(t, d.win, "Annuler").Disabled() {
		t.Fatalf("a payment in flight: %d, its dialog does not say so", len(d.payments))
	}
	press(d.win, fyne.KeyReturn)
	press(d.win, fyne.KeyEscape)
	if len(d.payments) != 1 || dialogs(d.win) != 1 {
		t.Fatalf("a second Enter: %d payments, %d dialogs", len(d.payments), dialogs(d.win))
	}
	settle(t, d)
	if dialogs(d.win) != 0 || c.view.title.Text() != "REGISTRE INJOIGNABLE — NE PAS PAYER" || c.view.pay.Visible() {
		t.Errorf("the payment's answer: %d dialogs, %q, PAYER %v", dialogs(d.win), c.view.title.Text(), c.view.pay.Visible())
	}
	if d.checks[0].serial != paying || d.checks[0].kind != verdictUnreachable {
		t.Errorf("the last check: %+v, want the unreachable payment of %s", d.checks[0], paying)
	}
	scan(d, takeWinner(t, 3))
	if c.view.title.Text() != "REGISTRE INJOIGNABLE — NE PAS PAYER" || c.view.pay.Visible() {
		t.Errorf("with the server away: %q, PAYER %v", c.view.title.Text(), c.view.pay.Visible())
	}
	if !strings.Contains(d.status.Text, "INJOIGNABLE") {
		t.Errorf("status line %q", d.status.Text)
	}
}
