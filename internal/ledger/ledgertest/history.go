package ledgertest

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/ledger/tables"
)

// AddHistory gives the ledger at location (a SQLite file, or a PostgreSQL
// URL), whose first block's tickets it pays and refuses, a day's history
// written in bulk, as if asked over the last hour by desks (added when
// missing, limit 1,000 €): claims payments of the block's first winners
// (each its paid row and, on PostgreSQL, its request id's row) and
// refusals "not a winner" of its first losers, two claims for a refusal,
// each with a request id of its own. The journal stays one chain (each
// entry's id, number among its kind and hash, after the last), so that
// verify's chain check holds; nothing else is kept (the claims are of
// tickets whatever their pack's state). 300,000 entries take seconds.
func AddHistory(ctx context.Context, location string, desks []string, claims, refusals int) error {
	l, err := ledger.Open(location)
	if err != nil {
		return err
	}
	blocks, err := l.Blocks(ctx)
	l.Close()
	if err != nil || len(blocks) == 0 {
		return fmt.Errorf("history: the ledger's blocks: %v (%d)", err, len(blocks))
	}
	b := blocks[0]
	pg := strings.HasPrefix(location, "postgres")
	driver, dsn, schema := "sqlite", "file:"+location+"?_pragma=busy_timeout(10000)", ""
	if pg {
		driver, dsn, schema = "pgx", location, "vegas."
	}
	db, err := sqlx.Open(driver, dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	tx, err := db.BeginTxx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	h := history{tx: tx, schema: schema, numbers: map[string]int64{}}
	if pg {
		if _, err := tx.ExecContext(ctx, "SELECT 1 FROM vegas.chainer FOR UPDATE"); err != nil {
			return err
		}
	}
	if err := h.last(ctx); err != nil {
		return err
	}
	at := time.Now().Add(-time.Hour)
	step := time.Hour / time.Duration(claims+refusals+len(desks)+1)
	for _, d := range desks {
		var n int
		if err := tx.GetContext(ctx, &n, tx.Rebind("SELECT count(*) FROM "+schema+"desks WHERE id = ?"), d); err != nil {
			return err
		}
		if n == 0 {
			if _, err := tx.ExecContext(ctx, tx.Rebind("INSERT INTO "+schema+"desks (id, payout_limit, disabled) VALUES (?, 1000, 0)"), d); err != nil {
				return err
			}
			h.add(core.Entry{Kind: "desk", At: at, Desk: d, State: "added", Amount: 1000, Operator: "history"})
		}
	}
	var paid, requests []any
	made, refused := 0, 0
	err = eachPrize(ctx, tx, schema, b, func(pos, prize int) bool {
		s := b.Serial(pos)
		e := core.Entry{Ticket: sql.NullInt64{Int64: b.TicketNumber(pos), Valid: true}, Serial: s.String(), Game: b.Game,
			Block: b.Number, Position: pos, Desk: desks[(made+refused)%len(desks)], Operator: "history", Method: "serial"}
		switch {
		case prize > 0 && made < claims && (refused >= refusals || made*refusals <= refused*claims):
			at = at.Add(step)
			e.Kind, e.At, e.Amount, e.Request = "claim", at, prize, fmt.Sprintf("history-%d", made)
			id := h.add(e)
			paid = append(paid, e.Ticket.Int64, id)
			requests = append(requests, e.Desk, e.Request)
			made++
		case prize == 0 && refused < refusals && (made >= claims || refused*claims <= made*refusals):
			at = at.Add(step)
			e.Kind, e.At, e.Method, e.Reason, e.Request = "refusal", at, "claim", string(core.NotWinner), fmt.Sprintf("history-r-%d", refused)
			h.add(e)
			refused++
		}
		return made < claims || refused < refusals
	})
	if err != nil {
		return err
	}
	if made < claims || refused < refusals {
		return fmt.Errorf("history: block %s has %d winners and %d losers for %d claims and %d refusals", b.Name(), made, refused, claims, refusals)
	}
	if err := h.flush(ctx); err != nil {
		return err
	}
	if err := bulk(ctx, tx, "INSERT INTO "+schema+"paid ("+tables.Paid.Cols()+") VALUES ", len(tables.Paid.Columns), paid); err != nil {
		return err
	}
	if pg {
		if err := bulk(ctx, tx, "INSERT INTO vegas.requests (desk, request, paid) VALUES ", 2, requests, "true"); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// history appends entries to a journal in bulk.
type history struct {
	tx      *sqlx.Tx
	schema  string
	lastID  int64
	hash    []byte
	numbers map[string]int64
	rows    []any
}

func (h *history) last(ctx context.Context) error {
	var last struct {
		ID   int64  `db:"id"`
		Hash []byte `db:"hash"`
	}
	if err := h.tx.GetContext(ctx, &last, "SELECT id, hash FROM "+h.schema+"journal ORDER BY id DESC LIMIT 1"); err != nil {
		return err
	}
	h.lastID, h.hash = last.ID, last.Hash
	var ns []struct {
		Kind   string `db:"kind"`
		Number int64  `db:"number"`
	}
	if err := h.tx.SelectContext(ctx, &ns, "SELECT kind, max(number) AS number FROM "+h.schema+"journal GROUP BY kind"); err != nil {
		return err
	}
	for _, n := range ns {
		h.numbers[n.Kind] = n.Number
	}
	return nil
}

// add chains e after the last entry and keeps its row; its id.
func (h *history) add(e core.Entry) int64 {
	h.lastID++
	h.numbers[e.Kind]++
	e.ID, e.Number, e.AtText = h.lastID, h.numbers[e.Kind], core.FormatTime(e.At)
	e.Hash = e.ChainHash(h.hash)
	h.hash = e.Hash
	h.rows = append(h.rows, e.Values()...)
	return e.ID
}

func (h *history) flush(ctx context.Context) error {
	return bulk(ctx, h.tx, "INSERT INTO "+h.schema+"journal ("+core.EntryCols+") VALUES ", len(tables.Journal.Columns), h.rows)
}

// bulk inserts rows of cols values each (and the constant columns extra),
// a thousand rows a statement.
func bulk(ctx context.Context, tx *sqlx.Tx, insert string, cols int, rows []any, extra ...string) error {
	one := "(" + strings.TrimSuffix(strings.Repeat("?, ", cols), ", ")
	for _, x := range extra {
		one += ", " + x
	}
	one += ")"
	for start := 0; start < len(rows); start += 1000 * cols {
		part := rows[start:min(len(rows), start+1000*cols)]
		stmt := insert + strings.TrimSuffix(strings.Repeat(one+", ", len(part)/cols), ", ")
		if _, err := tx.ExecContext(ctx, tx.Rebind(stmt), part...); err != nil {
			return fmt.Errorf("history: %w", err)
		}
	}
	return nil
}

// eachPrize calls f with the position and prize of block b's tickets in
// order, reading its packs' prizes, until f says stop.
func eachPrize(ctx context.Context, tx *sqlx.Tx, schema string, b core.Block, f func(pos, prize int) bool) error {
	for first := 0; first < b.Tickets/game.PackSize; first += 1000 {
		var packs []struct {
			ID     int64  `db:"id"`
			Prizes []byte `db:"prizes"`
		}
		if err := tx.SelectContext(ctx, &packs, tx.Rebind("SELECT id, prizes FROM "+schema+"packs WHERE id >= ? AND id < ? ORDER BY id"),
			b.FirstPack+int64(first), b.FirstPack+int64(first+1000)); err != nil {
			return err
		}
		for _, p := range packs {
			for i, pb := range p.Prizes {
				prize, _ := core.PrizeOf(pb)
				if !f(int(p.ID-b.FirstPack)*game.PackSize+i, prize) {
					return nil
				}
			}
		}
	}
	return nil
}
