package benchref

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/ledgertest"
	"vegas-desk/internal/testcache"
)

// Ticket is a row of the bare server's table.
type Ticket struct {
	Serial string
	Prize  int
}

// Tickets emits a table's rows, in order.
type Tickets func(emit func(Ticket) error) error

// BlockTickets are the tickets of the block spec makes: every ticket, the
// losers with prize 0.
func BlockTickets(ctx context.Context, spec game.Spec) Tickets {
	return func(emit func(Ticket) error) error {
		_, err := game.GenerateBlock(ctx, spec, func(b *game.Batch) error {
			for i := range b.Tickets {
				g := &b.Tickets[i]
				if err := emit(Ticket{g.Serial(spec.Game, spec.Block).String(), g.Prize}); err != nil {
					return err
				}
			}
			return nil
		})
		return err
	}
}

// FileTickets are the rows of a SQLite file's tickets table.
func FileTickets(ctx context.Context, path string) Tickets {
	return func(emit func(Ticket) error) error {
		d, err := sql.Open("sqlite", liteDSN(path, "query_only(1)"))
		if err != nil {
			return err
		}
		defer d.Close()
		rows, err := d.QueryContext(ctx, "SELECT serial, prize FROM tickets ORDER BY rowid")
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var t Ticket
			if err := rows.Scan(&t.Serial, &t.Prize); err != nil {
				return err
			}
			if err := emit(t); err != nil {
				return err
			}
		}
		return rows.Err()
	}
}

// The table, as the afternoon's engineer writes it.
const (
	liteTable = `CREATE TABLE tickets (serial TEXT PRIMARY KEY, prize INTEGER NOT NULL, paid_at TEXT)`
	pgTable   = `CREATE TABLE tickets (serial text PRIMARY KEY, prize integer NOT NULL, paid_at timestamptz)`
)

// CreateFile makes the SQLite file path holding tickets, in WAL mode.
func CreateFile(ctx context.Context, path string, tickets Tickets) error {
	d, err := sql.Open("sqlite", liteDSN(path, "journal_mode(WAL)", "synchronous(OFF)"))
	if err != nil {
		return err
	}
	defer d.Close()
	d.SetMaxOpenConns(1)
	tx, err := d.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, liteTable); err != nil {
		return err
	}
	ins, err := tx.PrepareContext(ctx, "INSERT INTO tickets (serial, prize) VALUES (?, ?)")
	if err != nil {
		return err
	}
	if err := tickets(func(t Ticket) error { _, err := ins.ExecContext(ctx, t.Serial, t.Prize); return err }); err != nil {
		return err
	}
	ins.Close()
	if err := tx.Commit(); err != nil {
		return err
	}
	_, err = d.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)")
	return err
}

// CreatePostgres makes the tickets table in the database at url, its rows
// copied (COPY) from tickets.
func CreatePostgres(ctx context.Context, url string, tickets Tickets) error {
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	tx, err := c.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, pgTable); err != nil {
		return err
	}
	rows := make([][]any, 0, 50_000)
	flush := func() error {
		_, err := tx.CopyFrom(ctx, pgx.Identifier{"tickets"}, []string{"serial", "prize"}, pgx.CopyFromRows(rows))
		rows = rows[:0]
		return err
	}
	err = tickets(func(t Ticket) error {
		rows = append(rows, []any{t.Serial, t.Prize})
		if len(rows) == cap(rows) {
			return flush()
		}
		return nil
	})
	if err == nil {
		err = flush()
	}
	if err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return err
	}
	_, err = c.Exec(ctx, "VACUUM ANALYZE tickets")
	return err
}

// Count is how many tickets and winners a table holds.
func Count(ctx context.Context, tickets Tickets) (n, winners int, err error) {
	err = tickets(func(t Ticket) error {
		n++
		if t.Prize > 0 {
			winners++
		}
		return nil
	})
	return n, winners, err
}

// FixtureFile is the name of the file of Fixture's directory.
const FixtureFile = "tickets.db"

// Fixture is a SQLite file of the bare server's table holding the tickets
// of ledgertest's block (game 531, block 1, ledgertest.Seed: the one
// serve's bench ledger, ledgertest.Demo, holds), made once per source tree
// (testcache), copied into tb's temporary directory.
func Fixture(tb testing.TB) string {
	tb.Helper()
	dir, err := testcache.Get("bare-tickets", func(dir string) error {
		return CreateFile(context.Background(), filepath.Join(dir, FixtureFile),
			BlockTickets(context.Background(), game.Spec{Game: 531, Block: 1, Seed: ledgertest.Seed}))
	})
	if err != nil {
		tb.Fatal(err)
	}
	dst := filepath.Join(tb.TempDir(), FixtureFile)
	if err := testcache.CopyFile(filepath.Join(dir, FixtureFile), dst); err != nil {
		tb.Fatal(err)
	}
	return dst
}
