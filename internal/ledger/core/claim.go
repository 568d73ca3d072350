package core

import (
	"fmt"

	"vegas-desk/internal/game"
)

// TicketOf is the Ticket of facts f, with the verdict v.
func TicketOf(f *Facts, v Verdict, d Dates) (Ticket, error) {
	gt, err := game.Decode(f.Code)
	if err != nil {
		return Ticket{}, fmt.Errorf("block %s ticket %d: %w (run verify)", f.Block.Name(), f.Position, err)
	}
	t := Ticket{
		Serial:    game.Serial{Game: f.Block.Game, Block: f.Block.Number, Position: f.Position, Secret: f.Secret},
		Block:     f.Block,
		Pack:      f.Position / game.PackSize,
		Position:  f.Position,
		Ticket:    gt,
		Prize:     f.Prize,
		Claim:     f.Paid,
		PackState: f.PackState,
		Verdict:   v,
	}
	if t.PackState == "" {
		t.PackState = "stock"
	}
	switch {
	case f.Prize == 0:
		t.Status = StatusLoser
	case f.Paid != nil:
		t.Status = StatusPaid
	default:
		t.Status = StatusUnpaid
	}
	switch v {
	case NotYetOnSale:
		t.Until = ParseTime(d.OnSale)
	case Expired:
		t.Until = ParseTime(d.Deadline)
	}
	return t, nil
}

// RefusalOf is the refusal of verdict v on t.
func RefusalOf(t Ticket, v Verdict) *Refusal {
	return &Refusal{Verdict: v, Serial: t.Serial.String(), First: t.Claim, Amount: t.Prize, Until: t.Until}
}
