package paper

import (
	"fmt"
	"io"
	"time"
)

// Receipt is what the receipt of one payment shows.
type Receipt struct {
	Game     int    // game code: 531
	GameName string // VEGAS
	// Serial is the ticket's serial with its secret part masked by the
	// caller ("531-0001-0456789-******-6"): receipts get left lying
	// about, and the serial whole is what a claim needs.
	Serial      string
	Amount      int       // the prize paid, in euros
	PaidAt      time.Time // printed in its own location: pass local time
	Desk        string    // the counter's id
	Cashier     string    // who paid
	Payment     int64     // the payment (claim) number
	EntryHash   string    // hex hash of the payment's journal entry
	JournalHead string    // hex hash of the journal's last entry when printing
	// PrintedAt is when the receipt is printed; it is the PDF's date too
	// (PaidAt when zero).
	PrintedAt time.Time

	// Shop is the retailer's name, printed at the top ("" for none).
	Shop string
	// Duplicate marks a receipt printed again: DUPLICATA.
	Duplicate bool

	// A voided payment's receipt says ANNULÉ, when, by whom and why.
	Voided     bool
	VoidedAt   time.Time
	VoidedBy   string
	VoidReason string
}

// Receipt page: 80 mm is the roll width of counter receipt printers, with a
// printable width of 72 mm; the page is as long as the receipt, since a
// roll has no page length and a driver cuts after each page.
const (
	rollWidth    = 80.0
	rollMargin   = 4.0
	receiptLabel = 20.0 // the width of the labels' column
)

// WriteReceipt writes the receipt of a payment: one page 80 mm wide.
func WriteReceipt(w io.Writer, r Receipt) error {
	m := meta{title: fmt.Sprintf("Reçu du paiement n°%s%d", nbsp, r.Payment), date: docDate(r.PrintedAt, r.PaidAt)}
	// Lay it out on a long strip to measure it, then on a page of its length.
	d := newDoc(m, rollWidth, 1000, 0)
	r.layout(d)
	if err := d.pdf.Error(); err != nil {
		return err
	}
	d = newDoc(m, rollWidth, d.pdf.GetY()+rollMargin, 0)
	r.layout(d)
	if err := d.pdf.Error(); err != nil {
		return err
	}
	return d.pdf.Output(w)
}

func (r *Receipt) layout(d *doc) {
	pdf := d.pdf
	pdf.SetMargins(rollMargin, rollMargin+1, rollMargin)
	pdf.SetAutoPageBreak(false, 0)
	pdf.AddPage()

	if r.Shop != "" {
		d.font("B", 11)
		d.para(0, 5, r.Shop, "C")
		pdf.Ln(1)
	}
	d.font("B", 18)
	d.line(8, orDash(r.GameName), "C")
	d.font("", 9)
	d.line(4.5, fmt.Sprintf("jeu %03d", r.Game), "C")
	pdf.Ln(1.5)
	d.font("B", 11)
	d.line(6, "REÇU DE PAIEMENT", "C")
	pdf.Ln(1.5)
	if r.Duplicate {
		d.font("B", 16)
		pdf.SetLineWidth(0.6)
		pdf.CellFormat(0, 9, cp1252("DUPLICATA"), "1", 1, "C", false, 0, "")
		pdf.Ln(1.5)
	}
	d.rule(0.3)
	pdf.Ln(2)

	if r.Voided {
		r.void(d)
	}

	lw := receiptLabel
	d.field(lw, 5, "Paiement", "n°"+nbsp+fmt.Sprint(r.Payment))
	d.field(lw, 5, "Date", stamp(r.PaidAt))
	d.field(lw, 5, "Guichet", orDash(r.Desk))
	d.field(lw, 5, "Caissier", orDash(r.Cashier))
	d.font("", 9.5)
	d.cell(lw, 5, "Ticket"+nbsp+":", "L")
	d.mono("B", 9)
	d.para(0, 5, orDash(r.Serial), "L")
	pdf.Ln(2)
	d.rule(0.3)
	pdf.Ln(2.5)

	label := "Montant"
	if r.Voided {
		label = "Montant annulé"
	}
	amount := label + nbsp + ":" + nbsp + euros(r.Amount)
	size := 16.0 // smaller if it would not fit on a line
	d.font("B", size)
	for size > 10 && d.width(amount) > d.textWidth() {
		size--
		d.font("B", size)
	}
	d.para(0, 8, amount, "C")
	if words := amountWords(r.Amount); words != "" {
		d.font("", 8.5)
		d.para(0, 4.5, words, "C")
	}
	pdf.Ln(2)
	d.rule(0.3)
	pdf.Ln(2)

	d.receiptHash(fmt.Sprintf("Écriture du paiement au journal%s:", nbsp), r.EntryHash)
	pdf.Ln(1)
	d.receiptHash(fmt.Sprintf("Tête du journal à l’impression%s:", nbsp), r.JournalHead)
	pdf.Ln(2)
	d.font("", 7.5)
	d.line(4, "Imprimé le "+stamp(docDate(r.PrintedAt, r.PaidAt)), "C")
}

// void prints the ANNULÉ banner, white on black, and the void's details.
func (r *Receipt) void(d *doc) {
	pdf := d.pdf
	pdf.SetFillColor(0, 0, 0)
	pdf.SetTextColor(255, 255, 255)
	d.font("B", 24)
	pdf.CellFormat(0, 12, cp1252("ANNULÉ"), "", 1, "C", true, 0, "")
	pdf.SetTextColor(0, 0, 0)
	pdf.Ln(1.5)
	d.field(receiptLabel, 5, "Annulé le", stamp(r.VoidedAt))
	d.field(receiptLabel, 5, "Par", orDash(r.VoidedBy))
	d.font("B", 9.5)
	d.cell(receiptLabel, 5, "Motif"+nbsp+":", "L")
	d.para(0, 5, orDash(r.VoidReason), "L")
	pdf.Ln(2)
	d.rule(0.3)
	pdf.Ln(2)
}

// receiptHash prints a label and a 64-digit hash on two centred lines.
func (d *doc) receiptHash(label, hex string) {
	d.font("", 7.5)
	d.line(4, label, "L")
	d.mono("", 8)
	for _, l := range hexLines(hex, 4) {
		d.line(3.8, l, "C")
	}
}
