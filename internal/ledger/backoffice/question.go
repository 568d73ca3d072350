package backoffice

import (
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jmoiron/sqlx"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/ledger/tables"
)

// A question on a ledger file (a SQLite back office, a sealed counter
// ledger) as core.Ask asks it (FileStorage, a core.Storage): its snapshot
// read in one transaction (ReadSnapshot), core's decision, its outcome
// written in one write transaction (WriteOutcome). A claim reads and writes in the same write
// transaction, which holds the file: nothing changes between them. A
// lookup or a search reads in a read transaction, and only a refusal to
// record opens a write, which counts the desk's guesses again.

// The read: the facts and rules a verdict needs, read from the back
// office's tables, and the tables a sealed counter ledger shares with it
// (the journal, paid, games, settings) read the same way; PostgreSQL's
// one-statement snapshot reads the same rows (FactsRow, RulesRow).

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
// a question reads its ticket in one statement fewer. Read reads a block
// the cache does not hold (nil: GetBlock, a back office's).
type BlockCache struct {
	Read func(ctx context.Context, q core.Querier, gameCode, number int) (core.Block, error)
	mu   sync.Mutex
	m    map[[2]int]core.Block
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
	read := c.Read
	if read == nil {
		read = GetBlock
	}
	b, err := read(ctx, q, gameCode, number)
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
	err := scanRow(ctx, q, `SELECT substr(p.codes, ?, ?) AS code, substr(p.prizes, ?, 1) AS prize,
		coalesce((SELECT state FROM pack_states WHERE block = ? AND pack = ?), '') AS state,
		(SELECT claim FROM paid WHERE ticket = ?) AS claim FROM packs p WHERE p.id = ?`,
		[]any{off*game.EncodedSize + 1, game.EncodedSize, off + 1, b.ID, pos / game.PackSize, b.TicketNumber(pos), b.PackID(pos)},
		row.Fields()...)
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

// Fields are the row's columns to scan it into, in their order.
func (row *FactsRow) Fields() []any { return []any{&row.Code, &row.Prize, &row.State, &row.Claim} }

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
	err := scanRow(ctx, q, "SELECT state FROM pack_states WHERE block = ? AND pack = ?", []any{f.Block.ID, f.Position / game.PackSize}, &f.PackState)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	f.Paid, err = PaidClaim(ctx, q, f.Ticket)
	return err
}

// ReadDates reads game code's dates.
func ReadDates(ctx context.Context, q core.Querier, code int) (core.Dates, error) {
	var d core.Dates
	err := scanRow(ctx, q, "SELECT on_sale, end_of_sale, deadline FROM games WHERE code = ?", []any{code}, &d.OnSale, &d.EndOfSale, &d.Deadline)
	if errors.Is(err, sql.ErrNoRows) {
		return d, notFound("game %d", code)
	}
	return d, err
}

// IdentityThreshold reads the identity threshold setting.
func IdentityThreshold(ctx context.Context, q core.Querier) (int, error) {
	var v string
	err := scanRow(ctx, q, "SELECT value FROM settings WHERE key = ?", []any{core.SettingIdentityThreshold}, &v)
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
// One statement: the game's row with the setting's.
func ReadRules(ctx context.Context, q core.Querier, gameCode int, limit, asked core.Limit, at time.Time) (core.Rules, error) {
	var d core.Dates
	var setting sql.NullString
	err := scanRow(ctx, q, "SELECT on_sale, end_of_sale, deadline, (SELECT value FROM settings WHERE key = ?) FROM games WHERE code = ?",
		[]any{core.SettingIdentityThreshold, gameCode}, &d.OnSale, &d.EndOfSale, &d.Deadline, &setting)
	if errors.Is(err, sql.ErrNoRows) {
		return core.Rules{}, notFound("game %d", gameCode)
	}
	if err != nil {
		return core.Rules{}, err
	}
	threshold := core.DefaultIdentityThreshold
	if setting.Valid {
		if threshold, err = strconv.Atoi(setting.String); err != nil {
			return core.Rules{}, err
		}
	}
	return core.Rules{Dates: d, At: core.FormatTime(at), Limit: limit.Lower(asked), Threshold: threshold}, nil
}

// DeskRules reads, in one statement, the rules of a question at desk
// about a ticket of game gameCode at time at: the game's dates, the
// identity threshold, and desk's stored payout limit (none for a desk the
// ledger does not know: the back office's own) lowered by asked.
func DeskRules(ctx context.Context, q core.Querier, gameCode int, desk string, asked core.Limit, at time.Time) (core.Rules, error) {
	var row RulesRow
	err := scanRow(ctx, q, `SELECT `+RulesCols+` FROM games g WHERE code = ?`, []any{core.SettingIdentityThreshold, desk, gameCode}, row.Fields()...)
	if errors.Is(err, sql.ErrNoRows) {
		return core.Rules{}, notFound("game %d", gameCode)
	}
	if err != nil {
		return core.Rules{}, err
	}
	return row.Rules(asked, at)
}

// Fields are the row's columns to scan it into, in RulesCols's order.
func (row *RulesRow) Fields() []any {
	return []any{&row.OnSale, &row.EndOfSale, &row.Deadline, &row.Threshold, &row.Limit}
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
	var r ClaimRow
	err := scanRow(ctx, q, ClaimSelect+" WHERE c.id = (SELECT claim FROM "+paidRows+" p WHERE p.ticket = ?)", []any{id}, r.Fields()...)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("claims of ticket %d: %w", id, err)
	}
	c := r.Claim()
	return &c, nil
}

// Source is how a kind of ledger file reads its tickets: a back office
// from its packs, a sealed counter ledger from its sealed records.
type Source interface {
	// Facts are the facts of the ticket of s, or nil when the ledger
	// holds no ticket of s (or its secret part is wrong).
	Facts(ctx context.Context, q core.Querier, s game.Serial) (*core.Facts, error)
	// Rules are the rules of a question at desk about a ticket of game
	// gameCode, its limit lowered by asked, at at.
	Rules(ctx context.Context, q core.Querier, gameCode int, desk string, asked core.Limit, at time.Time) (core.Rules, error)
	// Blocks are the ledger's blocks; Candidates the facts of block b's
	// tickets that may show code (those that do not are passed over).
	Blocks(ctx context.Context, q core.Querier) ([]core.Block, error)
	Candidates(ctx context.Context, q core.Querier, b core.Block, code []byte) ([]*core.Facts, error)
	// Prior is the entry that answers desk's request id used before (its
	// payment, else its first use) and its claim when it is a payment, or
	// nil.
	Prior(ctx context.Context, q core.Querier, desk, request string) (*core.Entry, *core.Claim, error)
}

// ReadSnapshot reads a question's snapshot in q, from src.
// A back office's question about a serial (src Tables) that reads its
// desk's row (QuestionDesk) reads its rules in the same statement, before
// its ticket's facts; the rules' errors count only when the ticket is
// found.
func (o *Store) ReadSnapshot(ctx context.Context, q core.Querier, src Source, a *core.Question) (*core.Snapshot, error) {
	sn := &core.Snapshot{}
	var err error
	rules := func() (core.Rules, error) { return src.Rules(ctx, q, a.Serial.Game, a.Who.Desk, a.Asked, a.At) }
	if _, ok := src.(Tables); ok && !a.Find && o.readsDesk(a.Who) {
		var row RulesRow
		var game bool
		if sn.Desk, sn.Gate, err = o.questionDesk(ctx, q, a.Who, " LEFT JOIN games g ON g.code = ?", []any{a.Serial.Game},
			", g.code IS NOT NULL AS game, "+RulesCols, []any{core.SettingIdentityThreshold, a.Who.Desk},
			append([]any{&game}, row.Fields()...)); err != nil {
			return nil, err
		}
		rules = func() (core.Rules, error) {
			if !game {
				return core.Rules{}, notFound("game %d", a.Serial.Game)
			}
			return row.Rules(a.Asked, a.At)
		}
	} else if sn.Desk, sn.Gate, err = o.QuestionDesk(ctx, q, a.Who); err != nil {
		return nil, err
	}
	if a.Find {
		sn.Found, err = find(ctx, q, src, a)
		return sn, err
	}
	if sn.Facts, err = src.Facts(ctx, q, a.Serial); err != nil || sn.Facts == nil {
		return sn, err
	}
	if sn.Rules, err = rules(); err != nil {
		return nil, err
	}
	if r := a.Request(); r != "" {
		sn.Prior, sn.PriorClaim, err = src.Prior(ctx, q, a.Who.Desk, r)
	}
	return sn, err
}

// find reads the tickets of every block with exactly encoding a.Code,
// each with its game's rules.
func find(ctx context.Context, q core.Querier, src Source, a *core.Question) ([]core.Found, error) {
	bs, err := src.Blocks(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("find by contents: %w", err)
	}
	slices.SortFunc(bs, func(a, b core.Block) int { return cmp.Compare(a.ID, b.ID) })
	var found []core.Found
	rules := map[int]core.Rules{}
	for _, b := range bs {
		fs, err := src.Candidates(ctx, q, b, a.Code)
		if err != nil {
			return nil, fmt.Errorf("find by contents: block %s: %w", b.Name(), err)
		}
		for _, f := range fs {
			if !bytes.Equal(f.Code, a.Code) {
				continue
			}
			r, ok := rules[b.Game]
			if !ok {
				if r, err = src.Rules(ctx, q, b.Game, a.Who.Desk, a.Asked, a.At); err != nil {
					return nil, err
				}
				rules[b.Game] = r
			}
			found = append(found, core.Found{Facts: f, Rules: r})
		}
	}
	return found, nil
}

// priorSelect reads the desk's request id's prior use (its payment, else
// its first use) through the index of the desk's request ids, with the
// void of a payment, as ClaimSelect reads it.
var priorSelect = "SELECT j." + strings.Join(tables.Journal.Names(), ", j.") + `,
	v.id IS NOT NULL, coalesce(v.reason, ''), coalesce(v.operator, ''), coalesce(v.at, ''), coalesce(v.desk, '')
FROM journal j LEFT JOIN journal v ON j.kind = 'claim' AND v.kind = 'void' AND v.ref = j.id
WHERE j.desk = ? AND j.request = ? AND j.request <> '' AND j.kind IN ('claim', 'refusal', 'referral')
ORDER BY j.kind = 'claim' DESC, j.id LIMIT 1`

// Prior reads the desk's request id's prior use, and its claim when it is
// a payment: one statement (priorSelect).
func (Tables) Prior(ctx context.Context, q core.Querier, desk, request string) (*core.Entry, *core.Claim, error) {
	var e core.Entry
	var r ClaimRow
	err := scanRow(ctx, q, priorSelect, []any{desk, request},
		append(e.Fields(), &r.Voided, &r.Reason, &r.VoidedBy, &r.VoidedAt, &r.VoidDesk)...)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	if e.Kind != "claim" {
		return &e, nil, nil
	}
	r.ID, r.Number, r.Serial, r.Game, r.Block, r.Position, r.Amount = e.ID, e.Number, e.Serial, e.Game, e.Block, e.Position, e.Amount
	r.Desk, r.Operator, r.Method, r.Request, r.At, r.Hash = e.Desk, e.Operator, e.Method, e.Request, e.AtText, e.Hash
	c := r.Claim()
	return &e, &c, nil
}

// scanRow reads the first row of query into dest, column by column (no
// reflection: a question's read is most of a claim's cost on a file), or
// sql.ErrNoRows, as core.Get does.
func scanRow(ctx context.Context, q core.Querier, query string, args []any, dest ...any) error {
	rows, err := core.Query(ctx, q, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return err
		}
		return sql.ErrNoRows
	}
	if err := rows.Scan(dest...); err != nil {
		return err
	}
	return rows.Close()
}

// Fields are the row's columns to scan it into, in ClaimSelect's order.
func (r *ClaimRow) Fields() []any {
	return []any{&r.ID, &r.Number, &r.Serial, &r.Game, &r.Block, &r.Position, &r.Amount, &r.Desk, &r.Operator, &r.Method,
		&r.Request, &r.At, &r.Hash, &r.Voided, &r.Reason, &r.VoidedBy, &r.VoidedAt, &r.VoidDesk}
}

// Fields are the row's columns to scan it into, in BlockCols's order.
func (r *BlockRow) Fields() []any {
	return []any{&r.ID, &r.Game, &r.Number, &r.FirstPack, &r.Tickets, &r.PackSize, &r.Winners, &r.Payout, &r.Key, &r.Digest, &r.CreatedAt}
}

// QuestionDesk reads who's desk as a question sees it, in one statement: its
// lock-out, On for a desk the ledger lists when it locks desks out
// (LockOutGuesses); and its gate when the question came with a
// certificate (who.Cert): listed, disabled, accepting the certificate
// (desk_certs), and the ledger's restore fence (meta "replaced").
func (o *Store) QuestionDesk(ctx context.Context, q core.Querier, who core.Identity) (core.Lock, core.Gate, error) {
	return o.questionDesk(ctx, q, who, "", nil, "", nil, nil)
}

// readsDesk says whether a question by who reads its desk's row: when it
// came with a certificate, or its desk may be locked out.
func (o *Store) readsDesk(who core.Identity) bool {
	return who.Cert != "" || o.LockOut.Load() && who.Desk != ""
}

// questionDesk is QuestionDesk, its statement reading more: the columns
// more (their arguments moreArgs) into moreDest, of the tables join (a
// LEFT JOIN, its arguments joinArgs) too.
func (o *Store) questionDesk(ctx context.Context, q core.Querier, who core.Identity, join string, joinArgs []any,
	more string, moreArgs, moreDest []any) (core.Lock, core.Gate, error) {
	gate := core.Gate{Asked: who.Cert != ""}
	lockOut := o.LockOut.Load() && who.Desk != ""
	if more == "" && !o.readsDesk(who) { // more: its caller reads them whatever LockOut is now
		return core.Lock{}, gate, nil
	}
	var r struct {
		Listed, Accepts          bool
		Guesses, Until, Replaced string
		Disabled                 int
	}
	replaced := "''"
	if gate.Asked { // a served question: the restore fence too
		replaced = "coalesce((SELECT value FROM meta WHERE key = 'replaced'), '')"
	}
	args := append(append(append([]any{who.Cert}, moreArgs...), who.Desk), joinArgs...)
	err := scanRow(ctx, q, `SELECT d.id IS NOT NULL AS listed, coalesce(d.guesses, '') AS guesses,
		coalesce(d.locked_until, '') AS locked_until, coalesce(d.disabled, 0) AS disabled,
		EXISTS (SELECT 1 FROM desk_certs c WHERE c.desk = d.id AND c.serial = ?) AS accepts, `+replaced+` AS replaced`+more+`
		FROM (SELECT 1 AS one) AS x LEFT JOIN desks d ON d.id = ?`+join, args,
		append([]any{&r.Listed, &r.Guesses, &r.Until, &r.Disabled, &r.Accepts, &r.Replaced}, moreDest...)...)
	if err != nil {
		return core.Lock{}, gate, fmt.Errorf("desk %s: %w", who.Desk, o.E.Classify(err))
	}
	gate.Replaced = r.Replaced
	if !r.Listed {
		return core.Lock{}, gate, nil
	}
	gate.Listed, gate.Disabled, gate.Accepts = true, r.Disabled == 1, r.Accepts
	if !lockOut {
		return core.Lock{}, gate, nil
	}
	return core.LockOf(r.Guesses, r.Until), gate, nil
}

// deskLock reads desk's lock-out and payout limit (CountGuess), its row
// locked with lockRows.
func (o *Store) deskLock(ctx context.Context, q core.Querier, desk, lockRows string) (core.Lock, int, error) {
	if !o.LockOut.Load() || desk == "" {
		return core.Lock{}, 0, nil
	}
	var r struct {
		Guesses string `db:"guesses"`
		Until   string `db:"locked_until"`
		Limit   int    `db:"payout_limit"`
	}
	err := core.Get(ctx, q, &r, "SELECT guesses, locked_until, payout_limit FROM desks WHERE id = ?"+lockRows, desk)
	if errors.Is(err, sql.ErrNoRows) {
		return core.Lock{}, 0, nil
	}
	if err != nil {
		return core.Lock{}, 0, fmt.Errorf("desk %s: %w", desk, o.E.Classify(err))
	}
	return core.LockOf(r.Guesses, r.Until), r.Limit, nil
}

// WriteOutcome writes what a decision asks in tx, a write transaction of
// the file (which holds it: the desk's guesses read again here are its
// last), with keep applied to the entry first (what the kind keeps of it).
// A guess is recorded only if the desk's lock-out allows it; the guess
// that locks the desk out records its lock-out too (a desk entry
// "locked"). A refusal Locked answers otherwise, and nothing is written.
func (o *Store) WriteOutcome(ctx context.Context, tx *sqlx.Tx, out *core.Outcome, keep func(*core.Entry)) error {
	e := out.Record
	if keep != nil {
		keep(e)
	}
	if e.IsGuess() {
		if err := o.countGuess(ctx, tx, e); err != nil {
			return err
		}
	}
	if err := o.appendJournal(ctx, tx, e); err != nil {
		return err
	}
	if !out.Pay {
		return nil
	}
	if err := insertPaid(ctx, tx, e.Ticket.Int64, e.ID); err != nil {
		return o.E.Classify(err)
	}
	if w := out.Winner; w != nil {
		if _, ok := o.E.(skeletonless); ok {
			_, err := core.Exec(ctx, tx, "INSERT INTO identities (claim, name, doc_type, doc_number) VALUES (?, ?, ?, ?)",
				e.ID, w.Name, w.DocType, w.DocNumber)
			return o.E.Classify(err)
		}
		_, err := core.Exec(ctx, tx, "INSERT INTO identities (claim, name, doc_type, doc_number, skeleton) VALUES (?, ?, ?, ?, ?)",
			e.ID, w.Name, w.DocType, w.DocNumber, core.NameSkeleton(w.Name))
		return o.E.Classify(err)
	}
	return nil
}

// paidInsert is the head of the paid row's INSERT: its declared columns
// (tables.Paid).
var paidInsert = tables.Paid.Insert() + " VALUES (?, ?)"

// insertPaid writes ticket's paid row, naming claim, the payment that keeps
// it paid: the one INSERT of the paid row of a back office's writes on
// either engine and of a counter ledger's (a question on a file, an
// import's payment, a voided ticket that another payment keeps paid). A
// question on PostgreSQL writes its row in its one statement
// (postgres/question.go), with the same columns.
func insertPaid(ctx context.Context, q core.Querier, ticket, claim int64) error {
	_, err := core.Exec(ctx, q, paidInsert, ticket, claim)
	return err
}

// skeletonless is an Engine whose identities keep no skeleton: a sealed
// counter ledger's, whose payments' identities the back office keeps, with
// their skeletons, when it imports them.
type skeletonless interface{ Skeletonless() }

// CountGuess counts guess e with its desk, in write transaction tx: the
// desk's row read again (locked, on PostgreSQL: LockRows), and core's
// lock-out after e (core.Lock.Guess; On false: a desk the ledger does not
// lock out), with the entry that records the desk's lock-out when e locks
// it; a *core.Refusal Locked when the desk is locked out.
func (o *Store) CountGuess(ctx context.Context, tx core.Querier, e *core.Entry) (core.Lock, *core.Entry, error) {
	lock, limit, err := o.deskLock(ctx, tx, e.Desk, o.E.LockRows())
	if err != nil || !lock.On {
		return lock, nil, err
	}
	next, locks, err := lock.Guess(e.At, e.Serial)
	if err != nil || !locks {
		return next, nil, err
	}
	return next, core.LockEntry(e.Desk, limit, e.At, next.Until), nil
}

// countGuess counts guess e with its desk in tx, a write transaction of
// the file (CountGuess): the desk's row kept, and its lock-out recorded
// when e locks it.
func (o *Store) countGuess(ctx context.Context, tx *sqlx.Tx, e *core.Entry) error {
	next, lock, err := o.CountGuess(ctx, tx, e)
	if err != nil || !next.On {
		return err
	}
	if _, err := core.Exec(ctx, tx, "UPDATE desks SET guesses = ?, locked_until = ? WHERE id = ?",
		next.GuessesText(), next.UntilText(), e.Desk); err != nil {
		return o.E.Classify(err)
	}
	if lock != nil {
		return o.appendJournal(ctx, tx, lock)
	}
	return nil
}

// FileStorage is a file's questions as core.Ask asks them (core.Storage):
// src reads its tickets, keep is what its kind keeps of an entry its
// question records, given the serial it asked (nil: all of it).
func (o *Store) FileStorage(src Source, keep func(e *core.Entry, s game.Serial)) core.Storage {
	return fileQuestions{o, src, keep}
}

type fileQuestions struct {
	o    *Store
	src  Source
	keep func(e *core.Entry, s game.Serial) // s: the serial asked, parsed
}

// heldTx is a claim's write transaction, held from its read to its write.
type heldTx struct{ *sqlx.Tx }

func (h heldTx) Release() { h.Rollback() }

// Read reads a claim in a write transaction of the file, which holds the
// file until the claim's write (nothing changes between them); a lookup
// or a search in a read transaction.
func (f fileQuestions) Read(ctx context.Context, q *core.Question) (*core.Snapshot, core.Held, error) {
	o := f.o
	if q.Claim != nil {
		tx, err := o.write(ctx)
		if err != nil {
			return nil, nil, fmt.Errorf("claim: %w", err)
		}
		sn, err := o.ReadSnapshot(ctx, tx, f.src, q)
		if err != nil {
			tx.Rollback()
			return nil, nil, fmt.Errorf("claim: %w", o.E.Classify(err))
		}
		return sn, heldTx{tx}, nil
	}
	tx, err := o.E.Read(ctx)
	if err != nil {
		return nil, nil, o.E.Classify(err)
	}
	defer tx.Rollback()
	sn, err := o.ReadSnapshot(ctx, tx, f.src, q)
	if err != nil {
		return nil, nil, o.E.Classify(err)
	}
	return sn, nil, nil
}

// Write writes out in the claim's transaction, or in one of its own (a
// lookup's or a search's refusal: its desk's guesses read again there,
// WriteOutcome), whose commit returns once synced (sqlite/commit.go). A
// file opened read-only records nothing.
func (f fileQuestions) Write(ctx context.Context, q *core.Question, held core.Held, _ *core.Snapshot, out *core.Outcome) error {
	o := f.o
	tx, ok := held.(heldTx)
	if !ok {
		if o.ReadOnly {
			return nil
		}
		t, err := o.write(ctx)
		if err != nil {
			return err
		}
		tx = heldTx{t}
	}
	defer tx.Rollback()
	var keep func(*core.Entry)
	if f.keep != nil {
		keep = func(e *core.Entry) { f.keep(e, q.Serial) }
	}
	if err := o.WriteOutcome(ctx, tx.Tx, out, keep); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", o.E.Classify(err))
	}
	return nil
}

func (f fileQuestions) Durable(ctx context.Context) error { return f.o.E.Durable(ctx) }

func (f fileQuestions) Failed() error { return f.o.E.Failed() }
