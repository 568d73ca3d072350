package counter

import (
	"bufio"
	"context"
	"encoding/hex"
	"encoding/json"
	"io"
	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/ledger/sqlite"
)

// ExportJournal writes a counter ledger's journal as JSON Lines for the
// back office's ImportClaims: a first line naming the ledger, then one line
// per entry in order, every column with its hash, and with each payment
// the winner's identity when one was recorded (personal data: the file is
// for the back office only).
func (b *Backend) ExportJournal(ctx context.Context, w io.Writer) error {
	tx, err := b.file.R.BeginTxx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var entries []core.Entry
	if err := core.Select(ctx, tx, &entries, "SELECT "+core.EntryCols+" FROM journal ORDER BY id"); err != nil {
		return sqlite.Classify(err)
	}
	var ids []struct {
		Claim     int64  `db:"claim"`
		Name      string `db:"name"`
		DocType   string `db:"doc_type"`
		DocNumber string `db:"doc_number"`
	}
	if err := core.Select(ctx, tx, &ids, "SELECT claim, name, doc_type, doc_number FROM identities"); err != nil {
		return sqlite.Classify(err)
	}
	winners := map[int64]*core.Winner{}
	for _, i := range ids {
		winners[i.Claim] = &core.Winner{Name: i.Name, DocType: i.DocType, DocNumber: i.DocNumber}
	}
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	digest := core.SealDigest(b.seal)
	if err := enc.Encode(core.ExportHeader{Format: core.CounterJournalFormat, Ledger: b.store.ID, BackOffice: b.backOffice,
		Desk: b.desk, Seal: digest}); err != nil {
		return err
	}
	for i := range entries {
		e := &entries[i]
		x := core.ExportEntry{ID: e.ID, Kind: e.Kind, At: e.AtText, Number: e.Number, Serial: e.Serial, Game: e.Game, Block: e.Block,
			Position: e.Position, PackFirst: e.PackFirst, PackLast: e.PackLast, State: e.State, Amount: e.Amount, Desk: e.Desk,
			Operator: e.Operator, Method: e.Method, Request: e.Request, Reason: e.Reason, Detail: e.Detail,
			Hash: hex.EncodeToString(e.Hash), Winner: winners[e.ID]}
		if e.Ticket.Valid {
			x.Ticket = &e.Ticket.Int64
		}
		if e.Ref.Valid {
			x.Ref = &e.Ref.Int64
		}
		if err := enc.Encode(&x); err != nil {
			return err
		}
	}
	return bw.Flush()
}
