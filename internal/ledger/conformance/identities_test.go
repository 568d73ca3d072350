package conformance

import (
	"testing"

	"vegas-desk/internal/ledger/core"
)

// Go's rule against the identities table: whether each identity is
// given, the name as kept, and a normal form that normalising again
// leaves as it is (what PostgreSQL normalises again is Go's).
func TestIdentitiesGo(t *testing.T) {
	cases := Identities()
	if len(cases) < 50 {
		t.Fatalf("%d identities: the table was not read whole", len(cases))
	}
	for _, c := range cases {
		w := c.Winner
		if got := w.Given(); got != c.Given {
			t.Errorf("%s (identities.txt:%d): given %v, want %v (%v)", c.Name, c.Line, got, c.Given, w.Check())
		}
		n := w.Normal()
		if c.Given && n.Name != c.Kept {
			t.Errorf("%s (identities.txt:%d): name kept %q, want %q", c.Name, c.Line, n.Name, c.Kept)
		}
		if c.Key != "" && core.NameSkeleton(n.Name) != c.Key {
			t.Errorf("%s (identities.txt:%d): key %q, want %q", c.Name, c.Line, core.NameSkeleton(n.Name), c.Key)
		}
		if again := n.Normal(); *again != *n {
			t.Errorf("%s (identities.txt:%d): normalised again %+q, was %+q", c.Name, c.Line, *again, *n)
		}
		// (One that is none may have a normal form given: a bidirectional
		// control is refused as typed, and removed by normalising.)
		if c.Given && !n.Given() {
			t.Errorf("%s (identities.txt:%d): its normal form is not given", c.Name, c.Line)
		}
	}
}

// Plain text typed once is kept as typed, so that the identities of the
// payments made before the rule hash as they did.
func TestIdentityPlainUnchanged(t *testing.T) {
	for _, s := range []string{"Jean Dupont", "Zoë Ørsted", "CNI", "X12345", "Jeanne-Marie O'Neil", "passeport n° 12"} {
		if got := core.IdentityText(s); got != s {
			t.Errorf("IdentityText(%q) = %q", s, got)
		}
	}
	w := core.Winner{Name: "Jean Dupont", DocType: "CNI", DocNumber: "123456"}
	// SHA-256 of "name=11:Jean Dupont\ndoc_type=3:CNI\ndoc_number=6:123456\n",
	// the hash the identity always had.
	const before = "f81b2feaad42836aa894725aa23f809414028076b2f4719bf9ea96f13840f57b"
	if h := core.IdentityHash(w.Normal()); h != before {
		t.Errorf("the hash of a plain identity changed: %s, was %s", h, before)
	}
}

// An identity kept before issue 29's rule (a number out of its
// document's format) still verifies: its hash is the one recorded, and
// it is legible (verify's test of a kept identity), though a payment
// would not take it now.
func TestIdentityKeptBeforeVerifies(t *testing.T) {
	w := core.Winner{Name: "Jean Dupont", DocType: "CNI", DocNumber: "123456"}
	if w.Legible() != nil || w.Given() {
		t.Errorf("legible %v, given %v", w.Legible(), w.Given())
	}
	// Kept before issue 44: a CNI, a passport typed (their zone is never
	// kept), a titre de séjour's foreigner number: still identities when
	// the back office imports them from a counter (CheckKept), though a
	// claim takes them from their zone only now.
	for _, w := range []core.Winner{{Name: "Jean Dupont", DocType: "CNI", DocNumber: "880692310285"},
		{Name: "Zoë Ørsted", DocType: "passeport", DocNumber: "19AB12345"},
		{Name: "Amadou Diallo", DocType: "titre de séjour", DocNumber: "7503124896"}} {
		if w.CheckKept() != nil || w.Given() {
			t.Errorf("%+v: kept %v, given %v", w, w.CheckKept(), w.Given())
		}
	}
}

// Issue 44: look-alikes of one name in capitals of another script kept
// apart. Every group of the table's lines with one key= shares it, and
// the key of before (LegacyNameSkeleton: the skeleton of the name in lower
// case) split each group but Copa's; a name apart stays apart.
func TestLookAlikeKeys(t *testing.T) {
	groups := map[string][]IdentityCase{}
	for _, c := range Identities() {
		if c.Key != "" {
			groups[c.Key] = append(groups[c.Key], c)
		}
	}
	if len(groups) < 6 {
		t.Fatalf("%d groups of look-alikes: the table was not read whole", len(groups))
	}
	for key, cs := range groups {
		before := map[string]bool{}
		for _, c := range cs {
			n := c.Winner.Normal()
			if got := core.NameSkeleton(n.Name); got != key {
				t.Errorf("%s %q (identities.txt:%d): key %q, want %q", c.Name, n.Name, c.Line, got, key)
			}
			before[core.LegacyNameSkeleton(n.Name)] = true
		}
		t.Logf("%q: %d names, %d keys before issue 44", key, len(cs), len(before))
	}
	if core.NameSkeleton("Jean Dupont") == core.NameSkeleton("Jean Dupond") || core.NameSkeleton("THEO TOMAS") == core.NameSkeleton("THEA TOMAS") {
		t.Error("two names meet")
	}
}

// Look-alikes of one name meet on their confusable skeleton (Unicode
// TR39): a Cyrillic name and the Latin one it looks like, and one name
// in two cases; two names that differ do not.
func TestNameSkeleton(t *testing.T) {
	for _, p := range [][2]string{{"Сора", "Copa"}, {"JEAN DUPONT", "Jean Dupont"}, {"Ｊｅａｎ", "Jean"}, {"Jean\u200bDupont", "JeanDupont"}} {
		if a, b := core.NameSkeleton(p[0]), core.NameSkeleton(p[1]); a != b {
			t.Errorf("%q and %q: skeletons %q and %q", p[0], p[1], a, b)
		}
	}
	if core.NameSkeleton("Jean Dupont") == core.NameSkeleton("Jean Dupond") {
		t.Error("two names meet")
	}
	// The look-alike is a given identity of its own (one script), which
	// the skeleton finds.
	if c, ok := IdentityNamed("cyrillic-lookalike"); !ok || !c.Winner.Given() || core.NameSkeleton(c.Winner.Name) != core.NameSkeleton("Copa") {
		t.Errorf("cyrillic-lookalike: %+v", c)
	}
}
