package benchref

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// chainedStore is the bare server plus the least that serve's promises
// need of PostgreSQL (issue 38: a second reference): each payment's entry
// appended, in the payment's own commit, to a hash-chained journal (its
// id the next, its hash sha256 of the last one's and of its serial and
// prize, kept in a one-row table whose row lock orders the chain), and
// answered only once durable. Alone, one autocommit statement whose
// commit waits for the disk, as the bare's; beside other claims, the
// statement commits without waiting (the chain's row lock is held for the
// statement only, not for a flush), and a second one, a commit that
// writes WAL and waits for the disk (pg_logical_emit_message, as serve's
// flush), makes it durable, PostgreSQL's group commit sharing the flushes
// of claims at once. None of serve's gate, lock-out, idempotency, identity
// or logs.
type chainedStore struct {
	pool   *pgxpool.Pool
	asking atomic.Int32
}

func openChained(ctx context.Context, url string) (Store, error) {
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		return nil, err
	}
	if _, err := pool.Exec(ctx, `CREATE TABLE IF NOT EXISTS journal (id bigint PRIMARY KEY, serial text NOT NULL, prize integer NOT NULL,
		at timestamptz NOT NULL, hash bytea NOT NULL);
		CREATE TABLE IF NOT EXISTS journal_end (one integer PRIMARY KEY CHECK (one = 1), id bigint NOT NULL, hash bytea NOT NULL);
		INSERT INTO journal_end VALUES (1, 0, '\x') ON CONFLICT DO NOTHING`); err != nil {
		pool.Close()
		return nil, err
	}
	return &chainedStore{pool: pool}, nil
}

// chainedClaim pays the ticket and chains its entry, in one statement.
const chainedClaim = `WITH u AS (UPDATE tickets SET paid_at = now() WHERE serial = $1 AND paid_at IS NULL RETURNING prize),
	e AS (UPDATE journal_end SET id = id + 1, hash = sha256(hash || convert_to($1 || ' ' || (SELECT prize FROM u), 'UTF8'))
		WHERE EXISTS (SELECT FROM u) RETURNING id, hash),
	j AS (INSERT INTO journal (id, serial, prize, at, hash) SELECT e.id, $1, u.prize, now(), e.hash FROM e, u)
	SELECT prize, set_config('synchronous_commit', CASE WHEN $2 THEN 'on' ELSE 'off' END, true) FROM u`

func (s *chainedStore) Claim(ctx context.Context, serial string) (int, bool, error) {
	alone := s.asking.Add(1) == 1
	defer s.asking.Add(-1)
	var prize int
	var sync string
	err := s.pool.QueryRow(ctx, chainedClaim, serial, alone).Scan(&prize, &sync)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, nil
	}
	if err == nil && !alone {
		_, err = s.pool.Exec(ctx, "SELECT pg_logical_emit_message(true, 'benchref', 'flush')")
	}
	return prize, err == nil, err
}

func (s *chainedStore) Close() { s.pool.Close() }
