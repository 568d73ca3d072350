package ui

import (
	"testing"

	"fyne.io/fyne/v2/lang"

	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/conformance"
)

// The pay dialog's identity form refuses, in the cashier's words, every
// identity of the table that is none (issue 23: characters that print
// nothing, too few letters or digits), and pays every given one: the
// dialog stays open on the first, with the reason.
func TestIdentityProblem(t *testing.T) {
	for _, c := range conformance.Identities() {
		w := c.Winner
		why := identityProblem(&w)
		if (why == "") != c.Given {
			t.Errorf("%s (identities.txt:%d): %q, given %v", c.Name, c.Line, why, c.Given)
		}
	}
	if why := identityProblem(nil); why != "" {
		t.Errorf("no identity asked: %q", why)
	}
	for w, want := range map[ledger.Winner]string{
		{Name: "\u200b\u3164", DocType: "CNI", DocNumber: "123456"}:   "The winner's name needs at least two letters (characters that print nothing do not count).",
		{Name: "Jean Dupont", DocType: "\u2800", DocNumber: "123456"}: "Name the identity document (identity card, passport…).",
		{Name: "Jean Dupont", DocType: "CNI", DocNumber: "12\ufeff3"}: "The document number needs at least four letters or digits.",
	} {
		if got := identityProblem(&w); got != lang.L(want) { // in the language a test before set
			t.Errorf("%+q: %q, want %q", w, got, want)
		}
	}
}
