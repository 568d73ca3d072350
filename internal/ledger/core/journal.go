package core

import (
	"crypto/sha256"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"

	"vegas-desk/internal/ledger/tables"
)

// TimeFormat is the text of a time the ledger stores: an entry's at, which
// its hash covers (Canonical), and every other stored time. UTC with a
// fixed width, so that text order is time order. PostgreSQL writes
// microseconds and three zeros.
const TimeFormat = "2006-01-02T15:04:05.000000000Z"

// FormatTime is t as a ledger stores it.
func FormatTime(t time.Time) string { return t.UTC().Format(TimeFormat) }

// ParseTime reads a time a ledger stored; anything else is the zero time.
func ParseTime(s string) time.Time {
	t, err := time.Parse(TimeFormat, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

// InstantText is FormatTime, "" for the zero time.
func InstantText(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return FormatTime(t)
}

// Entry is one row of the journal. What its columns mean depends on its
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
//	           amount = payout limit, operator, detail = the end of a
//	           lock-out (a login role in ledgers before issue 22)
//	referral   a prize above the desk's limit, sent to the back office:
//	           ticket, serial, game, block, position, amount, desk, operator
//	           (on a counter ledger, as its refusals: the public serial,
//	           no ticket, amount 0)
//	setting    reason = the setting, detail = its value
type Entry struct {
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

// EntryCols are the journal's columns, in the canonical text's order: its
// declaration's (tables.Journal, every engine's CREATE TABLE journal), in
// Entry's, Values's and Fields's order (TestEntryIsTheJournalsRow).
var EntryCols = tables.Journal.Cols()

// Values are e's columns' values, in EntryCols's order.
func (e *Entry) Values() []any {
	return []any{e.ID, e.Kind, e.AtText, e.Number, e.Ticket, e.Serial, e.Game, e.Block, e.Position, e.PackFirst, e.PackLast,
		e.State, e.Amount, e.Desk, e.Operator, e.Method, e.Ref, e.Request, e.Reason, e.Detail, e.Hash}
}

// Fields are e's columns to scan a row into, in EntryCols's order.
func (e *Entry) Fields() []any {
	return []any{&e.ID, &e.Kind, &e.AtText, &e.Number, &e.Ticket, &e.Serial, &e.Game, &e.Block, &e.Position, &e.PackFirst,
		&e.PackLast, &e.State, &e.Amount, &e.Desk, &e.Operator, &e.Method, &e.Ref, &e.Request, &e.Reason, &e.Detail, &e.Hash}
}

// CheckTexts checks the texts an entry records (CheckText).
func (e *Entry) CheckTexts() error {
	for _, f := range [][2]string{{"desk", e.Desk}, {"operator", e.Operator}, {"reason", e.Reason}, {"detail", e.Detail}, {"request", e.Request}} {
		if err := CheckText(f[0], f[1], 0); err != nil {
			return err
		}
	}
	return nil
}

// Marks are n placeholders, for n values.
func Marks(n int) string { return strings.TrimSuffix(strings.Repeat("?, ", n), ", ") }

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
// hash = SHA-256 of that text, on every engine: PostgreSQL's chain is
// Go's too (package postgres, chain.go).
func (e *Entry) Canonical(prev []byte) string {
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

// ChainHash is the SHA-256 of the entry's canonical text after prev: the
// hash the entry holds.
func (e *Entry) ChainHash(prev []byte) []byte {
	s := sha256.Sum256([]byte(e.Canonical(prev)))
	return s[:]
}

// Claim is the Claim of a claim entry.
func (e *Entry) Claim() Claim {
	return Claim{Number: e.Number, Entry: e.ID, Hash: fmt.Sprintf("%x", e.Hash), Serial: e.Serial, Game: e.Game,
		Block: e.Block, Position: e.Position, Amount: e.Amount, Desk: e.Desk, Operator: e.Operator, Method: e.Method,
		Request: e.Request, At: ParseTime(e.AtText)}
}
