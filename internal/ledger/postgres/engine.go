package postgres

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jmoiron/sqlx"

	"vegas-desk/internal/ledger/core"
)

// pool is the database's connections, a core.Retrier: after a server
// restart, the pool's first use of an old connection fails, and the
// statement is run once more on a new connection (the idle ones were
// opened before the same event, and are dropped).
type pool struct {
	*sqlx.DB
	idle  int      // how many connections it keeps idle
	flush *flusher // its flushes (flush.go)
	// px is the questions' and the chain's connections (question.go,
	// chain.go): pgx's own, without database/sql's layers, which run
	// their statements in pipelines.
	px *pgxpool.Pool
	// warned is a notice of severity WARNING or worse received on a
	// connection of px, by its *pgconn.PgConn (a question's commit that
	// waited for the disk: writeOutcome).
	warned *sync.Map
}

// idleConns is how many connections a pool keeps idle while it opens the
// ledger; once open, the back office's (a server's) keeps all of its
// backOfficeConns: its questions run at once, and a connection made again
// for each (a backend started, SCRAM) would cost more than the question.
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

// Classify maps PostgreSQL's errors to the ledger's: a server that
// cannot be reached, or a connection lost, is core.ErrUnreachable; a
// refusal of the append-only triggers (SQLSTATE class VD) keeps its
// message.
func Classify(err error) error {
	if err == nil {
		return nil
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case strings.HasPrefix(pe.Code, "VD"):
			return errors.New(pe.Message)
		case pe.Code == "28P01" || pe.Code == "28000": // invalid password; invalid authorization
			return fmt.Errorf("%w: %s", core.ErrPassword, pe.Message)
		case strings.HasPrefix(pe.Code, "08"), pe.Code == "57P01", pe.Code == "57P02", pe.Code == "57P03":
			// connection exceptions; admin or crash shutdown; cannot connect now
			return fmt.Errorf("%w: %s", core.ErrUnreachable, pe.Message)
		}
		return err
	}
	var ne net.Error
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) || errors.As(err, &ne) || errors.Is(err, driver.ErrBadConn) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || pgconn.SafeToRetry(err) ||
		strings.Contains(err.Error(), "conn closed") {
		return fmt.Errorf("%w: %w", core.ErrUnreachable, err)
	}
	return err
}

// engine is what a PostgreSQL database gives the back office's store.
type engine struct{ db pool }

// Write opens a write transaction that holds the chainer's lock from its
// start (what waits chained first), so that it reads the journal whole
// and never waits for a chain while holding a row. The rows it reads to change
// them (a pack's state) it locks (LockRows): a server's question may move
// the same packs at once.
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
// its first append (Append), for a long write of rows no question reads
// yet (a block generated): the chain waits only for its end.
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

// Durable returns once a flush that began after the call made everything
// committed before it durable (flush.go).
func (e engine) Durable(ctx context.Context) error { return e.db.flush.wait(ctx) }

// Failed: PostgreSQL itself stops when it cannot sync (data_sync_retry =
// off); a failed flush fails its own questions only.
func (e engine) Failed() error { return nil }

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
	return insertEntries(ctx, tx, []*core.Entry{en}, nil)
}

// Waiting lists the entries recorded and not yet chained, in the order of
// their records, each with the id and the number among its kind its chain
// would give it if it chained what waits now (after the journal's last
// entry, in that order: the ids entryOf gives them), and when the oldest
// was recorded.
func (e engine) Waiting(ctx context.Context, q core.Querier) ([]core.Entry, time.Time, error) {
	var es []core.Entry
	if err := core.Select(ctx, q, &es, `SELECT `+fromWaiting("w.", map[string]string{
		"id": "(SELECT coalesce(max(id), 0) FROM journal) + row_number() OVER (ORDER BY w.seq)",
		"number": `(SELECT coalesce(max(number), 0) FROM journal j WHERE j.kind = w.kind)
			+ row_number() OVER (PARTITION BY w.kind ORDER BY w.seq)`,
		"ref":  entryOf("w.ref", "(SELECT j.id FROM journal j WHERE j.seq = -w.ref)"),
		"hash": "''::bytea",
	})+` FROM waiting w ORDER BY w.seq`); err != nil || len(es) == 0 {
		return nil, time.Time{}, err
	}
	var oldest time.Time
	err := core.Get(ctx, q, &oldest, "SELECT min(recorded) FROM vegas.waiting")
	return es, oldest, err
}

// Paid is vegas.paid with each row's payment by its journal id (entryOf).
func (e engine) Paid() string {
	return `(SELECT p.ticket, ` + entryOf("p.claim", "j.id") + ` AS claim
		FROM paid p LEFT JOIN journal j ON p.claim < 0 AND j.seq = -p.claim)`
}

// entryOf is the SQL of the journal id of the entry that ref (an SQL
// expression) names: a chained entry's id, or -seq, its record's number
// (postgres.sql): the journal's entry of that record (chained, the SQL
// of its id, or null), or while it waits the id Waiting gives it; 0 when
// no entry has that record. Read in one snapshot (verify's), the ids of
// the entries waiting follow the journal's, as their chain gives them.
func entryOf(ref, chained string) string {
	return `(CASE WHEN ` + ref + ` IS NULL OR ` + ref + ` >= 0 THEN ` + ref + ` ELSE coalesce(` + chained + `,
		(SELECT (SELECT coalesce(max(id), 0) FROM journal) + count(*) FROM waiting w2 WHERE w2.seq <= -` + ref + `
			HAVING bool_or(w2.seq = -` + ref + `)), 0) END)`
}

// Storage: PostgreSQL's columns hold their declared type only.
func (e engine) Storage(context.Context, core.Querier, bool, int) ([]core.Problem, error) {
	return nil, nil
}

// AppendMany appends ens in order, as Append appends each, under one take
// of the chainer's lock and one read of the journal's end, in multi-row
// inserts: a bulk write's entries (desks add --count's), where Append's
// round trips and its chaining of what waits, once an entry, would be most
// of the work.
func (e engine) AppendMany(ctx context.Context, q core.Querier, ens []*core.Entry) error {
	if len(ens) == 0 {
		return nil
	}
	if err := lockChain(ctx, q); err != nil {
		return err
	}
	var last struct {
		ID   int64  `db:"id"`
		Hash []byte `db:"hash"`
	}
	err := sqlx.GetContext(ctx, q, &last, "SELECT id, hash FROM vegas.journal ORDER BY id DESC LIMIT 1")
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	next := map[string]int64{}
	for _, en := range ens {
		n, ok := next[en.Kind]
		if !ok {
			if err := sqlx.GetContext(ctx, q, &n, "SELECT coalesce(max(number), 0) + 1 FROM vegas.journal WHERE kind = $1", en.Kind); err != nil {
				return err
			}
		}
		next[en.Kind] = n + 1
		if en.At.IsZero() {
			en.At = time.Now()
		}
		en.Number, en.ID, en.AtText = n, last.ID+1, core.FormatTime(en.At)
		en.Hash = en.ChainHash(last.Hash)
		last.ID, last.Hash = en.ID, en.Hash
	}
	return insertEntries(ctx, q, ens, nil)
}
