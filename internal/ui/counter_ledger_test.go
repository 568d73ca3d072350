package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/ledgertest"
	"vegas-desk/internal/paper"
)

// The app on a sealed counter ledger (issue 9): the status line says it is
// counter C1's sealed ledger with the payout limit sealed in it, whatever
// the settings say; the counter screen pays a winner by its serial, sends
// one above the limit to the back office and answers a wrong secret part
// like an unknown serial; the contents form finds a winner by its contents.
func TestSealedCounterLedger(t *testing.T) {
	ctx := context.Background()
	l, err := ledger.Open(ledgertest.Copy(t, ledgertest.Sealed, "C1.db"))
	if err != nil {
		t.Fatal(err)
	}
	d := newTestDesk(t, l) // the settings say desk G1, no limit of 100
	defer d.closeLedger()
	if s := d.status.Text; !strings.Contains(s, "Registre scellé du guichet C1 (hors ligne)") || !strings.Contains(s, "100 €") {
		t.Errorf("status line %q", s)
	}
	if b := d.settings.backups; b.offered.Visible() || !strings.Contains(b.why.Text, "registre de guichet scellé") {
		t.Errorf("backups of a sealed counter ledger: offered %v, %q", b.offered.Visible(), b.why.Text)
	}

	c := d.counter
	serial := takeWinner(t, 3) // winners of 3 € and 6 € are many in the fixture; 1,000 € one
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
	claims, err := l.Claims(ctx, ledger.ClaimFilter{})
	// It keeps the serial's public part, not its secret part.
	if err != nil || len(claims) != 1 || claims[0].Desk != "C1" || claims[0].Serial != serial[:16] {
		t.Errorf("the counter ledger's payments: %+v %v", claims, err)
	}
	scan(d, winners[1000][0]) // read, not taken: nothing is paid
	if c.view.kind != verdictOverLimit {
		t.Errorf("1,000 € at a counter of 100 €: %q", c.view.title.Text())
	}
	wrong, err := game.ParseSerial(takeWinner(t, 6))
	if err != nil {
		t.Fatal(err)
	}
	wrong.Secret = (wrong.Secret + 1) % game.SecretModulus // its check digit right
	scan(d, wrong.String())
	if c.view.kind != verdictUnknown {
		t.Errorf("a wrong secret part: %q, want NUMÉRO INCONNU", c.view.title.Text())
	}

	// The contents form: a winner found by its contents alone.
	tk, err := fixture.Lookup(ctx, takeWinner(t, 6), ledger.Identity{}, ledger.NoLimit)
	if err != nil {
		t.Fatal(err)
	}
	d.tabs.SelectIndex(tabContents)
	f := d.contents
	f.reset()
	fillContents(f, &tk.Ticket)
	f.check()
	if f.view.kind != verdictWinner || !f.view.pay.Visible() {
		t.Errorf("contents of a winner: %q %s", f.view.title.Text(), f.view.detail.Text)
	}
	if f.match == nil || f.match.Serial != tk.Serial || f.match.Prize != 6 {
		t.Errorf("the form found %+v, want %s", f.match, tk.Serial)
	}

	// The paid ticket's receipt, printed at the counter.
	rc, err := l.Receipt(ctx, claims[0].Number)
	if err != nil || rc.Claim.Serial != serial[:16] || rc.Head == "" || paper.ReceiptOf(rc, time.UTC).Serial != serial[:16]+"-••••-••••-••••-••••-•" {
		t.Errorf("the receipt of the counter's payment: %+v %v", rc, err)
	}

	// Carnets lists the packs as sealed, and offers no move.
	d.tabs.SelectIndex(tabPacks)
	p := d.packs
	if p.form.Visible() || !strings.Contains(p.result.Text, "Registre scellé du guichet C1") {
		t.Errorf("Carnets on a sealed ledger: form shown %v, %q", p.form.Visible(), p.result.Text)
	}
	if len(p.runs) == 0 || packCell(p.runs[0], 4) != "Scellé à l’émission du registre" {
		t.Errorf("Carnets on a sealed ledger lists %+v, want the packs sealed at the issue", p.runs)
	}
}
