package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"

	"vegas-desk/internal/game"
)

// The rules of a claim, as the SQLite ledger applies them in Go. On
// PostgreSQL the same rules are vegas.verdict and vegas.claim
// (postgres.sql), so that a counter's login cannot step around them; the
// ledger tests run every case on both engines.

// facts is what a verdict on one ticket needs, read in one transaction.
type facts struct {
	block     Block
	position  int
	ticket    int64 // global number
	secret    int64 // the serial's secret part
	prize     int
	code      []byte
	packState string // "" when the pack is in stock
	paid      *Claim // the claim no void cancels
}

// emission is a game's dates, as stored: UTC instants in text, "" for none.
type emission struct {
	OnSale    string `db:"on_sale"`
	EndOfSale string `db:"end_of_sale"`
	Deadline  string `db:"deadline"`
}

// defaultIdentityThreshold is the prize from which a payment records the
// winner's identity, in euros, unless the setting says otherwise.
const defaultIdentityThreshold = 5000

// decide gives the verdict on a ticket at time at (text), for a desk whose
// payout limit is limit (0: none), in this order: before the on-sale date,
// after the deadline, a stolen pack, a pack not on sale, a loser, already
// paid, above the limit, an identity needed and not given.
func decide(f *facts, em emission, at string, limit, threshold int, identity bool) Verdict {
	switch {
	case em.OnSale != "" && at < em.OnSale:
		return NotYetOnSale
	case em.Deadline != "" && at > em.Deadline:
		return Expired
	case f.packState == "stolen":
		return Stolen
	case f.packState != "on-sale" && f.packState != "settled":
		return NotActivated
	case f.prize == 0:
		return NotWinner
	case f.paid != nil:
		return AlreadyClaimed
	case limit > 0 && f.prize > limit:
		return OverLimit
	case f.prize >= threshold && !identity:
		return IdentityRequired
	}
	return Payable
}

// factsOf reads the facts of the ticket at position pos of block b.
func factsOf(ctx context.Context, q querier, b Block, pos int) (*facts, error) {
	code, pb, err := storedTicket(ctx, q, b, pos)
	if err != nil {
		return nil, err
	}
	prize, ok := prizeOf(pb)
	if !ok {
		return nil, fmt.Errorf("block %s ticket %d: prize byte %d is not a tier (run verify)", b.Name(), pos, pb)
	}
	f := &facts{block: b, position: pos, ticket: b.first + int64(pos), secret: b.key.Secret(pos), prize: prize, code: code}
	err = get(ctx, q, &f.packState, "SELECT state FROM pack_states WHERE block = ? AND pack = ?", b.ID, pos/game.PackSize)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, err
	}
	if f.paid, err = paidClaim(ctx, q, f.ticket); err != nil {
		return nil, err
	}
	return f, nil
}

// emissionOf reads game code's dates.
func emissionOf(ctx context.Context, q querier, code int) (emission, error) {
	var em emission
	err := get(ctx, q, &em, "SELECT on_sale, end_of_sale, deadline FROM games WHERE code = ?", code)
	if errors.Is(err, sql.ErrNoRows) {
		return em, fmt.Errorf("game %d: %w", code, ErrNotFound)
	}
	return em, err
}

// identityThreshold reads the identity threshold setting.
func identityThreshold(ctx context.Context, q querier) (int, error) {
	var v string
	err := get(ctx, q, &v, "SELECT value FROM settings WHERE key = 'identity_threshold'")
	if errors.Is(err, sql.ErrNoRows) {
		return defaultIdentityThreshold, nil
	}
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(v)
}

// ticketOf is the Ticket of facts f, with the verdict v.
func ticketOf(f *facts, v Verdict, em emission) (Ticket, error) {
	gt, err := game.Decode(f.code)
	if err != nil {
		return Ticket{}, fmt.Errorf("block %s ticket %d: %w (run verify)", f.block.Name(), f.position, err)
	}
	t := Ticket{
		Serial:    game.Serial{Game: f.block.Game, Block: f.block.Number, Position: f.position, Secret: f.secret},
		Block:     f.block,
		Pack:      f.position / game.PackSize,
		Position:  f.position,
		Ticket:    gt,
		Prize:     f.prize,
		Claim:     f.paid,
		PackState: f.packState,
		Verdict:   v,
	}
	if t.PackState == "" {
		t.PackState = "stock"
	}
	switch {
	case f.prize == 0:
		t.Status = StatusLoser
	case f.paid != nil:
		t.Status = StatusPaid
	default:
		t.Status = StatusUnpaid
	}
	switch v {
	case NotYetOnSale:
		t.Until = parseTime(em.OnSale)
	case Expired:
		t.Until = parseTime(em.Deadline)
	}
	return t, nil
}

// refusalOf is the error of a verdict on t.
func refusalOf(t Ticket, v Verdict, entry int64) error {
	r := &Refusal{Verdict: v, Serial: t.Serial.String(), First: t.Claim, Amount: t.Prize, Until: t.Until, Entry: entry}
	return r
}
