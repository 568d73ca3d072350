package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"vegas-desk/internal/ledger/core"
)

// SQLite stores a value in a column with whatever storage class it was
// written with, whatever the column's declared type: a journal's ref made
// a BLOB of the same digits reads back in Go as the same number (the
// chain's hash recomputes), but no longer equals an INTEGER in SQL, so a
// void stops matching its payment (v.ref = c.id) and the ticket is payable
// again. verify and CheckHead refuse any row of the journal or of a kept
// table whose column holds another storage class than the app writes.

// StorageColumn is a column and the storage classes (typeof) it may hold.
type StorageColumn struct {
	name  string
	types string // "text", "integer", "blob", or "integer null", "text null"
}

// StorageTable is a table whose columns verify checks: key names a row.
type StorageTable struct {
	Name string
	Key  string // an SQL expression naming the row
	Cols []StorageColumn
}

// Columns reads a spec "name:type|type, …".
func Columns(spec string) []StorageColumn {
	var out []StorageColumn
	for _, f := range strings.Split(spec, ",") {
		name, types, _ := strings.Cut(strings.TrimSpace(f), ":")
		out = append(out, StorageColumn{name, strings.ReplaceAll(types, "|", " ")})
	}
	return out
}

var (
	// JournalStorage is the journal's storage, in either kind of file.
	JournalStorage = StorageTable{"journal", "id", Columns("id:integer, kind:text, at:text, number:integer, ticket:integer|null, " +
		"serial:text, game:integer, block:integer, position:integer, pack_first:integer, pack_last:integer, state:text, " +
		"amount:integer, desk:text, operator:text, method:text, ref:integer|null, request:text, reason:text, detail:text, hash:blob")}
	// Paid, Settings and Identities are kept tables of either kind.
	Paid       = StorageTable{"paid", "ticket", Columns("ticket:integer, claim:integer")}
	Settings   = StorageTable{"settings", "quote(key)", Columns("key:text, value:text")}
	Identities = StorageTable{"identities", "claim", Columns("claim:integer, name:text, doc_type:text, doc_number:text")}
	// keptStorage are a back office's kept tables.
	keptStorage = []StorageTable{
		Paid,
		{"pack_states", "quote(block) || '/' || quote(pack)", Columns("block:integer, pack:integer, state:text, desk:text, entry:integer")},
		{"desks", "quote(id)", Columns("id:text, role:text|null, payout_limit:integer, disabled:integer, locked_until:text, unlocked_at:text")},
		Settings, Identities,
	}
)

// CheckStorage lists the rows of table t whose columns hold another
// storage class than the app writes (at most limit).
func CheckStorage(ctx context.Context, q core.Querier, t StorageTable, limit int) ([]core.Problem, error) {
	sel := []string{"CAST(" + t.Key + " AS TEXT)"}
	var bad []string
	for _, c := range t.Cols {
		sel = append(sel, "typeof("+c.name+")")
		bad = append(bad, "typeof("+c.name+") NOT IN ('"+strings.ReplaceAll(c.types, " ", "', '")+"')")
	}
	rows, err := core.Query(ctx, q, fmt.Sprintf("SELECT %s FROM %s WHERE %s LIMIT %d", strings.Join(sel, ", "), t.Name, strings.Join(bad, " OR "), limit))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.Name, err)
	}
	defer rows.Close()
	var out []core.Problem
	vals := make([]sql.NullString, len(sel))
	ptrs := make([]any, len(sel))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		where := t.Name + " row " + vals[0].String
		if t.Name == "journal" {
			where = "journal entry " + vals[0].String
		}
		for i, c := range t.Cols {
			if got := vals[i+1].String; !strings.Contains(" "+c.types+" ", " "+got+" ") {
				out = append(out, core.Problem{Where: where, What: fmt.Sprintf("stores its %s as %s, not %s: the row was changed outside vegas-desk (SQL no longer sees it as it reads)",
					c.name, got, strings.ReplaceAll(c.types, " ", " or "))})
			}
		}
	}
	return out, rows.Err()
}

// Storage lists the rows of tables stored with another class than the app
// writes, at most limit in all.
func Storage(ctx context.Context, q core.Querier, tables []StorageTable, limit int) ([]core.Problem, error) {
	var out []core.Problem
	for _, t := range tables {
		ps, err := CheckStorage(ctx, q, t, limit-len(out))
		if err != nil {
			return out, err
		}
		out = append(out, ps...)
		if len(out) >= limit {
			break
		}
	}
	return out, nil
}
