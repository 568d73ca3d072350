package ledger

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"vegas-desk/internal/ledger/backoffice"
	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/ledger/counter"
	"vegas-desk/internal/ledger/postgres"
	"vegas-desk/internal/ledger/sqlite"
	"vegas-desk/internal/ledger/tables"
)

// column is a column as its database describes it, in terms every engine
// shares: an integer, a text or a blob; whether NULL is allowed; its
// default ("" for none).
type column struct {
	Name, Type string
	Null       bool
	Default    string
}

func (c column) String() string {
	return fmt.Sprintf("%s %s null=%t default=%q", c.Name, c.Type, c.Null, c.Default)
}

// sqliteColumns are table's columns in the file that q reads.
func sqliteColumns(t *testing.T, q core.Querier, table string) []column {
	t.Helper()
	var rows []struct {
		Name    string         `db:"name"`
		Type    string         `db:"type"`
		NotNull bool           `db:"notnull"`
		Default sql.NullString `db:"dflt_value"`
		PK      int            `db:"pk"`
	}
	if err := core.Select(context.Background(), q, &rows, `SELECT name, type, "notnull", dflt_value, pk FROM pragma_table_info(?) ORDER BY cid`, table); err != nil {
		t.Fatal(err)
	}
	var cols []column
	for _, r := range rows {
		// INTEGER PRIMARY KEY is the rowid: never NULL, whatever notnull says.
		cols = append(cols, column{r.Name, strings.ToLower(r.Type), !r.NotNull && r.PK == 0, r.Default.String})
	}
	return cols
}

// pgColumns are vegas.table's columns in the database q reads.
func pgColumns(t *testing.T, q core.Querier, table string) []column {
	t.Helper()
	var rows []struct {
		Name     string `db:"column_name"`
		Type     string `db:"data_type"`
		Nullable string `db:"is_nullable"`
		Default  string `db:"dflt"`
	}
	if err := core.Select(context.Background(), q, &rows, `SELECT column_name, data_type, is_nullable, coalesce(column_default, '') AS dflt
		FROM information_schema.columns WHERE table_schema = 'vegas' AND table_name = ? ORDER BY ordinal_position`, table); err != nil {
		t.Fatal(err)
	}
	types := map[string]string{"integer": "integer", "bigint": "integer", "text": "text", "bytea": "blob", "timestamp with time zone": "timestamptz"}
	var cols []column
	for _, r := range rows {
		ty, ok := types[r.Type]
		if !ok {
			t.Fatalf("vegas.%s.%s: type %s, which no SQLite column has", table, r.Name, r.Type)
		}
		cols = append(cols, column{r.Name, ty, r.Nullable == "YES", strings.TrimSuffix(r.Default, "::text")})
	}
	return cols
}

// differ names the first column where got and want differ.
func differ(got, want []column) string {
	for i := range max(len(got), len(want)) {
		var g, w any = "none", "none"
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			return fmt.Sprintf("column %d is %v, not %v", i+1, g, w)
		}
	}
	return "the same"
}

// engineLedger is a ledger of one engine, for the tests of what every
// engine declares alike: its journal's and paid row's columns as its
// database describes them, and its engine's append.
type engineLedger struct {
	name    string
	columns func(t *testing.T, table string) []column
	engine  backoffice.Engine
}

// everyEngine opens a back office's file, a sealed counter ledger and a
// PostgreSQL back office, copies of the fixtures.
func everyEngine(t *testing.T) []engineLedger {
	bo := mustOpen(t, copyFixture(t))
	_, counters := counterCopies(t)
	c := mustOpen(t, counters[0])
	p := mustOpen(t, pgCopy(t))
	for _, l := range []*Ledger{bo, c, p} {
		t.Cleanup(func() { l.Close() })
	}
	file, sealed, shared := bo.b.(*sqlite.Backend), c.b.(*counter.Backend), p.b.(*postgres.Backend)
	return []engineLedger{
		{"back office's file", func(t *testing.T, table string) []column { return sqliteColumns(t, file.File().R, table) }, file.E},
		// A counter ledger's engine is the file's, its Append sqlite.Append.
		{"counter ledger", func(t *testing.T, table string) []column { return sqliteColumns(t, sealed.File().R, table) },
			sqlite.Engine{F: sealed.File()}},
		{"PostgreSQL", func(t *testing.T, table string) []column { return pgColumns(t, p.b.(*postgres.Backend).DB(), table) }, shared.E},
	}
}

// The journal and the paid row are declared once (internal/ledger/tables)
// for every engine. Each engine's table, as its database describes it,
// has the same columns in the same order, with equivalent types, the same
// NULLs and defaults (PostgreSQL's journal has seq beyond them, and its
// vegas.waiting the journal's columns but those the chain gives); and an
// entry that each engine appends, every column set, reads back equal.
func TestJournalTableEveryEngine(t *testing.T) {
	ctx := context.Background()
	ls := everyEngine(t)
	for _, table := range []string{"journal", "paid"} {
		want := ls[0].columns(t, table)
		if len(want) < 2 {
			t.Fatalf("%s's %s: %d columns", ls[0].name, table, len(want))
		}
		for _, l := range ls[1:] {
			got := l.columns(t, table)
			if l.name == "PostgreSQL" && table == "journal" {
				seq := column{"seq", "integer", true, ""}
				if len(got) == 0 || got[len(got)-1] != seq {
					t.Errorf("PostgreSQL's journal ends with %v, not %v", got[len(got)-1:], seq)
				}
				got = got[:max(len(got)-1, 0)]
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s's %s is not %s's: %s", l.name, table, ls[0].name, differ(got, want))
			}
		}
	}
	journal := ls[0].columns(t, "journal")
	recorded := slices.DeleteFunc(slices.Clone(journal), func(c column) bool { return c.Name == "id" || c.Name == "number" || c.Name == "hash" })
	// vegas.waiting: seq, recorded, then those, then the winner's three.
	waiting := ls[2].columns(t, "waiting")
	if len(waiting) >= 5 {
		waiting = waiting[2 : len(waiting)-3]
	}
	if !slices.Equal(waiting, recorded) {
		t.Errorf("vegas.waiting is not the journal's columns but id, number and hash, after seq and recorded, before the winner's: %s",
			differ(waiting, recorded))
	}

	// Every column set apart from its zero, a text with what a line-based
	// format would mangle.
	at := time.Date(2025, 5, 4, 9, 8, 7, 654321000, time.UTC)
	entry := func() *core.Entry {
		return &core.Entry{Kind: "referral", At: at, Ticket: sql.NullInt64{Int64: 5, Valid: true}, Serial: "531-0001-0000005",
			Game: 531, Block: 1, Position: 5, PackFirst: 2, PackLast: 3, State: "on-sale", Amount: 150, Desk: "C1",
			Operator: "zoé", Method: "serial", Ref: sql.NullInt64{Int64: 1, Valid: true}, Request: "req-1", Reason: "over-limit",
			Detail: "deux\nlignes, 'quotes' \\ and ∅"}
	}
	var rows [][]any
	for _, l := range ls {
		e := entry()
		tx, err := l.engine.Write(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := l.engine.Append(ctx, tx, e); err != nil {
			tx.Rollback()
			t.Fatalf("%s: append: %v", l.name, err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		if e.ID < 2 || e.Number < 1 || len(e.Hash) != 32 || e.AtText != core.FormatTime(at) {
			t.Fatalf("%s: appended %+v", l.name, e)
		}
		var got core.Entry
		if err := core.Get(ctx, l.engine.Pool(), &got, "SELECT "+core.EntryCols+" FROM journal WHERE id = ?", e.ID); err != nil {
			t.Fatalf("%s: %v", l.name, err)
		}
		if !reflect.DeepEqual(got.Values(), e.Values()) {
			t.Errorf("%s: the entry appended reads back\n%v\nnot\n%v", l.name, got.Values(), e.Values())
		}
		// Each engine's row, but what its chain gives (id, number, hash).
		v := got.Values()
		rows = append(rows, append(v[1:3:3], v[4:len(v)-1]...))
	}
	for i := range rows[1:] {
		if !reflect.DeepEqual(rows[i+1], rows[0]) {
			t.Errorf("%s's entry reads back\n%v\n%s's\n%v", ls[i+1].name, rows[i+1], ls[0].name, rows[0])
		}
	}

	// On PostgreSQL a question records its entry in vegas.waiting, which
	// the chain appends to the journal: recorded there (the question's
	// columns), it reads back as it waits (Waiting), and chained (by the
	// next append) equal, with its record's number.
	pg := ls[2].engine
	e := entry()
	e.AtText = core.FormatTime(e.At)
	names := tables.Journal.Names()
	var cols []string
	var vals []any
	for i, v := range e.Values() {
		if !tables.Journal.Columns[i].Chained {
			cols, vals = append(cols, names[i]), append(vals, v)
		}
	}
	var seq int64
	if err := core.Get(ctx, pg.Pool(), &seq, "INSERT INTO waiting ("+strings.Join(cols, ", ")+") VALUES ("+core.Marks(len(vals))+") RETURNING seq", vals...); err != nil {
		t.Fatal(err)
	}
	waits, _, err := pg.Waiting(ctx, pg.Pool())
	if err != nil || len(waits) != 1 {
		t.Fatalf("waiting: %v %v", waits, err)
	}
	w := waits[0]
	w.Hash, e.ID, e.Number = nil, w.ID, w.Number
	if !reflect.DeepEqual(w.Values(), e.Values()) {
		t.Errorf("PostgreSQL: the entry recorded reads back as it waits\n%v\nnot\n%v", w.Values(), e.Values())
	}
	tx, err := pg.Write(ctx)
	if err != nil {
		t.Fatal(err)
	}
	next := entry()
	if err := pg.Append(ctx, tx, next); err != nil {
		tx.Rollback()
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	var chained struct {
		core.Entry
		Seq sql.NullInt64 `db:"seq"`
	}
	if err := core.Get(ctx, pg.Pool(), &chained, "SELECT "+core.EntryCols+", seq FROM journal WHERE seq = ?", seq); err != nil {
		t.Fatalf("the entry recorded is not chained: %v", err)
	}
	e.Hash = chained.Hash
	if !reflect.DeepEqual(chained.Values(), e.Values()) || len(e.Hash) != 32 || next.ID != e.ID+1 {
		t.Errorf("PostgreSQL: the entry recorded reads back chained\n%v\nnot\n%v (then %d)", chained.Values(), e.Values(), next.ID)
	}
}
