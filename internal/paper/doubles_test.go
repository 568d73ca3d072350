package paper

import (
	"bytes"
	"strings"
	"testing"

	"vegas-desk/internal/ledger/core"
)

// A double payment on the day report and the settlement of the counter
// whose payment it is: the case, what is to recover, both payments, open
// or closed with its decision.
func TestDoublePaymentOnPapers(t *testing.T) {
	first := core.Claim{Number: 8, Desk: "BO", Serial: "531-0001-0000114-1029-4656-2862-7967-7", Amount: 50, At: at(3, 10, 0, 5), Voided: true}
	second := core.Claim{Number: 9, Desk: "C1", Serial: first.Serial, Amount: 50, At: at(2, 10, 0, 1)}
	k := core.Case{Number: 9, Serial: first.Serial, Amount: 50, First: first, Second: second}
	day := DayReportOf(core.DayFacts{Desk: "C1", Day: at(2, 0, 0, 0), Payments: []core.Claim{second}, Cases: []core.Case{k}}, paris)
	st := sampleSettlement()
	closed := k
	closed.Closed, closed.Decision = true, "recouvré auprès du gagnant"
	st.Doubles = doublesOf([]core.Case{closed}, paris)
	for name, write1 := range map[string]func(w *bytes.Buffer) error{
		"day":        func(w *bytes.Buffer) error { return WriteDayReport(w, day) },
		"settlement": func(w *bytes.Buffer) error { return WriteSettlement(w, st) },
	} {
		text := strings.Join(strings.Fields(pdfText(t, write(t, write1))), " ")
		for _, want := range []string{"Doubles paiements à régulariser (1)", "n° 9", "50 €", "n° 8, guichet BO, 03/05/2025 à 10:00:05 (annulé)", "guichet C1, 02/05/2025 à 10:00:01"} {
			if !strings.Contains(text, want) {
				t.Errorf("%s: no %q in\n%s", name, want, text)
			}
		}
		state := map[string]string{"day": "ouvert", "settlement": "Décision : recouvré auprès du gagnant"}[name]
		if !strings.Contains(text, state) {
			t.Errorf("%s: no %q in\n%s", name, state, text)
		}
	}
}

// The day report's CSV has a row for the case.
func TestDoublePaymentOnDayCSV(t *testing.T) {
	first := core.Claim{Number: 8, Desk: "BO", Amount: 50, At: at(3, 10, 0, 5)}
	second := core.Claim{Number: 9, Desk: "C1", Amount: 50, At: at(2, 10, 0, 1)}
	day := DayReportOf(core.DayFacts{Desk: "C1", Day: at(2, 0, 0, 0), Payments: []core.Claim{second},
		Cases: []core.Case{{Number: 9, Amount: 50, First: first, Second: second}}}, paris)
	var b bytes.Buffer
	if err := WriteDayReportCSV(&b, day); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "C1,2025-05-02,double-payment,,9,—,50,,\"n°\u00a08, guichet BO, 03/05/2025 à 10:00:05; n°\u00a09, guichet C1, 02/05/2025 à 10:00:01\",,\n") {
		t.Errorf("the day's CSV:\n%s", b.String())
	}
}
