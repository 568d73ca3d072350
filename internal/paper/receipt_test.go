package paper

import (
	"bytes"
	"strings"
	"testing"
)

func sampleReceipt() Receipt {
	return Receipt{
		Game: 531, GameName: "VEGAS",
		Serial:      "531-0001-0456789-******-6",
		Amount:      1000,
		PaidAt:      at(1, 12, 0, 5),
		Desk:        "D1",
		Cashier:     "Anaïs",
		Payment:     17,
		EntryHash:   "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
		JournalHead: "60303ae22b998861bce3b28f33eec1be758a213c86c93c076dbe9f558c11c752",
		PrintedAt:   at(1, 12, 0, 6),
	}
}

func TestReceipt(t *testing.T) {
	voided := sampleReceipt()
	voided.Voided = true
	voided.VoidedAt = at(1, 12, 30, 0)
	voided.VoidedBy = "Benoît"
	voided.VoidReason = "montant saisi sur le mauvais ticket, rendu au joueur"
	voided.PrintedAt = at(1, 12, 31, 0)
	for _, c := range []struct {
		name string
		r    Receipt
	}{{"receipt", sampleReceipt()}, {"receipt-voided", voided}} {
		t.Run(c.name, func(t *testing.T) {
			pdf := write(t, func(w *bytes.Buffer) error { return WriteReceipt(w, c.r) })
			text := pdfText(t, pdf)
			golden(t, c.name+".txt", text)
			if got := pages(text); got != 1 {
				t.Errorf("%d pages, want 1", got)
			}
			if got, want := strings.Contains(text, "ANNULÉ"), c.r.Voided; got != want {
				t.Errorf("says ANNULÉ: %v, want %v", got, want)
			}
			// French typography: no-break spaces before the colon and the
			// euro sign, between groups of digits and after n°.
			content := pdfContent(t, pdf)
			for _, want := range []string{
				nbsp + ":" + nbsp + "1" + nbsp + "000" + nbsp + "€", "MILLE EUROS", "Paiement" + nbsp + ":",
				"n°" + nbsp + "17", "Caissier" + nbsp + ":", "Anaïs", "l’impression",
			} {
				if !strings.Contains(content, want) {
					t.Errorf("no %q in the receipt", want)
				}
			}
		})
	}
}

// A long reason and long names wrap: the receipt grows, on one page.
func TestReceiptLong(t *testing.T) {
	r := sampleReceipt()
	r.Voided = true
	r.VoidReason = strings.Repeat("une raison très longue ", 20)
	r.Cashier = strings.Repeat("Marie-Christine ", 5)
	text := pdfText(t, write(t, func(w *bytes.Buffer) error { return WriteReceipt(w, r) }))
	if got := pages(text); got != 1 {
		t.Errorf("%d pages, want 1", got)
	}
}
