// Package tables declares, once for every engine, the tables that every
// ledger holds alike: the journal (and PostgreSQL's vegas.waiting, its
// entries recorded and not yet chained) and the paid row. Each engine's
// CREATE TABLE is written from these declarations in place of a line
// {{journal}}, {{paid}} or {{waiting}} of its schema text (schema.sql,
// internal/ledger/counter/counter.sql, internal/ledger/postgres/postgres.sql:
// Ledger.Expand), and the column lists of the statements that insert and
// read them from the same (core.EntryCols is Journal.Cols()).
//
// The text written for SQLite is, byte for byte, the text those files
// held when each table was written there by hand (a file's sqlite_master
// keeps it, and is checked against it: TestSchemaDigests); PostgreSQL
// keeps no text, only what it means (TestUpgradePostgresV5 compares the
// catalogs of an upgraded database and a new one). TestJournalTableEveryEngine
// (internal/ledger) reads each engine's tables as its database describes
// them, and an entry each engine appends, back.
package tables

import (
	"fmt"
	"strings"
)

// Engine is a kind of database a ledger is stored in.
type Engine int

const (
	SQLite Engine = iota
	Postgres
)

func (e Engine) String() string { return [...]string{"SQLite", "PostgreSQL"}[e] }

// Type is a column's type, named per engine.
type Type int

const (
	Integer Type = iota // a small integer: SQLite INTEGER, PostgreSQL integer
	BigInt              // an id, a ticket, an amount: SQLite INTEGER, PostgreSQL bigint
	Text
	Blob
	Instant // PostgreSQL timestamptz (vegas.waiting's recorded, the server's clock)
)

// In is t's name on e.
func (t Type) In(e Engine) string {
	names := [...][2]string{
		Integer: {"INTEGER", "integer"},
		BigInt:  {"INTEGER", "bigint"},
		Text:    {"TEXT", "text"},
		Blob:    {"BLOB", "bytea"},
		Instant: {"TEXT", "timestamptz"},
	}
	return names[t][e]
}

// Column is a column of a table, with its constraints, written in this
// order: PRIMARY KEY (else NOT NULL unless Null), UNIQUE, CHECK, DEFAULT,
// REFERENCES.
type Column struct {
	Name    string
	Type    Type
	Primary bool   // PRIMARY KEY
	Null    bool   // NULL allowed
	Unique  bool   // UNIQUE
	Kinds   bool   // CHECK (kind IN (the ledger's kinds))
	Default string // DEFAULT Default, "" for none
	Ref     string // REFERENCES Ref (id), in the ledger's schema
	// Chained: given by the journal's chain (id, number, hash), so not
	// recorded in vegas.waiting.
	Chained bool
	// Record: on PostgreSQL it names an entry by its id or, while the
	// entry waits in vegas.waiting, by -seq, its record's number
	// (postgres.sql): Unique and Ref hold on SQLite only.
	Record bool
}

// Table is a table: its columns in order, and its UNIQUE constraints over
// several columns.
type Table struct {
	Name    string
	Columns []Column
	Unique  [][]string
}

// Journal is the journal: every entry's columns in the canonical text's
// order (core.Entry, core.EntryCols). What each means for each kind is
// core.Entry's comment; number is the entry's rank among the entries of
// its kind (a claim's number is the payment number, without gaps).
var Journal = Table{
	Name: "journal",
	Columns: []Column{
		{Name: "id", Type: BigInt, Primary: true, Chained: true},
		{Name: "kind", Type: Text, Kinds: true},
		{Name: "at", Type: Text},
		{Name: "number", Type: BigInt, Chained: true},
		{Name: "ticket", Type: BigInt, Null: true},
		{Name: "serial", Type: Text, Default: "''"},
		{Name: "game", Type: Integer, Default: "0"},
		{Name: "block", Type: Integer, Default: "0"},
		{Name: "position", Type: Integer, Default: "0"},
		{Name: "pack_first", Type: Integer, Default: "0"},
		{Name: "pack_last", Type: Integer, Default: "0"},
		{Name: "state", Type: Text, Default: "''"},
		{Name: "amount", Type: BigInt, Default: "0"},
		{Name: "desk", Type: Text, Default: "''"},
		{Name: "operator", Type: Text, Default: "''"},
		{Name: "method", Type: Text, Default: "''"},
		{Name: "ref", Type: BigInt, Null: true, Ref: "journal"},
		{Name: "request", Type: Text, Default: "''"},
		{Name: "reason", Type: Text, Default: "''"},
		{Name: "detail", Type: Text, Default: "''"},
		{Name: "hash", Type: Blob, Chained: true},
	},
	Unique: [][]string{{"kind", "number"}},
}

// journalSeq is the column PostgreSQL's journal has beyond the entry's:
// its record's number, as it waited in vegas.waiting (outside the hash;
// NULL for an entry appended directly).
var journalSeq = Column{Name: "seq", Type: BigInt, Null: true, Unique: true}

// Paid is the paid row: the tickets with a payment that no void cancels,
// one row at most per ticket, which the primary key enforces; claim is
// the payment's journal id (on PostgreSQL, a question's payment is named
// by its record, -seq, for good: Record).
var Paid = Table{
	Name: "paid",
	Columns: []Column{
		{Name: "ticket", Type: BigInt, Primary: true},
		{Name: "claim", Type: BigInt, Unique: true, Ref: "journal", Record: true},
	},
}

// Waiting is PostgreSQL's vegas.waiting: the journal's entries recorded
// and not yet chained, with the journal's columns but those the chain
// gives (id, number, hash), none checked (the chain checks them as it
// appends them), after the record's number and the time it was recorded
// (the server's clock: how long it waits), and before a payment's winner,
// whom the chainer writes into vegas.identities. ref names a chained
// entry (or, recorded before schema 8, -seq a waiting one).
var Waiting = waiting()

func waiting() Table {
	t := Table{Name: "waiting", Columns: []Column{
		{Name: "seq", Type: BigInt, Primary: true, Default: "nextval('vegas.waiting_seq')"},
		{Name: "recorded", Type: Instant, Default: "clock_timestamp()"},
	}}
	for _, c := range Journal.Columns {
		if !c.Chained {
			c.Kinds, c.Ref = false, ""
			t.Columns = append(t.Columns, c)
		}
	}
	for _, name := range []string{"name", "doc_type", "doc_number"} {
		t.Columns = append(t.Columns, Column{Name: name, Type: Text, Null: true})
	}
	return t
}

// Cols are t's column names, comma-separated: an INSERT's or a SELECT's
// column list.
func (t Table) Cols() string { return strings.Join(t.Names(), ", ") }

// Names are t's column names, in order.
func (t Table) Names() []string {
	names := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		names[i] = c.Name
	}
	return names
}

// Insert is the head of an INSERT into t (in the schema the connection
// searches), its columns named: "INSERT INTO paid (ticket, claim)".
func (t Table) Insert() string { return "INSERT INTO " + t.Name + " (" + t.Cols() + ")" }

// Ledger is a kind of ledger: its engine, the schema its tables are made
// in ("vegas." on PostgreSQL), and the kinds its journal's entries may be.
type Ledger struct {
	Engine Engine
	Schema string
	Kinds  []string
}

var (
	// BackOffice is a back office's file (schema.sql).
	BackOffice = Ledger{Engine: SQLite, Kinds: OfficeKinds}
	// Counter is a sealed counter ledger's file (counter.sql).
	Counter = Ledger{Engine: SQLite, Kinds: CounterKinds}
	// Shared is a back office's PostgreSQL database (postgres.sql).
	Shared = Ledger{Engine: Postgres, Schema: "vegas.", Kinds: OfficeKinds}
)

// OfficeKinds are the kinds of a back office's entries; CounterKinds a
// counter ledger's.
var (
	OfficeKinds  = []string{"block", "claim", "void", "refusal", "packs", "emission", "desk", "referral", "setting", "import", "checkpoint"}
	CounterKinds = []string{"issue", "claim", "refusal", "referral"}
)

// Columns are t's columns in l: PostgreSQL's journal has seq after the
// entry's.
func (l Ledger) Columns(t Table) []Column {
	if t.Name == Journal.Name && l.Engine == Postgres {
		return append(t.Columns[:len(t.Columns):len(t.Columns)], journalSeq)
	}
	return t.Columns
}

// Cols are t's column names in l, comma-separated.
func (l Ledger) Cols(t Table) string { return Table{Columns: l.Columns(t)}.Cols() }

// Create is t's CREATE TABLE in l, without its semicolon. Names are
// padded to the longest name, and types to the longest type, of the
// table; a list of kinds longer than five goes on two lines, the sixth
// under the list's parenthesis (as the .sql files have always written it).
func (l Ledger) Create(t Table) string {
	cols := l.Columns(t)
	nameW, typeW := 0, 0
	for _, c := range cols {
		nameW, typeW = max(nameW, len(c.Name)), max(typeW, len(c.Type.In(l.Engine)))
	}
	var lines []string
	for _, c := range cols {
		head := fmt.Sprintf("    %-*s %-*s ", nameW, c.Name, typeW, c.Type.In(l.Engine))
		var cons []string
		switch {
		case c.Primary:
			cons = append(cons, "PRIMARY KEY")
		case !c.Null:
			cons = append(cons, "NOT NULL")
		}
		keyed := !c.Record || l.Engine == SQLite
		if c.Unique && keyed {
			cons = append(cons, "UNIQUE")
		}
		if c.Kinds {
			open := head + strings.Join(cons, " ") + " CHECK (kind IN ("
			cons = append(cons, "CHECK (kind IN ("+kinds(l.Kinds, len(open)-1)+"))")
		}
		if c.Default != "" {
			cons = append(cons, "DEFAULT "+c.Default)
		}
		if c.Ref != "" && keyed {
			cons = append(cons, "REFERENCES "+l.Schema+c.Ref+" (id)")
		}
		lines = append(lines, strings.TrimRight(head+strings.Join(cons, " "), " "))
	}
	for _, u := range t.Unique {
		lines = append(lines, "    UNIQUE ("+strings.Join(u, ", ")+")")
	}
	return "CREATE TABLE " + l.Schema + t.Name + " (\n" + strings.Join(lines, ",\n") + "\n)"
}

// kinds is the quoted list ks, its sixth and later on a second line
// indented by indent.
func kinds(ks []string, indent int) string {
	q := make([]string, len(ks))
	for i, k := range ks {
		q[i] = "'" + k + "'"
	}
	if len(q) <= 5 {
		return strings.Join(q, ", ")
	}
	return strings.Join(q[:5], ", ") + ",\n" + strings.Repeat(" ", indent) + strings.Join(q[5:], ", ")
}

// Expand is the schema text sql with each line {{journal}}, {{paid}} and
// {{waiting}} replaced by that table's CREATE TABLE in l and its
// semicolon. It panics on a {{ outside a comment that is not such a
// line: the texts are the binary's own (go:embed), and every test that
// opens a ledger would stop there.
func (l Ledger) Expand(sql string) string {
	marks := map[string]Table{"journal": Journal, "paid": Paid}
	if l.Engine == Postgres {
		marks["waiting"] = Waiting
	}
	lines := strings.Split(sql, "\n")
	for i, line := range lines {
		text := strings.TrimSpace(line)
		if strings.HasPrefix(text, "--") || !strings.Contains(text, "{{") {
			continue
		}
		name, ok := strings.CutPrefix(text, "{{")
		name, closed := strings.CutSuffix(name, "}}")
		t, known := marks[name]
		if !ok || !closed || !known {
			panic(fmt.Sprintf("tables: %s schema text, line %d: %q is not a line {{TABLE}} of a table declared for it", l.Engine, i+1, line))
		}
		lines[i] = l.Create(t) + ";"
	}
	return strings.Join(lines, "\n")
}
