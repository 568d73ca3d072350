package backoffice_test

import (
	"reflect"
	"strings"
	"testing"

	"vegas-desk/internal/ledger/backoffice"
)

// TestFieldsFollowColumns holds each row's Fields, the pointers a question's
// read scans into by position (here and on PostgreSQL), to its columns'
// order: two columns of one type swapped in the text or in Fields would
// read each into the other's field without an error.
func TestFieldsFollowColumns(t *testing.T) {
	var rules backoffice.RulesRow
	var block backoffice.BlockRow
	var claim backoffice.ClaimRow
	claimCols := strings.TrimPrefix(backoffice.ClaimSelect, "SELECT ")
	claimCols = claimCols[:strings.Index(claimCols, "\nFROM ")]
	for _, c := range []struct {
		name   string
		row    any
		cols   string
		fields []any
	}{
		{"RulesRow", &rules, backoffice.RulesCols, rules.Fields()},
		{"BlockRow", &block, backoffice.BlockCols, block.Fields()},
		{"ClaimRow", &claim, claimCols, claim.Fields()},
	} {
		want := columnNames(c.cols)
		var got []string
		for _, f := range c.fields {
			got = append(got, tagAt(reflect.ValueOf(c.row).Elem(), reflect.ValueOf(f).Pointer()))
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%s: Fields scan into\n\t%s\nits columns are\n\t%s", c.name, strings.Join(got, ","), strings.Join(want, ","))
		}
	}
	if got := columnNames("a.b AS c, f(x, (y)) AS d, e"); strings.Join(got, ",") != "c,d,e" {
		t.Errorf("columnNames: %q", got)
	}
}

// columnNames are the names of a select list's columns: each one's alias,
// else its name after the table's.
func columnNames(list string) []string {
	var names []string
	depth, start := 0, 0
	add := func(item string) {
		item = strings.TrimSpace(item)
		if i := strings.LastIndex(strings.ToUpper(item), " AS "); i >= 0 {
			item = item[i+4:]
		}
		names = append(names, item[strings.LastIndex(item, ".")+1:])
	}
	for i, r := range list {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				add(list[start:i])
				start = i + 1
			}
		}
	}
	add(list[start:])
	return names
}

// tagAt is the db tag of v's field (embedded structs' included) at address p.
func tagAt(v reflect.Value, p uintptr) string {
	for i := range v.NumField() {
		f := v.Field(i)
		if v.Type().Field(i).Anonymous && f.Kind() == reflect.Struct {
			if tag := tagAt(f, p); tag != "" {
				return tag
			}
			continue
		}
		if f.Addr().Pointer() == p {
			return v.Type().Field(i).Tag.Get("db")
		}
	}
	return ""
}
