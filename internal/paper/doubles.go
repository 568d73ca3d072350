package paper

import (
	"fmt"
	"time"

	"vegas-desk/internal/ledger/core"
)

// DoublePayment is a double payment (core.Case) in which the counter's
// payment takes part: a ticket it paid that another payment paid too. The
// counter's payment counts in its prizes paid (it paid the cash out); the
// amount is to recover, and the case stays open until a recorded decision.
type DoublePayment struct {
	Case   int64  // the case's number: the second payment's
	Serial string // masked
	Amount int    // euros to recover
	// Payments names both payments: "n° 8, guichet BO, 03/05/2025 à
	// 10:00:05; n° 9, guichet C1, 02/05/2025 à 10:00:01 (annulé)".
	Payments string
	Decision string // the decision that closed it; "" while it is open
}

// doublesOf makes cases into the papers' lines, times in loc.
func doublesOf(cases []core.Case, loc *time.Location) []DoublePayment {
	var out []DoublePayment
	for _, k := range cases {
		ps := ""
		for i, p := range []core.Claim{k.First, k.Second} {
			if i > 0 {
				ps += "; "
			}
			ps += fmt.Sprintf("n°%s%d, guichet %s, %s", nbsp, p.Number, orDash(p.Desk), stamp(p.At.In(loc)))
			if p.Voided {
				ps += " (annulé)"
			}
		}
		x := DoublePayment{Case: k.Number, Serial: core.MaskSerial(k.Serial), Amount: k.Amount, Payments: ps}
		if k.Closed {
			x.Decision = k.Decision // never empty: CloseCase asks for one
		}
		out = append(out, x)
	}
	return out
}

// doubles prints the double payments, when there are any.
func doubles(d *doc, ds []DoublePayment) {
	if len(ds) == 0 {
		return
	}
	d.heading(fmt.Sprintf("Doubles paiements à régulariser (%d)", len(ds)), 3*rowH)
	d.font("", 8.5)
	d.para(0, 4.2, "Un ticket payé deux fois : chaque paiement compte dans les gains payés de son guichet, "+
		"qui a remis l’argent. Le montant est à recouvrer ; le dossier reste ouvert jusqu’à une décision enregistrée "+
		"(vegas-desk cases close).", "L")
	t := table{d, []column{
		{"Dossier", 17, "R", false},
		{"Ticket", 72, "L", true},
		{"À recouvrer", 25, "R", false},
		{"État", 66, "L", false},
	}, 1}
	t.header()
	for _, x := range ds {
		state, note := "ouvert", "Paiements"+nbsp+":"+nbsp+x.Payments
		if x.Decision != "" {
			state, note = "clos", note+" — Décision"+nbsp+":"+nbsp+x.Decision
		}
		t.row("", note, "n°"+nbsp+fmt.Sprint(x.Case), orDash(x.Serial), euros(x.Amount), state)
	}
}
