package postgres

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/platform"
)

// Steps upgrade a shared ledger in place, in order (core.Step). A schema
// change that bumps SchemaVersion adds its step at the end, whose SQL
// makes of a database of the previous version exactly what postgres.sql
// makes (TestUpgradeFixtures compares the catalogs). Versions 2 to 4
// (each a few hours of development, on 1 December 2026) have no step and
// stay refused, with the two-step copy through the vegas-desk that made
// them.
var Steps = []core.Step{
	{From: 5, Says: "retire the counters' PostgreSQL logins and their functions (counters ask a validation server, vegas-desk serve): drop the functions, procedures and types of schema vegas but the append-only trigger's, the desks' guesses sequences, the tables flushes and reaper, the column desks.role, the meta row 'counters', and the logins",
		Run: retireCounterLogins},
	{From: 6, Says: "keep each desk's lock-out count on its row (desks.guesses) and drop the journal's index by kind " +
		"and time (issue 28); add the table desk_certs: a desk accepts only the certificates listed for it (issue 29), " +
		"so every desk then needs a new desk file (desks cert ID --out FILE) before its counter asks again; keep each " +
		"winner's name's confusable skeleton beside it (identities.skeleton, issue 29)",
		SQL: `ALTER TABLE vegas.desks ADD COLUMN guesses text NOT NULL DEFAULT '';
ALTER TABLE vegas.identities ADD COLUMN skeleton text NOT NULL DEFAULT '';
DROP INDEX vegas.journal_by_kind;
CREATE TABLE vegas.desk_certs (
    desk      text NOT NULL REFERENCES vegas.desks (id),
    serial    text NOT NULL,
    not_after text NOT NULL,
    PRIMARY KEY (desk, serial))`,
		Run: func(ctx context.Context, tx *sqlx.Tx) ([]string, error) {
			// The identities kept before their skeletons: the trigger that
			// refuses every change is off for the step's transaction alone.
			if _, err := tx.ExecContext(ctx, "ALTER TABLE vegas.identities DISABLE TRIGGER identities_no_change"); err != nil {
				return nil, err
			}
			if err := core.KeepSkeletons(ctx, tx, "vegas.identities"); err != nil {
				return nil, err
			}
			_, err := tx.ExecContext(ctx, "ALTER TABLE vegas.identities ENABLE TRIGGER identities_no_change")
			return nil, err
		}},
	{From: 7, Says: "write a question's paid row once: it names its payment by its record (-seq) for good, and the " +
		"chain no longer rewrites it with the entry's id, nor looks it up by its payment (issue 28): drop paid's " +
		"key on its claim",
		SQL: `ALTER TABLE vegas.paid DROP CONSTRAINT paid_claim_key`},
}

// retireCounterLogins is the step from version 5: what version 6 no
// longer has. A login that cannot be dropped (it holds privileges in
// another database, or this login may not drop roles) is left, with no
// privilege left in this database, and named in a note.
func retireCounterLogins(ctx context.Context, tx *sqlx.Tx) ([]string, error) {
	var logins []string
	if err := tx.SelectContext(ctx, &logins, `SELECT role FROM vegas.desks WHERE role IS NOT NULL
		UNION ALL SELECT value FROM vegas.meta WHERE key = 'counters' ORDER BY 1`); err != nil {
		return nil, err
	}
	var dbname string
	if err := tx.GetContext(ctx, &dbname, "SELECT current_database()"); err != nil {
		return nil, err
	}
	var routines, types []string
	if err := tx.SelectContext(ctx, &routines, `SELECT oid::regprocedure::text FROM pg_proc
		WHERE pronamespace = 'vegas'::regnamespace AND proname <> 'refuse_change' ORDER BY 1`); err != nil {
		return nil, err
	}
	if err := tx.SelectContext(ctx, &types, `SELECT t.oid::regtype::text FROM pg_type t JOIN pg_class c ON c.oid = t.typrelid
		WHERE t.typnamespace = 'vegas'::regnamespace AND c.relkind = 'c' ORDER BY 1`); err != nil {
		return nil, err
	}
	// Each desk's guesses, counted where no rollback undoes them.
	var sequences []string
	if err := tx.SelectContext(ctx, &sequences, `SELECT oid::regclass::text FROM pg_class
		WHERE relnamespace = 'vegas'::regnamespace AND relkind = 'S' AND relname LIKE 'guesses %' ORDER BY 1`); err != nil {
		return nil, err
	}
	var stmts []string
	for _, q := range sequences {
		stmts = append(stmts, "DROP SEQUENCE "+q)
	}
	for _, r := range routines {
		stmts = append(stmts, "DROP ROUTINE "+r)
	}
	for _, t := range types {
		stmts = append(stmts, "DROP TYPE "+t)
	}
	stmts = append(stmts,
		"DROP TABLE vegas.flushes, vegas.reaper",
		"ALTER TABLE vegas.desks DROP COLUMN role",
		"ALTER TABLE vegas.meta DISABLE TRIGGER meta_no_change",
		"DELETE FROM vegas.meta WHERE key = 'counters'",
		"ALTER TABLE vegas.meta ENABLE TRIGGER meta_no_change")
	for _, s := range stmts {
		if _, err := tx.ExecContext(ctx, s); err != nil {
			return nil, fmt.Errorf("%s: %w", s, Classify(err))
		}
	}
	var notes []string
	for _, l := range logins {
		if _, err := tx.ExecContext(ctx, "SAVEPOINT login"); err != nil {
			return nil, err
		}
		// Dropping what it holds takes its privileges: a member's.
		var err error
		for _, q := range []string{`GRANT %q TO CURRENT_USER`, `DROP OWNED BY %q`, `DROP ROLE %q`} {
			if _, err = tx.ExecContext(ctx, fmt.Sprintf(q, l)); err != nil {
				break
			}
		}
		if err != nil {
			if _, rerr := tx.ExecContext(ctx, "ROLLBACK TO SAVEPOINT login"); rerr != nil {
				return nil, rerr
			}
			// What it was granted here goes, whatever it keeps elsewhere.
			for _, q := range []string{fmt.Sprintf(`REVOKE ALL ON DATABASE %q FROM %q`, dbname, l), fmt.Sprintf(`REVOKE ALL ON SCHEMA vegas FROM %q`, l)} {
				if _, err := tx.ExecContext(ctx, q); err != nil {
					return nil, fmt.Errorf("%s: %w", q, Classify(err))
				}
			}
			notes = append(notes, fmt.Sprintf("the login %s is left in the PostgreSQL server, with no privilege in this ledger (%v): a superuser removes it with DROP ROLE", l, Classify(err)))
			continue
		}
		if _, err := tx.ExecContext(ctx, "RELEASE SAVEPOINT login"); err != nil {
			return nil, err
		}
		notes = append(notes, "the login "+l+" is dropped")
	}
	return notes, nil
}

// Upgrade upgrades the shared ledger at location to SchemaVersion in
// place: it takes a backup of the database into backupDir with pg_dump
// (plain SQL; the counters' logins, which are the server's and not the
// database's, are not in it), then runs the steps (Steps) and sets the
// version in one transaction: any failure leaves the database as it was.
// With dryRun it only says what it would do. A ledger of this version is
// left alone (Done, no steps); one of a newer version is refused
// (core.ErrTooNew), one with no step from its version too (core.ErrTooOld).
func Upgrade(ctx context.Context, location, backupDir string, dryRun bool) (core.Upgrade, error) {
	u := core.Upgrade{To: SchemaVersion}
	dsn, shown, dbname, err := pgConfig(location)
	if err != nil {
		return u, err
	}
	u.Location = shown
	db, err := sqlx.Open("pgx", dsn)
	if err != nil {
		return u, fmt.Errorf("open ledger %s: %w", shown, err)
	}
	defer db.Close()
	var version string
	if err := db.GetContext(ctx, &version, "SELECT value FROM vegas.meta WHERE key = 'schema'"); err != nil {
		return u, fmt.Errorf("%w: open ledger %s: %w", core.ErrNotLedger, shown, Classify(err))
	}
	u.From, _ = strconv.Atoi(version)
	switch {
	case u.From == SchemaVersion:
		u.Done = true
		return u, nil
	case u.From > SchemaVersion:
		return u, fmt.Errorf("%w: database %s has schema version %s, this vegas-desk knows up to %d; install a newer vegas-desk", core.ErrTooNew, dbname, version, SchemaVersion)
	}
	plan, err := core.Plan(Steps, u.From, SchemaVersion)
	if err != nil {
		return u, tooOld(dbname, version)
	}
	for _, s := range plan {
		u.Steps = append(u.Steps, s.Says)
	}
	if dryRun {
		return u, nil
	}
	name := fmt.Sprintf("%s.v%d.%s.sql", dbname, u.From, time.Now().UTC().Format("20060102T150405Z"))
	if u.Backup, err = dump(ctx, location, backupDir, name); err != nil {
		return u, fmt.Errorf("upgrade %s: the backup before it: %w", shown, err)
	}
	tx, err := db.BeginTxx(ctx, nil)
	if err != nil {
		return u, fmt.Errorf("upgrade %s: %w", shown, Classify(err))
	}
	defer tx.Rollback()
	if err := tx.GetContext(ctx, &version, "SELECT value FROM vegas.meta WHERE key = 'schema' FOR UPDATE"); err != nil || version != fmt.Sprint(u.From) {
		return u, fmt.Errorf("upgrade %s: its version changed meanwhile (%s, was %d): %v", shown, version, u.From, err)
	}
	if u.Notes, err = core.RunSteps(ctx, tx, plan); err != nil {
		return u, fmt.Errorf("upgrade %s: %w; the database is left as it was", shown, err)
	}
	for _, s := range []string{"ALTER TABLE vegas.meta DISABLE TRIGGER meta_no_change",
		fmt.Sprintf("UPDATE vegas.meta SET value = '%d' WHERE key = 'schema'", SchemaVersion),
		"ALTER TABLE vegas.meta ENABLE TRIGGER meta_no_change"} {
		if _, err := tx.ExecContext(ctx, s); err != nil {
			return u, fmt.Errorf("upgrade %s: %w; the database is left as it was", shown, Classify(err))
		}
	}
	if err := tx.Commit(); err != nil {
		return u, fmt.Errorf("upgrade %s: %w", shown, Classify(err))
	}
	u.Done = true
	return u, nil
}

// tooOld is the refusal of a shared ledger of a version with no step.
func tooOld(dbname, version string) error {
	return fmt.Errorf("%w: database %s has schema version %s, made by an earlier vegas-desk, with counters' logins and functions this one no longer has: copy it to a file with that earlier vegas-desk (vegas-desk copy URL FILE), then the file into a new, empty database with this one (vegas-desk copy FILE NEWURL)", core.ErrTooOld, dbname, version)
}

// dump writes the database at location as plain SQL into dir/name with
// pg_dump (on the PATH), under a temporary name renamed once whole and
// synced. The password, if the URL holds one, goes to pg_dump in its
// environment, not on its command line.
func dump(ctx context.Context, location, dir, name string) (string, error) {
	bin, err := exec.LookPath("pg_dump")
	if err != nil {
		return "", errors.New("pg_dump is not on the PATH: install PostgreSQL's client programs (the version of the server or newer)")
	}
	if err := platform.PrivateDir(dir); err != nil { // issue 36: a dump is a whole ledger
		return "", err
	}
	u, err := url.Parse(location)
	if err != nil {
		return "", err
	}
	env := os.Environ()
	if pw, ok := u.User.Password(); ok {
		env = append(env, "PGPASSWORD="+pw)
		u.User = url.User(u.User.Username())
	}
	dst := filepath.Join(dir, name)
	tmp := filepath.Join(dir, "."+name+".partial")
	// Made 0600 before pg_dump writes into it (it keeps the mode of a
	// file that exists; made by it, the umask's, 0644).
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", err
	}
	f.Close()
	if err := platform.PrivateFile(tmp); err != nil {
		os.Remove(tmp)
		return "", err
	}
	cmd := exec.CommandContext(ctx, bin, "--format=plain", "--no-owner", "--file", tmp, "--dbname", u.String())
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("pg_dump: %w: %s", err, strings.TrimSpace(string(out)))
	}
	if err := core.SyncRename(tmp, dst); err != nil {
		os.Remove(tmp)
		return "", err
	}
	return dst, nil
}
