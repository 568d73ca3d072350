// Package wire is the JSON form of the ledger's answers, written once for
// the command line's --json and for the validation server's API (package
// server), and read back by the server's client (package remote). Each
// shape's fields are in the order of their names, so that an answer prints
// as the command line always printed it.
package wire

import (
	"encoding/json"
	"fmt"
	"time"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/core"
)

// Claim is a payment.
type Claim struct {
	Amount     int        `json:"amount"`
	At         time.Time  `json:"at"`
	Block      int        `json:"block"`
	ChainedMS  float64    `json:"chained_ms,omitempty"`
	Desk       string     `json:"desk"`
	Entry      int64      `json:"entry"`
	Game       int        `json:"game"`
	Hash       string     `json:"hash"`
	Method     string     `json:"method"`
	Number     int64      `json:"number"`
	Operator   string     `json:"operator"`
	Position   int        `json:"position"`
	Request    string     `json:"request,omitempty"`
	Serial     string     `json:"serial"`
	VoidDesk   *string    `json:"void_desk,omitempty"`
	VoidReason *string    `json:"void_reason,omitempty"`
	Voided     bool       `json:"voided"`
	VoidedAt   *time.Time `json:"voided_at,omitempty"`
	VoidedBy   *string    `json:"voided_by,omitempty"`
}

// ClaimOf is the JSON form of c (nil for nil).
func ClaimOf(c *core.Claim) *Claim {
	if c == nil {
		return nil
	}
	w := &Claim{Amount: c.Amount, At: c.At, Block: c.Block, Desk: c.Desk, Entry: c.Entry, Game: c.Game, Hash: c.Hash,
		Method: c.Method, Number: c.Number, Operator: c.Operator, Position: c.Position, Request: c.Request, Serial: c.Serial, Voided: c.Voided,
		ChainedMS: float64(c.Chained) / float64(time.Millisecond)}
	if c.Voided {
		desk, reason, by, at := c.VoidDesk, c.VoidReason, c.VoidedBy, c.VoidedAt
		w.VoidDesk, w.VoidReason, w.VoidedBy, w.VoidedAt = &desk, &reason, &by, &at
	}
	return w
}

// Core is the claim w describes (nil for nil).
func (w *Claim) Core() *core.Claim {
	if w == nil {
		return nil
	}
	c := &core.Claim{Number: w.Number, Entry: w.Entry, Hash: w.Hash, Serial: w.Serial, Game: w.Game, Block: w.Block,
		Position: w.Position, Amount: w.Amount, Desk: w.Desk, Operator: w.Operator, Method: w.Method, Request: w.Request,
		At: w.At, Voided: w.Voided, Chained: time.Duration(w.ChainedMS * float64(time.Millisecond))}
	if w.VoidDesk != nil {
		c.VoidDesk = *w.VoidDesk
	}
	if w.VoidReason != nil {
		c.VoidReason = *w.VoidReason
	}
	if w.VoidedBy != nil {
		c.VoidedBy = *w.VoidedBy
	}
	if w.VoidedAt != nil {
		c.VoidedAt = *w.VoidedAt
	}
	return c
}

// Claims is the JSON form of a list of claims.
func Claims(cs []core.Claim) []*Claim {
	out := make([]*Claim, len(cs))
	for i := range cs {
		out[i] = ClaimOf(&cs[i])
	}
	return out
}

// Ticket is a ticket with the verdict a claim of it would get.
type Ticket struct {
	Block     int        `json:"block"`
	Claim     *Claim     `json:"claim"`
	Game      int        `json:"game"`
	Pack      int        `json:"pack"`
	PackCode  string     `json:"pack_code"`
	PackState string     `json:"pack_state"`
	Position  int        `json:"position"`
	Prize     int        `json:"prize"`
	Serial    string     `json:"serial"`
	Status    string     `json:"status"`
	Ticket    game.Doc   `json:"ticket"`
	Until     *time.Time `json:"until,omitempty"`
	Verdict   string     `json:"verdict"`
}

// TicketOf is the JSON form of t.
func TicketOf(t core.Ticket) Ticket {
	w := Ticket{Block: t.Block.Number, Claim: ClaimOf(t.Claim), Game: t.Block.Game, Pack: t.Pack,
		PackCode:  game.PackCode{Game: t.Block.Game, Block: t.Block.Number, Pack: t.Pack}.String(),
		PackState: t.PackState, Position: t.Position, Prize: t.Prize, Serial: t.Serial.String(), Status: t.Status.String(),
		Ticket: game.NewDoc(&t.Ticket), Verdict: string(t.Verdict)}
	if !t.Until.IsZero() {
		u := t.Until
		w.Until = &u
	}
	return w
}

// Core is the ticket w describes; its block is named by game and number
// only.
func (w Ticket) Core() (core.Ticket, error) {
	s, err := game.ParseSerial(w.Serial)
	if err != nil {
		return core.Ticket{}, err
	}
	doc, err := json.Marshal(w.Ticket)
	if err != nil {
		return core.Ticket{}, err
	}
	in, err := game.ParseDoc(doc)
	if err != nil {
		return core.Ticket{}, fmt.Errorf("ticket %s: %w", w.Serial, err)
	}
	status := map[string]core.Status{"loser": core.StatusLoser, "unpaid": core.StatusUnpaid, "paid": core.StatusPaid}
	st, ok := status[w.Status]
	if !ok {
		return core.Ticket{}, fmt.Errorf("ticket %s: status %q is none of loser, unpaid, paid", w.Serial, w.Status)
	}
	t := core.Ticket{Serial: s, Block: core.Block{Game: w.Game, Number: w.Block, PackSize: game.PackSize, Tickets: game.BlockSize},
		Pack: w.Pack, Position: w.Position, Ticket: in.Ticket, Prize: w.Prize, Status: st, Claim: w.Claim.Core(),
		PackState: w.PackState, Verdict: core.Verdict(w.Verdict)}
	if w.Until != nil {
		t.Until = *w.Until
	}
	return t, nil
}

// Refusal is a refused lookup, claim or search: its verdict, the prize
// (above the limit, from the identity threshold), and the payment named
// (already claimed, or the payment of a request voided since).
type Refusal struct {
	Claim   *Claim     `json:"claim"`
	Entry   int64      `json:"entry,omitempty"`
	Prize   int        `json:"prize"`
	Serial  string     `json:"serial"`
	Until   *time.Time `json:"until,omitempty"`
	Verdict string     `json:"verdict"`
	Voided  bool       `json:"voided"`
}

// RefusalOf is the JSON form of r.
func RefusalOf(r *core.Refusal) Refusal {
	w := Refusal{Claim: ClaimOf(r.First), Prize: r.Amount, Serial: r.Serial, Verdict: string(r.Verdict),
		Voided: r.Verdict == core.Voided}
	if !r.Until.IsZero() {
		u := r.Until
		w.Until = &u
	}
	return w
}

// Core is the refusal w describes.
func (w Refusal) Core() *core.Refusal {
	r := &core.Refusal{Verdict: core.Verdict(w.Verdict), Serial: w.Serial, First: w.Claim.Core(), Amount: w.Prize, Entry: w.Entry}
	if w.Until != nil {
		r.Until = *w.Until
	}
	return r
}

// PackRun is a run of consecutive packs in one state.
type PackRun struct {
	At        *time.Time `json:"at,omitempty"`
	Block     int        `json:"block"`
	Count     int        `json:"count"`
	Desk      string     `json:"desk"`
	Entry     int64      `json:"entry"`
	First     int        `json:"first"`
	FirstCode string     `json:"first_code"`
	Game      int        `json:"game"`
	Last      int        `json:"last"`
	LastCode  string     `json:"last_code"`
	Move      string     `json:"move"`
	Operator  string     `json:"operator"`
	State     string     `json:"state"`
}

// PackRunOf is the JSON form of r.
func PackRunOf(r core.PackRun) PackRun {
	w := PackRun{Block: r.Block, Count: r.Count(), Desk: r.Desk, Entry: r.Entry, First: r.First,
		FirstCode: game.PackCode{Game: r.Game, Block: r.Block, Pack: r.First}.String(), Game: r.Game, Last: r.Last,
		LastCode: game.PackCode{Game: r.Game, Block: r.Block, Pack: r.Last}.String(), Move: r.Move, Operator: r.Operator, State: r.State}
	if !r.At.IsZero() {
		at := r.At
		w.At = &at
	}
	return w
}

// Core is the run w describes.
func (w PackRun) Core() core.PackRun {
	r := core.PackRun{Game: w.Game, Block: w.Block, First: w.First, Last: w.Last, State: w.State, Desk: w.Desk,
		Entry: w.Entry, Operator: w.Operator, Move: w.Move}
	if w.At != nil {
		r.At = *w.At
	}
	return r
}
