package paper

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// sampleDay is a busy day: enough payments to run onto a second page, and
// the rest onto a third.
func sampleDay() DayReport {
	r := DayReport{
		Desk:        "D1",
		Day:         at(1, 0, 0, 0),
		JournalHead: "60303ae22b998861bce3b28f33eec1be758a213c86c93c076dbe9f558c11c752",
		PrintedAt:   at(1, 19, 30, 0),
	}
	amounts := []int{3, 6, 9, 15, 50, 3, 6, 100, 3, 1000}
	cashiers := []string{"Anaïs", "Benoît", "Zoé"}
	for i := range 60 {
		pos := 456_000 + 37*i
		r.Payments = append(r.Payments, Payment{
			Number:  int64(100 + i),
			At:      at(1, 9+i/6, (i%6)*10, i%60),
			Serial:  fmt.Sprintf("531-0001-%07d-••••-••••-••••-%04d-%d", pos, pos%10000, pos%10),
			Amount:  amounts[i%len(amounts)],
			Cashier: cashiers[i%len(cashiers)],
		})
	}
	r.Voids = []Void{
		{Payment: 104, At: at(1, 9, 45, 0), Serial: r.Payments[4].Serial, Amount: 50, By: "Benoît",
			Reason: "payé sur le mauvais ticket : le joueur en tendait deux, celui-ci est perdant"},
		{Payment: 87, At: at(1, 10, 5, 0), Serial: "531-0001-0455000-••••-••••-••••-5000-0", Amount: 15, By: "Anaïs",
			Reason: "double saisie"},
	}
	for i := range 25 {
		r.PacksReceived = append(r.PacksReceived, Pack{531, 1, 2280 + i})
	}
	r.PacksReceived = append(r.PacksReceived, Pack{531, 1, 2310}, Pack{531, 2, 7}, Pack{531, 1, 2281})
	r.Sales = []Sale{{Pack{531, 1, 2280}, 200, 600}, {Pack{531, 1, 2281}, 200, 600}}
	r.Referrals = []Referral{
		{At: at(1, 11, 5, 0), Serial: "531-0001-0456111-••••-••••-••••-6111-1", Amount: 1000, Cashier: "Zoé", Tries: 2},
		{At: at(1, 16, 40, 0), Serial: "531-0002-0001234", Cashier: "Anaïs", Tries: 1},
	}
	return r
}

func TestDayReport(t *testing.T) {
	text := pdfText(t, write(t, func(w *bytes.Buffer) error { return WriteDayReport(w, sampleDay()) }))
	golden(t, "day.txt", text)
	if got := pages(text); got != 3 {
		t.Errorf("%d pages, want 3", got)
	}
	for _, want := range []string{"page 1/3", "page 3/3", "531-0001-2280-7 à 531-0001-2304-7, 531-0001-2310-7, 531-0002-0007-7",
		"Carnets reçus (27)", "Carnets mis en vente (2)", "Renvois au service central (2)", "non gardé"} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in the report", want)
		}
	}
	// The payments table's header is repeated on the second page.
	if got := strings.Count(text, "Opération"); got != 2 {
		t.Errorf("the payments header is printed %d times, want 2 (once a page)", got)
	}
}

func TestDayReportEmpty(t *testing.T) {
	r := DayReport{Desk: "D2", Day: at(2, 0, 0, 0)}
	text := pdfText(t, write(t, func(w *bytes.Buffer) error { return WriteDayReport(w, r) }))
	golden(t, "day-empty.txt", text)
}
