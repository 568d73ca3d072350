package postgres

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/core"
)

// answer is PostgreSQL's vegas.answer, as the counters' procedures give
// it (JSON): what lookup, find and claim say.
type answer struct {
	Status        string  `json:"status"`
	Game          int     `json:"game"`
	Block         int     `json:"block"`
	Position      int     `json:"position"`
	Secret        int64   `json:"secret"`
	Prize         int     `json:"prize"`
	Code          pgBytes `json:"code"`
	PackState     string  `json:"pack_state"`
	Digest        pgBytes `json:"digest"`
	CreatedAt     string  `json:"created_at"`
	ClaimEntry    int64   `json:"claim_entry"`
	ClaimNumber   int64   `json:"claim_number"`
	ClaimAt       string  `json:"claim_at"`
	ClaimAmount   int     `json:"claim_amount"`
	ClaimDesk     string  `json:"claim_desk"`
	ClaimOperator string  `json:"claim_operator"`
	ClaimMethod   string  `json:"claim_method"`
	ClaimHash     pgBytes `json:"claim_hash"`
	Entry         int64   `json:"entry"`
	Until         string  `json:"until"`
	VoidAt        string  `json:"void_at"`
	VoidReason    string  `json:"void_reason"`
	VoidedBy      string  `json:"voided_by"`
	VoidDesk      string  `json:"void_desk"`
	ChainMS       float64 `json:"chain_ms"`
}

// pgBytes is a bytea as to_jsonb writes it: "\\x" and hex.
type pgBytes []byte

func (b *pgBytes) UnmarshalJSON(data []byte) error {
	var s *string
	if err := json.Unmarshal(data, &s); err != nil || s == nil {
		return err
	}
	h, ok := strings.CutPrefix(*s, `\x`)
	if !ok {
		return fmt.Errorf("bytea %q: want \\x and hex", *s)
	}
	v, err := hex.DecodeString(h)
	*b = v
	return err
}

// call runs procedure call (CALL vegas.…(?, …)) and reads its answer.
func call(ctx context.Context, q core.Querier, a *answer, call string, args ...any) error {
	var raw []byte
	if err := core.Get(ctx, q, &raw, call, args...); err != nil {
		return err
	}
	return json.Unmarshal(raw, a)
}

// claim is the claim of the answer, if any.
func (a *answer) claim() *core.Claim {
	if a.ClaimAt == "" {
		return nil
	}
	s := game.Serial{Game: a.Game, Block: a.Block, Position: a.Position, Secret: a.Secret}
	return &core.Claim{Number: a.ClaimNumber, Entry: a.ClaimEntry, Hash: hex.EncodeToString(a.ClaimHash),
		Serial: s.String(), Game: s.Game, Block: s.Block, Position: s.Position, Amount: a.ClaimAmount,
		Desk: a.ClaimDesk, Operator: a.ClaimOperator, Method: a.ClaimMethod, At: core.ParseTime(a.ClaimAt),
		Chained: time.Duration(a.ChainMS * float64(time.Millisecond))}
}

// ticket is the ticket of an answer that names one.
func (a *answer) ticket() (core.Ticket, error) {
	s := game.Serial{Game: a.Game, Block: a.Block, Position: a.Position, Secret: a.Secret}
	t := core.Ticket{Serial: s, Pack: s.Pack(), Position: s.Position, Prize: a.Prize, Claim: a.claim(),
		PackState: a.PackState, Verdict: core.Verdict(a.Status), Until: core.ParseTime(a.Until),
		Block: core.Block{Game: s.Game, Number: s.Block, Digest: hex.EncodeToString(a.Digest), PackSize: game.PackSize,
			Tickets: game.BlockSize, Winners: game.Winners, Payout: game.Payout, CreatedAt: core.ParseTime(a.CreatedAt)}}
	if a.Code != nil {
		gt, err := game.Decode(a.Code)
		if err != nil {
			return core.Ticket{}, fmt.Errorf("ticket %s: %w (the back office should run verify)", s, err)
		}
		t.Ticket = gt
	}
	switch {
	case t.Prize == 0:
		t.Status = core.StatusLoser
	case t.Claim != nil:
		t.Status = core.StatusPaid
	default:
		t.Status = core.StatusUnpaid
	}
	return t, nil
}

// refusal is the error of an answer that refuses, or nil.
func (a *answer) refusal(serial string) error {
	switch core.Verdict(a.Status) {
	case core.UnknownSerial, core.UnknownContents, core.Locked:
		return &core.Refusal{Verdict: core.Verdict(a.Status), Serial: serial, Until: core.ParseTime(a.Until), Entry: a.Entry}
	}
	return nil
}

// asked is a limit as the functions take it: NULL for NoLimit.
func asked(l core.Limit) *int {
	if n, ok := l.Euros(); ok {
		return &n
	}
	return nil
}

// lookup asks vegas.lookup.
func lookup(ctx context.Context, q core.Querier, s game.Serial, who core.Identity, limit core.Limit) (core.Ticket, error) {
	var a answer
	err := call(ctx, q, &a, "CALL vegas.lookup(?, ?, ?, ?, ?, ?, ?)",
		s.Game, s.Block, s.Position, s.Secret, who.Desk, who.Operator, asked(limit))
	if err != nil {
		return core.Ticket{}, fmt.Errorf("lookup %s: %w", s, Classify(err))
	}
	if err := a.refusal(s.String()); err != nil {
		return core.Ticket{}, err
	}
	return a.ticket()
}

// find asks vegas.find, which answers the ticket core.FoundTicket would
// choose among those it finds.
func find(ctx context.Context, q core.Querier, code []byte, who core.Identity, limit core.Limit) ([]core.Ticket, error) {
	var a answer
	if err := call(ctx, q, &a, "CALL vegas.find(?, ?, ?, ?)", code, who.Desk, who.Operator, asked(limit)); err != nil {
		return nil, fmt.Errorf("find by contents: %w", Classify(err))
	}
	if err := a.refusal(""); err != nil {
		return nil, err // unknown contents, recorded by vegas.find
	}
	t, err := a.ticket()
	if err != nil {
		return nil, err
	}
	return []core.Ticket{t}, nil
}

// claim asks vegas.claim, which answers once the payment's entry is
// chained and durable (counters.sql). at is the time the back office
// gives (zero: the server's; a counter's login's is ignored).
func claim(ctx context.Context, q core.Querier, s game.Serial, req core.ClaimRequest, at time.Time) (core.Claim, error) {
	w := req.Winner
	if !w.Given() {
		w = &core.Winner{}
	}
	var when *string
	if !at.IsZero() {
		t := core.FormatTime(at)
		when = &t
	}
	var a answer
	err := call(ctx, q, &a, "CALL vegas.claim(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		s.Game, s.Block, s.Position, s.Secret, req.Method, req.Who.Desk, req.Who.Operator, req.Request, asked(req.Limit),
		w.Name, w.DocType, w.DocNumber, when)
	if err != nil {
		return core.Claim{}, fmt.Errorf("claim %s: %w", s, Classify(err))
	}
	switch core.Verdict(a.Status) {
	case core.Paid:
		c := a.claim()
		c.Request = req.Request
		return *c, nil
	case core.Voided:
		c := a.claim()
		c.Request, c.Voided = req.Request, true
		c.VoidedAt, c.VoidReason, c.VoidedBy, c.VoidDesk = core.ParseTime(a.VoidAt), a.VoidReason, a.VoidedBy, a.VoidDesk
		return *c, &core.Refusal{Verdict: core.Voided, Serial: s.String(), First: c, Amount: c.Amount}
	}
	if err := a.refusal(s.String()); err != nil {
		return core.Claim{}, err
	}
	t, err := a.ticket()
	if err != nil {
		return core.Claim{}, err
	}
	r := core.RefusalOf(t, core.Verdict(a.Status))
	r.Entry = a.Entry
	return core.Claim{}, r
}
