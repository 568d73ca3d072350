package postgres

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
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"vegas-desk/internal/ledger/core"
)

// pool is the database's connections, a core.Retrier: after a server
// restart (or a desks disable), the pool's first use of an old connection
// fails, and the statement is run once more on a new connection (the idle
// ones were opened before the same event, and are dropped).
type pool struct {
	*sqlx.DB
	idle int // how many connections it keeps idle
}

// idleConns is how many connections a counter's pool keeps idle; the back
// office's (a server's) keeps all of its backOfficeConns: its questions
// run at once, and a connection made again for each (a backend started,
// SCRAM) would cost more than the question.
const (
	idleConns       = 2
	backOfficeConns = 8
)

// Retry runs f, and once more on a new connection when it lost its own.
func (p pool) Retry(f func() error) error {
	err := f()
	if err != nil && errors.Is(Classify(err), core.ErrUnreachable) {
		p.SetMaxIdleConns(0)
		p.SetMaxIdleConns(p.idle)
		err = f()
	}
	return err
}

// engine is what a PostgreSQL database gives the back office's store.
type engine struct{ db pool }

// Write opens a write transaction that holds the chainer's lock from its
// start (what waits chained first), so that it reads the journal whole,
// and before any row a counter's chaining may change (a paid row, a pack's
// state): it never waits for a counter's chain while holding one. The rows
// it reads to change them (a pack's state) it locks (LockRows): a
// counter's procedure may move the same packs at once.
func (e engine) Write(ctx context.Context) (*sqlx.Tx, error) {
	tx, err := e.Bulk(ctx)
	if err != nil {
		return nil, err
	}
	if err := lockChain(ctx, tx); err != nil {
		tx.Rollback()
		return nil, err
	}
	return tx, nil
}

// lockChain takes the chainer's lock in tx (waiting for a chain in
// progress) and chains what waits (in Go: chainWaiting).
func lockChain(ctx context.Context, tx core.Querier) error {
	if _, err := tx.ExecContext(ctx, "SELECT 1 FROM vegas.chainer FOR UPDATE"); err != nil {
		return Classify(err)
	}
	_, err := chainWaiting(ctx, tx)
	return Classify(err)
}

// Bulk opens a write transaction that takes the chainer's lock only at
// its first append (vegas.append), for a long write of rows no counter
// reads yet (a block generated): the counters' chaining waits only for
// its end.
func (e engine) Bulk(ctx context.Context) (*sqlx.Tx, error) {
	var tx *sqlx.Tx
	err := e.db.Retry(func() (err error) { tx, err = e.db.BeginTxx(ctx, nil); return err })
	return tx, Classify(err)
}

// LockRows locks the rows a write reads before it changes them.
func (e engine) LockRows() string { return " FOR UPDATE" }

// Read opens a read-only transaction: one consistent snapshot.
func (e engine) Read(ctx context.Context) (*sqlx.Tx, error) {
	var tx *sqlx.Tx
	err := e.db.Retry(func() (err error) {
		tx, err = e.db.BeginTxx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
		return err
	})
	return tx, Classify(err)
}

func (e engine) Pool() core.Querier { return e.db }

func (e engine) Classify(err error) error { return Classify(err) }

// Append takes the chainer's lock (held by a Write from its start),
// chains what waits, and appends en after it, in Go: its id, its number
// among its kind, its hash, and its time when en has none (now).
func (e engine) Append(ctx context.Context, q core.Querier, en *core.Entry) error {
	tx := q
	if err := lockChain(ctx, tx); err != nil {
		return err
	}
	var last struct {
		ID   int64  `db:"id"`
		Hash []byte `db:"hash"`
	}
	err := sqlx.GetContext(ctx, tx, &last, "SELECT id, hash FROM vegas.journal ORDER BY id DESC LIMIT 1")
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	if err := sqlx.GetContext(ctx, tx, &en.Number, "SELECT coalesce(max(number), 0) + 1 FROM vegas.journal WHERE kind = $1", en.Kind); err != nil {
		return err
	}
	if en.At.IsZero() {
		en.At = time.Now()
	}
	en.ID, en.AtText = last.ID+1, core.FormatTime(en.At)
	en.Hash = en.ChainHash(last.Hash)
	_, err = tx.ExecContext(ctx, "INSERT INTO vegas.journal ("+core.EntryCols+") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21)",
		en.ID, en.Kind, en.AtText, en.Number, en.Ticket, en.Serial, en.Game, en.Block, en.Position, en.PackFirst, en.PackLast,
		en.State, en.Amount, en.Desk, en.Operator, en.Method, en.Ref, en.Request, en.Reason, en.Detail, en.Hash)
	return err
}

// Waiting lists the entries recorded and not yet chained, id -seq.
func (e engine) Waiting(ctx context.Context, q core.Querier) ([]core.Entry, time.Time, error) {
	var es []core.Entry
	if err := core.Select(ctx, q, &es, `SELECT -seq AS id, kind, at, 0 AS number, ticket, serial, game, block, position,
		pack_first, pack_last, state, amount, desk, operator, method, ref, request, reason, detail, ''::bytea AS hash
		FROM vegas.waiting ORDER BY seq`); err != nil || len(es) == 0 {
		return nil, time.Time{}, err
	}
	var oldest time.Time
	err := core.Get(ctx, q, &oldest, "SELECT min(recorded) FROM vegas.waiting")
	return es, oldest, err
}

// Storage: PostgreSQL's columns hold their declared type only.
func (e engine) Storage(context.Context, core.Querier, bool, int) ([]core.Problem, error) {
	return nil, nil
}

// DeskRole is the login role of desk id in database db.
func DeskRole(db, id string) string {
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

// CounterConnections is how many connections a counter's login may hold.
const CounterConnections = 10

// Login makes desk id's login role with password (kept by PostgreSQL as a
// SCRAM verifier), a member of the counters' group, and returns its name.
func (e engine) Login(ctx context.Context, tx *sqlx.Tx, id, password string) (string, error) {
	if password == "" {
		return "", nil // a desk of the validation server (vegas-desk serve): no database login
	}
	if err := checkPassword(password); err != nil {
		return "", err
	}
	var db, group string
	if err := core.Get(ctx, tx, &db, "SELECT current_database()"); err != nil {
		return "", Classify(err)
	}
	if err := core.Get(ctx, tx, &group, "SELECT value FROM meta WHERE key = 'counters'"); err != nil {
		return "", Classify(err)
	}
	role := DeskRole(db, id)
	if len(role) > 63 {
		return "", fmt.Errorf("desk id %q: its login name %s is too long; choose a shorter id", id, role)
	}
	verifier, err := scramVerifier(password)
	if err != nil {
		return "", err
	}
	// Identifiers and the verifier are made of safe characters only (a
	// desk id, the database name, base64). A counter holds at most
	// counterConnections connections (so that it cannot take every slot of
	// the server); its sessions end an idle transaction or a statement
	// that runs too long (defaults it could change: the back office's
	// remedy is desks disable, which ends them). The back office is made a
	// member of the role, so that it may end its sessions. Its guesses are
	// counted in a sequence of its own (vegas.guess). The database's
	// privileges are set again: a database copied with CREATE DATABASE …
	// TEMPLATE has the defaults (PUBLIC's CONNECT and TEMPORARY).
	for _, stmt := range []string{
		fmt.Sprintf(`REVOKE ALL ON DATABASE %q FROM PUBLIC`, db),
		fmt.Sprintf(`GRANT CONNECT ON DATABASE %q TO %q`, db, group),
		fmt.Sprintf(`CREATE ROLE %q LOGIN CONNECTION LIMIT %d PASSWORD '%s' IN ROLE %q`, role, CounterConnections, verifier, group),
		fmt.Sprintf(`ALTER ROLE %q SET idle_in_transaction_session_timeout = '10s'`, role),
		fmt.Sprintf(`ALTER ROLE %q SET statement_timeout = '30s'`, role),
		fmt.Sprintf(`GRANT %q TO CURRENT_USER`, role),
		fmt.Sprintf(`CREATE SEQUENCE IF NOT EXISTS vegas.%q`, "guesses "+id),
	} {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return "", fmt.Errorf("add desk %s: %w", id, Classify(err))
		}
	}
	if err := limitTempFiles(ctx, tx, role); err != nil {
		return "", Classify(err)
	}
	return role, nil
}

// Change applies a change of desk d's state to its login: disabled is
// NOLOGIN, enabled LOGIN; unlocked starts its guesses again. Each change
// bounds its temporary files too, should the owner have been given the
// right to since the desk was added (harden.go).
func (e engine) Change(ctx context.Context, tx *sqlx.Tx, d core.DeskRow, state string) error {
	if d.Role != nil {
		if err := limitTempFiles(ctx, tx, *d.Role); err != nil {
			return err
		}
	}
	if d.Role != nil && (state == "disabled" || state == "enabled") {
		login := "NOLOGIN"
		if state == "enabled" {
			login = "LOGIN"
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("ALTER ROLE %q %s", *d.Role, login)); err != nil {
			return err
		}
	}
	if state == "unlocked" {
		// The guesses that no rollback undoes (vegas.guess) start again.
		_, err := tx.ExecContext(ctx, "SELECT setval(to_regclass(format('vegas.%I', $1::text)), 1, false) WHERE to_regclass(format('vegas.%I', $1::text)) IS NOT NULL", "guesses "+d.ID)
		return err
	}
	return nil
}

// Password gives login role a new password (its SCRAM verifier: the
// password never reaches the server's logs).
func (e engine) Password(ctx context.Context, tx *sqlx.Tx, role, password string) error {
	if err := checkPassword(password); err != nil {
		return err
	}
	verifier, err := scramVerifier(password)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, fmt.Sprintf(`ALTER ROLE %q PASSWORD '%s'`, role, verifier))
	return err
}

// Disabled ends the sessions of a login just disabled, whatever they hold.
func (e engine) Disabled(ctx context.Context, role string) error {
	_, err := core.Exec(ctx, e.db, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = ?", role)
	return err
}
