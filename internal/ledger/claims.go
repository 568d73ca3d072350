package ledger

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"vegas-desk/internal/game"
)

// claimRow is a claim entry joined with the void entry that cancels it.
type claimRow struct {
	ID       int64  `db:"id"`
	Number   int64  `db:"number"`
	Serial   string `db:"serial"`
	Game     int    `db:"game"`
	Block    int    `db:"block"`
	Position int    `db:"position"`
	Amount   int    `db:"amount"`
	Desk     string `db:"desk"`
	Operator string `db:"operator"`
	Method   string `db:"method"`
	Request  string `db:"request"`
	At       string `db:"at"`
	Hash     []byte `db:"hash"`
	Voided   bool   `db:"voided"`
	Reason   string `db:"void_reason"`
	VoidedBy string `db:"voided_by"`
	VoidedAt string `db:"voided_at"`
	VoidDesk string `db:"void_desk"`
}

const claimSelect = `SELECT c.id, c.number, c.serial, c.game, c.block, c.position, c.amount, c.desk, c.operator, c.method,
	c.request, c.at, c.hash, v.id IS NOT NULL AS voided, coalesce(v.reason, '') AS void_reason,
	coalesce(v.operator, '') AS voided_by, coalesce(v.at, '') AS voided_at, coalesce(v.desk, '') AS void_desk
FROM journal c LEFT JOIN journal v ON v.kind = 'void' AND v.ref = c.id`

func (r *claimRow) claim() Claim {
	c := Claim{Number: r.Number, Entry: r.ID, Hash: hex.EncodeToString(r.Hash), Serial: r.Serial, Game: r.Game,
		Block: r.Block, Position: r.Position, Amount: r.Amount, Desk: r.Desk, Operator: r.Operator, Method: r.Method,
		Request: r.Request, At: parseTime(r.At), Voided: r.Voided, VoidReason: r.Reason, VoidedBy: r.VoidedBy, VoidDesk: r.VoidDesk}
	if r.Voided {
		c.VoidedAt = parseTime(r.VoidedAt)
	}
	return c
}

// NewRequestID makes a request id for a claim: 128 random bits in hex.
func NewRequestID() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// Claim pays a winning ticket once and records it in the journal, with the
// time, who, the amount, the method and the request id. A refusal is a
// *Refusal (errors.Is ErrUnknownSerial, ErrNotWinner, ErrAlreadyClaimed —
// naming the first payment —, ErrNotActivated, ErrStolen, ErrExpired,
// ErrNotYetOnSale, ErrOverLimit — a referral to the back office is
// recorded —, ErrIdentityRequired, ErrLocked), and is recorded too. The
// check and the payment are one step under the journal's lock, so counters
// claiming one ticket at once pay it exactly once.
//
// A request id names the request: a retry with the same id answers what
// the first answer was, so a claim whose answer was lost (a timeout, a
// dropped connection) is asked again safely, and is: on ErrUnreachable,
// Claim asks again with the same id until ctx ends.
func (l *Ledger) Claim(ctx context.Context, req ClaimRequest) (Claim, error) {
	s, err := game.ParseSerial(req.Serial)
	if err != nil {
		return Claim{}, err
	}
	if req.Method != MethodSerial && req.Method != MethodContents {
		return Claim{}, fmt.Errorf("claim: method %q: want %q or %q", req.Method, MethodSerial, MethodContents)
	}
	req.Who.Desk, req.Who.Operator = strings.TrimSpace(req.Who.Desk), strings.TrimSpace(req.Who.Operator)
	own := l.CounterDesk() // a counter's login or sealed ledger pays as its desk only
	if own != "" && req.Who.Desk == "" {
		req.Who.Desk = own
	}
	if req.Who.Desk == "" || req.Who.Operator == "" {
		return Claim{}, fmt.Errorf("claim: desk %q, operator %q: a payment records both; name the desk and the operator", req.Who.Desk, req.Who.Operator)
	}
	if own != "" && req.Who.Desk != own {
		return Claim{}, fmt.Errorf("claim: %w: this ledger or login is desk %s's, not %s's", ErrDeskMismatch, own, req.Who.Desk)
	}
	for _, f := range [][2]string{{"desk", req.Who.Desk}, {"operator", req.Who.Operator}, {"request id", req.Request}} {
		if err := checkText(f[0], f[1]); err != nil {
			return Claim{}, err
		}
	}
	if req.Winner.given() {
		w := *req.Winner
		for _, f := range [][2]string{{"winner's name", w.Name}, {"identity document", w.DocType}, {"document number", w.DocNumber}} {
			if err := checkText(f[0], f[1]); err != nil {
				return Claim{}, err
			}
		}
	}
	if req.Request == "" {
		req.Request = NewRequestID()
	}
	if len(req.Request) > 100 {
		return Claim{}, errors.New("claim: a request id has at most 100 characters")
	}
	for {
		var c Claim
		if l.eng == postgresEngine {
			c, err = l.claimPostgres(ctx, s, req)
		} else {
			c, err = l.claimSQLite(ctx, s, req)
		}
		if !errors.Is(err, ErrUnreachable) || l.eng != postgresEngine {
			return c, err
		}
		// The answer was lost, or the server is away: ask again with the
		// same request id, which answers the first answer if there was one.
		select {
		case <-ctx.Done():
			return Claim{}, fmt.Errorf("claim %s (request %s): %w; nothing is known to be paid: ask again with the same request id", s, req.Request, err)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// identityHash is the SHA-256 of a winner's identity that the claim entry
// records (the identity itself stays out of the journal).
func identityHash(w *Winner) string {
	text := "name=" + strconv.Itoa(len(w.Name)) + ":" + w.Name + "\n" +
		"doc_type=" + strconv.Itoa(len(w.DocType)) + ":" + w.DocType + "\n" +
		"doc_number=" + strconv.Itoa(len(w.DocNumber)) + ":" + w.DocNumber + "\n"
	s := sha256.Sum256([]byte(text))
	return hex.EncodeToString(s[:])
}

func (l *Ledger) claimSQLite(ctx context.Context, s game.Serial, req ClaimRequest) (Claim, error) {
	tx, err := l.begin(ctx)
	if err != nil {
		return Claim{}, fmt.Errorf("claim: %w", err)
	}
	defer tx.Rollback()
	// A request id this desk used already: the first answer.
	var first claimRow
	err = get(ctx, tx, &first, claimSelect+" WHERE c.kind = 'claim' AND c.desk = ? AND c.request = ?", req.Who.Desk, req.Request)
	if err == nil {
		return first.claim(), nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return Claim{}, fmt.Errorf("claim: %w", err)
	}
	at := l.now()
	refuse := func(e entry, refusal error) (Claim, error) {
		e.At, e.Serial, e.Game, e.Block, e.Position = at, l.refusedSerial(s), s.Game, s.Block, s.Position
		e.Desk, e.Operator, e.Request = req.Who.Desk, req.Who.Operator, req.Request
		l.forgetWinner(&e)
		if err := l.appendJournal(ctx, tx, &e); err != nil {
			return Claim{}, errors.Join(refusal, err)
		}
		if err := tx.Commit(); err != nil {
			return Claim{}, errors.Join(refusal, fmt.Errorf("claim: commit: %w", err))
		}
		var r *Refusal
		if errors.As(refusal, &r) {
			r.Entry = e.ID
		}
		return Claim{}, refusal
	}
	f, err := l.serialFacts(ctx, tx, s)
	var r *Refusal
	if errors.As(err, &r) {
		return refuse(entry{Kind: "refusal", Method: "claim", Reason: string(r.Verdict)}, r)
	}
	if err != nil {
		return Claim{}, fmt.Errorf("claim: %w", err)
	}
	em, err := emissionOf(ctx, tx, s.Game)
	if err != nil {
		return Claim{}, fmt.Errorf("claim: %w", err)
	}
	threshold, err := identityThreshold(ctx, tx)
	if err != nil {
		return Claim{}, fmt.Errorf("claim: %w", err)
	}
	v := decide(f, em, formatTime(at), l.limitFor(req.Limit), threshold, req.Winner.given())
	t, err := ticketOf(f, v, em)
	if err != nil {
		return Claim{}, err
	}
	ticket := sql.NullInt64{Int64: f.ticket, Valid: true}
	switch v {
	case Payable:
	case OverLimit:
		return refuse(entry{Kind: "referral", Ticket: ticket, Amount: f.prize, Method: req.Method}, refusalOf(t, v, 0))
	case AlreadyClaimed:
		return refuse(entry{Kind: "refusal", Ticket: ticket, Method: "claim", Reason: string(v),
			Ref: sql.NullInt64{Int64: f.paid.Entry, Valid: true}}, refusalOf(t, v, 0))
	default:
		return refuse(entry{Kind: "refusal", Ticket: ticket, Method: "claim", Reason: string(v)}, refusalOf(t, v, 0))
	}
	e := entry{Kind: "claim", At: at, Ticket: ticket, Serial: s.String(), Game: s.Game, Block: s.Block, Position: s.Position,
		Amount: f.prize, Desk: req.Who.Desk, Operator: req.Who.Operator, Method: req.Method, Request: req.Request}
	if req.Winner.given() {
		e.Detail = identityHash(req.Winner)
	}
	if err := l.appendJournal(ctx, tx, &e); err != nil {
		return Claim{}, err
	}
	if _, err := execute(ctx, tx, "INSERT INTO paid (ticket, claim) VALUES (?, ?)", f.ticket, e.ID); err != nil {
		return Claim{}, fmt.Errorf("claim: %w", err)
	}
	if req.Winner.given() {
		w := req.Winner
		if _, err := execute(ctx, tx, "INSERT INTO identities (claim, name, doc_type, doc_number) VALUES (?, ?, ?, ?)",
			e.ID, w.Name, w.DocType, w.DocNumber); err != nil {
			return Claim{}, fmt.Errorf("claim: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return Claim{}, fmt.Errorf("claim: commit: %w", err)
	}
	return e.claim(), nil
}

// claim is the Claim of a claim entry.
func (e *entry) claim() Claim {
	return Claim{Number: e.Number, Entry: e.ID, Hash: hex.EncodeToString(e.Hash), Serial: e.Serial, Game: e.Game,
		Block: e.Block, Position: e.Position, Amount: e.Amount, Desk: e.Desk, Operator: e.Operator, Method: e.Method,
		Request: e.Request, At: parseTime(e.AtText)}
}

func (l *Ledger) claimPostgres(ctx context.Context, s game.Serial, req ClaimRequest) (Claim, error) {
	if l.readOnly {
		return Claim{}, ErrReadOnly
	}
	w := req.Winner
	if !w.given() {
		w = &Winner{}
	}
	var limit *int
	if req.Limit > 0 {
		limit = &req.Limit
	}
	var at *string
	if l.desk == "" && l.Now != nil {
		t := formatTime(l.now())
		at = &t
	}
	var a answer
	err := get(ctx, l.w, &a, "SELECT "+answerCols+" FROM vegas.claim(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		s.Game, s.Block, s.Position, s.Secret, req.Method, req.Who.Desk, req.Who.Operator, req.Request, limit,
		w.Name, w.DocType, w.DocNumber, at)
	if err != nil {
		return Claim{}, fmt.Errorf("claim %s: %w", s, l.classify(err))
	}
	// The claim committed without waiting for the disk; its answer holds
	// once the WAL is flushed past it (postgres.sql, vegas.claim).
	if _, err := l.w.ExecContext(ctx, "SELECT vegas.durable()"); err != nil {
		return Claim{}, fmt.Errorf("claim %s: %w", s, l.classify(err))
	}
	if a.Status == string(Paid) {
		c := a.claim()
		c.Request = req.Request
		return *c, nil
	}
	if err := a.refusal(s.String()); err != nil {
		return Claim{}, err
	}
	t, err := a.ticket()
	if err != nil {
		return Claim{}, err
	}
	return Claim{}, refusalOf(t, Verdict(a.Status), a.Entry.Int64)
}

// Void cancels the payment number number with a reason: it appends a void
// entry naming the desk and the operator; the claim entry stays as it was.
// The ticket can then be claimed again. Only the back office voids.
func (l *Ledger) Void(ctx context.Context, number int64, reason string, who Identity) (Claim, error) {
	if err := l.backOffice("void"); err != nil {
		return Claim{}, err
	}
	reason = strings.TrimSpace(reason)
	if reason == "" {
		return Claim{}, errors.New("void: no reason given: say why the payment is voided")
	}
	who.Desk, who.Operator = strings.TrimSpace(who.Desk), strings.TrimSpace(who.Operator)
	if who.Desk == "" || who.Operator == "" {
		return Claim{}, fmt.Errorf("void: desk %q, operator %q: a void records both, as a payment does", who.Desk, who.Operator)
	}
	if err := checkText("reason", reason); err != nil {
		return Claim{}, err
	}
	tx, err := l.begin(ctx)
	if err != nil {
		return Claim{}, fmt.Errorf("void: %w", err)
	}
	defer tx.Rollback()
	var r claimRow
	err = get(ctx, tx, &r, claimSelect+" WHERE c.kind = 'claim' AND c.number = ?", number)
	if errors.Is(err, sql.ErrNoRows) {
		return Claim{}, fmt.Errorf("void payment %d: %w: no payment has this number (see the claims command)", number, ErrNotFound)
	}
	if err != nil {
		return Claim{}, fmt.Errorf("void payment %d: %w", number, l.classify(err))
	}
	if r.Voided {
		return Claim{}, fmt.Errorf("void payment %d: already voided on %s by %q: %q", number,
			parseTime(r.VoidedAt).Local().Format("2006-01-02 15:04:05"), r.VoidedBy, r.Reason)
	}
	var ticket sql.NullInt64
	if err := get(ctx, tx, &ticket, "SELECT ticket FROM journal WHERE id = ?", r.ID); err != nil {
		return Claim{}, err
	}
	e := entry{Kind: "void", Ticket: ticket, Serial: r.Serial, Game: r.Game, Block: r.Block,
		Position: r.Position, Amount: r.Amount, Desk: who.Desk, Operator: who.Operator,
		Ref: sql.NullInt64{Int64: r.ID, Valid: true}, Reason: reason}
	if err := l.appendJournal(ctx, tx, &e); err != nil {
		return Claim{}, err
	}
	if _, err := execute(ctx, tx, "DELETE FROM paid WHERE claim = ?", r.ID); err != nil {
		return Claim{}, fmt.Errorf("void: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return Claim{}, fmt.Errorf("void: commit: %w", l.classify(err))
	}
	c := r.claim()
	c.Voided, c.VoidReason, c.VoidedBy, c.VoidDesk, c.VoidedAt = true, reason, e.Operator, e.Desk, parseTime(e.AtText)
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
// order. A counter's login on a shared ledger sees its own claims only.
func (l *Ledger) Claims(ctx context.Context, f ClaimFilter) ([]Claim, error) {
	var rows []claimRow
	if l.desk != "" {
		var since, until string
		if !f.Since.IsZero() {
			since = formatTime(f.Since)
		}
		if !f.Until.IsZero() {
			until = formatTime(f.Until)
		}
		if err := sel(ctx, l.r, &rows, `SELECT id, number, serial, game, block, position, amount, desk, operator, method,
			'' AS request, at, hash, voided, void_reason, voided_by, voided_at, void_desk FROM vegas.my_claims(?, ?)`, since, until); err != nil {
			return nil, fmt.Errorf("list claims: %w", l.classify(err))
		}
		var out []Claim
		for i := range rows {
			c := rows[i].claim()
			if (f.Game == 0 || c.Game == f.Game) && (f.Block == 0 || c.Block == f.Block) {
				out = append(out, c)
			}
		}
		return out, nil
	}
	where, args := f.where()
	if err := sel(ctx, l.r, &rows, claimSelect+where+" ORDER BY c.id", args...); err != nil {
		return nil, fmt.Errorf("list claims: %w", l.classify(err))
	}
	out := make([]Claim, len(rows))
	for i := range rows {
		out[i] = rows[i].claim()
	}
	return out, nil
}

// ClaimByNumber returns payment number number, or ErrNotFound.
func (l *Ledger) ClaimByNumber(ctx context.Context, number int64) (Claim, error) {
	if err := l.backOffice("a payment by its number"); err != nil {
		return Claim{}, err
	}
	var r claimRow
	err := get(ctx, l.r, &r, claimSelect+" WHERE c.kind = 'claim' AND c.number = ?", number)
	if errors.Is(err, sql.ErrNoRows) {
		return Claim{}, fmt.Errorf("payment %d: %w: no payment has this number (see the claims command)", number, ErrNotFound)
	}
	if err != nil {
		return Claim{}, l.classify(err)
	}
	return r.claim(), nil
}

// Attempt is a refused attempt of the journal.
type Attempt struct {
	Entry    int64
	At       time.Time
	Reason   Verdict
	Serial   string
	Desk     string
	Operator string
	Method   string // "lookup", "claim" or "contents"
}

// Attempts lists the refused attempts since a time (zero = all).
func (l *Ledger) Attempts(ctx context.Context, since time.Time) ([]Attempt, error) {
	if err := l.backOffice("refused attempts"); err != nil {
		return nil, err
	}
	var rows []entry
	err := sel(ctx, l.r, &rows, "SELECT "+entryCols+" FROM journal WHERE kind = 'refusal' AND at >= ? ORDER BY id", formatTime(since))
	if err != nil {
		return nil, fmt.Errorf("list refused attempts: %w", l.classify(err))
	}
	out := make([]Attempt, len(rows))
	for i, e := range rows {
		out[i] = Attempt{Entry: e.ID, At: parseTime(e.AtText), Reason: Verdict(e.Reason), Serial: e.Serial,
			Desk: e.Desk, Operator: e.Operator, Method: e.Method}
	}
	return out, nil
}
