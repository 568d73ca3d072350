package backoffice

import (
	"context"
	"fmt"
	"strings"
	"vegas-desk/internal/ledger/core"
)

// copyTables are the tables a copy carries, in an order that keeps every
// reference to a row already copied, with their columns and key. A paid
// row, read with its payment's id (Engine.Paid), whose payment still waits
// to be chained (PostgreSQL's: its journal row is not there yet) is not
// copied: the copy ends at the journal's head, before that entry (where).
var copyTables = []struct {
	name, cols, key string
	batch           int // rows per INSERT
	where           string
}{
	{"games", "code, name, price, on_sale, end_of_sale, deadline", "code", 100, ""},
	{"blocks", BlockCols, "id", 100, ""},
	{"packs", "id, hash, prizes, codes", "id", 20, ""},
	{"finder", "id, entries", "id", 20, ""},
	{"journal", core.EntryCols, "id", 200, ""},
	{"paid", "ticket, claim", "ticket", 500, " WHERE claim IN (SELECT id FROM journal)"},
	{"pack_states", "block, pack, state, desk, entry", "block, pack", 500, ""},
	{"desks", "id, payout_limit, disabled, locked_until, unlocked_at, guesses", "id", 100, ""},
	{"desk_certs", "desk, serial, not_after", "desk, serial", 200, ""},
	{"settings", "key, value", "key", 100, ""},
	{"identities", "claim, name, doc_type, doc_number, skeleton", "claim", 200, ""},
}

// Meta lists the meta rows of the ledger that a copy keeps: its id, what
// it is, when it was made (not the engine's own rows).
func (o *Store) Meta(ctx context.Context) ([][2]string, error) {
	var rows []struct {
		Key   string `db:"key"`
		Value string `db:"value"`
	}
	if err := core.Select(ctx, o.E.Pool(), &rows, "SELECT key, value FROM meta ORDER BY key"); err != nil {
		return nil, o.E.Classify(err)
	}
	var meta [][2]string
	for _, r := range rows {
		if r.Key != "schema" && r.Key != "counters" { // the engine's own rows (counters: an earlier version's group role)
			meta = append(meta, [2]string{r.Key, r.Value})
		}
	}
	return meta, nil
}

// AddMeta adds the meta row key (meta rows are written once: one that
// exists is refused).
func (o *Store) AddMeta(ctx context.Context, key, value string) error {
	tx, err := o.write(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := core.Exec(ctx, tx, "INSERT INTO meta (key, value) VALUES (?, ?)", key, value); err != nil {
		return o.E.Classify(err)
	}
	return o.E.Classify(tx.Commit())
}

// CopyInto copies the whole ledger into dst, a new ledger of either engine
// made with o's meta rows, in one transaction of each: its blocks, tickets,
// finder, journal (entries, hashes and times as they are), the state the
// journal leads to and the winners' identities. A verify of both then
// shows the same digests and journal head. progress, if not nil, is
// called with the tables' rows done and in all.
func (o *Store) CopyInto(ctx context.Context, dst *Store, progress func(done, total int)) error {
	src, err := o.E.Read(ctx)
	if err != nil {
		return err
	}
	defer src.Rollback()
	total := 0
	from := func(table string) string {
		if table == "paid" {
			return o.E.Paid() + " p"
		}
		return table
	}
	for _, t := range copyTables {
		var n int
		if err := core.Get(ctx, src, &n, "SELECT count(*) FROM "+from(t.name)+t.where); err != nil {
			return o.E.Classify(err)
		}
		total += n
	}
	tx, err := dst.write(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	// The new ledger's own game row is replaced by the source's.
	if _, err := core.Exec(ctx, tx, "DELETE FROM games"); err != nil {
		return dst.E.Classify(err)
	}
	done := 0
	for _, t := range copyTables {
		n, err := copyTable(ctx, src, tx, from(t.name), t.name, t.where, t.cols, t.key, t.batch, func(n int) {
			if progress != nil {
				progress(done+n, total)
			}
		})
		if err != nil {
			return fmt.Errorf("copy %s: %w", t.name, dst.E.Classify(err))
		}
		done += n
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("copy: commit: %w", dst.E.Classify(err))
	}
	return nil
}

// copyTable streams the rows of from (those where selects) from src into
// table name of dst, batch rows per INSERT, and returns how many it
// copied.
func copyTable(ctx context.Context, src, dst core.Querier, from, name, where, cols, key string, batch int, progress func(int)) (int, error) {
	rows, err := core.Query(ctx, src, "SELECT "+cols+" FROM "+from+where+" ORDER BY "+key)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	ncols := len(strings.Split(cols, ","))
	one := "(" + strings.TrimSuffix(strings.Repeat("?,", ncols), ",") + ")"
	var args []any
	n := 0
	flush := func() error {
		if len(args) == 0 {
			return nil
		}
		k := len(args) / ncols
		stmt := "INSERT INTO " + name + " (" + cols + ") VALUES " + strings.TrimSuffix(strings.Repeat(one+",", k), ",")
		if _, err := core.Exec(ctx, dst, stmt, args...); err != nil {
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
