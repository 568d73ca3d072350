package ui

import (
	"strings"
	"testing"
	"time"

	"vegas-desk/internal/ledger"
)

// A ticket another desk paid, as a validation server shows it (its date
// only), is said to be paid on that date at another desk, with no empty
// desk or cashier; the desk's own payment names both.
func TestClaimTextOfAnotherDesk(t *testing.T) {
	defer setLanguage("fr")
	at := time.Date(2026, 3, 4, 10, 0, 0, 0, time.Local)
	setLanguage("fr")
	if got := claimText(&ledger.Claim{At: at}); got != "Déjà payé le 04/03/2026 à un autre guichet" {
		t.Errorf("another desk's payment: %q", got)
	}
	if got := claimText(&ledger.Claim{At: at, Desk: "C1", Operator: "ann"}); !strings.Contains(got, "C1") || !strings.Contains(got, "ann") {
		t.Errorf("the desk's own payment: %q", got)
	}
	setLanguage("en")
	if got := claimText(&ledger.Claim{At: at}); got != "Already paid on 04/03/2026 at another desk" {
		t.Errorf("in English: %q", got)
	}
}
