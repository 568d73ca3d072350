package conformance

import (
	"strings"
	"testing"

	"vegas-desk/internal/ledger/core"
)

// A served answer that differs from a file's in everything but its
// verdict is a difference, as is one of a kind the table does not name;
// kinds that answer alike are none.
func TestDifferencesOfEveryKind(t *testing.T) {
	cases := Cases()
	c := cases[0]
	file := Answer{Verdict: "payable", Prize: 3, Position: 7, PackState: "on-sale", First: "", Entry: "lookup"}
	for _, kind := range append(append([]string{}, ServedKinds...), "cli-file") {
		other := Answer{Verdict: "payable", Prize: 30, Position: 8, PackState: "settled", First: "D9 30", Entry: ""}
		as := Answers{}
		as.Put(c, File, file)
		as.Put(c, Shared, file)
		as.Put(c, kind, other)
		d := as.Differences(cases)
		if len(d) != 1 || !strings.Contains(d[0], kind+" answers "+other.String()) {
			t.Errorf("%s answering otherwise: %q", kind, d)
		}
		as.Put(c, kind, file)
		if d := as.Differences(cases); len(d) != 0 {
			t.Errorf("%s answering alike: %q", kind, d)
		}
	}
}

// Another desk's payment is named alike whatever the kind showed of it.
func TestFirstOf(t *testing.T) {
	own, other := &core.Claim{Desk: "D1", Amount: 50}, &core.Claim{Desk: "D2", Amount: 50}
	if got := FirstOf(own, "D1"); got != "D1 50" {
		t.Errorf("own payment: %q", got)
	}
	if FirstOf(other, "D1") != FirstOf(&core.Claim{}, "D1") || FirstOf(nil, "D1") != "" {
		t.Errorf("another desk's payment, shown in full or its date only: %q %q", FirstOf(other, "D1"), FirstOf(&core.Claim{}, "D1"))
	}
}
