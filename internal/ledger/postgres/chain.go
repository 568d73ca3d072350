package postgres

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/jmoiron/sqlx"

	"vegas-desk/internal/ledger/core"
)

// The journal's chain, in Go: a question of the back office's login (or a
// server's) records its entry in vegas.waiting in its own transaction;
// the chain takes what waits, under the row lock of vegas.chainer (which
// another process's chain takes too: one at a time on one database), and
// appends it to the hash chain in the order of its records, each entry
// with its id, its number among its kind and its hash (core's canonical
// text).

// chained is what the chain gave an entry that waited.
type chained struct {
	ID     int64
	Number int64
	Hash   []byte
}

// waitingRow is a row of vegas.waiting, as the chain takes it.
type waitingRow struct {
	core.Entry
	Seq       int64          `db:"seq"`
	Name      sql.NullString `db:"name"`
	DocType   sql.NullString `db:"doc_type"`
	DocNumber sql.NullString `db:"doc_number"`
	// The journal's last entry and the last number of the row's kind,
	// when the row was taken.
	LastID     sql.NullInt64 `db:"last_id"`
	LastHash   []byte        `db:"last_hash"`
	LastNumber int64         `db:"last_number"`
}

// chainBatch bounds the entries one statement of the chain inserts (22
// parameters each: PostgreSQL takes at most 65,535 a statement).
const chainBatch = 1000

// chainWaiting appends the entries waiting (those committed) to the
// chain, in tx, whose caller holds the chainer's lock; a payment's winner
// goes to vegas.identities. Its paid row, written by its question, names
// it by its record (-seq) and stays as it is: the journal's entry keeps
// seq. It returns what each entry got, by seq.
func chainWaiting(ctx context.Context, tx core.Querier) (map[int64]chained, error) {
	out := map[int64]chained{}
	for {
		// Taken from vegas.waiting as they are read, with the journal's
		// last entry and each kind's last number: one statement (the
		// chainer's lock holds the journal still).
		var rows []waitingRow
		if err := sqlx.SelectContext(ctx, tx, &rows, `WITH d AS (DELETE FROM vegas.waiting
			WHERE seq IN (SELECT seq FROM vegas.waiting ORDER BY seq LIMIT `+strconv.Itoa(chainBatch)+`)
			RETURNING `+takenCols+`),
			l AS (SELECT id, hash FROM vegas.journal ORDER BY id DESC LIMIT 1)
			SELECT d.*, l.id AS last_id, l.hash AS last_hash,
			(SELECT coalesce(max(j.number), 0) FROM vegas.journal j WHERE j.kind = d.kind) AS last_number
			FROM d LEFT JOIN l ON true`); err != nil {
			return nil, fmt.Errorf("chain: %w", err)
		}
		if len(rows) == 0 {
			return out, nil
		}
		slices.SortFunc(rows, func(a, b waitingRow) int { return cmp.Compare(a.Seq, b.Seq) })
		if err := chainRows(ctx, tx, rows, out); err != nil {
			return nil, err
		}
		if len(rows) < chainBatch {
			return out, nil
		}
	}
}

// chainRows chains rows, taken from vegas.waiting in the order of their
// records, after the journal's last entry, and adds what each got to out.
func chainRows(ctx context.Context, tx core.Querier, rows []waitingRow, out map[int64]chained) error {
	last := struct {
		ID   int64
		Hash []byte
	}{rows[0].LastID.Int64, rows[0].LastHash}
	numbers := map[string]int64{}
	for i := range rows {
		numbers[rows[i].Kind] = rows[i].LastNumber
	}
	var idents []any
	for i := range rows {
		w := &rows[i]
		e := &w.Entry
		numbers[e.Kind]++
		e.ID, e.Number = last.ID+1, numbers[e.Kind]
		if e.Ref.Valid && e.Ref.Int64 < 0 { // recorded by schema 7, naming one that waited
			if err := refOf(ctx, tx, &e.Ref, out); err != nil {
				return err
			}
		}
		e.Hash = e.ChainHash(last.Hash)
		last.ID, last.Hash = e.ID, e.Hash
		out[w.Seq] = chained{ID: e.ID, Number: e.Number, Hash: e.Hash}
		if e.Kind == "claim" && w.Name.Valid {
			idents = append(idents, e.ID, w.Name.String, w.DocType.String, w.DocNumber.String, core.NameSkeleton(w.Name.String))
		}
	}
	ens, seqs := make([]*core.Entry, len(rows)), make([]int64, len(rows))
	for i := range rows {
		ens[i], seqs[i] = &rows[i].Entry, rows[i].Seq
	}
	if err := insertEntries(ctx, tx, ens, seqs); err != nil {
		return fmt.Errorf("chain: %w", err)
	}
	if len(idents) > 0 {
		var b strings.Builder
		b.WriteString("INSERT INTO vegas.identities (claim, name, doc_type, doc_number, skeleton) VALUES ")
		for i := 0; i < len(idents); i += 5 {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "($%d, $%d, $%d, $%d, $%d)", i+1, i+2, i+3, i+4, i+5)
		}
		if _, err := tx.ExecContext(ctx, b.String(), idents...); err != nil {
			return fmt.Errorf("chain: %w", err)
		}
	}
	return nil
}

// refOf resolves a ref to an entry that waited (-seq): chained in this
// chain (out), or before (the journal's seq); a ref to no entry is none.
func refOf(ctx context.Context, tx core.Querier, ref *sql.NullInt64, out map[int64]chained) error {
	if c, ok := out[-ref.Int64]; ok {
		ref.Int64 = c.ID
		return nil
	}
	err := sqlx.GetContext(ctx, tx, &ref.Int64, "SELECT id FROM vegas.journal WHERE seq = $1", -ref.Int64)
	if errors.Is(err, sql.ErrNoRows) {
		*ref = sql.NullInt64{}
		return nil
	}
	if err != nil {
		return fmt.Errorf("chain: %w", err)
	}
	return nil
}
