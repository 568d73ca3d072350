package ledger

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"vegas-desk/internal/game"
	"vegas-desk/internal/signing"
)

// Anchors: whoever can write a ledger file can rebuild its hash chain, so
// the chain proves nothing against its holder by itself. A hash kept
// outside the ledger does: a journal head written on a receipt, a day
// report, a signed checkpoint or an auditor's notes. CheckHead tells
// whether the chain still holds that entry unchanged.

// ErrNotAnchored: the journal does not hold the entry of a given head hash
// unchanged at its place.
var ErrNotAnchored = errors.New("the journal does not hold this head")

// Anchor is the journal entry a head hash names.
type Anchor struct {
	Entry int64
	Kind  string
	At    time.Time
}

// CheckHead reports whether the journal holds an entry whose hash is head
// (hex) unchanged at its place: the chain recomputed from the first entry
// reaches that very hash. A history rewritten before that entry (an entry
// removed, changed or added, and every later hash recomputed) fails, even
// when the rewritten chain is consistent in itself.
func (l *Ledger) CheckHead(ctx context.Context, head string) (Anchor, error) {
	if l.desk != "" {
		return Anchor{}, l.backOffice("check a journal head")
	}
	want, err := hex.DecodeString(strings.TrimSpace(head))
	if err != nil || len(want) != 32 {
		return Anchor{}, fmt.Errorf("head %q: give the 64 hexadecimal digits of a journal hash", head)
	}
	tx, err := l.read(ctx)
	if err != nil {
		return Anchor{}, err
	}
	defer tx.Rollback()
	// An entry whose column holds another storage class hashes the same
	// but is not the entry SQL reads (a void that no longer matches its
	// payment): the journal does not hold it unchanged.
	if l.eng == sqliteEngine {
		ps, err := checkStorage(ctx, tx, journalStorage, 1)
		if err != nil {
			return Anchor{}, l.classify(err)
		}
		if len(ps) > 0 {
			return Anchor{}, fmt.Errorf("%w: %s %s", ErrNotAnchored, ps[0].where, ps[0])
		}
	}
	rows, err := queryRows(ctx, tx, "SELECT "+entryCols+" FROM journal ORDER BY id")
	if err != nil {
		return Anchor{}, l.classify(err)
	}
	defer rows.Close()
	var prev []byte
	var broken int64 // the first entry whose hash does not recompute
	n := int64(0)
	for rows.Next() {
		var e entry
		if err := sqlxScan(rows, &e); err != nil {
			return Anchor{}, err
		}
		n++
		sum := e.hash(prev)
		if broken == 0 && (e.ID != n || !bytes.Equal(sum, e.Hash)) {
			broken = e.ID
		}
		if bytes.Equal(e.Hash, want) {
			if broken != 0 {
				return Anchor{}, fmt.Errorf("%w: entry %d has hash %x, but the chain before it does not recompute from entry %d on: the history before it was changed", ErrNotAnchored, e.ID, want, broken)
			}
			return Anchor{Entry: e.ID, Kind: e.Kind, At: parseTime(e.AtText)}, nil
		}
		prev = e.Hash
	}
	if err := rows.Err(); err != nil {
		return Anchor{}, err
	}
	return Anchor{}, fmt.Errorf("%w: no entry of the %d has hash %x: the history up to it was rewritten, or the head comes from another ledger", ErrNotAnchored, n, want)
}

// sqlxScan scans a journal row into e.
func sqlxScan(rows *sql.Rows, e *entry) error {
	return rows.Scan(&e.ID, &e.Kind, &e.AtText, &e.Number, &e.Ticket, &e.Serial, &e.Game, &e.Block, &e.Position,
		&e.PackFirst, &e.PackLast, &e.State, &e.Amount, &e.Desk, &e.Operator, &e.Method, &e.Ref, &e.Request,
		&e.Reason, &e.Detail, &e.Hash)
}

// Checkpoint is a signed statement of the journal head.
type Checkpoint struct {
	// Text is the signed text:
	//
	//	vegas-desk checkpoint 1
	//	ledger=<the ledger's id>
	//	entry=<the last entry's id>
	//	entry_at="<its time>"
	//	head=<its hash>
	//	signed_at="<now>"
	//	public_key=…
	//	signature=…
	Text string
	// Entry is the journal's 'checkpoint' entry that records it (method
	// "head", ref = the entry checkpointed, detail = Text).
	Entry int64
	Head  string
}

// Checkpoint signs the journal's head with the back office's key and
// records the signed text as a 'checkpoint' entry. Kept outside the
// ledger, the text lets a later verify --head prove the history up to that
// entry unchanged.
func (l *Ledger) Checkpoint(ctx context.Context, key *signing.Key, who Identity) (Checkpoint, error) {
	if err := l.backOffice("checkpoint"); err != nil {
		return Checkpoint{}, err
	}
	if err := checkText("operator", who.Operator); err != nil {
		return Checkpoint{}, err
	}
	tx, err := l.begin(ctx)
	if err != nil {
		return Checkpoint{}, err
	}
	defer tx.Rollback()
	var last entry
	if err := get(ctx, tx, &last, "SELECT "+entryCols+" FROM journal ORDER BY id DESC LIMIT 1"); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return Checkpoint{}, errors.New("checkpoint: the journal is empty; there is nothing to anchor yet")
		}
		return Checkpoint{}, l.classify(err)
	}
	head := hex.EncodeToString(last.Hash)
	body := "vegas-desk checkpoint 1\nledger=" + l.id + "\nentry=" + strconv.FormatInt(last.ID, 10) +
		"\nentry_at=" + signing.Quote(last.AtText) + "\nhead=" + head + "\nsigned_at=" + signing.Quote(formatTime(l.now())) + "\n"
	text := key.Sign(body)
	e := entry{Kind: "checkpoint", Method: "head", Ref: sql.NullInt64{Int64: last.ID, Valid: true},
		Desk: who.Desk, Operator: who.Operator, Detail: text}
	if err := l.appendJournal(ctx, tx, &e); err != nil {
		return Checkpoint{}, err
	}
	if err := tx.Commit(); err != nil {
		return Checkpoint{}, l.classify(err)
	}
	return Checkpoint{Text: text, Entry: e.ID, Head: head}, nil
}

// Certificate is a block certificate, signed.
type Certificate struct {
	// Text is the signed text (see Certificate).
	Text      string
	Block     Block
	GameName  string
	Counts    []TierLine // Prize and Generated (counted in the block) of each tier
	SignedAt  time.Time
	PublicKey string
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
//	signed_at="…"
//	public_key=…
//	signature=…
//
// A ledger that does not verify is refused: nothing is signed.
func (l *Ledger) Certificate(ctx context.Context, gameCode, number int, key *signing.Key) (Certificate, error) {
	if err := l.backOffice("certificate"); err != nil {
		return Certificate{}, err
	}
	rep, err := l.Verify(ctx, gameCode, number, nil)
	if err != nil {
		return Certificate{}, fmt.Errorf("certificate: %w", err)
	}
	if !rep.OK() {
		return Certificate{}, fmt.Errorf("certificate of block %d/%d: the ledger does not verify (%d problem(s), first: %s); nothing was signed", gameCode, number, len(rep.Problems), rep.Problems[0])
	}
	r, err := l.Report(ctx, gameCode, number)
	if err != nil {
		return Certificate{}, err
	}
	var name string
	if err := get(ctx, l.r, &name, "SELECT name FROM games WHERE code = ?", gameCode); err != nil {
		return Certificate{}, l.classify(err)
	}
	b := r.Block
	c := Certificate{Block: b, GameName: name, SignedAt: parseTime(formatTime(l.now())), PublicKey: key.Public().String()}
	var s strings.Builder
	fmt.Fprintf(&s, "vegas-desk block certificate 1\nledger=%s\ngame=%d\ngame_name=%s\nblock=%d\ntickets=%d\npack_size=%d\ndigest=%s\ngenerated_at=%s\n",
		l.id, b.Game, signing.Quote(name), b.Number, b.Tickets, b.PackSize, b.Digest, signing.Quote(formatTime(b.CreatedAt)))
	winners, payout := 0, 0
	for _, t := range r.Tiers {
		fmt.Fprintf(&s, "prize=%d %d\n", t.Prize, t.Generated)
		c.Counts = append(c.Counts, TierLine{Prize: t.Prize, Generated: t.Generated})
		winners += t.Generated
		payout += t.Generated * t.Prize
	}
	fmt.Fprintf(&s, "winners=%d\npayout=%d\nsigned_at=%s\n", winners, payout, signing.Quote(formatTime(c.SignedAt)))
	c.Text = key.Sign(s.String())
	return c, nil
}

// ParseCertificate reads a block certificate's signed text (already
// checked by signing.Verify).
func ParseCertificate(s *signing.Signed) (Certificate, error) {
	if s.Kind != "vegas-desk block certificate 1" {
		return Certificate{}, fmt.Errorf("%q is not a block certificate", s.Kind)
	}
	c := Certificate{Text: s.Text, PublicKey: s.Key.String()}
	num := func(name string) int {
		v, _ := s.Get(name)
		n, err := strconv.Atoi(v)
		if err != nil {
			return -1
		}
		return n
	}
	str := func(name string) string {
		v, _ := s.Get(name)
		u, err := signing.Unquote(v)
		if err != nil {
			return ""
		}
		return u
	}
	c.Block = Block{Game: num("game"), Number: num("block"), Tickets: num("tickets"), PackSize: num("pack_size"),
		Winners: num("winners"), Payout: num("payout"), CreatedAt: parseTime(str("generated_at"))}
	c.Block.Digest, _ = s.Get("digest")
	c.GameName = str("game_name")
	c.SignedAt = parseTime(str("signed_at"))
	for _, p := range s.All("prize") {
		var t TierLine
		if _, err := fmt.Sscanf(p, "%d %d", &t.Prize, &t.Generated); err != nil {
			return Certificate{}, fmt.Errorf("prize line %q: %w", p, err)
		}
		c.Counts = append(c.Counts, t)
	}
	if c.Block.Game < game.MinGameCode || c.Block.Number < 1 || c.Block.Tickets < 0 || c.GameName == "" || c.SignedAt.IsZero() || len(c.Counts) == 0 {
		return Certificate{}, errors.New("a field of the certificate is missing or damaged")
	}
	return c, nil
}
