package ui

import (
	"context"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/ledgertest"
	"vegas-desk/internal/server"
	"vegas-desk/internal/server/servertest"
)

// Réglages → Serveur de validation… opens a counter's ledger on a
// validation server with its desk file, remembers both, and the counter
// pays through it; the next start opens it again from what it remembered.
func TestValidationServer(t *testing.T) {
	ctx := context.Background()
	office, err := ledger.Open(ledgertest.Copy(t, ledgertest.Block))
	if err != nil {
		t.Fatal(err)
	}
	defer office.Close()
	if _, err := office.AddDesk(ctx, "C1", 100, ledger.Identity{Desk: "BO", Operator: "eve"}); err != nil {
		t.Fatal(err)
	}
	s := servertest.Start(t, office, server.Config{})
	file := s.DeskFile(t, "C1")

	d := newTestDesk(t, nil)
	d.settings.askServer()
	test.Type(findEntry(t, d.win, "https://serveur:8443"), s.URL)
	test.Type(findEntry(t, d.win, "/chemin/guichet.desk"), file)
	test.Tap(findButton(t, d.win, "Se connecter"))
	if d.ledger == nil || d.ledger.CounterDesk() != "C1" || d.ledger.Location() != s.URL {
		t.Fatalf("not opened as desk C1 of the server: %v", d.ledger)
	}
	p := d.app.Preferences()
	if p.String(prefLedger) != s.URL || p.String(prefDeskCert) != file {
		t.Errorf("remembered %q and %q", p.String(prefLedger), p.String(prefDeskCert))
	}
	serial := ledgertest.SerialsOf(t, ledgertest.Block).Winners[3][7]
	scan(d, serial)
	c := d.counter
	if c.view.kind != verdictWinner {
		t.Fatalf("verdict %q %s, want GAGNANT", c.view.title.Text(), c.view.detail.Text)
	}
	test.Tap(c.view.pay)
	d.setOnline(false) // a ping failed while the payment was asked
	test.Tap(findButton(t, d.win, "PAYER"))
	settle(t, d)
	if c.view.kind != verdictJustPaid {
		t.Fatalf("after PAYER: %q %s", c.view.title.Text(), c.view.detail.Text)
	}
	// PAYÉ: the server answered, and the status line says so at once.
	if !strings.Contains(d.status.Text, "connecté") {
		t.Errorf("the status line after PAYÉ: %q", d.status.Text)
	}
	// Réglages names the server, not a ledger file.
	if got := d.settings.form.Items[0].Text; got != "Serveur de validation" {
		t.Errorf("Réglages names the ledger %q", got)
	}
	// Nothing to back up at a served counter: said, not offered.
	if b := d.settings.backups; b.offered.Visible() || !strings.Contains(b.why.Text, "n’a pas de registre à sauvegarder") {
		t.Errorf("backups at a served counter: offered %v, %q", b.offered.Visible(), b.why.Text)
	}
	cs, err := office.Claims(ctx, ledger.ClaimFilter{Desk: "C1"})
	if err != nil || len(cs) != 1 || cs[0].Serial != serial {
		t.Fatalf("the back office holds %+v %v", cs, err)
	}
	// The shared ledger's dialog (the back office's PostgreSQL) does not
	// offer the validation server's address as a database's.
	d.settings.askAddress()
	if a := findEntry(t, d.win, "postgres://login@server/base"); a.Text != "" {
		t.Errorf("the shared ledger's address offered: %q", a.Text)
	}
	test.Tap(findButton(t, d.win, "Retour"))
	d.closeLedger()

	// The next start: the remembered server and desk file.
	d.start(p.String(prefLedger), true)
	if d.ledger == nil || d.ledger.CounterDesk() != "C1" {
		t.Fatalf("the remembered server was not opened again: %v", d.ledger)
	}
	d.closeLedger()
}

// Réglages → Serveur de validation… takes several servers of the ledger,
// separated by commas (issue 40 item 3): the counter pays through the one
// that answers, the first not answering, and remembers them all.
func TestValidationServers(t *testing.T) {
	ctx := context.Background()
	office, err := ledger.Open(ledgertest.Copy(t, ledgertest.Block))
	if err != nil {
		t.Fatal(err)
	}
	defer office.Close()
	if _, err := office.AddDesk(ctx, "C1", 100, ledger.Identity{Desk: "BO", Operator: "eve"}); err != nil {
		t.Fatal(err)
	}
	first := servertest.Start(t, office, server.Config{})
	second := first.Beside(t, office, server.Config{})
	file := first.DeskFile(t, "C1")
	addresses := first.URL + "," + second.URL

	d := newTestDesk(t, nil)
	d.settings.askServer()
	test.Type(findEntry(t, d.win, "https://serveur:8443"), first.URL+", "+second.URL)
	test.Type(findEntry(t, d.win, "/chemin/guichet.desk"), file)
	test.Tap(findButton(t, d.win, "Se connecter"))
	if d.ledger == nil || d.ledger.CounterDesk() != "C1" || d.ledger.Location() != addresses {
		t.Fatalf("not opened as desk C1 of the servers: %v", d.ledger)
	}
	if p := d.app.Preferences(); p.String(prefLedger) != addresses {
		t.Errorf("remembered %q, want %q", p.String(prefLedger), addresses)
	}
	first.Server.Close() // the first server gone: the second answers
	serial := ledgertest.SerialsOf(t, ledgertest.Block).Winners[3][8]
	scan(d, serial)
	c := d.counter
	if c.view.kind != verdictWinner {
		t.Fatalf("verdict %q %s, want GAGNANT", c.view.title.Text(), c.view.detail.Text)
	}
	test.Tap(c.view.pay)
	test.Tap(findButton(t, d.win, "PAYER"))
	settle(t, d)
	if c.view.kind != verdictJustPaid {
		t.Fatalf("after PAYER with the first server gone: %q %s", c.view.title.Text(), c.view.detail.Text)
	}
	cs, err := office.Claims(ctx, ledger.ClaimFilter{Desk: "C1"})
	if err != nil || len(cs) != 1 || cs[0].Serial != serial {
		t.Fatalf("the back office holds %+v %v", cs, err)
	}
	d.closeLedger()
}
