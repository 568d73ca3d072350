package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"vegas-desk/internal/ledger/ledgertest"
	"vegas-desk/internal/printer/printertest"
)

// Issue 39 item 3: completion of flag values, through cobra's __complete
// (what the scripts of vegas-desk completion ask): the documents of
// --winner-doc, CUPS's queues for --printer, the ledger's desks for --desk
// and the desks commands' ID, its blocks for --block, pack states; the
// ledger only read.
func TestCompleteValues(t *testing.T) {
	t.Setenv("LANG", "C")
	printertest.Install(t, "Recus", "Bureau")
	db := ledgertest.Copy(t, ledgertest.Block)
	for _, id := range []string{"C2", "C10"} {
		if _, errs, code := vd(t, db, "", "desks", "add", id, "--limit", "300"); code != 0 {
			t.Fatalf("desks add %s: %s", id, errs)
		}
	}
	if _, errs, code := vd(t, db, "", "desks", "disable", "C10"); code != 0 {
		t.Fatal(errs)
	}
	before, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args       []string
		want, none []string
	}{
		{[]string{"claim", "x", "--winner-doc", ""}, []string{"CNI\n", "passeport\n", "titre de séjour\n", "permis de conduire\n"}, nil},
		{[]string{"receipt", "1", "--printer", ""}, []string{"Bureau\n", "Recus\n"}, nil},
		{[]string{"claim", "x", "--desk", ""}, []string{"C2\tpayout limit 300 €\n", "C10\tpayout limit 300 €, disabled\n"}, nil},
		{[]string{"desks", "disable", ""}, []string{"C2\t", "C10\t"}, nil},
		{[]string{"desks", "limit", ""}, []string{"C2\t"}, nil},
		{[]string{"desks", "limit", "C2", ""}, nil, []string{"C2\t"}},
		{[]string{"desks", "add", ""}, nil, []string{"C2\t"}},
		{[]string{"report", "--block", ""}, []string{"1\t531/1\n"}, nil},
		{[]string{"packs", "list", "--state", ""}, []string{"stock\n", "on-sale\n", "stolen\n"}, nil},
		{[]string{"claim", "x", "--method", ""}, []string{"serial\n", "contents\n"}, nil},
	} {
		out, errs, code := vd(t, db, "", append([]string{"__complete"}, tc.args...)...)
		for _, w := range tc.want {
			if code != 0 || !strings.Contains(out, w) {
				t.Errorf("%v: exit %d, want %q in\n%s%s", tc.args, code, w, out, errs)
			}
		}
		for _, w := range tc.none {
			if strings.Contains(out, w) {
				t.Errorf("%v: %q completed\n%s", tc.args, w, out)
			}
		}
		if !strings.Contains(out, ":4\n") { // ShellCompDirectiveNoFileComp: no file name for a value
			t.Errorf("%v: the shell is told to complete file names\n%s", tc.args, out)
		}
	}
	after, err := os.ReadFile(db)
	if err != nil || !bytes.Equal(before, after) {
		t.Errorf("completing changed the ledger (%v)", err)
	}
	// In French, the descriptions too.
	t.Setenv("LANG", "fr_FR.UTF-8")
	if out, _, _ := vd(t, db, "", "__complete", "claim", "x", "--desk", ""); !strings.Contains(out, "C10\tplafond 300 €, désactivé\n") {
		t.Errorf("French desks:\n%s", out)
	}
}
