package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"vegas-desk/internal/ledger"
	"vegas-desk/internal/pgtest"
)

// The app on a shared ledger, as a counter's login: Réglages opens it by
// its address and asks the password the server wants; the status line names
// the counter and says the server answers; the counter pays with the
// database's limit; the payments are the counter's; and when the server
// does not answer, the counter says REGISTRE INJOIGNABLE and the status
// line INJOIGNABLE.
func TestSharedLedger(t *testing.T) {
	ctx := context.Background()
	pg, err := pgtest.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Stop()
	db := pg.NewDatabase(t)
	bo, err := ledger.Copy(ctx, fixture, pg.URL(pgtest.Owner, db), nil)
	if err != nil {
		t.Fatal(err)
	}
	desk, err := bo.AddDesk(ctx, "D1", 100, "the-counter-password", ledger.Identity{Desk: "BO", Operator: "eve"})
	if err != nil {
		t.Fatal(err)
	}
	bo.Close()
	t.Setenv("PGPASSWORD", "") // the password comes from the dialog

	d := newTestDesk(t, nil)
	d.settings.openShared(pg.URLWithout(desk.Role, db), "")
	pw := findEntry(t, d.win, "")
	test.Type(pw, "the-counter-password")
	test.Tap(findButton(t, d.win, "Se connecter"))
	if d.ledger == nil || d.ledger.CounterDesk() != "D1" {
		t.Fatalf("not opened as counter D1: %v", d.ledger)
	}
	defer d.closeLedger()
	waitFor(t, "the status line", 10*time.Second, func() bool {
		return strings.Contains(d.status.Text, "Identifiant du guichet D1") && strings.Contains(d.status.Text, "connecté")
	})
	if strings.Contains(d.status.Text, "the-counter-password") || strings.Contains(d.app.Preferences().String(prefLedger), "the-counter-password") {
		t.Errorf("the password shows: %q / %q", d.status.Text, d.app.Preferences().String(prefLedger))
	}

	c := d.counter
	serial := takeWinner(t, 3)
	scan(d, serial)
	if c.view.kind != verdictWinner {
		t.Fatalf("verdict %q %s, want GAGNANT", c.view.title.Text(), c.view.detail.Text)
	}
	test.Tap(c.view.pay)
	test.Tap(findButton(t, d.win, "PAYER"))
	if c.view.kind != verdictJustPaid {
		t.Fatalf("after PAYER: %q %s", c.view.title.Text(), c.view.detail.Text)
	}
	scan(d, winners[1000][0]) // read, not taken: a referral pays nothing, and the fixture has one
	if c.view.title.Text() != "À PAYER PAR LE SERVICE CENTRAL" {
		t.Errorf("1,000 € at a desk of 100 €: %q", c.view.title.Text())
	}
	d.tabs.SelectIndex(tabClaims)
	if len(d.claims.claims) != 1 || d.claims.claims[0].Desk != "D1" {
		t.Errorf("payments: %+v", d.claims.claims)
	}

	start, err := pg.Stopped()
	if err != nil {
		t.Fatal(err)
	}
	defer start()
	scan(d, takeWinner(t, 3))
	if c.view.title.Text() != "REGISTRE INJOIGNABLE — NE PAS PAYER" || c.view.pay.Visible() {
		t.Errorf("with the server away: %q, PAYER %v", c.view.title.Text(), c.view.pay.Visible())
	}
	if !strings.Contains(d.status.Text, "INJOIGNABLE") {
		t.Errorf("status line %q", d.status.Text)
	}
}
