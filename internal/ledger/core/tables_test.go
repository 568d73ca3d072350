package core

import (
	"reflect"
	"slices"
	"testing"

	"vegas-desk/internal/ledger/tables"
)

// An entry is the journal's row as every engine declares it
// (tables.Journal): Entry's columns, Values and Fields name its columns,
// in its order.
func TestEntryIsTheJournalsRow(t *testing.T) {
	names := tables.Journal.Names()
	var tagged []string
	index := map[string]int{} // a column's field
	et := reflect.TypeFor[Entry]()
	for i := range et.NumField() {
		if tag := et.Field(i).Tag.Get("db"); tag != "" && tag != "-" {
			tagged, index[tag] = append(tagged, tag), i
		}
	}
	if !slices.Equal(tagged, names) {
		t.Fatalf("Entry's columns are\n%v\nthe journal's (tables.Journal)\n%v", tagged, names)
	}
	var e Entry
	ev := reflect.ValueOf(&e).Elem()
	fields, values := e.Fields(), e.Values()
	if len(fields) != len(names) || len(values) != len(names) {
		t.Fatalf("Fields gives %d columns, Values %d, the journal has %d", len(fields), len(values), len(names))
	}
	for i, name := range names {
		if want := ev.Field(index[name]).Addr().Pointer(); reflect.ValueOf(fields[i]).Pointer() != want {
			t.Errorf("Fields()[%d] is not the column %s", i, name)
		}
	}
	// Values reads each column: every field set apart, each read back in
	// its place.
	for i, name := range names {
		e = Entry{}
		fv := ev.Field(index[name])
		switch fv.Kind() {
		case reflect.String:
			fv.SetString("x")
		case reflect.Int, reflect.Int64:
			fv.SetInt(7)
		case reflect.Slice:
			fv.SetBytes([]byte{7})
		case reflect.Struct: // sql.NullInt64
			fv.Field(0).SetInt(7)
			fv.Field(1).SetBool(true)
		}
		for j, v := range e.Values() {
			if set := !reflect.ValueOf(v).IsZero(); set != (j == i) {
				t.Errorf("with the column %s set, Values()[%d] (%s) is %v", name, j, names[j], v)
			}
		}
	}
}
