package ledger

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// SQLite stores a value in a column with whatever storage class it was
// written with, whatever the column's declared type: a journal's ref made
// a BLOB of the same digits reads back in Go as the same number (the
// chain's hash recomputes), but no longer equals an INTEGER in SQL, so a
// void stops matching its payment (v.ref = c.id) and the ticket is payable
// again. verify and CheckHead refuse any row of the journal or of a kept
// table whose column holds another storage class than the app writes.

// storageColumn is a column and the storage classes (typeof) it may hold.
type storageColumn struct {
	name  string
	types string // "text", "integer", "blob", or "integer null", "text null"
}

// storageTable is a table whose columns verify checks: key names a row.
type storageTable struct {
	name string
	key  string // an SQL expression naming the row
	cols []storageColumn
}

func columns(spec string) []storageColumn {
	var out []storageColumn
	for _, f := range strings.Split(spec, ",") {
		name, types, _ := strings.Cut(strings.TrimSpace(f), ":")
		out = append(out, storageColumn{name, strings.ReplaceAll(types, "|", " ")})
	}
	return out
}

var (
	journalStorage = storageTable{"journal", "id", columns("id:integer, kind:text, at:text, number:integer, ticket:integer|null, " +
		"serial:text, game:integer, block:integer, position:integer, pack_first:integer, pack_last:integer, state:text, " +
		"amount:integer, desk:text, operator:text, method:text, ref:integer|null, request:text, reason:text, detail:text, hash:blob")}
	keptStorage = []storageTable{
		{"paid", "ticket", columns("ticket:integer, claim:integer")},
		{"pack_states", "quote(block) || '/' || quote(pack)", columns("block:integer, pack:integer, state:text, desk:text, entry:integer")},
		{"desks", "quote(id)", columns("id:text, role:text|null, payout_limit:integer, disabled:integer, locked_until:text, unlocked_at:text")},
		{"settings", "quote(key)", columns("key:text, value:text")},
		{"identities", "claim", columns("claim:integer, name:text, doc_type:text, doc_number:text")},
	}
	// A counter ledger's kept tables (counter.sql): no desks, and its
	// pack_states are sealed without desk and entry.
	counterKeptStorage = []storageTable{
		keptStorage[0],
		{"pack_states", "quote(block) || '/' || quote(pack)", columns("block:integer, pack:integer, state:text")},
		keptStorage[3],
		keptStorage[4],
	}
)

// storageProblem is one column of one row stored with another class.
type storageProblem struct {
	where, column, got, want string
}

func (p storageProblem) String() string {
	return fmt.Sprintf("stores its %s as %s, not %s: the row was changed outside vegas-desk (SQL no longer sees it as it reads)",
		p.column, p.got, strings.ReplaceAll(p.want, " ", " or "))
}

// checkStorage lists the rows of table t whose columns hold another storage
// class than the app writes (at most limit).
func checkStorage(ctx context.Context, q querier, t storageTable, limit int) ([]storageProblem, error) {
	sel := []string{"CAST(" + t.key + " AS TEXT)"}
	var bad []string
	for _, c := range t.cols {
		sel = append(sel, "typeof("+c.name+")")
		bad = append(bad, "typeof("+c.name+") NOT IN ('"+strings.ReplaceAll(c.types, " ", "', '")+"')")
	}
	rows, err := queryRows(ctx, q, fmt.Sprintf("SELECT %s FROM %s WHERE %s LIMIT %d", strings.Join(sel, ", "), t.name, strings.Join(bad, " OR "), limit))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.name, err)
	}
	defer rows.Close()
	var out []storageProblem
	vals := make([]sql.NullString, len(sel))
	ptrs := make([]any, len(sel))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		where := t.name + " row " + vals[0].String
		if t.name == "journal" {
			where = "journal entry " + vals[0].String
		}
		for i, c := range t.cols {
			if got := vals[i+1].String; !strings.Contains(" "+c.types+" ", " "+got+" ") {
				out = append(out, storageProblem{where, c.name, got, c.types})
			}
		}
	}
	return out, rows.Err()
}

// verifyStorage adds to rep every row of the journal and the kept tables
// of a SQLite ledger stored with another class than the app writes.
func (l *Ledger) verifyStorage(ctx context.Context, q querier, rep *VerifyReport) error {
	if l.eng != sqliteEngine {
		return nil // PostgreSQL's columns hold their declared type only
	}
	tables := append([]storageTable{journalStorage}, keptStorage...)
	if l.counter != nil {
		tables = append([]storageTable{journalStorage}, counterKeptStorage...)
	}
	for _, t := range tables {
		ps, err := checkStorage(ctx, q, t, maxProblems)
		if err != nil {
			return err
		}
		for _, p := range ps {
			rep.add(p.where, "%s", p)
		}
	}
	return nil
}
