package postgres

import (
	"context"
	"fmt"

	"github.com/jmoiron/sqlx"

	"vegas-desk/internal/ledger/core"
)

// What a counter's login could still do to the server with the rights
// every role has, and what closes it. The ledger's setup, as the
// database's owner, revokes what the owner may (the database's TEMPORARY
// and CONNECT from PUBLIC: postgres.sql); the rest takes a superuser:
//
//   - large objects: any role may create them (lo_from_bytea, lo_create,
//     lo_creat, lo_import, lo_put are PUBLIC's), and one statement stores
//     hundreds of megabytes; a superuser revokes them from PUBLIC in the
//     ledger's database (the ledger uses none);
//   - temporary files: a sort or a hash of a counter's own query spills
//     to disk without bound unless temp_file_limit bounds it, which only a
//     superuser (or a role granted SET on it) may set; desks add sets it
//     for each counter's login when the owner may.
//
// Open tries each as the owner; Advice says what is still open, and the
// statements a server administrator runs to close it.

// TempFileLimit bounds what a counter's session may spill to disk.
const TempFileLimit = "64MB"

// largeObjects are the functions that create or fill large objects.
var largeObjects = []string{
	"pg_catalog.lo_create(oid)", "pg_catalog.lo_creat(integer)", "pg_catalog.lo_from_bytea(oid, bytea)",
	"pg_catalog.lo_import(text)", "pg_catalog.lo_import(text, oid)", "pg_catalog.lo_put(oid, bigint, bytea)",
}

// AdminStatements are what a superuser runs once for the ledger in
// database db, owned by role owner: in that database, the revocation of
// large objects; on the server, the owner's right to bound its counters'
// temporary files.
func AdminStatements(db, owner string) []string {
	return []string{
		fmt.Sprintf("-- in database %s:", db),
		"REVOKE EXECUTE ON FUNCTION " + joinList(largeObjects) + " FROM PUBLIC;",
		"-- on the server (PostgreSQL 15 or later), then desks add sets it for each counter:",
		fmt.Sprintf("GRANT SET ON PARAMETER temp_file_limit TO %q;", owner),
	}
}

func joinList(s []string) string {
	out := s[0]
	for _, x := range s[1:] {
		out += ", " + x
	}
	return out
}

// revokeLargeObjects revokes the large objects from PUBLIC when the owner
// may (a superuser), in a savepoint: otherwise Advice says so.
func revokeLargeObjects(ctx context.Context, tx *sqlx.Tx) error {
	return tryIn(ctx, tx, "REVOKE EXECUTE ON FUNCTION "+joinList(largeObjects)+" FROM PUBLIC")
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

// Advice lists what a counter's login may still do that it should not,
// and the statements a superuser runs to close it (none when nothing is
// open).
func (b *Backend) Advice(ctx context.Context) (open, fix []string, err error) {
	var out []string
	var group string
	if err := core.Get(ctx, b.db, &group, "SELECT value FROM meta WHERE key = 'counters'"); err != nil {
		return nil, nil, Classify(err)
	}
	var lo bool
	if err := core.Get(ctx, b.db, &lo, "SELECT has_function_privilege(?, 'pg_catalog.lo_from_bytea(oid, bytea)', 'EXECUTE')", group); err != nil {
		return nil, nil, Classify(err)
	}
	if lo {
		out = append(out, "counters' logins may store large objects (lo_from_bytea…) in the ledger's database")
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
	return out, AdminStatements(who.DB, who.Owner), nil
}
