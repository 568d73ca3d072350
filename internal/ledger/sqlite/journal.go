package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"vegas-desk/internal/ledger/core"
)

// Append appends e after the last entry of a file's journal, in q (the
// file's one write transaction, so the chain stays one line), and fills in
// its id, number among its kind, time (now when zero) and hash.
func Append(ctx context.Context, q core.Querier, e *core.Entry) error {
	if e.At.IsZero() {
		e.At = time.Now()
	}
	var last struct {
		ID   int64  `db:"id"`
		Hash []byte `db:"hash"`
	}
	err := core.Get(ctx, q, &last, "SELECT id, hash FROM journal ORDER BY id DESC LIMIT 1")
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("journal: %w", err)
	}
	if err := core.Get(ctx, q, &e.Number, "SELECT coalesce(max(number), 0) + 1 FROM journal WHERE kind = ?", e.Kind); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	e.ID = last.ID + 1
	e.AtText = core.FormatTime(e.At)
	e.Hash = e.ChainHash(last.Hash)
	_, err = core.Exec(ctx, q, "INSERT INTO journal ("+core.EntryCols+") VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
		e.ID, e.Kind, e.AtText, e.Number, e.Ticket, e.Serial, e.Game, e.Block, e.Position, e.PackFirst, e.PackLast,
		e.State, e.Amount, e.Desk, e.Operator, e.Method, e.Ref, e.Request, e.Reason, e.Detail, e.Hash)
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	return nil
}
