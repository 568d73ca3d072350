package backoffice

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/signing"
)

// Anchors: whoever can write a ledger file can rebuild its hash chain, so
// the chain proves nothing against its holder by itself. A hash kept
// outside the ledger does: a journal head written on a receipt, a day
// report, a signed checkpoint or an auditor's notes. CheckHead tells
// whether the chain still holds that entry unchanged.

// CheckHead reports whether the journal holds an entry whose hash is head
// (hex) unchanged at its place: the chain recomputed from the first entry
// reaches that very hash. A history rewritten before that entry (an entry
// removed, changed or added, and every later hash recomputed) fails, even
// when the rewritten chain is consistent in itself.
func (o *Store) CheckHead(ctx context.Context, head string) (core.Anchor, error) {
	tx, err := o.E.Read(ctx)
	if err != nil {
		return core.Anchor{}, err
	}
	defer tx.Rollback()
	// An entry whose column holds another storage class hashes the same
	// but is not the entry SQL reads (a void that no longer matches its
	// payment): the journal does not hold it unchanged.
	ps, err := o.E.Storage(ctx, tx, true, 1)
	if err != nil {
		return core.Anchor{}, o.E.Classify(err)
	}
	a, err := CheckHead(ctx, tx, head, ps)
	return a, o.E.Classify(err)
}

// CheckHead is Store.CheckHead in q, a read of a ledger's journal (a back
// office's, a sealed counter ledger's), whose rows stored with another
// type are ps.
func CheckHead(ctx context.Context, q core.Querier, head string, ps []core.Problem) (core.Anchor, error) {
	want, err := hex.DecodeString(strings.TrimSpace(head))
	if err != nil || len(want) != 32 {
		return core.Anchor{}, fmt.Errorf("head %q: give the 64 hexadecimal digits of a journal hash", head)
	}
	if len(ps) > 0 {
		return core.Anchor{}, fmt.Errorf("%w: %s", core.ErrNotAnchored, ps[0])
	}
	rows, err := core.Query(ctx, q, "SELECT "+core.EntryCols+" FROM journal ORDER BY id")
	if err != nil {
		return core.Anchor{}, err
	}
	defer rows.Close()
	var prev []byte
	var broken int64 // the first entry whose hash does not recompute
	n := int64(0)
	for rows.Next() {
		var e core.Entry
		if err := sqlxScan(rows, &e); err != nil {
			return core.Anchor{}, err
		}
		n++
		sum := e.ChainHash(prev)
		if broken == 0 && (e.ID != n || !bytes.Equal(sum, e.Hash)) {
			broken = e.ID
		}
		if bytes.Equal(e.Hash, want) {
			if broken != 0 {
				return core.Anchor{}, fmt.Errorf("%w: entry %d has hash %x, but the chain before it does not recompute from entry %d on: the history before it was changed", core.ErrNotAnchored, e.ID, want, broken)
			}
			return core.Anchor{Entry: e.ID, Kind: e.Kind, At: core.ParseTime(e.AtText)}, nil
		}
		prev = e.Hash
	}
	if err := rows.Err(); err != nil {
		return core.Anchor{}, err
	}
	return core.Anchor{}, fmt.Errorf("%w: no entry of the %d has hash %x: the history up to it was rewritten, or the head comes from another ledger", core.ErrNotAnchored, n, want)
}

// sqlxScan scans a journal row into e.
func sqlxScan(rows *sql.Rows, e *core.Entry) error {
	return rows.Scan(e.Fields()...)
}

// Checkpoint signs the journal's head with the back office's key and
// records the signed text as a 'checkpoint' entry. Kept outside the
// ledger, the text lets a later verify --head prove the history up to that
// entry unchanged.
func (o *Store) Checkpoint(ctx context.Context, key *signing.Key, who core.Identity) (core.Checkpoint, error) {
	if err := core.CheckText("operator", who.Operator, core.MaxText); err != nil {
		return core.Checkpoint{}, err
	}
	tx, err := o.write(ctx)
	if err != nil {
		return core.Checkpoint{}, err
	}
	defer tx.Rollback()
	var last core.Entry
	if err := core.Get(ctx, tx, &last, "SELECT "+core.EntryCols+" FROM journal ORDER BY id DESC LIMIT 1"); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return core.Checkpoint{}, errors.New("checkpoint: the journal is empty; there is nothing to anchor yet")
		}
		return core.Checkpoint{}, o.E.Classify(err)
	}
	head := hex.EncodeToString(last.Hash)
	body := "vegas-desk checkpoint 1\nledger=" + o.ID + "\nentry=" + strconv.FormatInt(last.ID, 10) +
		"\nentry_at=" + signing.Quote(last.AtText) + "\nhead=" + head + "\nsigned_at=" + signing.Quote(core.FormatTime(o.now())) + "\n"
	text := key.Sign(body)
	e := core.Entry{Kind: "checkpoint", Method: "head", Ref: sql.NullInt64{Int64: last.ID, Valid: true},
		Desk: who.Desk, Operator: who.Operator, Detail: text}
	if err := o.appendJournal(ctx, tx, &e); err != nil {
		return core.Checkpoint{}, err
	}
	if err := tx.Commit(); err != nil {
		return core.Checkpoint{}, o.E.Classify(err)
	}
	return core.Checkpoint{Text: text, Entry: e.ID, Head: head}, nil
}

// Certificate verifies block number of game gameCode (its tickets, digest
// and prize counts, and the journal) and signs its certificate with key:
//
//	vegas-desk block certificate 1
//	ledger=<the ledger's id>
//	game=531
//	game_name="VEGAS"
//	block=1
//	tickets=2000000
//	pack_size=200
//	digest=<hex>
//	generated_at="2025-05-01T10:00:01.000000000Z"
//	prize=50000 2          (one line per prize of the table, highest
//	…                       first: the amount and the tickets that win it)
//	winners=524722
//	payout=4200000
//	seed=operator-alone    (the seed chosen by the operator alone), or:
//	seed=drawn             (drawn from two committed secrets: DrawingLines)
//	generation_began="…"
//	commitment=operator <hex> <recorded at>
//	commitment=auditor <hex> <recorded at>
//	reveal_hash=operator <hex>
//	reveal_hash=auditor <hex>
//	signed_at="…"
//	public_key=…
//	signature=…
//
// A ledger that does not verify is refused: nothing is signed.
func (o *Store) Certificate(ctx context.Context, gameCode, number int, key *signing.Key) (core.Certificate, error) {
	rep, err := o.Verify(ctx, gameCode, number, nil)
	if err != nil {
		return core.Certificate{}, fmt.Errorf("certificate: %w", err)
	}
	if !rep.OK() {
		return core.Certificate{}, fmt.Errorf("certificate of block %d/%d: the ledger does not verify (%d problem(s), first: %s); nothing was signed", gameCode, number, len(rep.Problems), rep.Problems[0])
	}
	r, err := o.Report(ctx, gameCode, number)
	if err != nil {
		return core.Certificate{}, err
	}
	var name string
	if err := core.Get(ctx, o.E.Pool(), &name, "SELECT name FROM games WHERE code = ?", gameCode); err != nil {
		return core.Certificate{}, o.E.Classify(err)
	}
	b := r.Block
	c := core.Certificate{Block: b, GameName: name, SignedAt: core.ParseTime(core.FormatTime(o.now())), PublicKey: key.Public().String()}
	var s strings.Builder
	fmt.Fprintf(&s, "vegas-desk block certificate 1\nledger=%s\ngame=%d\ngame_name=%s\nblock=%d\ntickets=%d\npack_size=%d\ndigest=%s\ngenerated_at=%s\n",
		o.ID, b.Game, signing.Quote(name), b.Number, b.Tickets, b.PackSize, b.Digest, signing.Quote(core.FormatTime(b.CreatedAt)))
	winners, payout := 0, 0
	for _, t := range r.Tiers {
		fmt.Fprintf(&s, "prize=%d %d\n", t.Prize, t.Generated)
		c.Counts = append(c.Counts, core.TierLine{Prize: t.Prize, Generated: t.Generated})
		winners += t.Generated
		payout += t.Generated * t.Prize
	}
	fmt.Fprintf(&s, "winners=%d\npayout=%d\n", winners, payout)
	if c.Drawing, err = Drawing(ctx, o.E.Pool(), gameCode, number); err != nil {
		return core.Certificate{}, fmt.Errorf("certificate: %w", o.E.Classify(err))
	}
	s.WriteString(DrawingLines(c.Drawing))
	fmt.Fprintf(&s, "signed_at=%s\n", signing.Quote(core.FormatTime(c.SignedAt)))
	c.Text = key.Sign(s.String())
	return c, nil
}
