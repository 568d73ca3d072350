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

	"github.com/jmoiron/sqlx"
)

// entry is one row of the journal.
type entry struct {
	ID       int64         `db:"id"`
	Kind     string        `db:"kind"`
	AtText   string        `db:"at"`
	Ticket   sql.NullInt64 `db:"ticket"`
	Serial   string        `db:"serial"`
	Game     int           `db:"game"`
	Block    int           `db:"block"`
	Position int           `db:"position"`
	Amount   int           `db:"amount"`
	Desk     string        `db:"desk"`
	Operator string        `db:"operator"`
	Method   string        `db:"method"`
	Claim    sql.NullInt64 `db:"claim"`
	Reason   string        `db:"reason"`
	Detail   string        `db:"detail"`
	Hash     []byte        `db:"hash"`

	At time.Time `db:"-"`
}

const entryCols = "id, kind, at, ticket, serial, game, block, position, amount, desk, operator, method, claim, reason, detail, hash"

// canonical is the text an entry's hash covers: a fixed header line, then
// one line per field in this order, name=value, strings quoted as Go
// strconv.Quote does, integers in decimal, an absent reference as "null",
// and last the previous entry's hash in lower-case hex ("" for the first):
//
//	vegas-desk journal 1
//	id=7
//	kind="claim"
//	at="2025-05-01T10:00:00.000000000Z"
//	ticket=123
//	serial="531-0001-0000123-123456-7"
//	game=531
//	block=1
//	position=123
//	amount=50
//	desk="D1"
//	operator="ann"
//	method="serial"
//	claim=null
//	reason=""
//	detail=""
//	prev="9f…"
//
// hash = SHA-256 of that text (lines end with "\n").
func (e *entry) canonical(prev []byte) string {
	var b strings.Builder
	null := func(v sql.NullInt64) string {
		if !v.Valid {
			return "null"
		}
		return strconv.FormatInt(v.Int64, 10)
	}
	fmt.Fprintf(&b, "vegas-desk journal 1\nid=%d\nkind=%q\nat=%q\nticket=%s\nserial=%q\ngame=%d\nblock=%d\nposition=%d\namount=%d\ndesk=%q\noperator=%q\nmethod=%q\nclaim=%s\nreason=%q\ndetail=%q\nprev=\"%x\"\n",
		e.ID, e.Kind, e.AtText, null(e.Ticket), e.Serial, e.Game, e.Block, e.Position, e.Amount,
		e.Desk, e.Operator, e.Method, null(e.Claim), e.Reason, e.Detail, prev)
	return b.String()
}

func (e *entry) hash(prev []byte) []byte {
	s := sha256.Sum256([]byte(e.canonical(prev)))
	return s[:]
}

// appendJournal appends e after the last entry, chaining its hash, and
// returns its id.
func appendJournal(ctx context.Context, tx *sqlx.Tx, e *entry) (int64, error) {
	var last struct {
		ID   int64  `db:"id"`
		Hash []byte `db:"hash"`
	}
	err := tx.GetContext(ctx, &last, "SELECT id, hash FROM journal ORDER BY id DESC LIMIT 1")
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("journal: %w", err)
	}
	e.ID = last.ID + 1
	e.AtText = formatTime(e.At)
	e.Hash = e.hash(last.Hash)
	_, err = tx.NamedExecContext(ctx, "INSERT INTO journal ("+entryCols+") VALUES (:id, :kind, :at, :ticket, :serial, :game, :block, :position, :amount, :desk, :operator, :method, :claim, :reason, :detail, :hash)", e)
	if err != nil {
		return 0, fmt.Errorf("journal: %w", err)
	}
	return e.ID, nil
}
