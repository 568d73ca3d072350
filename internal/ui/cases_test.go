package ui

import (
	"context"
	"image/png"
	"os"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// Paiements at the back office after a counter's offline payment of a
// ticket it had paid too (issue 29): the counter's payment is listed with
// its open case and what is to recover, the totals count the open case,
// and « Clore le dossier… » records a decision, after which the
// case reads closed.
func TestClaimsDoublePayment(t *testing.T) {
	ctx := context.Background()
	bo := doublePaid(t)
	d := newTestDesk(t, bo)
	defer d.closeLedger()
	d.win.Resize(fyne.NewSize(1024, 768))
	d.tabs.SelectIndex(tabClaims)
	c := d.claims
	c.reload()
	c.table.Refresh()
	if len(c.claims) != 2 {
		t.Fatalf("%d payments", len(c.claims))
	}
	row := 1 // the counter's, imported after the back office's
	if note := c.cell(c.claims[row], voidColumn); note != "double paiement\u00a0: dossier n°\u00a02 ouvert, 6 € à recouvrer" {
		t.Errorf("the counter's payment says %q", note)
	}
	if !strings.Contains(c.totals.Text, "1 double paiement ouvert") {
		t.Errorf("totals %q", c.totals.Text)
	}
	if path := os.Getenv("VEGAS_SCREENSHOT"); path != "" {
		f, _ := os.Create(path)
		png.Encode(f, d.win.Canvas().Capture())
		f.Close()
	}
	if right := abs(c.closeCase).X + c.closeCase.Size().Width; !c.closeCase.Visible() || right > 1024 {
		t.Errorf("« Clore le dossier… » visible %v, ends at %.0f px", c.closeCase.Visible(), right)
	}
	c.table.Select(widget.TableCellID{Row: 0, Col: 0})
	if c.closeCase.Disabled() {
		t.Error("« Clore » disabled on a payment with an open case")
	}
	c.table.Select(widget.TableCellID{Row: row, Col: 0})
	test.Tap(c.closeCase)
	test.Type(findEntry(t, d.win, "décision"), "6 € recouvrés auprès du gagnant")
	test.Tap(findButton(t, d.win, "Clore le dossier"))
	ks, err := bo.Cases(ctx)
	if err != nil || len(ks) != 1 || !ks[0].Closed || ks[0].Decision != "6 € recouvrés auprès du gagnant" || ks[0].ClosedBy != "Alice" {
		t.Fatalf("cases: %+v %v", ks, err)
	}
	if note := c.cell(c.claims[row], voidColumn); !strings.Contains(note, "clos\u00a0: 6 € recouvrés") || strings.Contains(c.totals.Text, "ouvert") {
		t.Errorf("after the decision: %q, totals %q", note, c.totals.Text)
	}
	c.table.Select(widget.TableCellID{Row: row, Col: 0})
	if !c.closeCase.Disabled() {
		t.Error("« Clore » enabled on a closed case")
	}
}
