package backoffice

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/core"
)

// The facts and rules a verdict needs, read from the back office's tables
// (a question's snapshot: question.go), and the tables a sealed counter
// ledger shares with it (the journal, paid, games, settings) read the
// same way.

// Tables is the Source of a back office's tickets: its packs. Paid, when
// set, reads the payment of a ticket whose paid row names claim (else
// PaidClaim): PostgreSQL's may wait to be chained. Cache, when set, keeps
// the blocks its questions read (else each question reads its block).
type Tables struct {
	Paid  func(ctx context.Context, q core.Querier, claim, ticket int64) (*core.Claim, error)
	Cache *BlockCache
}

// BlockCache keeps the blocks a backend's questions read: a block's row
// never changes nor goes (the schemas' triggers), so it is read once, and
// a question reads its ticket in one statement fewer.
type BlockCache struct {
	mu sync.Mutex
	m  map[[2]int]core.Block
}

// Get is block number of game gameCode (GetBlock), read once; a nil cache
// reads it each time.
func (c *BlockCache) Get(ctx context.Context, q core.Querier, gameCode, number int) (core.Block, error) {
	if c == nil {
		return GetBlock(ctx, q, gameCode, number)
	}
	c.mu.Lock()
	b, ok := c.m[[2]int{gameCode, number}]
	c.mu.Unlock()
	if ok {
		return b, nil
	}
	b, err := GetBlock(ctx, q, gameCode, number)
	if err != nil {
		return b, err
	}
	c.mu.Lock()
	if c.m == nil {
		c.m = map[[2]int]core.Block{}
	}
	c.m[[2]int{gameCode, number}] = b
	c.mu.Unlock()
	return b, nil
}

// Facts are the facts of the ticket of s, or nil for a serial the ledger
// does not hold or a wrong secret part.
func (t Tables) Facts(ctx context.Context, q core.Querier, s game.Serial) (*core.Facts, error) {
	b, err := t.Cache.Get(ctx, q, s.Game, s.Block)
	if errors.Is(err, core.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !b.Holds(s) {
		return nil, nil
	}
	return t.FactsOf(ctx, q, b, s.Position, s.Secret)
}

// Rules are DeskRules.
func (Tables) Rules(ctx context.Context, q core.Querier, gameCode int, desk string, asked core.Limit, at time.Time) (core.Rules, error) {
	return DeskRules(ctx, q, gameCode, desk, asked, at)
}

// Blocks are the ledger's blocks.
func (Tables) Blocks(ctx context.Context, q core.Querier) ([]core.Block, error) {
	return ListBlocks(ctx, q)
}

// Candidates are block b's winners that its finder's entries name for
// code.
func (t Tables) Candidates(ctx context.Context, q core.Querier, b core.Block, code []byte) ([]*core.Facts, error) {
	positions, err := FindPositions(ctx, q, b, FindKey(code))
	if err != nil {
		return nil, err
	}
	var fs []*core.Facts
	for _, pos := range positions {
		if pos >= b.Tickets {
			continue
		}
		f, err := t.FactsOf(ctx, q, b, pos, b.Key.Secret(pos))
		if err != nil {
			return nil, err
		}
		fs = append(fs, f)
	}
	return fs, nil
}

// RulesRow is a question's rules as read (DeskRules, and PostgreSQL's
// snapshot).
type RulesRow struct {
	core.Dates
	Threshold sql.NullString `db:"threshold"`
	Limit     sql.NullInt64  `db:"payout_limit"`
}

// RulesCols are RulesRow's columns of setting ? and desk ?, read from
// games g (empty dates when g is none).
const RulesCols = `coalesce(g.on_sale, '') AS on_sale, coalesce(g.end_of_sale, '') AS end_of_sale, coalesce(g.deadline, '') AS deadline,
	(SELECT value FROM settings WHERE key = ?) AS threshold, (SELECT payout_limit FROM desks WHERE id = ?) AS payout_limit`

// FactsOf reads the facts of the ticket at position pos of block b, whose
// secret part is secret, in one statement (its stored code and prize, its
// pack's state, its paid row), and its payment's claim when it is paid
// (read with t.Paid).
func (t Tables) FactsOf(ctx context.Context, q core.Querier, b core.Block, pos int, secret int64) (*core.Facts, error) {
	var row FactsRow
	off := pos % game.PackSize
	err := core.Get(ctx, q, &row, `SELECT substr(p.codes, ?, ?) AS code, substr(p.prizes, ?, 1) AS prize,
		coalesce((SELECT state FROM pack_states WHERE block = ? AND pack = ?), '') AS state,
		(SELECT claim FROM paid WHERE ticket = ?) AS claim FROM packs p WHERE p.id = ?`,
		off*game.EncodedSize+1, game.EncodedSize, off+1, b.ID, pos/game.PackSize, b.TicketNumber(pos), b.PackID(pos))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("block %s pack %d: missing (run verify)", b.Name(), pos/game.PackSize)
	}
	if err != nil {
		return nil, fmt.Errorf("block %s ticket %d: %w", b.Name(), pos, err)
	}
	f, err := row.Facts(b, pos, secret)
	switch {
	case err != nil || !row.Claim.Valid:
	case t.Paid != nil:
		f.Paid, err = t.Paid(ctx, q, row.Claim.Int64, f.Ticket)
	default:
		f.Paid, err = PaidClaim(ctx, q, f.Ticket)
	}
	return f, err
}

// FactsRow is a ticket's row as a question reads it: its code and prize
// in its pack, its pack's state, its paid row's claim.
type FactsRow struct {
	Code  []byte        `db:"code"`
	Prize []byte        `db:"prize"`
	State string        `db:"state"`
	Claim sql.NullInt64 `db:"claim"`
}

// Facts are the row's, of the ticket at pos of b, whose secret part is
// secret (Paid not read yet).
func (row *FactsRow) Facts(b core.Block, pos int, secret int64) (*core.Facts, error) {
	if len(row.Prize) != 1 {
		return nil, fmt.Errorf("block %s ticket %d: no prize byte (run verify)", b.Name(), pos)
	}
	prize, ok := core.PrizeOf(row.Prize[0])
	if !ok {
		return nil, fmt.Errorf("block %s ticket %d: prize byte %d is not a tier (run verify)", b.Name(), pos, row.Prize[0])
	}
	return &core.Facts{Block: b, Position: pos, Ticket: b.TicketNumber(pos), Secret: secret, Prize: prize, Code: row.Code,
		PackState: row.State}, nil
}

// TicketState reads the state of f's pack and f's payment, in a ledger
// that keeps pack_states and paid (a back office, a sealed counter ledger).
func TicketState(ctx context.Context, q core.Querier, f *core.Facts) error {
	err := core.Get(ctx, q, &f.PackState, "SELECT state FROM pack_states WHERE block = ? AND pack = ?", f.Block.ID, f.Position/game.PackSize)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	f.Paid, err = PaidClaim(ctx, q, f.Ticket)
	return err
}

// ReadDates reads game code's dates.
func ReadDates(ctx context.Context, q core.Querier, code int) (core.Dates, error) {
	var d core.Dates
	err := core.Get(ctx, q, &d, "SELECT on_sale, end_of_sale, deadline FROM games WHERE code = ?", code)
	if errors.Is(err, sql.ErrNoRows) {
		return d, notFound("game %d", code)
	}
	return d, err
}

// IdentityThreshold reads the identity threshold setting.
func IdentityThreshold(ctx context.Context, q core.Querier) (int, error) {
	var v string
	err := core.Get(ctx, q, &v, "SELECT value FROM settings WHERE key = ?", core.SettingIdentityThreshold)
	if errors.Is(err, sql.ErrNoRows) {
		return core.DefaultIdentityThreshold, nil
	}
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(v)
}

// ReadRules reads the rules of a question about a ticket of game gameCode
// at time at: the game's dates, the identity threshold, and limit lowered
// by asked.
func ReadRules(ctx context.Context, q core.Querier, gameCode int, limit, asked core.Limit, at time.Time) (core.Rules, error) {
	d, err := ReadDates(ctx, q, gameCode)
	if err != nil {
		return core.Rules{}, err
	}
	threshold, err := IdentityThreshold(ctx, q)
	if err != nil {
		return core.Rules{}, err
	}
	return core.Rules{Dates: d, At: core.FormatTime(at), Limit: limit.Lower(asked), Threshold: threshold}, nil
}

// DeskRules reads, in one statement, the rules of a question at desk
// about a ticket of game gameCode at time at: the game's dates, the
// identity threshold, and desk's stored payout limit (none for a desk the
// ledger does not know: the back office's own) lowered by asked.
func DeskRules(ctx context.Context, q core.Querier, gameCode int, desk string, asked core.Limit, at time.Time) (core.Rules, error) {
	var row RulesRow
	err := core.Get(ctx, q, &row, `SELECT `+RulesCols+` FROM games g WHERE code = ?`, core.SettingIdentityThreshold, desk, gameCode)
	if errors.Is(err, sql.ErrNoRows) {
		return core.Rules{}, notFound("game %d", gameCode)
	}
	if err != nil {
		return core.Rules{}, err
	}
	return row.Rules(asked, at)
}

// Rules are the rules the row reads, the limit lowered by asked, at at.
func (row RulesRow) Rules(asked core.Limit, at time.Time) (core.Rules, error) {
	threshold := core.DefaultIdentityThreshold
	if row.Threshold.Valid {
		var err error
		if threshold, err = strconv.Atoi(row.Threshold.String); err != nil {
			return core.Rules{}, fmt.Errorf("setting %s: %w", core.SettingIdentityThreshold, err)
		}
	}
	limit := core.NoLimit
	if row.Limit.Valid {
		limit = core.LimitOf(int(row.Limit.Int64))
	}
	return core.Rules{Dates: row.Dates, At: core.FormatTime(at), Limit: limit.Lower(asked), Threshold: threshold}, nil
}

// PaidClaim returns the claim of ticket number id that no void cancels,
// or nil, in a file's tables.
func PaidClaim(ctx context.Context, q core.Querier, id int64) (*core.Claim, error) {
	return paidClaim(ctx, q, "paid", id)
}

// PaidClaim is the package's PaidClaim in o's tables (Engine.Paid).
func (o *Store) PaidClaim(ctx context.Context, q core.Querier, id int64) (*core.Claim, error) {
	return paidClaim(ctx, q, o.E.Paid(), id)
}

func paidClaim(ctx context.Context, q core.Querier, paidRows string, id int64) (*core.Claim, error) {
	var rows []ClaimRow
	err := core.Select(ctx, q, &rows, ClaimSelect+" WHERE c.id = (SELECT claim FROM "+paidRows+" p WHERE p.ticket = ?)", id)
	if err != nil {
		return nil, fmt.Errorf("claims of ticket %d: %w", id, err)
	}
	if len(rows) == 0 {
		return nil, nil
	}
	c := rows[0].Claim()
	return &c, nil
}

// TicketAt returns the ticket at position (0 .. Tickets-1) of block number
// of game gameCode, with its status, or ErrNotFound. It is for the back
// office's screens: it records nothing and needs no secret part.
func (o *Store) TicketAt(ctx context.Context, gameCode, number, position int) (core.Ticket, error) {
	tx, err := o.read(ctx)
	if err != nil {
		return core.Ticket{}, err
	}
	defer tx.Rollback()
	b, err := GetBlock(ctx, tx, gameCode, number)
	if err != nil {
		return core.Ticket{}, err
	}
	if position < 0 || position >= b.Tickets {
		return core.Ticket{}, fmt.Errorf("block %s position %d: %w: positions go from 0 to %d", b.Name(), position, core.ErrNotFound, b.Tickets-1)
	}
	return o.ticketAt(ctx, tx, b, position)
}

// ticketAt reads the ticket at position pos of block b, with its verdict
// for the back office (no limit, the identity given).
func (o *Store) ticketAt(ctx context.Context, q core.Querier, b core.Block, pos int) (core.Ticket, error) {
	paid := func(ctx context.Context, q core.Querier, _, ticket int64) (*core.Claim, error) {
		return o.PaidClaim(ctx, q, ticket)
	}
	f, err := Tables{Paid: paid}.FactsOf(ctx, q, b, pos, b.Key.Secret(pos))
	if err != nil {
		return core.Ticket{}, err
	}
	rules, err := ReadRules(ctx, q, b.Game, core.NoLimit, core.NoLimit, o.now())
	if err != nil {
		return core.Ticket{}, err
	}
	rules.Identity = true
	return core.TicketOf(f, core.Decide(f, rules), rules.Dates)
}

// Samples returns tickets of block number of game gameCode worth trying at
// the counter of a demonstration ledger: its first loser, then for each
// prize of the table, highest first, the block's first ticket with that
// prize not yet paid (tiers the block lacks, or whose tickets are all paid,
// are left out). Any other ledger refuses: listing unpaid winners would let
// anyone claim them.
func (o *Store) Samples(ctx context.Context, gameCode, number int) ([]core.Ticket, error) {
	if !o.Demo {
		return nil, fmt.Errorf("serials to try: %w: only a demonstration ledger lists its unpaid winners", core.ErrNotDemo)
	}
	tx, err := o.read(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	b, err := GetBlock(ctx, tx, gameCode, number)
	if err != nil {
		return nil, fmt.Errorf("samples: %w", err)
	}
	var paid []int64
	if err := core.Select(ctx, tx, &paid, "SELECT ticket FROM paid WHERE ticket >= ? AND ticket < ?", b.First(), b.First()+int64(b.Tickets)); err != nil {
		return nil, fmt.Errorf("samples: %w", err)
	}
	isPaid := map[int]bool{}
	for _, t := range paid {
		isPaid[int(t-b.First())] = true
	}
	var first [len(game.PrizeTable) + 1]int // by prize byte; -1 = none yet
	for i := range first {
		first[i] = -1
	}
	missing := len(first)
	err = ScanPrizes(ctx, tx, b, func(start int, prizes []byte) bool {
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
	var out []core.Ticket
	for _, pos := range first {
		if pos < 0 {
			continue
		}
		t, err := o.ticketAt(ctx, tx, b, pos)
		if err != nil {
			return nil, fmt.Errorf("samples: %w", err)
		}
		out = append(out, t)
	}
	return out, nil
}

// prizes reads stored prizes for a replay of the journal.
type prizes struct {
	ctx context.Context
	q   core.Querier
}

func (p prizes) Prize(b core.Block, pos int) (int, error) {
	_, pb, err := StoredTicket(p.ctx, p.q, b, pos)
	if err != nil {
		return 0, err
	}
	prize, _ := core.PrizeOf(pb)
	return prize, nil
}

// UnpaidWinners lists the positions of block number of game gameCode's
// winning tickets not paid yet, in block order, with their prizes in euros:
// what a load test of a demonstration ledger claims, each once (vegas-desk
// load --winners). Any other ledger refuses, as Samples does.
func (o *Store) UnpaidWinners(ctx context.Context, gameCode, number int) (positions, prizes []int, err error) {
	if !o.Demo {
		return nil, nil, fmt.Errorf("unpaid winners: %w: only a demonstration ledger lists its unpaid winners", core.ErrNotDemo)
	}
	tx, err := o.read(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer tx.Rollback()
	b, err := GetBlock(ctx, tx, gameCode, number)
	if err != nil {
		return nil, nil, fmt.Errorf("unpaid winners: %w", err)
	}
	var paid []int64
	if err := core.Select(ctx, tx, &paid, "SELECT ticket FROM paid WHERE ticket >= ? AND ticket < ?", b.First(), b.First()+int64(b.Tickets)); err != nil {
		return nil, nil, fmt.Errorf("unpaid winners: %w", o.classify(err))
	}
	isPaid := make(map[int]bool, len(paid))
	for _, t := range paid {
		isPaid[int(t-b.First())] = true
	}
	err = ScanPrizes(ctx, tx, b, func(start int, bytes []byte) bool {
		for i, pb := range bytes {
			if prize, ok := core.PrizeOf(pb); ok && prize > 0 && !isPaid[start+i] {
				positions, prizes = append(positions, start+i), append(prizes, prize)
			}
		}
		return true
	})
	if err != nil {
		return nil, nil, fmt.Errorf("unpaid winners: %w", o.classify(err))
	}
	return positions, prizes, nil
}
