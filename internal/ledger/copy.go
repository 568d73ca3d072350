package ledger

import (
	"context"
	"fmt"
	"strings"
)

// copyTables are the tables a copy carries, in an order that keeps every
// reference to a row already copied, with their columns and key.
var copyTables = []struct {
	name, cols, key string
	batch           int // rows per INSERT
}{
	{"games", "code, name, price, on_sale, end_of_sale, deadline", "code", 100},
	{"blocks", blockCols, "id", 100},
	{"packs", "id, hash, prizes, codes", "id", 20},
	{"finder", "id, entries", "id", 20},
	{"journal", entryCols, "id", 200},
	{"paid", "ticket, claim", "ticket", 500},
	{"pack_states", "block, pack, state, desk, entry", "block, pack", 500},
	{"desks", "id, NULL, payout_limit, disabled, locked_until, unlocked_at", "id", 100},
	{"settings", "key, value", "key", 100},
	{"identities", "claim, name, doc_type, doc_number", "claim", 200},
}

// Copy copies the whole ledger from into a new ledger at location (a path
// or a URL, of either engine, which must not hold a ledger yet), in one
// transaction: its id, blocks, tickets, finder, journal (entries, hashes
// and times as they are), the state the journal leads to and the winners'
// identities. A verify of both then shows the same digests and journal
// head. Counters' PostgreSQL logins are not copied (a password is not
// copied either): add each desk again on a shared ledger to give it one.
// progress, if not nil, is called with the tables' rows done and in all.
func Copy(ctx context.Context, from *Ledger, location string, progress func(done, total int)) (*Ledger, error) {
	if err := from.backOffice("copy"); err != nil {
		return nil, err
	}
	src, err := from.read(ctx)
	if err != nil {
		return nil, err
	}
	defer src.Rollback()
	var meta [][2]string
	var rows []struct {
		Key   string `db:"key"`
		Value string `db:"value"`
	}
	if err := sel(ctx, src, &rows, "SELECT key, value FROM meta ORDER BY key"); err != nil {
		return nil, from.classify(err)
	}
	for _, r := range rows {
		if r.Key != "schema" && r.Key != "counters" { // the engine's own rows
			meta = append(meta, [2]string{r.Key, r.Value})
		}
	}
	total := 0
	for _, t := range copyTables {
		var n int
		if err := get(ctx, src, &n, "SELECT count(*) FROM "+t.name); err != nil {
			return nil, from.classify(err)
		}
		total += n
	}
	to, err := open(location, false, creation{meta: meta})
	if err != nil {
		return nil, err
	}
	tx, err := to.begin(ctx)
	if err != nil {
		to.Close()
		return nil, err
	}
	defer tx.Rollback()
	// The new ledger's own game row is replaced by the source's.
	if _, err := execute(ctx, tx, "DELETE FROM games"); err != nil {
		to.Close()
		return nil, to.classify(err)
	}
	done := 0
	for _, t := range copyTables {
		n, err := copyTable(ctx, src, tx, t.name, t.cols, t.key, t.batch, func(n int) {
			if progress != nil {
				progress(done+n, total)
			}
		})
		if err != nil {
			to.Close()
			return nil, fmt.Errorf("copy %s: %w", t.name, to.classify(err))
		}
		done += n
	}
	if err := tx.Commit(); err != nil {
		to.Close()
		return nil, fmt.Errorf("copy: commit: %w", to.classify(err))
	}
	return to, nil
}

// copyTable streams table name's rows from src into dst, batch rows per
// INSERT, and returns how many it copied.
func copyTable(ctx context.Context, src, dst querier, name, cols, key string, batch int, progress func(int)) (int, error) {
	rows, err := queryRows(ctx, src, "SELECT "+cols+" FROM "+name+" ORDER BY "+key)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	ncols := len(strings.Split(cols, ","))
	target := strings.ReplaceAll(cols, "NULL", "role")
	one := "(" + strings.TrimSuffix(strings.Repeat("?,", ncols), ",") + ")"
	var args []any
	n := 0
	flush := func() error {
		if len(args) == 0 {
			return nil
		}
		k := len(args) / ncols
		stmt := "INSERT INTO " + name + " (" + target + ") VALUES " + strings.TrimSuffix(strings.Repeat(one+",", k), ",")
		if _, err := execute(ctx, dst, stmt, args...); err != nil {
			return err
		}
		args = args[:0]
		progress(n)
		return nil
	}
	for rows.Next() {
		vals := make([]any, ncols)
		ptrs := make([]any, ncols)
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return n, err
		}
		args = append(args, vals...)
		n++
		if n%batch == 0 {
			if err := flush(); err != nil {
				return n, err
			}
		}
	}
	if err := rows.Err(); err != nil {
		return n, err
	}
	return n, flush()
}
