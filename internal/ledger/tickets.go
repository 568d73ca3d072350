package ledger

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/jmoiron/sqlx"

	"vegas-desk/internal/game"
)

// Lookup finds a ticket by serial. The serial is parsed first
// (game.ErrCheckDigit or game.ErrSerialFormat, wrapped, before the ledger
// is read); then an unknown serial or a wrong secret part both answer
// ErrUnknownSerial, and the attempt is recorded as refused with who (unless
// the ledger is read-only).
func (l *Ledger) Lookup(ctx context.Context, serial string, who Identity) (Ticket, error) {
	s, err := game.ParseSerial(serial)
	if err != nil {
		return Ticket{}, fmt.Errorf("serial %q: %w", serial, err)
	}
	t, _, err := ticketBySerial(ctx, l.r, s)
	if errors.Is(err, ErrUnknownSerial) && !l.readOnly {
		if rerr := l.refuse(ctx, "unknown-serial", serial, who, "lookup"); rerr != nil {
			return Ticket{}, errors.Join(err, rerr)
		}
	}
	return t, err
}

// ticketBySerial returns the ticket of s and its row id, or
// ErrUnknownSerial for a serial the ledger does not hold or a wrong secret.
func ticketBySerial(ctx context.Context, q sqlx.QueryerContext, s game.Serial) (Ticket, int64, error) {
	unknown := fmt.Errorf("serial %s: %w: no ticket of the ledger has this serial; check it against the ticket", s, ErrUnknownSerial)
	b, err := getBlock(ctx, q, s.Game, s.Block)
	if errors.Is(err, ErrNotFound) {
		return Ticket{}, 0, unknown
	}
	if err != nil {
		return Ticket{}, 0, err
	}
	if s.Position < 0 || s.Position >= b.Tickets || b.key.Secret(s.Position) != s.Secret {
		return Ticket{}, 0, unknown
	}
	id := b.first + int64(s.Position)
	t, err := ticketAt(ctx, q, b, id)
	return t, id, err
}

// ticketAt reads ticket row id of block b with its status.
func ticketAt(ctx context.Context, q sqlx.QueryerContext, b Block, id int64) (Ticket, error) {
	var row struct {
		Prize int    `db:"prize"`
		Code  []byte `db:"code"`
	}
	if err := sqlx.GetContext(ctx, q, &row, "SELECT prize, code FROM tickets WHERE id = ?", id); err != nil {
		return Ticket{}, fmt.Errorf("ticket row %d: %w", id, err)
	}
	gt, err := game.Decode(row.Code)
	if err != nil {
		return Ticket{}, fmt.Errorf("ticket row %d: %w (run verify)", id, err)
	}
	pos := int(id - b.first)
	t := Ticket{
		Serial:   game.Serial{Game: b.Game, Block: b.Number, Position: pos, Secret: b.key.Secret(pos)},
		Block:    b,
		Pack:     pos / game.PackSize,
		Position: pos,
		Ticket:   gt,
		Prize:    row.Prize,
	}
	if t.Prize == 0 {
		return t, nil
	}
	c, err := activeClaim(ctx, q, id)
	if err != nil {
		return Ticket{}, err
	}
	t.Status, t.Claim = StatusUnpaid, c
	if c != nil {
		t.Status = StatusPaid
	}
	return t, nil
}

// FindByContents returns the ledger's ticket with exactly these contents
// (the duel's cards in any order), or ErrNotFound. Losing contents are not
// searched: only winning tickets are indexed, and there is nothing to pay,
// so it answers ErrNotWinner. Should two tickets of the ledger show the same
// winning contents, the first one not yet paid is returned.
func (l *Ledger) FindByContents(ctx context.Context, t *game.Ticket) (Ticket, error) {
	c := *t
	slices.Sort(c.Duel.Cards[:]) // generated tickets show them ascending
	if err := game.Validate(&c); err != nil {
		return Ticket{}, fmt.Errorf("find by contents: %w", err)
	}
	prize := game.Prize(&c)
	if prize == 0 {
		return Ticket{}, fmt.Errorf("find by contents: %w: these contents lose, there is nothing to pay", ErrNotWinner)
	}
	code := game.Encode(&c)
	tx, err := l.read(ctx)
	if err != nil {
		return Ticket{}, err
	}
	defer tx.Rollback()
	var ids []int64
	if err := tx.SelectContext(ctx, &ids, `SELECT f.id FROM finder f JOIN tickets t ON t.id = f.id
		WHERE f.block IN (SELECT id FROM blocks) AND f.key = ? AND t.code = ? ORDER BY f.id`, findKey(&code), code[:]); err != nil {
		return Ticket{}, fmt.Errorf("find by contents: %w", err)
	}
	var found []Ticket
	for _, id := range ids {
		b, err := blockOfTicket(ctx, tx, id)
		if err != nil {
			return Ticket{}, err
		}
		t, err := ticketAt(ctx, tx, b, id)
		if err != nil {
			return Ticket{}, err
		}
		if t.Status == StatusUnpaid {
			return t, nil
		}
		found = append(found, t)
	}
	if len(found) == 0 {
		return Ticket{}, fmt.Errorf("find by contents: %w: no ticket of the ledger shows these contents; check every zone against the ticket", ErrNotFound)
	}
	return found[0], nil
}

// activeClaim returns the claim of ticket row id that no void cancels, or nil.
func activeClaim(ctx context.Context, q sqlx.QueryerContext, id int64) (*Claim, error) {
	var rows []claimRow
	err := sqlx.SelectContext(ctx, q, &rows, claimSelect+" WHERE c.kind = 'claim' AND c.ticket = ? AND v.id IS NULL ORDER BY c.id", id)
	if err != nil {
		return nil, fmt.Errorf("claims of ticket row %d: %w", id, err)
	}
	if len(rows) == 0 {
		return nil, nil
	}
	c := rows[0].claim()
	return &c, nil
}

// refuse records a refused attempt in its own transaction.
func (l *Ledger) refuse(ctx context.Context, reason, serial string, who Identity, detail string) error {
	tx, err := l.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := refuseTx(ctx, tx, l.now(), reason, serial, who, detail); err != nil {
		return err
	}
	return tx.Commit()
}
