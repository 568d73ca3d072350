package ledger

import (
	"context"
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Desk is a counter of the ledger.
type Desk struct {
	ID    string
	Role  string // its PostgreSQL login; "" in a file
	Limit int    // payout limit, euros
	// Disabled desks are refused by every function.
	Disabled bool
	// LockedUntil is the end of a lock-out after too many refused serials.
	LockedUntil time.Time
}

var deskID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$`)

// checkDeskID refuses a desk id that is not 1 to 32 letters, digits, _ or -.
func checkDeskID(id string) error {
	if !deskID.MatchString(id) {
		return fmt.Errorf("desk id %q: use 1 to 32 letters, digits, _ or -, starting with a letter or digit", id)
	}
	return nil
}

// deskRole is the login role of desk id in database db.
func deskRole(db, id string) string {
	return "vd_" + db + "_" + strings.ToLower(strings.ReplaceAll(id, "-", "_"))
}

// scramVerifier is what PostgreSQL stores for a SCRAM-SHA-256 password
// (RFC 5802, RFC 7677): the password itself never reaches the server.
func scramVerifier(password string) (string, error) {
	salt := make([]byte, 16)
	rand.Read(salt)
	const iter = 4096
	salted, err := pbkdf2.Key(sha256.New, password, salt, iter, 32)
	if err != nil {
		return "", err
	}
	mac := func(key []byte, msg string) []byte {
		h := hmac.New(sha256.New, key)
		h.Write([]byte(msg))
		return h.Sum(nil)
	}
	stored := sha256.Sum256(mac(salted, "Client Key"))
	server := mac(salted, "Server Key")
	b64 := base64.StdEncoding.EncodeToString
	return fmt.Sprintf("SCRAM-SHA-256$%d:%s$%s:%s", iter, b64(salt), b64(stored[:]), b64(server)), nil
}

// checkPassword refuses a counter's password that is too short or not
// printable ASCII (PostgreSQL would normalise other characters).
func checkPassword(pw string) error {
	if len(pw) < 12 {
		return errors.New("a counter's password has at least 12 characters")
	}
	for _, r := range pw {
		if r < 0x21 || r > 0x7e {
			return errors.New("a counter's password is made of printable ASCII characters, without spaces")
		}
	}
	return nil
}

// counterConnections is how many connections a counter's login may hold.
const counterConnections = 10

// AddDesk adds a counter with its payout limit. On a shared ledger it
// makes the counter's login role, with password (kept by PostgreSQL as a
// SCRAM verifier), a member of the counters' group; a desk that exists
// without a login (after a copy) gets one. In a file, password is unused.
func (l *Ledger) AddDesk(ctx context.Context, id string, limit int, password string, who Identity) (Desk, error) {
	if err := l.backOffice("add a desk"); err != nil {
		return Desk{}, err
	}
	if err := checkDeskID(id); err != nil {
		return Desk{}, err
	}
	if limit < 0 {
		return Desk{}, fmt.Errorf("payout limit %d: give 0 or more euros", limit)
	}
	tx, err := l.begin(ctx)
	if err != nil {
		return Desk{}, err
	}
	defer tx.Rollback()
	var existing deskRow
	err = get(ctx, tx, &existing, "SELECT id, role, payout_limit, disabled, locked_until, unlocked_at FROM desks WHERE id = ?", id)
	found := err == nil
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return Desk{}, l.classify(err)
	}
	if found && (l.eng == sqliteEngine || existing.Role != nil) {
		return Desk{}, fmt.Errorf("desk %s exists already (see desks list)", id)
	}
	e := entry{Kind: "desk", Desk: id, State: "added", Amount: limit, Operator: who.Operator}
	if l.eng == postgresEngine {
		if err := checkPassword(password); err != nil {
			return Desk{}, err
		}
		var db, group string
		if err := get(ctx, tx, &db, "SELECT current_database()"); err != nil {
			return Desk{}, l.classify(err)
		}
		if err := get(ctx, tx, &group, "SELECT value FROM meta WHERE key = 'counters'"); err != nil {
			return Desk{}, l.classify(err)
		}
		role := deskRole(db, id)
		if len(role) > 63 {
			return Desk{}, fmt.Errorf("desk id %q: its login name %s is too long; choose a shorter id", id, role)
		}
		verifier, err := scramVerifier(password)
		if err != nil {
			return Desk{}, err
		}
		// Identifiers and the verifier are made of safe characters only
		// (checkDeskID, the database name, base64). A counter holds at
		// most counterConnections connections (so that it cannot take
		// every slot of the server); its sessions end an idle transaction
		// or a statement that runs too long (defaults it could change: the
		// back office's remedy is desks disable, which ends them). The
		// back office is made a member of the role, so that it may end its
		// sessions. Its guesses are counted in a sequence of its own
		// (vegas.guess).
		for _, stmt := range []string{
			fmt.Sprintf(`CREATE ROLE %q LOGIN CONNECTION LIMIT %d PASSWORD '%s' IN ROLE %q`, role, counterConnections, verifier, group),
			fmt.Sprintf(`ALTER ROLE %q SET idle_in_transaction_session_timeout = '10s'`, role),
			fmt.Sprintf(`ALTER ROLE %q SET statement_timeout = '30s'`, role),
			fmt.Sprintf(`GRANT %q TO CURRENT_USER`, role),
			fmt.Sprintf(`CREATE SEQUENCE IF NOT EXISTS vegas.%q`, "guesses "+id),
		} {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return Desk{}, fmt.Errorf("add desk %s: %w", id, l.classify(err))
			}
		}
		e.Detail = role
	}
	if err := l.appendJournal(ctx, tx, &e); err != nil {
		return Desk{}, err
	}
	var role *string
	if e.Detail != "" {
		role = &e.Detail
	}
	if _, err := execute(ctx, tx, `INSERT INTO desks (id, role, payout_limit, disabled) VALUES (?, ?, ?, 0)
		ON CONFLICT (id) DO UPDATE SET role = excluded.role, payout_limit = excluded.payout_limit, disabled = 0`, id, role, limit); err != nil {
		return Desk{}, l.classify(err)
	}
	if err := tx.Commit(); err != nil {
		return Desk{}, l.classify(err)
	}
	return Desk{ID: id, Role: e.Detail, Limit: limit}, nil
}

// Desks lists the counters.
func (l *Ledger) Desks(ctx context.Context) ([]Desk, error) {
	if err := l.backOffice("list the desks"); err != nil {
		return nil, err
	}
	var rows []deskRow
	if err := sel(ctx, l.r, &rows, "SELECT id, role, payout_limit, disabled, locked_until, unlocked_at FROM desks ORDER BY id"); err != nil {
		return nil, l.classify(err)
	}
	out := make([]Desk, len(rows))
	for i, r := range rows {
		out[i] = Desk{ID: r.ID, Limit: r.Limit, Disabled: r.Disabled == 1, LockedUntil: parseTime(r.LockedUntil)}
		if r.Role != nil {
			out[i].Role = *r.Role
		}
	}
	return out, nil
}

// deskChange records a change of a desk: state is "disabled", "enabled",
// "unlocked" or "limit" (with limit).
func (l *Ledger) deskChange(ctx context.Context, id, state string, limit int, who Identity) error {
	if err := l.backOffice(state + " a desk"); err != nil {
		return err
	}
	tx, err := l.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var d deskRow
	err = get(ctx, tx, &d, "SELECT id, role, payout_limit, disabled, locked_until, unlocked_at FROM desks WHERE id = ?", id)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("desk %s: %w: no such desk (see desks list)", id, ErrNotFound)
	}
	if err != nil {
		return l.classify(err)
	}
	e := entry{Kind: "desk", Desk: id, State: state, Amount: d.Limit, Operator: who.Operator}
	var stmt string
	switch state {
	case "disabled":
		stmt = "UPDATE desks SET disabled = 1 WHERE id = ?"
	case "enabled":
		stmt = "UPDATE desks SET disabled = 0 WHERE id = ?"
	case "unlocked":
		stmt = "UPDATE desks SET locked_until = '', unlocked_at = ? WHERE id = ?"
	case "limit":
		if limit < 0 {
			return fmt.Errorf("payout limit %d: give 0 or more euros", limit)
		}
		e.Amount = limit
		stmt = "UPDATE desks SET payout_limit = " + strconv.Itoa(limit) + " WHERE id = ?"
	}
	if err := l.appendJournal(ctx, tx, &e); err != nil {
		return err
	}
	args := []any{id}
	if state == "unlocked" {
		args = []any{e.AtText, id}
	}
	if _, err := execute(ctx, tx, stmt, args...); err != nil {
		return l.classify(err)
	}
	if l.eng == postgresEngine && d.Role != nil && (state == "disabled" || state == "enabled") {
		login := "NOLOGIN"
		if state == "enabled" {
			login = "LOGIN"
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("ALTER ROLE %q %s", *d.Role, login)); err != nil {
			return l.classify(err)
		}
	}
	if l.eng == postgresEngine && state == "unlocked" {
		// The guesses that no rollback undoes (vegas.guess) start again.
		if _, err := tx.ExecContext(ctx, "SELECT setval(to_regclass(format('vegas.%I', $1::text)), 1, false) WHERE to_regclass(format('vegas.%I', $1::text)) IS NOT NULL", "guesses "+id); err != nil {
			return l.classify(err)
		}
	}
	if err := tx.Commit(); err != nil {
		return l.classify(err)
	}
	if l.eng == postgresEngine && d.Role != nil && state == "disabled" {
		// Its sessions end now, whatever they hold (the journal's lock in an
		// open transaction, for one).
		if _, err := l.w.ExecContext(ctx, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1", *d.Role); err != nil {
			return l.classify(err)
		}
	}
	return nil
}

// DisableDesk stops a counter: its login is refused, and so is every call
// it makes.
func (l *Ledger) DisableDesk(ctx context.Context, id string, who Identity) error {
	return l.deskChange(ctx, id, "disabled", 0, who)
}

// EnableDesk lets a disabled counter work again.
func (l *Ledger) EnableDesk(ctx context.Context, id string, who Identity) error {
	return l.deskChange(ctx, id, "enabled", 0, who)
}

// UnlockDesk ends a counter's lock-out; the refused serials before it no
// longer count.
func (l *Ledger) UnlockDesk(ctx context.Context, id string, who Identity) error {
	return l.deskChange(ctx, id, "unlocked", 0, who)
}

// SetDeskLimit changes a counter's payout limit.
func (l *Ledger) SetDeskLimit(ctx context.Context, id string, limit int, who Identity) error {
	return l.deskChange(ctx, id, "limit", limit, who)
}
