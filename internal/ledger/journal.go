package ledger

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// entry is one row of the journal. What its columns mean depends on its
// kind:
//
//	block      game, block, amount = the block's payout, detail = its digest (hex)
//	claim      a payment: number = the payment number, ticket (global number),
//	           serial, game, block, position, amount, desk, operator, method,
//	           request = the client's request id, detail = SHA-256 (hex) of the
//	           winner's identity ("" when none was recorded)
//	void       ref = the claim voided; its ticket, serial, game, block,
//	           position and amount; desk, operator, reason
//	refusal    a refused attempt: serial, game, block, position (as given),
//	           ticket (when it names one), desk, operator, method ("lookup",
//	           "claim" or "contents"), reason = the verdict, ref = the claim
//	           that paid the ticket (already-claimed)
//	packs      game, block, pack_first … pack_last moved to state, desk =
//	           the counter concerned, operator, reason
//	emission   game, detail = "on_sale=…\nend_of_sale=…\ndeadline=…" (UTC
//	           instants, "" for none), desk, operator
//	desk       desk, state = added|limit|disabled|enabled|unlocked|locked,
//	           amount = payout limit, operator, detail = login role or the
//	           end of a lock-out
//	referral   a prize above the desk's limit, sent to the back office:
//	           ticket, serial, game, block, position, amount, desk, operator
//	           (on a counter ledger, as its refusals: the public serial,
//	           no ticket, amount 0)
//	setting    reason = the setting, detail = its value
type entry struct {
	ID        int64         `db:"id"`
	Kind      string        `db:"kind"`
	AtText    string        `db:"at"`
	Number    int64         `db:"number"`
	Ticket    sql.NullInt64 `db:"ticket"`
	Serial    string        `db:"serial"`
	Game      int           `db:"game"`
	Block     int           `db:"block"`
	Position  int           `db:"position"`
	PackFirst int           `db:"pack_first"`
	PackLast  int           `db:"pack_last"`
	State     string        `db:"state"`
	Amount    int           `db:"amount"`
	Desk      string        `db:"desk"`
	Operator  string        `db:"operator"`
	Method    string        `db:"method"`
	Ref       sql.NullInt64 `db:"ref"`
	Request   string        `db:"request"`
	Reason    string        `db:"reason"`
	Detail    string        `db:"detail"`
	Hash      []byte        `db:"hash"`

	At time.Time `db:"-"`
}

const entryCols = "id, kind, at, number, ticket, serial, game, block, position, pack_first, pack_last, state, amount, desk, operator, method, ref, request, reason, detail, hash"

// canonical is the text an entry's hash covers: a fixed header line, then
// one line per column in this order, name=value; integers in decimal, an
// absent reference as "null", a string as its length in bytes, ':' and its
// UTF-8 bytes (so any text, new lines included, reads back one way); last
// the previous entry's hash in lower-case hex ("" for the first):
//
//	vegas-desk journal 2
//	id=7
//	kind=5:claim
//	at=30:2025-05-01T10:00:00.000000000Z
//	number=3
//	ticket=123
//	serial=38:531-0001-0000123-1234-5678-9012-3456-7
//	game=531
//	block=1
//	position=123
//	pack_first=0
//	pack_last=0
//	state=0:
//	amount=50
//	desk=2:D1
//	operator=3:ann
//	method=6:serial
//	ref=null
//	request=0:
//	reason=0:
//	detail=0:
//	prev=9f86…
//
// hash = SHA-256 of that text. PostgreSQL's vegas.canonical makes the same.
func (e *entry) canonical(prev []byte) string {
	var b strings.Builder
	num := func(name string, v int64) { b.WriteString(name + "=" + strconv.FormatInt(v, 10) + "\n") }
	str := func(name, v string) { b.WriteString(name + "=" + strconv.Itoa(len(v)) + ":" + v + "\n") }
	ref := func(name string, v sql.NullInt64) {
		if !v.Valid {
			b.WriteString(name + "=null\n")
			return
		}
		num(name, v.Int64)
	}
	b.WriteString("vegas-desk journal 2\n")
	num("id", e.ID)
	str("kind", e.Kind)
	str("at", e.AtText)
	num("number", e.Number)
	ref("ticket", e.Ticket)
	str("serial", e.Serial)
	num("game", int64(e.Game))
	num("block", int64(e.Block))
	num("position", int64(e.Position))
	num("pack_first", int64(e.PackFirst))
	num("pack_last", int64(e.PackLast))
	str("state", e.State)
	num("amount", int64(e.Amount))
	str("desk", e.Desk)
	str("operator", e.Operator)
	str("method", e.Method)
	ref("ref", e.Ref)
	str("request", e.Request)
	str("reason", e.Reason)
	str("detail", e.Detail)
	fmt.Fprintf(&b, "prev=%x\n", prev)
	return b.String()
}

func (e *entry) hash(prev []byte) []byte {
	s := sha256.Sum256([]byte(e.canonical(prev)))
	return s[:]
}

// checkText refuses text a journal entry cannot hold the same way on both
// engines: invalid UTF-8 and NUL characters.
func checkText(field, s string) error {
	if !utf8.ValidString(s) || strings.ContainsRune(s, 0) {
		return fmt.Errorf("%s %q: not plain text; type it again", field, s)
	}
	return nil
}

// appendJournal appends e after the last entry, chaining its hash, and
// fills in its id, number, time and hash. The caller holds the write
// transaction (and on PostgreSQL the journal's lock, which vegas.append
// takes again). e.At zero means now.
func (l *Ledger) appendJournal(ctx context.Context, tx querier, e *entry) error {
	for _, f := range [][2]string{{"desk", e.Desk}, {"operator", e.Operator}, {"reason", e.Reason}, {"detail", e.Detail}, {"request", e.Request}} {
		if err := checkText(f[0], f[1]); err != nil {
			return err
		}
	}
	if e.At.IsZero() && (l.eng == sqliteEngine || l.Now != nil) {
		e.At = l.now()
	}
	if l.eng == postgresEngine {
		var at *string // nil: the server's clock
		if !e.At.IsZero() {
			t := formatTime(e.At)
			at = &t
		}
		err := get(ctx, tx, e, `SELECT `+entryCols+` FROM vegas.append(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			e.Kind, at, e.Ticket, e.Serial, e.Game, e.Block, e.Position, e.PackFirst, e.PackLast, e.State,
			e.Amount, e.Desk, e.Operator, e.Method, e.Ref, e.Request, e.Reason, e.Detail)
		if err != nil {
			return fmt.Errorf("journal: %w", l.classify(err))
		}
		e.At = parseTime(e.AtText)
		return nil
	}
	var last struct {
		ID   int64  `db:"id"`
		Hash []byte `db:"hash"`
	}
	err := get(ctx, tx, &last, "SELECT id, hash FROM journal ORDER BY id DESC LIMIT 1")
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("journal: %w", err)
	}
	if err := get(ctx, tx, &e.Number, "SELECT coalesce(max(number), 0) + 1 FROM journal WHERE kind = ?", e.Kind); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	e.ID = last.ID + 1
	e.AtText = formatTime(e.At)
	e.Hash = e.hash(last.Hash)
	_, err = execute(ctx, tx, "INSERT INTO journal ("+entryCols+") VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
		e.ID, e.Kind, e.AtText, e.Number, e.Ticket, e.Serial, e.Game, e.Block, e.Position, e.PackFirst, e.PackLast,
		e.State, e.Amount, e.Desk, e.Operator, e.Method, e.Ref, e.Request, e.Reason, e.Detail, e.Hash)
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	return nil
}

// Head returns the hash of the journal's last entry, in hex ("" for an
// empty journal). A counter's login on a shared ledger asks
// vegas.journal_head, for its receipts and day reports.
func (l *Ledger) Head(ctx context.Context) (string, error) {
	if l.desk != "" {
		return l.head(ctx)
	}
	var h []byte
	err := get(ctx, l.r, &h, "SELECT hash FROM journal ORDER BY id DESC LIMIT 1")
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", l.classify(err)
	}
	return fmt.Sprintf("%x", h), nil
}
