package tables

import (
	"strings"
	"testing"
)

// Expand writes each table in place of its line, and refuses a {{ that
// is not such a line of a table the ledger has, rather than leave it in
// the SQL a database would refuse (or in a comment, where it is prose).
func TestExpand(t *testing.T) {
	text := "-- the journal ({{journal}} below)\n{{journal}}\nCREATE INDEX i ON journal (at);\n  {{paid}}  \n"
	got := BackOffice.Expand(text)
	want := "-- the journal ({{journal}} below)\n" + BackOffice.Create(Journal) + ";\nCREATE INDEX i ON journal (at);\n" + BackOffice.Create(Paid) + ";\n"
	if got != want {
		t.Fatalf("expanded:\n%s\nwant:\n%s", got, want)
	}
	if !strings.HasPrefix(got[strings.Index(got, "\n")+1:], "CREATE TABLE journal (\n    id         INTEGER PRIMARY KEY,\n") {
		t.Errorf("the journal's CREATE TABLE begins %q", got[:120])
	}
	if w := Shared.Expand("{{waiting}}"); !strings.HasPrefix(w, "CREATE TABLE vegas.waiting (\n") || !strings.HasSuffix(w, ");") {
		t.Errorf("vegas.waiting: %q", w)
	}
	for _, c := range []struct {
		l    Ledger
		text string
	}{
		{BackOffice, "{{waiting}}"},    // PostgreSQL's only
		{Counter, "{{journals}}"},      // no such table
		{Shared, "CREATE {{journal}}"}, // not a line of its own
		{BackOffice, "{{journal}};"},
		{BackOffice, "{{journal"},
	} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), c.text) {
					t.Errorf("%s: Expand(%q) did not refuse it, naming the line: %v", c.l.Engine, c.text, r)
				}
			}()
			c.l.Expand(c.text)
		}()
	}
}

// A counter's journal checks its own kinds, on one line; a back office's
// eleven go on two, the sixth under the list's parenthesis.
func TestCreateKinds(t *testing.T) {
	if j := Counter.Create(Journal); !strings.Contains(j, "\n    kind       TEXT    NOT NULL CHECK (kind IN ('issue', 'claim', 'refusal', 'referral')),\n") {
		t.Errorf("a counter's journal:\n%s", j)
	}
	j := BackOffice.Create(Journal)
	first := "    kind       TEXT    NOT NULL CHECK (kind IN ('block', 'claim', 'void', 'refusal', 'packs',\n"
	i := strings.Index(j, first)
	if i < 0 || !strings.HasPrefix(j[i+len(first):], strings.Repeat(" ", len(first)-len("'block', 'claim', 'void', 'refusal', 'packs',\n")-1)+"'emission', ") {
		t.Errorf("a back office's journal:\n%s", j)
	}
}
