package core

import (
	"context"
	"database/sql"

	"github.com/jmoiron/sqlx"
)

// Querier is what a ledger's SQL reads and writes through: a database or
// a transaction. Queries are written with ? and rebound for the engine.
type Querier interface {
	sqlx.QueryerContext
	sqlx.ExecerContext
	Rebind(string) string
}

// A Retrier runs a statement once more when its first try found the
// connection lost: a PostgreSQL pool, whose idle connections a server
// restart ended. What runs on a pool is a read (a question's snapshot, a
// list), which a second try does not harm; a transaction is never a
// Retrier.
type Retrier interface{ Retry(func() error) error }

func onPool(q Querier, f func() error) error {
	if r, ok := q.(Retrier); ok {
		return r.Retry(f)
	}
	return f()
}

// Get reads one row into dest.
func Get(ctx context.Context, q Querier, dest any, query string, args ...any) error {
	return onPool(q, func() error { return sqlx.GetContext(ctx, q, dest, q.Rebind(query), args...) })
}

// Select reads rows into dest, a slice.
func Select(ctx context.Context, q Querier, dest any, query string, args ...any) error {
	return onPool(q, func() error { return sqlx.SelectContext(ctx, q, dest, q.Rebind(query), args...) })
}

// Exec runs a statement.
func Exec(ctx context.Context, q Querier, query string, args ...any) (res sql.Result, err error) {
	err = onPool(q, func() error { res, err = q.ExecContext(ctx, q.Rebind(query), args...); return err })
	return res, err
}

// Query runs a query whose rows the caller reads and closes.
func Query(ctx context.Context, q Querier, query string, args ...any) (rows *sql.Rows, err error) {
	err = onPool(q, func() error { rows, err = q.QueryContext(ctx, q.Rebind(query), args...); return err })
	return rows, err
}
