package ledger

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

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
	t, err := l.ticketBySerial(ctx, s)
	if errors.Is(err, ErrUnknownSerial) && !l.readOnly {
		who.Desk, who.Operator = strings.TrimSpace(who.Desk), strings.TrimSpace(who.Operator)
		if rerr := l.refuse(ctx, "unknown-serial", s.String(), who, "lookup"); rerr != nil {
			return Ticket{}, errors.Join(err, rerr)
		}
	}
	return t, err
}

// ticketBySerial reads the block, the ticket and its claim of s in one
// read transaction, so that they come from one snapshot.
func (l *Ledger) ticketBySerial(ctx context.Context, s game.Serial) (Ticket, error) {
	tx, err := l.read(ctx)
	if err != nil {
		return Ticket{}, err
	}
	defer tx.Rollback()
	t, _, err := ticketBySerial(ctx, tx, s)
	return t, err
}

// ticketBySerial returns the ticket of s and its global number, or
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
	t, err := ticketAt(ctx, q, b, s.Position)
	return t, b.first + int64(s.Position), err
}

// ticketAt reads the ticket at position pos of block b with its status.
func ticketAt(ctx context.Context, q sqlx.QueryerContext, b Block, pos int) (Ticket, error) {
	code, pb, err := storedTicket(ctx, q, b, pos)
	if err != nil {
		return Ticket{}, err
	}
	gt, err := game.Decode(code)
	if err != nil {
		return Ticket{}, fmt.Errorf("block %s ticket %d: %w (run verify)", b.Name(), pos, err)
	}
	prize, ok := prizeOf(pb)
	if !ok {
		return Ticket{}, fmt.Errorf("block %s ticket %d: prize byte %d is not a tier (run verify)", b.Name(), pos, pb)
	}
	t := Ticket{
		Serial:   game.Serial{Game: b.Game, Block: b.Number, Position: pos, Secret: b.key.Secret(pos)},
		Block:    b,
		Pack:     pos / game.PackSize,
		Position: pos,
		Ticket:   gt,
		Prize:    prize,
	}
	if t.Prize == 0 {
		return t, nil
	}
	c, err := activeClaim(ctx, q, b.first+int64(pos))
	if err != nil {
		return Ticket{}, err
	}
	t.Status, t.Claim = StatusUnpaid, c
	if c != nil {
		t.Status = StatusPaid
	}
	return t, nil
}

// TicketAt returns the ticket at position (0 .. Tickets-1) of block number
// of game gameCode, with its status, or ErrNotFound. It is for the
// operator's screens: it records nothing and needs no secret part.
func (l *Ledger) TicketAt(ctx context.Context, gameCode, number, position int) (Ticket, error) {
	tx, err := l.read(ctx)
	if err != nil {
		return Ticket{}, err
	}
	defer tx.Rollback()
	b, err := getBlock(ctx, tx, gameCode, number)
	if err != nil {
		return Ticket{}, err
	}
	if position < 0 || position >= b.Tickets {
		return Ticket{}, fmt.Errorf("block %s position %d: %w: positions go from 0 to %d", b.Name(), position, ErrNotFound, b.Tickets-1)
	}
	return ticketAt(ctx, tx, b, position)
}

// Samples returns tickets of block number of game gameCode worth trying at
// the counter: its first loser, then for each prize of the table, highest
// first, the block's first ticket with that prize not yet paid (tiers the
// block lacks, or whose every ticket is paid, are left out). They come with
// their status.
func (l *Ledger) Samples(ctx context.Context, gameCode, number int) ([]Ticket, error) {
	tx, err := l.read(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	b, err := getBlock(ctx, tx, gameCode, number)
	if err != nil {
		return nil, fmt.Errorf("samples: %w", err)
	}
	var paid []int
	err = sqlx.SelectContext(ctx, tx, &paid, `SELECT c.position FROM journal c LEFT JOIN journal v ON v.kind = 'void' AND v.claim = c.id
		WHERE c.kind = 'claim' AND c.game = ? AND c.block = ? AND v.id IS NULL`, b.Game, b.Number)
	if err != nil {
		return nil, fmt.Errorf("samples: paid tickets: %w", err)
	}
	isPaid := make(map[int]bool, len(paid))
	for _, pos := range paid {
		isPaid[pos] = true
	}
	var first [len(game.PrizeTable) + 1]int // by prize byte; -1 = none yet
	for i := range first {
		first[i] = -1
	}
	missing := len(first)
	err = scanPrizes(ctx, tx, b, func(start int, prizes []byte) bool {
		for i, pb := range prizes {
			if int(pb) < len(first) && first[pb] < 0 && !isPaid[start+i] {
				first[pb] = start + i
				missing--
			}
		}
		return missing > 0
	})
	if err != nil {
		return nil, fmt.Errorf("samples: %w", err)
	}
	var out []Ticket
	for _, pos := range first {
		if pos < 0 {
			continue
		}
		t, err := ticketAt(ctx, tx, b, pos)
		if err != nil {
			return nil, fmt.Errorf("samples: %w", err)
		}
		out = append(out, t)
	}
	return out, nil
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
	blocks, err := listBlocks(ctx, tx)
	if err != nil {
		return Ticket{}, fmt.Errorf("find by contents: %w", err)
	}
	slices.SortFunc(blocks, func(a, b Block) int { return cmp.Compare(a.ID, b.ID) })
	var found []Ticket
	for _, b := range blocks {
		positions, err := findPositions(ctx, tx, b, findKey(code[:]))
		if err != nil {
			return Ticket{}, fmt.Errorf("find by contents: %w", err)
		}
		for _, pos := range positions {
			if pos >= b.Tickets {
				continue
			}
			stored, _, err := storedTicket(ctx, tx, b, pos)
			if err != nil {
				return Ticket{}, fmt.Errorf("find by contents: %w", err)
			}
			if !bytes.Equal(stored, code[:]) {
				continue
			}
			t, err := ticketAt(ctx, tx, b, pos)
			if err != nil {
				return Ticket{}, err
			}
			if t.Status == StatusUnpaid {
				return t, nil
			}
			found = append(found, t)
		}
	}
	if len(found) == 0 {
		return Ticket{}, fmt.Errorf("find by contents: %w: no ticket of the ledger shows these contents; check every zone against the ticket", ErrNotFound)
	}
	return found[0], nil
}

// activeClaim returns the claim of ticket number id that no void cancels, or nil.
func activeClaim(ctx context.Context, q sqlx.QueryerContext, id int64) (*Claim, error) {
	var rows []claimRow
	err := sqlx.SelectContext(ctx, q, &rows, claimSelect+" WHERE c.kind = 'claim' AND c.ticket = ? AND v.id IS NULL ORDER BY c.id", id)
	if err != nil {
		return nil, fmt.Errorf("claims of ticket %d: %w", id, err)
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
