package ledger

import (
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"

	"vegas-desk/internal/game"
)

// Lookup finds a ticket by its full serial, with what a claim of it at
// this desk (payout limit limit, 0 for none) would answer now (its Verdict).
// The serial is parsed first (game.ErrCheckDigit or game.ErrSerialFormat,
// before the ledger is read); then an unknown serial or a wrong secret
// part both answer a *Refusal with UnknownSerial (errors.Is
// ErrUnknownSerial), recorded as refused with who unless the ledger is
// read-only; so is a ticket of a stolen pack, for the back office, though
// it is returned. A counter's login that was locked out answers Locked.
func (l *Ledger) Lookup(ctx context.Context, serial string, who Identity, limit int) (Ticket, error) {
	s, err := game.ParseSerial(serial)
	if err != nil {
		return Ticket{}, err
	}
	who.Desk, who.Operator = strings.TrimSpace(who.Desk), strings.TrimSpace(who.Operator)
	if l.eng == postgresEngine {
		return l.lookupPostgres(ctx, s, who)
	}
	if l.counter != nil {
		who.Desk = l.counter.desk
	}
	t, err := l.ticketBySerial(ctx, s, l.limitFor(limit))
	var r *Refusal
	if l.readOnly || !(errors.As(err, &r) || err == nil && t.Verdict == Stolen) {
		return t, err
	}
	// Record the unknown serial, or the stolen pack's ticket.
	e := entry{Kind: "refusal", Serial: l.refusedSerial(s), Game: s.Game, Block: s.Block, Position: s.Position,
		Desk: who.Desk, Operator: who.Operator, Method: "lookup", Reason: string(UnknownSerial)}
	if err == nil {
		e.Reason = string(Stolen)
		e.Ticket = sql.NullInt64{Int64: t.Block.first + int64(t.Position), Valid: true}
	}
	l.forgetWinner(&e)
	if rerr := l.record(ctx, &e); rerr != nil {
		return Ticket{}, errors.Join(err, rerr)
	}
	if r != nil {
		r.Entry = e.ID
	}
	return t, err
}

// record appends one entry in its own transaction.
func (l *Ledger) record(ctx context.Context, e *entry) error {
	tx, err := l.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := l.appendJournal(ctx, tx, e); err != nil {
		return err
	}
	return l.classify(tx.Commit())
}

// ticketBySerial reads the ticket of s and its verdict in one read
// transaction (one snapshot). An unknown serial is a *Refusal.
func (l *Ledger) ticketBySerial(ctx context.Context, s game.Serial, limit int) (Ticket, error) {
	tx, err := l.read(ctx)
	if err != nil {
		return Ticket{}, err
	}
	defer tx.Rollback()
	f, err := l.serialFacts(ctx, tx, s)
	if err != nil {
		return Ticket{}, err
	}
	em, err := emissionOf(ctx, tx, s.Game)
	if err != nil {
		return Ticket{}, err
	}
	threshold, err := identityThreshold(ctx, tx)
	if err != nil {
		return Ticket{}, err
	}
	v := decide(f, em, formatTime(l.now()), limit, threshold, false)
	return ticketOf(f, v, em)
}

// factsBySerial returns the facts of the ticket of s, or a *Refusal with
// UnknownSerial for a serial the ledger does not hold or a wrong secret.
func factsBySerial(ctx context.Context, q querier, s game.Serial) (*facts, error) {
	unknown := &Refusal{Verdict: UnknownSerial, Serial: s.String()}
	b, err := getBlock(ctx, q, s.Game, s.Block)
	if errors.Is(err, ErrNotFound) {
		return nil, unknown
	}
	if err != nil {
		return nil, err
	}
	if s.Position < 0 || s.Position >= b.Tickets || b.key.Secret(s.Position) != s.Secret {
		return nil, unknown
	}
	return factsOf(ctx, q, b, s.Position)
}

// TicketAt returns the ticket at position (0 .. Tickets-1) of block number
// of game gameCode, with its status, or ErrNotFound. It is for the back
// office's screens: it records nothing and needs no secret part.
func (l *Ledger) TicketAt(ctx context.Context, gameCode, number, position int) (Ticket, error) {
	if err := l.backOffice("a ticket by its position"); err != nil {
		return Ticket{}, err
	}
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
	return l.ticketAt(ctx, tx, b, position)
}

// ticketAt reads the ticket at position pos of block b, with its verdict
// for the back office (no limit).
func (l *Ledger) ticketAt(ctx context.Context, q querier, b Block, pos int) (Ticket, error) {
	f, err := factsOf(ctx, q, b, pos)
	if err != nil {
		return Ticket{}, err
	}
	em, err := emissionOf(ctx, q, b.Game)
	if err != nil {
		return Ticket{}, err
	}
	threshold, err := identityThreshold(ctx, q)
	if err != nil {
		return Ticket{}, err
	}
	return ticketOf(f, decide(f, em, formatTime(l.now()), 0, threshold, true), em)
}

// Samples returns tickets of block number of game gameCode worth trying at
// the counter of a demonstration ledger: its first loser, then for each
// prize of the table, highest first, the block's first ticket with that
// prize not yet paid (tiers the block lacks, or whose tickets are all paid,
// are left out). Any other ledger refuses: listing unpaid winners would let
// anyone claim them.
func (l *Ledger) Samples(ctx context.Context, gameCode, number int) ([]Ticket, error) {
	if !l.demo {
		return nil, fmt.Errorf("serials to try: %w: only a demonstration ledger lists its unpaid winners", ErrNotDemo)
	}
	tx, err := l.read(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	b, err := getBlock(ctx, tx, gameCode, number)
	if err != nil {
		return nil, fmt.Errorf("samples: %w", err)
	}
	var paid []int64
	if err := sel(ctx, tx, &paid, "SELECT ticket FROM paid WHERE ticket >= ? AND ticket < ?", b.first, b.first+int64(b.Tickets)); err != nil {
		return nil, fmt.Errorf("samples: %w", err)
	}
	isPaid := map[int]bool{}
	for _, t := range paid {
		isPaid[int(t-b.first)] = true
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
		t, err := l.ticketAt(ctx, tx, b, pos)
		if err != nil {
			return nil, fmt.Errorf("samples: %w", err)
		}
		out = append(out, t)
	}
	return out, nil
}

// FindByContents returns the ledger's ticket with exactly these contents
// (the duel's cards in any order), with its verdict at this desk, or a
// *Refusal with UnknownContents, recorded. Losing contents are not
// searched: only winning tickets are indexed, and there is nothing to pay,
// so it answers ErrNotWinner. Should two tickets of the ledger show the
// same winning contents, the first one not yet paid is returned.
func (l *Ledger) FindByContents(ctx context.Context, t *game.Ticket, who Identity, limit int) (Ticket, error) {
	c := *t
	slices.Sort(c.Duel.Cards[:]) // generated tickets show them ascending
	if err := game.Validate(&c); err != nil {
		return Ticket{}, fmt.Errorf("find by contents: %w", err)
	}
	if game.Prize(&c) == 0 {
		return Ticket{}, fmt.Errorf("find by contents: %w: these contents lose, there is nothing to pay", ErrNotWinner)
	}
	code := game.Encode(&c)
	who.Desk, who.Operator = strings.TrimSpace(who.Desk), strings.TrimSpace(who.Operator)
	var found []Ticket
	var err error
	switch {
	case l.eng == postgresEngine:
		found, err = l.findPostgres(ctx, code[:], who)
	case l.counter != nil:
		who.Desk = l.counter.desk
		found, err = l.findCounter(ctx, code[:])
	default:
		found, err = l.findSQLite(ctx, code[:], limit)
	}
	if err != nil {
		return Ticket{}, err
	}
	for _, t := range found {
		if t.Status == StatusUnpaid {
			return t, nil
		}
	}
	if len(found) > 0 {
		return found[0], nil
	}
	r := &Refusal{Verdict: UnknownContents}
	if l.eng == sqliteEngine && !l.readOnly {
		e := entry{Kind: "refusal", Desk: who.Desk, Operator: who.Operator, Method: "contents", Reason: string(UnknownContents)}
		if err := l.record(ctx, &e); err != nil {
			return Ticket{}, errors.Join(r, err)
		}
		r.Entry = e.ID
	}
	return Ticket{}, r
}

// findSQLite reads the tickets whose encoding is code, through each
// block's finder.
func (l *Ledger) findSQLite(ctx context.Context, code []byte, limit int) ([]Ticket, error) {
	blocks := func(q querier) ([]Block, error) {
		bs, err := listBlocks(ctx, q)
		slices.SortFunc(bs, func(a, b Block) int { return cmp.Compare(a.ID, b.ID) })
		return bs, err
	}
	candidates := func(q querier, b Block) ([]*facts, error) {
		positions, err := findPositions(ctx, q, b, findKey(code))
		if err != nil {
			return nil, err
		}
		var fs []*facts
		for _, pos := range positions {
			if pos >= b.Tickets {
				continue
			}
			f, err := factsOf(ctx, q, b, pos)
			if err != nil {
				return nil, err
			}
			fs = append(fs, f)
		}
		return fs, nil
	}
	return l.findIn(ctx, code, limit, blocks, candidates)
}

// findIn reads the tickets whose encoding is code among the candidates
// each block's index gives (a back office's finder, a counter ledger's
// contents records), with the verdict a claim would get now.
func (l *Ledger) findIn(ctx context.Context, code []byte, limit int, blocks func(querier) ([]Block, error),
	candidates func(querier, Block) ([]*facts, error)) ([]Ticket, error) {
	tx, err := l.read(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	bs, err := blocks(tx)
	if err != nil {
		return nil, fmt.Errorf("find by contents: %w", err)
	}
	threshold, err := identityThreshold(ctx, tx)
	if err != nil {
		return nil, err
	}
	now := formatTime(l.now())
	var found []Ticket
	for _, b := range bs {
		fs, err := candidates(tx, b)
		if err != nil {
			return nil, fmt.Errorf("find by contents: block %s: %w", b.Name(), err)
		}
		for _, f := range fs {
			if !bytes.Equal(f.code, code) {
				continue
			}
			em, err := emissionOf(ctx, tx, b.Game)
			if err != nil {
				return nil, err
			}
			t, err := ticketOf(f, decide(f, em, now, limit, threshold, false), em)
			if err != nil {
				return nil, err
			}
			found = append(found, t)
		}
	}
	return found, nil
}

// paidClaim returns the claim of ticket number id that no void cancels, or
// nil.
func paidClaim(ctx context.Context, q querier, id int64) (*Claim, error) {
	var rows []claimRow
	err := sel(ctx, q, &rows, claimSelect+" WHERE c.id = (SELECT claim FROM paid WHERE ticket = ?)", id)
	if err != nil {
		return nil, fmt.Errorf("claims of ticket %d: %w", id, err)
	}
	if len(rows) == 0 {
		return nil, nil
	}
	c := rows[0].claim()
	return &c, nil
}

// answer is a row of PostgreSQL's vegas.answer: what lookup, find and
// claim say.
type answer struct {
	Status        string         `db:"status"`
	Game          sql.NullInt64  `db:"game"`
	Block         sql.NullInt64  `db:"block"`
	Position      sql.NullInt64  `db:"position"`
	Secret        sql.NullInt64  `db:"secret"`
	Prize         sql.NullInt64  `db:"prize"`
	Code          []byte         `db:"code"`
	PackState     sql.NullString `db:"pack_state"`
	Digest        []byte         `db:"digest"`
	CreatedAt     sql.NullString `db:"created_at"`
	ClaimEntry    sql.NullInt64  `db:"claim_entry"`
	ClaimNumber   sql.NullInt64  `db:"claim_number"`
	ClaimAt       sql.NullString `db:"claim_at"`
	ClaimAmount   sql.NullInt64  `db:"claim_amount"`
	ClaimDesk     sql.NullString `db:"claim_desk"`
	ClaimOperator sql.NullString `db:"claim_operator"`
	ClaimMethod   sql.NullString `db:"claim_method"`
	ClaimHash     []byte         `db:"claim_hash"`
	Entry         sql.NullInt64  `db:"entry"`
	Until         sql.NullString `db:"until"`
}

const answerCols = "status, game, block, position, secret, prize, code, pack_state, digest, created_at, claim_entry, claim_number, claim_at, claim_amount, claim_desk, claim_operator, claim_method, claim_hash, entry, until"

// claim is the claim of the answer, if any.
func (a *answer) claim() *Claim {
	if !a.ClaimEntry.Valid {
		return nil
	}
	s := game.Serial{Game: int(a.Game.Int64), Block: int(a.Block.Int64), Position: int(a.Position.Int64), Secret: a.Secret.Int64}
	return &Claim{Number: a.ClaimNumber.Int64, Entry: a.ClaimEntry.Int64, Hash: hex.EncodeToString(a.ClaimHash),
		Serial: s.String(), Game: s.Game, Block: s.Block, Position: s.Position, Amount: int(a.ClaimAmount.Int64),
		Desk: a.ClaimDesk.String, Operator: a.ClaimOperator.String, Method: a.ClaimMethod.String, At: parseTime(a.ClaimAt.String)}
}

// ticket is the ticket of an answer that names one.
func (a *answer) ticket() (Ticket, error) {
	s := game.Serial{Game: int(a.Game.Int64), Block: int(a.Block.Int64), Position: int(a.Position.Int64), Secret: a.Secret.Int64}
	t := Ticket{Serial: s, Pack: s.Pack(), Position: s.Position, Prize: int(a.Prize.Int64), Claim: a.claim(),
		PackState: a.PackState.String, Verdict: Verdict(a.Status), Until: parseTime(a.Until.String),
		Block: Block{Game: s.Game, Number: s.Block, Digest: hex.EncodeToString(a.Digest), PackSize: game.PackSize,
			Tickets: game.BlockSize, Winners: game.Winners, Payout: game.Payout, CreatedAt: parseTime(a.CreatedAt.String)}}
	if a.Code != nil {
		gt, err := game.Decode(a.Code)
		if err != nil {
			return Ticket{}, fmt.Errorf("ticket %s: %w (the back office should run verify)", s, err)
		}
		t.Ticket = gt
	}
	switch {
	case t.Prize == 0:
		t.Status = StatusLoser
	case t.Claim != nil:
		t.Status = StatusPaid
	default:
		t.Status = StatusUnpaid
	}
	return t, nil
}

// refusal is the error of an answer that refuses, or nil.
func (a *answer) refusal(serial string) error {
	switch Verdict(a.Status) {
	case UnknownSerial, UnknownContents, Locked:
		return &Refusal{Verdict: Verdict(a.Status), Serial: serial, Until: parseTime(a.Until.String), Entry: a.Entry.Int64}
	}
	return nil
}

func (l *Ledger) lookupPostgres(ctx context.Context, s game.Serial, who Identity) (Ticket, error) {
	var a answer
	err := get(ctx, l.w, &a, "SELECT "+answerCols+" FROM vegas.lookup(?, ?, ?, ?, ?, ?)",
		s.Game, s.Block, s.Position, s.Secret, who.Desk, who.Operator)
	if err != nil {
		return Ticket{}, fmt.Errorf("lookup %s: %w", s, l.classify(err))
	}
	if err := a.refusal(s.String()); err != nil {
		return Ticket{}, err
	}
	return a.ticket()
}

func (l *Ledger) findPostgres(ctx context.Context, code []byte, who Identity) ([]Ticket, error) {
	var as []answer
	if err := sel(ctx, l.w, &as, "SELECT "+answerCols+" FROM vegas.find(?, ?, ?)", code, who.Desk, who.Operator); err != nil {
		return nil, fmt.Errorf("find by contents: %w", l.classify(err))
	}
	var out []Ticket
	for i := range as {
		if err := as[i].refusal(""); err != nil {
			return nil, err
		}
		t, err := as[i].ticket()
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}
