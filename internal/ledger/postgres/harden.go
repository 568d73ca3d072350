package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/jmoiron/sqlx"

	"vegas-desk/internal/ledger/core"
)

// What a counter's login could still do to the server with the rights
// every role has, and what closes it. The ledger's setup, as the
// database's owner, revokes what the owner may (the database's TEMPORARY
// and CONNECT from PUBLIC: postgres.sql), and its chainer ends a counter's
// session whose transaction is kept open (vegas.reap); the rest takes a
// superuser:
//
//   - functions every role may call (PUBLIC's), which the ledger uses
//     none of: large objects (lo_from_bytea… store hundreds of megabytes
//     in one statement), advisory locks (a million of them, kept by an
//     idle session, fill the server's lock table: nobody else connects),
//     pg_notify (stores data in the notification queue), txid_current
//     (a transaction id a call, burnt towards the server's wraparound
//     stop); a superuser revokes them from PUBLIC in the ledger's
//     database;
//   - temporary files: a sort or a hash of a counter's own query spills
//     to disk without bound unless temp_file_limit bounds it, which only a
//     superuser (or a role granted SET on it) may set; desks add sets it
//     for each counter's login when the owner may;
//   - connections: each counter's login holds at most CounterConnections;
//     the server's max_connections must leave room for the back office
//     when every counter holds its own.
//
// Open tries each as the owner; Advice says what is still open, and the
// statements a server administrator runs to close it.

// TempFileLimit bounds what a counter's session may spill to disk.
const TempFileLimit = "64MB"

// publicFunctions are the functions of PUBLIC's that a counter could use
// against the server and that the ledger never calls.
var publicFunctions = func() []string {
	fs := []string{
		"pg_catalog.lo_create(oid)", "pg_catalog.lo_creat(integer)", "pg_catalog.lo_from_bytea(oid, bytea)",
		"pg_catalog.lo_import(text)", "pg_catalog.lo_import(text, oid)", "pg_catalog.lo_put(oid, bigint, bytea)",
		"pg_catalog.pg_notify(text, text)", "pg_catalog.txid_current()", "pg_catalog.pg_current_xact_id()",
	}
	for _, try := range []string{"", "try_"} {
		for _, xact := range []string{"", "xact_"} {
			for _, shared := range []string{"", "_shared"} {
				for _, args := range []string{"bigint", "integer, integer"} {
					fs = append(fs, fmt.Sprintf("pg_catalog.pg_%sadvisory_%slock%s(%s)", try, xact, shared, args))
				}
			}
		}
	}
	return fs
}()

// AdminStatements are what a superuser runs once for the ledger in
// database db, owned by role owner: in that database, the revocation of
// PUBLIC's functions a counter could use against the server; on the
// server, the owner's right to bound its counters' temporary files, and
// the revocation of the right to connect to the other databases (others)
// that counters' logins (members of group) may connect to.
func AdminStatements(db, owner, group string, others []string) []string {
	out := []string{
		fmt.Sprintf("-- in database %s:", db),
		"REVOKE EXECUTE ON FUNCTION " + strings.Join(publicFunctions, ", ") + " FROM PUBLIC;",
		"-- on the server (PostgreSQL 15 or later), then desks add sets it for each counter:",
		fmt.Sprintf("GRANT SET ON PARAMETER temp_file_limit TO %q;", owner),
	}
	if len(others) > 0 {
		out = append(out, "-- on the server (or admit counters' logins to the ledger's database only, in pg_hba.conf):")
		for _, d := range others {
			out = append(out, fmt.Sprintf("REVOKE CONNECT, TEMPORARY ON DATABASE %q FROM PUBLIC, %q;", d, group))
		}
	}
	return out
}

// revokePublicFunctions revokes publicFunctions from PUBLIC when the owner
// may (a superuser), in a savepoint: otherwise Advice says so.
func revokePublicFunctions(ctx context.Context, tx *sqlx.Tx) error {
	return tryIn(ctx, tx, "REVOKE EXECUTE ON FUNCTION "+strings.Join(publicFunctions, ", ")+" FROM PUBLIC")
}

// limitTempFiles bounds a counter's login's temporary files when the owner
// may, in a savepoint.
func limitTempFiles(ctx context.Context, tx *sqlx.Tx, role string) error {
	return tryIn(ctx, tx, fmt.Sprintf("ALTER ROLE %q SET temp_file_limit = '%s'", role, TempFileLimit))
}

// tryIn runs stmt in a savepoint of tx: refused for want of privilege, it
// leaves tx as it was.
func tryIn(ctx context.Context, tx *sqlx.Tx, stmt string) error {
	if _, err := tx.ExecContext(ctx, "SAVEPOINT harden"); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, stmt); err != nil {
		if _, rerr := tx.ExecContext(ctx, "ROLLBACK TO SAVEPOINT harden"); rerr != nil {
			return rerr
		}
		return nil
	}
	_, err := tx.ExecContext(ctx, "RELEASE SAVEPOINT harden")
	return err
}

// ConnectionsAdvice says what to do when a server of max connections,
// reserved of them for superusers, leaves fewer than 10 to the back
// office once the logins of desks counters hold all theirs ("" if none).
func ConnectionsAdvice(max, desks, reserved int) string {
	need := desks*CounterConnections + 10 + reserved
	if max >= need {
		return ""
	}
	return fmt.Sprintf("max_connections is %d: the %d counters' logins may hold %d connections, and leave the back office too few; set it to %d or more (postgresql.conf) and restart the server",
		max, desks, desks*CounterConnections, need)
}

// Advice lists what a counter's login may still do that it should not,
// and the statements a superuser runs to close it (none when nothing is
// open).
func (b *Backend) Advice(ctx context.Context) (open, fix []string, err error) {
	var out []string
	var group string
	if err := core.Get(ctx, b.db, &group, "SELECT value FROM meta WHERE key = 'counters'"); err != nil {
		return nil, nil, Classify(err)
	}
	var callable []string
	for _, f := range publicFunctions {
		var may bool
		if err := core.Get(ctx, b.db, &may, "SELECT has_function_privilege(?, ?, 'EXECUTE')", group, f); err != nil {
			return nil, nil, Classify(err)
		}
		if may {
			callable = append(callable, strings.TrimPrefix(f, "pg_catalog."))
		}
	}
	if len(callable) > 0 {
		out = append(out, fmt.Sprintf("counters' logins may call %d functions they could use against the server (large objects, advisory locks, notifications, transaction ids): %s",
			len(callable), strings.Join(callable, ", ")))
	}
	var temp bool
	if err := core.Get(ctx, b.db, &temp, "SELECT has_database_privilege(?, current_database(), 'TEMPORARY')", group); err != nil {
		return nil, nil, Classify(err)
	}
	if temp {
		out = append(out, "counters' logins may make temporary tables: the next desks add revokes it (the database was copied)")
	}
	var unbounded []string
	if err := core.Select(ctx, b.db, &unbounded, `SELECT d.id FROM vegas.desks d JOIN pg_roles r ON r.rolname = d.role
		WHERE NOT EXISTS (SELECT 1 FROM pg_db_role_setting s, unnest(s.setconfig) c
			WHERE s.setrole = r.oid AND c LIKE 'temp_file_limit=%') ORDER BY d.id`); err != nil {
		return nil, nil, Classify(err)
	}
	if len(unbounded) > 0 {
		out = append(out, fmt.Sprintf("the temporary files of desks %v are not bounded (temp_file_limit): once the owner may set it, any change of a desk (desks limit ID EUROS) bounds them", unbounded))
	}
	var conns struct {
		Max    int `db:"max"`
		Desks  int `db:"desks"`
		Others int `db:"others"`
	}
	if err := core.Get(ctx, b.db, &conns, `SELECT current_setting('max_connections')::int AS max,
		(SELECT count(*) FROM vegas.desks WHERE role <> '') AS desks,
		current_setting('superuser_reserved_connections')::int AS others`); err != nil {
		return nil, nil, Classify(err)
	}
	if a := ConnectionsAdvice(conns.Max, conns.Desks, conns.Others); a != "" {
		out = append(out, a)
	}
	var others []string
	if err := core.Select(ctx, b.db, &others, `SELECT datname FROM pg_database
		WHERE datname <> current_database() AND datallowconn AND has_database_privilege(?, datname, 'CONNECT') ORDER BY datname`, group); err != nil {
		return nil, nil, Classify(err)
	}
	if len(others) > 0 {
		out = append(out, fmt.Sprintf("counters' logins may connect to other databases of the server (%s), where none of this is revoked", strings.Join(others, ", ")))
	}
	var prepared int
	if err := core.Get(ctx, b.db, &prepared, "SELECT current_setting('max_prepared_transactions')::int"); err != nil {
		return nil, nil, Classify(err)
	}
	if prepared > 0 {
		out = append(out, fmt.Sprintf("max_prepared_transactions is %d: a counter's login may leave a prepared transaction open, which no session holds and the reaper cannot end; set it to 0 (postgresql.conf) and restart the server", prepared))
	}
	if len(out) == 0 {
		return nil, nil, nil
	}
	var who struct {
		DB    string `db:"db"`
		Owner string `db:"owner"`
	}
	if err := core.Get(ctx, b.db, &who, "SELECT current_database() AS db, current_user AS owner"); err != nil {
		return nil, nil, Classify(err)
	}
	return out, AdminStatements(who.DB, who.Owner, group, others), nil
}
