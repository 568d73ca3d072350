package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/ledger/protocol"
	"vegas-desk/internal/ledger/wire"
)

// Questions: the server's client is the counter's questions, as
// benbjohnson/wtf's http client implements the service its sqlite
// package does: it asks them of the server, whose ledger answers with
// core.Ask, and reads no storage itself.
func (b *Backend) Questions() core.Questions { return b }

// Lookup asks POST /v1/lookup, once; at is the server's.
func (b *Backend) Lookup(ctx context.Context, s game.Serial, who core.Identity, asked core.Limit, _ time.Time) (core.Ticket, error) {
	var t wire.Ticket
	err := b.do(ctx, http.MethodPost, protocol.Lookup, wire.LookupRequest{Serial: s.String(), Operator: who.Operator, Limit: wire.LimitOf(asked)}, &t)
	if err != nil {
		return core.Ticket{}, err
	}
	return t.Core()
}

// Claim asks POST /v1/claim with the request id, and asks again with the
// same id when the answer was lost (core.ErrUnreachable), as the policy
// protocol.Retry says: each attempt within its AttemptTimeout, Attempts in
// all, Pause between them. The policy runs here only, on the client: the
// server's ledger answers each question once. The id travels in the body,
// not as the Idempotency-Key header, with which net/http's transport
// would ask again by itself, past the policy.
func (b *Backend) Claim(ctx context.Context, s game.Serial, req core.ClaimRequest, _ time.Time) (core.Claim, error) {
	body := wire.ClaimRequestOf(s, req)
	policy := protocol.Retry
	for attempt := 1; ; attempt++ {
		var c wire.Claim
		actx, cancel := context.WithTimeout(ctx, policy.AttemptTimeout)
		err := b.do(actx, http.MethodPost, protocol.Claim, body, &c)
		cancel()
		if err == nil {
			return *c.Core(), nil
		}
		if !errors.Is(err, core.ErrUnreachable) {
			return core.Claim{}, err
		}
		if attempt == policy.Attempts || ctx.Err() != nil {
			return core.Claim{}, fmt.Errorf("claim %s (request %s), asked %d times: %w; nothing is known to be paid: ask again with the same request id", s, req.Request, attempt, err)
		}
		// The answer was lost, or the server is away: ask again with the
		// same request id, which answers the first answer if there was one.
		select {
		case <-ctx.Done():
		case <-time.After(policy.Pause):
		}
	}
}

// Find asks POST /v1/find with the contents of code.
func (b *Backend) Find(ctx context.Context, code []byte, who core.Identity, asked core.Limit, _ time.Time) ([]core.Ticket, error) {
	t, err := game.Decode(code)
	if err != nil {
		return nil, err
	}
	doc, err := json.Marshal(game.NewDoc(&t))
	if err != nil {
		return nil, err
	}
	var w wire.Ticket
	if err := b.do(ctx, http.MethodPost, protocol.Find, wire.FindRequest{Ticket: doc, Operator: who.Operator, Limit: wire.LimitOf(asked)}, &w); err != nil {
		return nil, err
	}
	found, err := w.Core()
	if err != nil {
		return nil, err
	}
	return []core.Ticket{found}, nil
}

// Blocks asks GET /v1/blocks: their public part.
func (b *Backend) Blocks(ctx context.Context) ([]core.Block, error) {
	var ws []wire.Block
	if err := b.do(ctx, http.MethodGet, protocol.Blocks, nil, &ws); err != nil {
		return nil, err
	}
	out := make([]core.Block, len(ws))
	for i, w := range ws {
		out[i] = w.Core()
	}
	return out, nil
}

// span is a query of times and numbers.
func span(since, until time.Time, more ...string) string {
	q := url.Values{}
	if !since.IsZero() {
		q.Set("since", since.UTC().Format(time.RFC3339Nano))
	}
	if !until.IsZero() {
		q.Set("until", until.UTC().Format(time.RFC3339Nano))
	}
	for i := 0; i+1 < len(more); i += 2 {
		if more[i+1] != "" && more[i+1] != "0" {
			q.Set(more[i], more[i+1])
		}
	}
	if len(q) == 0 {
		return ""
	}
	return "?" + q.Encode()
}

// Claims asks GET /v1/claims: the desk's own.
func (b *Backend) Claims(ctx context.Context, f core.ClaimFilter) ([]core.Claim, error) {
	return b.claims(ctx, protocol.Claims+span(f.Since, f.Until, "game", strconv.Itoa(f.Game), "block", strconv.Itoa(f.Block)))
}

func (b *Backend) claims(ctx context.Context, path string) ([]core.Claim, error) {
	var ws []*wire.Claim
	if err := b.do(ctx, http.MethodGet, path, nil, &ws); err != nil {
		return nil, err
	}
	out := make([]core.Claim, len(ws))
	for i, w := range ws {
		out[i] = *w.Core()
	}
	return out, nil
}

// VoidsBetween asks GET /v1/voids: voids of the desk's payments.
func (b *Backend) VoidsBetween(ctx context.Context, _ string, since, until time.Time) ([]core.Claim, error) {
	return b.claims(ctx, protocol.Voids+span(since, until))
}

// ReferralsBetween asks GET /v1/referrals: the desk's.
func (b *Backend) ReferralsBetween(ctx context.Context, _ string, since, until time.Time) ([]core.Referral, error) {
	var ws []wire.Referral
	if err := b.do(ctx, http.MethodGet, protocol.Referrals+span(since, until), nil, &ws); err != nil {
		return nil, err
	}
	out := make([]core.Referral, len(ws))
	for i, w := range ws {
		out[i] = w.Core()
	}
	return out, nil
}

// Packs asks GET /v1/packs: the desk's own.
func (b *Backend) Packs(ctx context.Context, f core.PackFilter) ([]core.PackRun, error) {
	if f.State == "stock" {
		return nil, nil // the stock is nobody's: a desk holds none (the server refuses to list it)
	}
	var ws []wire.PackRun
	path := protocol.Packs + span(time.Time{}, time.Time{}, "game", strconv.Itoa(f.Game), "block", strconv.Itoa(f.Block), "state", f.State)
	if err := b.do(ctx, http.MethodGet, path, nil, &ws); err != nil {
		return nil, err
	}
	out := make([]core.PackRun, len(ws))
	for i, w := range ws {
		out[i] = w.Core()
	}
	return out, nil
}

// PackEntries asks GET /v1/pack-moves: the moves of the desk's packs.
func (b *Backend) PackEntries(ctx context.Context, f core.PackEntryFilter) ([]core.PackEntry, error) {
	var ws []wire.PackEntry
	path := protocol.PackMoves + span(f.Since, f.Until, "moves", strings.Join(f.Moves, ","))
	if err := b.do(ctx, http.MethodGet, path, nil, &ws); err != nil {
		return nil, err
	}
	out := make([]core.PackEntry, len(ws))
	for i, w := range ws {
		out[i] = w.Core()
	}
	return out, nil
}

// MovePacks asks POST /v1/packs/move.
func (b *Backend) MovePacks(ctx context.Context, m core.PackMove, who core.Identity) error {
	var ok struct{}
	return b.do(ctx, http.MethodPost, protocol.MovePacks, wire.MoveRequest{Game: m.Game, Block: m.Block, First: m.First, Last: m.Last,
		Move: m.Move, Operator: who.Operator}, &ok)
}

// Game asks GET /v1/games/CODE.
func (b *Backend) Game(ctx context.Context, code int) (core.Game, error) {
	var g wire.Game
	if err := b.do(ctx, http.MethodGet, protocol.Games+strconv.Itoa(code), nil, &g); err != nil {
		return core.Game{}, err
	}
	return g.Core(), nil
}

// Head asks GET /v1/head.
func (b *Backend) Head(ctx context.Context) (string, error) {
	var h wire.Head
	if err := b.do(ctx, http.MethodGet, protocol.Head, nil, &h); err != nil {
		return "", err
	}
	return h.Head, nil
}

// Verify is the back office's.
func (b *Backend) Verify(context.Context, int, int, func(done, total int)) (core.VerifyReport, error) {
	return core.VerifyReport{}, b.Refuse("verify")
}

// CheckHead is the back office's.
func (b *Backend) CheckHead(context.Context, string) (core.Anchor, error) {
	return core.Anchor{}, b.Refuse("verify --head")
}
