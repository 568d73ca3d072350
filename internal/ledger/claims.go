package ledger

import (
	"context"
	"database/sql"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"vegas-desk/internal/game"
)

// claimRow is a claim entry joined with the void entry that cancels it.
type claimRow struct {
	ID       int64  `db:"id"`
	Serial   string `db:"serial"`
	Game     int    `db:"game"`
	Block    int    `db:"block"`
	Position int    `db:"position"`
	Amount   int    `db:"amount"`
	Desk     string `db:"desk"`
	Operator string `db:"operator"`
	Method   string `db:"method"`
	At       string `db:"at"`
	Voided   bool   `db:"voided"`
	Reason   string `db:"void_reason"`
	VoidedBy string `db:"voided_by"`
	VoidedAt string `db:"voided_at"`
}

const claimSelect = `SELECT c.id, c.serial, c.game, c.block, c.position, c.amount, c.desk, c.operator, c.method, c.at,
	v.id IS NOT NULL AS voided, coalesce(v.reason, '') AS void_reason,
	coalesce(v.operator, '') AS voided_by, coalesce(v.at, '') AS voided_at
FROM journal c LEFT JOIN journal v ON v.kind = 'void' AND v.claim = c.id`

func (r *claimRow) claim() Claim {
	c := Claim{ID: r.ID, Serial: r.Serial, Game: r.Game, Block: r.Block, Position: r.Position,
		Amount: r.Amount, Desk: r.Desk, Operator: r.Operator, Method: r.Method, At: parseTime(r.At),
		Voided: r.Voided, VoidReason: r.Reason, VoidedBy: r.VoidedBy}
	if r.Voided {
		c.VoidedAt = parseTime(r.VoidedAt)
	}
	return c
}

// Claim pays a winning ticket once: it appends a claim entry to the journal
// with the time, who, the amount and method (MethodSerial or
// MethodContents; for MethodContents, serial is the one FindByContents
// gave). Refused, and recorded as refused attempts: an unknown serial or
// wrong secret (ErrUnknownSerial), a losing ticket (ErrNotWinner), a ticket
// with an active claim (*AlreadyClaimedError naming the first claim). The
// check and the payment are one BEGIN IMMEDIATE transaction, so processes
// claiming one ticket at once pay it exactly once. A voided claim no longer
// counts: the ticket can then be claimed again.
func (l *Ledger) Claim(ctx context.Context, serial string, method string, who Identity) (Claim, error) {
	s, err := game.ParseSerial(serial)
	if err != nil {
		return Claim{}, fmt.Errorf("claim: serial %q: %w", serial, err)
	}
	if method != MethodSerial && method != MethodContents {
		return Claim{}, fmt.Errorf("claim: method %q: want %q or %q", method, MethodSerial, MethodContents)
	}
	who.Desk, who.Operator = strings.TrimSpace(who.Desk), strings.TrimSpace(who.Operator)
	if who.Desk == "" || who.Operator == "" {
		return Claim{}, fmt.Errorf("claim: desk %q, operator %q: a payment records both; name the desk and the operator", who.Desk, who.Operator)
	}
	tx, err := l.begin(ctx)
	if err != nil {
		return Claim{}, fmt.Errorf("claim: %w", err)
	}
	defer tx.Rollback()
	c, refusal, err := l.claim(ctx, tx, s, method, who)
	if err != nil && refusal == "" {
		return Claim{}, fmt.Errorf("claim: %w", err)
	}
	if refusal != "" {
		// The refusal is recorded; the answer is the refusal.
		if rerr := refuseTx(ctx, tx, l.now(), refusal, s.String(), who, "claim"); rerr != nil {
			return Claim{}, errors.Join(err, rerr)
		}
	}
	if cerr := tx.Commit(); cerr != nil {
		return Claim{}, errors.Join(err, fmt.Errorf("claim: commit: %w", cerr))
	}
	return c, err
}

func (l *Ledger) claim(ctx context.Context, tx *sqlx.Tx, s game.Serial, method string, who Identity) (Claim, string, error) {
	t, id, err := ticketBySerial(ctx, tx, s)
	if errors.Is(err, ErrUnknownSerial) {
		return Claim{}, "unknown-serial", err
	}
	if err != nil {
		return Claim{}, "", err
	}
	if t.Prize == 0 {
		return Claim{}, "not-winner", fmt.Errorf("serial %s: %w: this ticket loses, there is nothing to pay", s, ErrNotWinner)
	}
	if t.Claim != nil {
		return Claim{}, "already-claimed", &AlreadyClaimedError{First: *t.Claim}
	}
	e := entry{Kind: "claim", At: l.now(), Ticket: sql.NullInt64{Int64: id, Valid: true}, Serial: s.String(),
		Game: s.Game, Block: s.Block, Position: s.Position, Amount: t.Prize,
		Desk: who.Desk, Operator: who.Operator, Method: method}
	if _, err := appendJournal(ctx, tx, &e); err != nil {
		return Claim{}, "", err
	}
	return Claim{ID: e.ID, Serial: e.Serial, Game: e.Game, Block: e.Block, Position: e.Position,
		Amount: e.Amount, Desk: e.Desk, Operator: e.Operator, Method: method, At: parseTime(e.AtText)}, "", nil
}

func refuseTx(ctx context.Context, tx *sqlx.Tx, at time.Time, reason, serial string, who Identity, detail string) error {
	_, err := tx.ExecContext(ctx, "INSERT INTO refusals (at, reason, serial, desk, operator, detail) VALUES (?, ?, ?, ?, ?, ?)",
		formatTime(at), reason, serial, who.Desk, who.Operator, detail)
	if err != nil {
		return fmt.Errorf("record refused attempt: %w", err)
	}
	return nil
}

// Void cancels claim claimID with a reason: it appends a void entry; the
// claim entry stays as it was. The ticket can then be claimed again.
func (l *Ledger) Void(ctx context.Context, claimID int64, reason string, who Identity) (Claim, error) {
	reason = strings.TrimSpace(reason)
	if reason == "" {
		return Claim{}, errors.New("void: no reason given: say why the claim is voided")
	}
	tx, err := l.begin(ctx)
	if err != nil {
		return Claim{}, fmt.Errorf("void: %w", err)
	}
	defer tx.Rollback()
	var r claimRow
	err = tx.GetContext(ctx, &r, claimSelect+" WHERE c.kind = 'claim' AND c.id = ?", claimID)
	if errors.Is(err, sql.ErrNoRows) {
		return Claim{}, fmt.Errorf("void claim %d: %w: no claim has this number (see the claims command)", claimID, ErrNotFound)
	}
	if err != nil {
		return Claim{}, fmt.Errorf("void claim %d: %w", claimID, err)
	}
	if r.Voided {
		return Claim{}, fmt.Errorf("void claim %d: already voided on %s by %q: %s", claimID, parseTime(r.VoidedAt).Local().Format("2006-01-02 15:04:05"), r.VoidedBy, r.Reason)
	}
	var ticket sql.NullInt64
	if err := tx.GetContext(ctx, &ticket, "SELECT ticket FROM journal WHERE id = ?", claimID); err != nil {
		return Claim{}, err
	}
	e := entry{Kind: "void", At: l.now(), Ticket: ticket, Serial: r.Serial, Game: r.Game, Block: r.Block,
		Position: r.Position, Amount: r.Amount, Desk: strings.TrimSpace(who.Desk), Operator: strings.TrimSpace(who.Operator),
		Claim: sql.NullInt64{Int64: claimID, Valid: true}, Reason: reason}
	if _, err := appendJournal(ctx, tx, &e); err != nil {
		return Claim{}, err
	}
	if err := tx.Commit(); err != nil {
		return Claim{}, fmt.Errorf("void: commit: %w", err)
	}
	c := r.claim()
	c.Voided, c.VoidReason, c.VoidedBy, c.VoidedAt = true, reason, e.Operator, parseTime(e.AtText)
	return c, nil
}

func (f ClaimFilter) where() (string, []any) {
	conds := []string{"c.kind = 'claim'"}
	var args []any
	if f.Game != 0 {
		conds, args = append(conds, "c.game = ?"), append(args, f.Game)
	}
	if f.Block != 0 {
		conds, args = append(conds, "c.block = ?"), append(args, f.Block)
	}
	if !f.Since.IsZero() {
		conds, args = append(conds, "c.at >= ?"), append(args, formatTime(f.Since))
	}
	if !f.Until.IsZero() {
		conds, args = append(conds, "c.at < ?"), append(args, formatTime(f.Until))
	}
	if f.Desk != "" {
		conds, args = append(conds, "c.desk = ?"), append(args, f.Desk)
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

// Claims lists the claims that f selects, voided ones included, in journal
// order.
func (l *Ledger) Claims(ctx context.Context, f ClaimFilter) ([]Claim, error) {
	where, args := f.where()
	var rows []claimRow
	if err := l.r.SelectContext(ctx, &rows, claimSelect+where+" ORDER BY c.id", args...); err != nil {
		return nil, fmt.Errorf("list claims: %w", err)
	}
	out := make([]Claim, len(rows))
	for i := range rows {
		out[i] = rows[i].claim()
	}
	return out, nil
}

// Refusal is a refused attempt.
type Refusal struct {
	ID       int64  `db:"id"`
	AtText   string `db:"at"`
	Reason   string `db:"reason"` // "unknown-serial", "not-winner", "already-claimed"
	Serial   string `db:"serial"`
	Desk     string `db:"desk"`
	Operator string `db:"operator"`
	Detail   string `db:"detail"` // "lookup" or "claim"
}

// At is when the attempt was refused.
func (r Refusal) At() time.Time { return parseTime(r.AtText) }

// Refusals lists the refused attempts since a time (zero = all).
func (l *Ledger) Refusals(ctx context.Context, since time.Time) ([]Refusal, error) {
	var out []Refusal
	err := l.r.SelectContext(ctx, &out, "SELECT id, at, reason, serial, desk, operator, detail FROM refusals WHERE at >= ? ORDER BY id", formatTime(since))
	if err != nil {
		return nil, fmt.Errorf("list refused attempts: %w", err)
	}
	return out, nil
}

// WriteCSV writes claims as CSV with a header line: id, at, serial, game,
// block, position, amount, desk, operator, method, voided, void_reason,
// voided_by, voided_at. Times are RFC 3339; voided_at is empty when the
// claim stands.
func WriteCSV(w io.Writer, claims []Claim) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"id", "at", "serial", "game", "block", "position", "amount", "desk", "operator", "method", "voided", "void_reason", "voided_by", "voided_at"})
	for _, cl := range claims {
		va := ""
		if cl.Voided {
			va = cl.VoidedAt.Format(time.RFC3339)
		}
		cw.Write([]string{strconv.FormatInt(cl.ID, 10), cl.At.Format(time.RFC3339), cl.Serial,
			strconv.Itoa(cl.Game), strconv.Itoa(cl.Block), strconv.Itoa(cl.Position), strconv.Itoa(cl.Amount),
			cl.Desk, cl.Operator, cl.Method, strconv.FormatBool(cl.Voided), cl.VoidReason, cl.VoidedBy, va})
	}
	cw.Flush()
	return cw.Error()
}
