package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/backoffice"
	"vegas-desk/internal/ledger/core"
)

// A question's read on PostgreSQL: the back office's tables, and what
// waits in vegas.waiting to be chained (a payment, a request id's use).
// An entry it needs that waits (a payment of the ticket, the request id's
// use) it waits for, chained, and reads in the journal: what core decides
// on names chained entries only, by their ids (a refusal's ref, a claim
// answered again), and the records' numbers (seq) stay here.

// snapshot reads what a lookup or a claim of s at desk needs, in one
// statement (its own snapshot): the ticket's facts (its block from the
// backend's cache, checked in Go), the game's dates, the identity
// threshold, the desk's payout limit, lock-out and gate (who.Cert: listed,
// disabled, accepting the certificate, the ledger's restore fence), and whether the request id was
// used. A paid ticket's payment and a used request id's
// entry are read after it, only when there is one.
func (b *Backend) snapshot(ctx context.Context, s game.Serial, who core.Identity, asked core.Limit, request string, at time.Time) (*core.Snapshot, error) {
	sn, desk := &core.Snapshot{}, who.Desk
	blk, err := b.blocks.Get(ctx, b.db, s.Game, s.Block)
	if err != nil && !errors.Is(err, core.ErrNotFound) {
		return nil, err
	}
	if err != nil || !blk.Holds(s) {
		sn.Desk, sn.Gate, err = b.QuestionDesk(ctx, b.db, who)
		return sn, err
	}
	var row struct {
		backoffice.FactsRow
		backoffice.RulesRow
		Game     sql.NullInt64 `db:"game"`
		Listed   bool          `db:"listed"`
		Guesses  string        `db:"guesses"`
		Until    string        `db:"locked_until"`
		Disabled int           `db:"disabled"`
		Accepts  bool          `db:"accepts"`
		Prior    bool          `db:"prior"`
		Replaced string        `db:"replaced"`
	}
	pos := s.Position
	off := pos % game.PackSize
	err = core.Get(ctx, b.db, &row, `SELECT substr(p.codes, ?, ?) AS code, substr(p.prizes, ?, 1) AS prize,
		coalesce((SELECT state FROM pack_states WHERE block = ? AND pack = ?), '') AS state,
		(SELECT claim FROM paid WHERE ticket = ?) AS claim, g.code AS game, `+backoffice.RulesCols+`,
		d.id IS NOT NULL AS listed, coalesce(d.guesses, '') AS guesses, coalesce(d.locked_until, '') AS locked_until,
		coalesce(d.disabled, 0) AS disabled, EXISTS (SELECT FROM desk_certs c WHERE c.desk = d.id AND c.serial = ?) AS accepts,
		(EXISTS (SELECT FROM journal WHERE desk = ? AND request = ? AND request <> '' AND kind IN ('claim', 'refusal', 'referral'))
		 OR EXISTS (SELECT FROM waiting WHERE desk = ? AND request = ? AND request <> '' AND kind IN ('claim', 'refusal', 'referral'))) AS prior,
		coalesce((SELECT value FROM meta WHERE key = 'replaced'), '') AS replaced
		FROM packs p LEFT JOIN games g ON g.code = ? LEFT JOIN desks d ON d.id = ? WHERE p.id = ?`,
		off*game.EncodedSize+1, game.EncodedSize, off+1, blk.ID, pos/game.PackSize, blk.TicketNumber(pos),
		core.SettingIdentityThreshold, desk, who.Cert, desk, request, desk, request, blk.Game, desk, blk.PackID(pos))
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, fmt.Errorf("block %s pack %d: missing (run verify)", blk.Name(), pos/game.PackSize)
	case err != nil:
		return nil, fmt.Errorf("block %s ticket %d: %w", blk.Name(), pos, err)
	case !row.Game.Valid:
		return nil, fmt.Errorf("game %d: %w", blk.Game, core.ErrNotFound)
	}
	if sn.Facts, err = row.FactsRow.Facts(blk, pos, s.Secret); err != nil {
		return nil, err
	}
	if row.Claim.Valid {
		if sn.Facts.Paid, err = b.paidClaim(ctx, b.db, row.Claim.Int64, sn.Facts.Ticket); err != nil {
			return nil, err
		}
	}
	if sn.Rules, err = row.RulesRow.Rules(asked, at); err != nil {
		return nil, err
	}
	sn.Gate = core.Gate{Asked: who.Cert != "", Listed: row.Listed, Disabled: row.Disabled == 1, Accepts: row.Accepts, Replaced: row.Replaced}
	if row.Listed && b.LocksOut() {
		sn.Desk = core.LockOf(row.Guesses, row.Until)
	}
	if row.Prior {
		sn.Prior, sn.PriorClaim, err = b.priorUse(ctx, b.db, desk, request)
	}
	return sn, err
}

// source is the Source of a search by contents on PostgreSQL: the back
// office's tables, blocks from the backend's cache, payments waiting to be
// chained read where they wait.
type source struct{ b *Backend }

func (r source) Facts(ctx context.Context, q core.Querier, s game.Serial) (*core.Facts, error) {
	blk, err := r.b.blocks.Get(ctx, q, s.Game, s.Block)
	if errors.Is(err, core.ErrNotFound) || err == nil && !blk.Holds(s) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return backoffice.Tables{Paid: r.b.paidClaim}.FactsOf(ctx, q, blk, s.Position, s.Secret)
}

func (source) Rules(ctx context.Context, q core.Querier, gameCode int, desk string, asked core.Limit, at time.Time) (core.Rules, error) {
	return backoffice.DeskRules(ctx, q, gameCode, desk, asked, at)
}

func (source) Blocks(ctx context.Context, q core.Querier) ([]core.Block, error) {
	return backoffice.ListBlocks(ctx, q)
}

func (r source) Candidates(ctx context.Context, q core.Querier, b core.Block, code []byte) ([]*core.Facts, error) {
	return backoffice.Tables{Paid: r.b.paidClaim}.Candidates(ctx, q, b, code)
}

func (r source) Prior(ctx context.Context, q core.Querier, desk, request string) (*core.Entry, *core.Claim, error) {
	return r.b.priorUse(ctx, q, desk, request)
}

// priorUse is the entry that answers desk's request id used before (its
// payment, else its first use), and its claim when it is a payment; or
// nil. One waiting to be chained is waited for (chained), and read in the
// journal.
func (b *Backend) priorUse(ctx context.Context, q core.Querier, desk, request string) (*core.Entry, *core.Claim, error) {
	for {
		// The journal's and vegas.waiting's uses in one statement (one
		// snapshot, which a chain's commit moves an entry into whole).
		var e struct {
			core.Entry
			Seq int64 `db:"wseq"`
		}
		err := core.Get(ctx, q, &e, `SELECT `+core.EntryCols+`, wseq FROM (
			SELECT `+core.EntryCols+`, 0::bigint AS wseq FROM journal
				WHERE desk = ? AND request = ? AND request <> '' AND kind IN ('claim', 'refusal', 'referral')
			UNION ALL
			SELECT `+waitingUse+`, seq AS wseq FROM waiting
				WHERE desk = ? AND request = ? AND request <> '' AND kind IN ('claim', 'refusal', 'referral')
			) u ORDER BY kind = 'claim' DESC, wseq, id LIMIT 1`, desk, request, desk, request)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return nil, nil, nil
		case err != nil:
			return nil, nil, err
		case e.Seq > 0:
			if _, err := b.seq.wait(ctx, e.Seq); err != nil {
				return nil, nil, err
			}
			q = b.db // chained since q's snapshot (a transaction's) began
			continue
		case e.Kind != "claim":
			return &e.Entry, nil, nil
		}
		var r backoffice.ClaimRow
		if err := core.Get(ctx, q, &r, backoffice.ClaimSelect+" WHERE c.id = ?", e.ID); err != nil {
			return nil, nil, err
		}
		c := r.Claim()
		return &e.Entry, &c, nil
	}
}

// paidClaim is the payment of a ticket whose paid row names claim: a
// chained entry, or -seq of the record of one (postgres.sql), waited for
// while it waits to be chained.
func (b *Backend) paidClaim(ctx context.Context, q core.Querier, claim, ticket int64) (*core.Claim, error) {
	if claim >= 0 {
		return backoffice.PaidClaim(ctx, q, ticket)
	}
	for try := 0; ; try++ {
		var rows []backoffice.ClaimRow
		if err := core.Select(ctx, q, &rows, backoffice.ClaimSelect+" WHERE c.seq = ?", -claim); err != nil {
			return nil, fmt.Errorf("payment %d of ticket %d: %w", -claim, ticket, err)
		}
		if len(rows) > 0 {
			c := rows[0].Claim()
			return &c, nil
		}
		if try > 0 {
			return nil, fmt.Errorf("payment %d of ticket %d: chained, not in the journal", -claim, ticket)
		}
		if _, err := b.seq.wait(ctx, -claim); err != nil {
			return nil, err
		}
		q = b.db // chained since q's snapshot (a transaction's) began
	}
}
