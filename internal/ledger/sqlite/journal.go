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
	v := e.Values()
	_, err = core.Exec(ctx, q, "INSERT INTO journal ("+core.EntryCols+") VALUES ("+core.Marks(len(v))+")", v...)
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	return nil
}
