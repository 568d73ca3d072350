package server

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/protocol"
	"vegas-desk/internal/ledger/wire"
)

func (s *Server) hello(ctx context.Context, r *http.Request, a asker) (any, error) {
	return wire.Hello{Demo: s.l.Demo(), Desk: a.desk.ID, Ledger: s.l.ID(), Limit: a.desk.Limit}, nil
}

func (s *Server) head(ctx context.Context, r *http.Request, a asker) (any, error) {
	h, err := s.l.Head(ctx)
	return wire.Head{Head: h}, err
}

func (s *Server) blocks(ctx context.Context, r *http.Request, a asker) (any, error) {
	bs, err := s.l.Blocks(ctx)
	out := make([]wire.Block, len(bs))
	for i, b := range bs {
		out[i] = wire.BlockOf(b)
	}
	return out, err
}

func (s *Server) game(ctx context.Context, r *http.Request, a asker) (any, error) {
	code, err := strconv.Atoi(r.PathValue("code"))
	if err != nil || code < 100 || code > 999 {
		return nil, fail(protocol.CodeBadRequest, "a game's code is 100 to 999")
	}
	g, err := s.l.Game(ctx, code)
	return wire.GameOf(g), err
}

// shown is payment c as the asking desk may see it: in full when the desk
// made it; another desk's by its date only (who paid it, at which desk,
// under which request are that desk's and the back office's).
func (a asker) shown(c *ledger.Claim) *ledger.Claim {
	if c == nil || c.Desk == a.desk.ID {
		return c
	}
	return &ledger.Claim{At: c.At}
}

// shownErr is err with the payment a refusal names as the desk may see it.
func (a asker) shownErr(err error) error {
	var r *ledger.Refusal
	if !errors.As(err, &r) || r.First == a.shown(r.First) {
		return err
	}
	shown := *r
	shown.First = a.shown(r.First)
	return &shown
}

// who is the desk of the certificate, its certificate, and the operator
// given.
func (a asker) who(operator string) ledger.Identity {
	return ledger.Identity{Desk: a.desk.ID, Operator: operator, Cert: a.cert}
}

func (s *Server) lookup(ctx context.Context, r *http.Request, a asker) (any, error) {
	var q wire.LookupRequest
	if err := decode(r, &q); err != nil {
		return nil, err
	}
	limit, err := limitOf(q.Limit)
	if err == nil {
		err = own(a, q.Desk)
	}
	if err != nil {
		return nil, err
	}
	noteRequest(r, "", q.Operator)
	t, err := s.l.Lookup(ctx, q.Serial, a.who(q.Operator), limit)
	if err != nil {
		return nil, a.shownErr(err)
	}
	t.Claim = a.shown(t.Claim)
	return wire.TicketOf(t), nil
}

func (s *Server) claim(ctx context.Context, r *http.Request, a asker) (any, error) {
	var q wire.ClaimRequest
	if err := decode(r, &q); err != nil {
		return nil, err
	}
	limit, err := limitOf(q.Limit)
	if err == nil {
		err = own(a, q.Desk)
	}
	if err != nil {
		return nil, err
	}
	key := r.Header.Get(protocol.IdempotencyKey)
	switch {
	case key != "" && q.Request != "" && key != q.Request:
		return nil, fail(protocol.CodeBadRequest, "the Idempotency-Key header and the body's request differ: give one request id")
	case key != "":
		q.Request = key
	}
	noteRequest(r, q.Request, q.Operator)
	c, err := s.l.Claim(ctx, q.Core(a.who(q.Operator), limit)) // the body read in one place: wire
	if err != nil {
		return nil, a.shownErr(err)
	}
	return wire.ClaimOf(&c), nil
}

func (s *Server) find(ctx context.Context, r *http.Request, a asker) (any, error) {
	var q wire.FindRequest
	if err := decode(r, &q); err != nil {
		return nil, err
	}
	limit, err := limitOf(q.Limit)
	if err == nil {
		err = own(a, q.Desk)
	}
	if err != nil {
		return nil, err
	}
	in, err := game.ParseDoc(q.Ticket)
	if err != nil {
		return nil, err
	}
	noteRequest(r, "", q.Operator)
	t, err := s.l.FindByContents(ctx, &in.Ticket, a.who(q.Operator), limit)
	if err != nil {
		return nil, a.shownErr(err)
	}
	t.Claim = a.shown(t.Claim)
	return wire.TicketOf(t), nil
}

// query reads a list's query: since and until (RFC 3339), game, block,
// state and moves, each at most once; anything else is refused.
type query struct {
	since, until time.Time
	game, block  int
	state        string
	moves        []string
}

func readQuery(r *http.Request, allowed ...string) (query, error) {
	var q query
	bad := func(msg string) (query, error) {
		return query{}, fail(protocol.CodeBadRequest, msg)
	}
	for k, vs := range r.URL.Query() {
		if !slices.Contains(allowed, k) || len(vs) != 1 {
			return bad("query: " + k + " is not asked here, or given twice; this list takes " + strings.Join(allowed, ", "))
		}
		v := vs[0]
		var err error
		switch k {
		case "since", "until":
			var t time.Time
			if t, err = time.Parse(time.RFC3339Nano, v); k == "since" {
				q.since = t
			} else {
				q.until = t
			}
		case "game", "block":
			var n int
			if n, err = strconv.Atoi(v); err == nil && n < 0 {
				err = strconv.ErrRange
			}
			if k == "game" {
				q.game = n
			} else {
				q.block = n
			}
		case "state":
			q.state = v
		case "moves":
			q.moves = strings.Split(v, ",")
		}
		if err != nil {
			return bad("query: " + k + " " + strconv.Quote(v) + ": not a time (RFC 3339) or a number")
		}
	}
	return q, nil
}

func (s *Server) claims(ctx context.Context, r *http.Request, a asker) (any, error) {
	q, err := readQuery(r, "since", "until", "game", "block")
	if err != nil {
		return nil, err
	}
	cs, err := s.l.Claims(ctx, ledger.ClaimFilter{Game: q.game, Block: q.block, Since: q.since, Until: q.until, Desk: a.desk.ID})
	return wire.Claims(cs), err
}

func (s *Server) voids(ctx context.Context, r *http.Request, a asker) (any, error) {
	q, err := readQuery(r, "since", "until")
	if err != nil {
		return nil, err
	}
	cs, err := s.l.VoidsBetween(ctx, a.desk.ID, q.since, q.until)
	return wire.Claims(cs), err
}

func (s *Server) referrals(ctx context.Context, r *http.Request, a asker) (any, error) {
	q, err := readQuery(r, "since", "until")
	if err != nil {
		return nil, err
	}
	if q.until.IsZero() {
		q.until = time.Now().Add(time.Hour)
	}
	rs, err := s.l.ReferralsBetween(ctx, a.desk.ID, q.since, q.until)
	out := make([]wire.Referral, len(rs))
	for i, x := range rs {
		// A day report prints these: the part of the serial printed
		// outside the ticket, not its secret part (whoever reads the
		// paper must not be able to claim the prize).
		x.Serial = ledger.PublicSerial(x.Game, x.Block, x.Position)
		out[i] = wire.ReferralOf(x)
	}
	return out, err
}

func (s *Server) packs(ctx context.Context, r *http.Request, a asker) (any, error) {
	q, err := readQuery(r, "game", "block", "state")
	if err != nil {
		return nil, err
	}
	if q.state == "stock" {
		return nil, fail(protocol.CodeForbidden, "the stock is the back office's; a desk lists its own packs")
	}
	rs, err := s.l.Packs(ctx, ledger.PackFilter{Game: q.game, Block: q.block, State: q.state, Desk: a.desk.ID})
	out := make([]wire.PackRun, len(rs))
	for i, x := range rs {
		out[i] = wire.PackRunOf(x)
	}
	return out, err
}

func (s *Server) packMoves(ctx context.Context, r *http.Request, a asker) (any, error) {
	q, err := readQuery(r, "since", "until", "moves")
	if err != nil {
		return nil, err
	}
	es, err := s.l.PackEntries(ctx, ledger.PackEntryFilter{Desk: a.desk.ID, Since: q.since, Until: q.until, Moves: q.moves})
	out := make([]wire.PackEntry, len(es))
	for i, x := range es {
		out[i] = wire.PackEntryOf(x)
	}
	return out, err
}

func (s *Server) move(ctx context.Context, r *http.Request, a asker) (any, error) {
	var q wire.MoveRequest
	if err := decode(r, &q); err != nil {
		return nil, err
	}
	if err := own(a, q.Desk); err != nil {
		return nil, err
	}
	if q.Move != "receive" && q.Move != "activate" {
		return nil, fail(protocol.CodeForbidden, "move "+strconv.Quote(q.Move)+": a desk receives and activates its own packs; the rest is the back office's")
	}
	noteRequest(r, "", q.Operator)
	m := ledger.PackMove{Game: q.Game, Block: q.Block, First: q.First, Last: q.Last, Move: q.Move, Desk: a.desk.ID}
	if err := s.l.MovePacks(ctx, m, a.who(q.Operator)); err != nil {
		return nil, err
	}
	return struct{}{}, nil
}
