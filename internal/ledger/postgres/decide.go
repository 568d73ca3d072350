package postgres

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/jmoiron/sqlx"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/backoffice"
	"vegas-desk/internal/ledger/core"
)

// The back office's questions (and a server's, on its login) decided in
// Go, with core's rule, over PostgreSQL's tables: one transaction a
// question, which records its entry in vegas.waiting; the sequencer then
// chains it, and the question answers with the entry's id, number and
// hash. Paid once is the paid table's key on the ticket, and a request
// id's one payment vegas.requests' row.

// errRaced is a payment that lost its ticket to another, committed since
// the question read the ticket's facts: the question is asked again, and
// finds the ticket paid.
var errRaced = errors.New("the ticket was paid meanwhile")

// questionTx is a question's transaction: a core.ClaimTx whose Record
// waits in vegas.waiting.
type questionTx struct {
	*sqlx.Tx
	// seq is the entry the question recorded (once committed) or the
	// payment waiting to be chained that it answers again (prior): its
	// answer waits for it to be chained.
	seq       int64
	prior     bool
	committed bool
	recorded  time.Time // when it recorded its entry: its chain delay's start
	blocks    *blockCache
	seqr      *sequencer
	lockOut   bool // checkGuess before a guess is recorded
	// ctx is the question's, for the chain its commit may run.
	ctx context.Context
	// own is what the question's own chain gave its entry (ownChain):
	// its answer waits for no round.
	own         chained
	selfChained bool
	// rulesOf, when set, asks the rules of the question with the facts
	// (one statement): rules, of game rulesGame.
	rulesOf   *backoffice.RulesOf
	rules     *core.Rules
	rulesGame int
}

func (b *Backend) begin(ctx context.Context) (*questionTx, error) {
	var tx *sqlx.Tx
	err := b.db.Retry(func() (err error) { tx, err = b.db.BeginTxx(ctx, nil); return err })
	if err != nil {
		return nil, Classify(err)
	}
	return &questionTx{Tx: tx, blocks: &b.blocks, seqr: b.seq, lockOut: b.lockOut.Load()}, nil
}

// Facts are the facts of the ticket of s (backoffice.FactsBySerial), its
// block from the backend's blocks (a block never changes: postgres.sql's
// triggers).
func (t *questionTx) Facts(ctx context.Context, s game.Serial) (*core.Facts, error) {
	b, err := t.blocks.get(ctx, t, s.Game, s.Block)
	if errors.Is(err, core.ErrNotFound) {
		return nil, &core.Refusal{Verdict: core.UnknownSerial, Serial: s.String()}
	}
	if err != nil {
		return nil, err
	}
	if s.Position < 0 || s.Position >= b.Tickets || b.Key.Secret(s.Position) != s.Secret {
		return nil, &core.Refusal{Verdict: core.UnknownSerial, Serial: s.String()}
	}
	if t.rulesOf == nil {
		return backoffice.FactsOf(ctx, t, b, s.Position)
	}
	f, rules, err := backoffice.FactsWithRules(ctx, t, b, s.Position, *t.rulesOf)
	if err == nil {
		t.rules, t.rulesGame = &rules, s.Game
	}
	return f, err
}

// blockCache keeps the blocks a backend's questions read: a block's row
// never changes nor goes (postgres.sql's triggers), so it is read once.
type blockCache struct {
	mu sync.Mutex
	m  map[[2]int]core.Block
}

func (c *blockCache) get(ctx context.Context, q core.Querier, gameCode, number int) (core.Block, error) {
	c.mu.Lock()
	b, ok := c.m[[2]int{gameCode, number}]
	c.mu.Unlock()
	if ok {
		return b, nil
	}
	b, err := backoffice.GetBlock(ctx, q, gameCode, number)
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

// Rules are the rules of a question, read with its ticket's facts when
// they were asked together (rulesOf).
func (t *questionTx) Rules(ctx context.Context, gameCode int, desk string, asked core.Limit, at time.Time) (core.Rules, error) {
	if r := t.rulesOf; t.rules != nil && gameCode == t.rulesGame && desk == r.Desk && asked == r.Asked && at.Equal(r.At) {
		return *t.rules, nil
	}
	return backoffice.DeskRules(ctx, t, gameCode, desk, asked, at)
}

func (t *questionTx) Blocks(ctx context.Context) ([]core.Block, error) {
	bs, err := backoffice.ListBlocks(ctx, t)
	slices.SortFunc(bs, func(a, b core.Block) int { return cmp.Compare(a.ID, b.ID) })
	return bs, err
}

func (t *questionTx) Candidates(ctx context.Context, b core.Block, code []byte) ([]*core.Facts, error) {
	return backoffice.Candidates(ctx, t, b, code)
}

// PriorUse locks desk's request id (its row of vegas.requests: the claims
// of one id are asked one after the other), then reads the entry that
// answers it: its payment, else its first use, chained or waiting (one
// statement: one snapshot, which a chain's commit moves an entry into
// whole).
func (t *questionTx) PriorUse(ctx context.Context, desk, request string) (*core.Entry, error) {
	if request == "" {
		return nil, nil
	}
	if _, err := core.Exec(ctx, t, `INSERT INTO requests (desk, request) VALUES (?, ?)
		ON CONFLICT (desk, request) DO UPDATE SET desk = excluded.desk`, desk, request); err != nil {
		return nil, err
	}
	var e core.Entry
	err := core.Get(ctx, t, &e, `SELECT `+core.EntryCols+` FROM (
		SELECT `+core.EntryCols+`, 0::bigint AS wseq FROM journal
			WHERE desk = ? AND request = ? AND kind IN ('claim', 'refusal', 'referral')
		UNION ALL
		SELECT `+backoffice.WaitingCols+`, w.seq AS wseq FROM waiting w
			WHERE w.desk = ? AND w.request = ? AND w.kind IN ('claim', 'refusal', 'referral')
		) u ORDER BY kind = 'claim' DESC, wseq, id LIMIT 1`, desk, request, desk, request)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return &e, err
}

// ClaimOf is the claim of claim entry e, with its void; one waiting to be
// chained (id -seq) is voided by nothing yet, and the answer waits for it.
func (t *questionTx) ClaimOf(ctx context.Context, e *core.Entry) (core.Claim, error) {
	if e.ID < 0 {
		t.seq, t.prior = -e.ID, true
		return e.Claim(), nil
	}
	var r backoffice.ClaimRow
	if err := core.Get(ctx, t, &r, backoffice.ClaimSelect+" WHERE c.id = ?", e.ID); err != nil {
		return core.Claim{}, err
	}
	return r.Claim(), nil
}

// Record records e in vegas.waiting (its id -seq until it is chained).
// The transaction's commit does not wait for the disk: the chain's, after
// it, does.
func (t *questionTx) Record(ctx context.Context, e *core.Entry) error {
	for _, f := range [][2]string{{"desk", e.Desk}, {"operator", e.Operator}, {"reason", e.Reason}, {"detail", e.Detail}, {"request", e.Request}} {
		if err := core.CheckText(f[0], f[1], 0); err != nil {
			return err
		}
	}
	e.AtText = core.FormatTime(e.At)
	if t.lockOut && e.Kind == "refusal" && e.Desk != "" && core.Guess(core.Verdict(e.Reason)) {
		if err := t.checkGuess(ctx, e); err != nil {
			return err
		}
	}
	var row struct {
		Seq  int64  `db:"seq"`
		Sync string `db:"sync"`
	}
	// The transaction's synchronous_commit, off, set by the statement
	// itself (one round trip the fewer).
	err := core.Get(ctx, t, &row, `INSERT INTO waiting (kind, at, ticket, serial, game, block, position, pack_first,
		pack_last, state, amount, desk, operator, method, ref, request, reason, detail)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		RETURNING seq, set_config('synchronous_commit', 'off', true) AS sync`,
		e.Kind, e.AtText, e.Ticket, e.Serial, e.Game, e.Block, e.Position, e.PackFirst, e.PackLast, e.State, e.Amount,
		e.Desk, e.Operator, e.Method, e.Ref, e.Request, e.Reason, e.Detail)
	if err != nil {
		return fmt.Errorf("journal: %w", Classify(err))
	}
	t.seq, t.prior, e.ID, t.recorded, t.ctx = row.Seq, false, -row.Seq, time.Now(), ctx
	return nil
}

// Pay keeps the ticket of claim entry e paid: its paid row, inserted ON
// CONFLICT (a claim of the ticket committed since the facts were read:
// errRaced); the request id's one payment; the winner's identity, which
// the chain writes with the entry.
func (t *questionTx) Pay(ctx context.Context, e *core.Entry, w *core.Winner) error {
	// One statement: the paid row, then (when it was inserted) the
	// request id's payment.
	var n struct {
		Paid    bool `db:"paid"`
		Request bool `db:"request"`
	}
	err := core.Get(ctx, t, &n, `WITH p AS (INSERT INTO paid (ticket, claim) VALUES (?, ?) ON CONFLICT (ticket) DO NOTHING RETURNING ticket),
		r AS (UPDATE requests SET paid = true WHERE ? <> '' AND desk = ? AND request = ? AND NOT paid AND EXISTS (SELECT FROM p) RETURNING desk)
		SELECT EXISTS (SELECT FROM p) AS paid, EXISTS (SELECT FROM r) AS request`, e.Ticket.Int64, e.ID, e.Request, e.Desk, e.Request)
	switch {
	case err != nil:
		return Classify(err)
	case !n.Paid:
		return errRaced
	case e.Request != "" && !n.Request:
		return fmt.Errorf("%w: request id %s paid a ticket already: make a new request", core.ErrRequestReused, e.Request)
	}
	if w.Given() {
		_, err := core.Exec(ctx, t, "UPDATE waiting SET name = ?, doc_type = ?, doc_number = ? WHERE seq = ?", w.Name, w.DocType, w.DocNumber, -e.ID)
		return Classify(err)
	}
	return nil
}

// Commit commits, its error classified. A question that recorded an
// entry first chains it itself when no chain is running (ownChain): one
// commit, which waits for the disk, and no round to wait for. While its
// process's sequencer runs a round, or has one to run, the question joins
// it instead: one flush for many.
func (t *questionTx) Commit() error {
	if t.seq != 0 && !t.prior && t.seqr.idle() {
		if err := t.ownChain(); err != nil {
			return err
		}
	}
	if err := t.Tx.Commit(); err != nil {
		return Classify(err)
	}
	t.committed = true
	return nil
}

// ownChain chains what waits, the question's entry with it, in the
// question's transaction, if the chainer's lock is free now (SKIP LOCKED:
// a chain running, of a round or of another question, leaves the entry to
// the sequencer's next round); the commit then waits for the disk.
func (t *questionTx) ownChain() error {
	// The commit waits for the disk only once the lock is taken (the
	// outer SELECT sees only a row locked).
	var got []string
	if err := sqlx.SelectContext(t.ctx, t.Tx, &got, `WITH l AS (SELECT 1 FROM vegas.chainer FOR UPDATE SKIP LOCKED)
		SELECT set_config('synchronous_commit', 'on', true) FROM l`); err != nil {
		return fmt.Errorf("journal: %w", Classify(err))
	}
	if len(got) == 0 {
		return nil
	}
	out, err := chainWaiting(t.ctx, t.Tx)
	if err != nil {
		return Classify(err)
	}
	c, ok := out[t.seq]
	if !ok {
		return fmt.Errorf("journal: entry %d, recorded, was not chained by its own chain", t.seq)
	}
	t.own, t.selfChained = c, true
	return nil
}

// waited is the entry the question's answer waits for, chained (ok false:
// none).
func (b *Backend) waited(ctx context.Context, t *questionTx) (c chained, ok bool, err error) {
	if t.seq == 0 || !t.committed && !t.prior {
		return c, false, nil
	}
	if t.selfChained && !t.prior {
		return t.own, true, nil
	}
	c, err = b.seq.wait(ctx, t.seq)
	return c, err == nil, err
}

// clock is at, or now when zero.
func clock(at time.Time) time.Time {
	if at.IsZero() {
		return time.Now()
	}
	return at
}
