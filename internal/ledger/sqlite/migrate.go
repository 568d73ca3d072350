package sqlite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/platform"
)

// Steps upgrade a back office's file in place, in order (core.Step).
// Version 1, a development format, stays refused (core.ErrTooOld). A change
// of schema.sql that bumps core.SchemaVersion adds its step here, whose SQL
// makes of a file of the previous version exactly what schema.sql makes
// (TestUpgradeSQLiteV2 checks it: the same sqlite_master, row for row, so
// a CREATE is written here as schema.sql writes it).
var Steps = []core.Step{
	{From: 2, Says: "keep each desk's lock-out count on its row (desks.guesses), find a desk's request id by an index " +
		"(journal_by_request) and drop the journal's index by kind and time (issue 28); add the table desk_certs: " +
		"a desk accepts only the certificates listed for it (issue 29), so every desk then needs a new desk file " +
		"(desks cert ID --out FILE) before its counter asks again; keep each winner's name's confusable skeleton beside it " +
		"(identities.skeleton, issue 29)",
		// desks.guesses and identities.skeleton as ALTER TABLE writes
		// them, which schema.sql copies.
		SQL: `ALTER TABLE desks ADD COLUMN guesses      TEXT    NOT NULL DEFAULT '';
ALTER TABLE identities ADD COLUMN skeleton   TEXT NOT NULL DEFAULT '';
DROP INDEX journal_by_kind;
CREATE INDEX journal_by_request ON journal (desk, request) WHERE request <> '';
CREATE TABLE desk_certs (
    desk      TEXT NOT NULL REFERENCES desks (id),
    serial    TEXT NOT NULL,
    not_after TEXT NOT NULL,
    PRIMARY KEY (desk, serial)
) WITHOUT ROWID`,
		Run: keepSkeletons},
}

// keepSkeletons writes the skeleton of each identity kept before it had
// one: its trigger, which refuses every change, is dropped for the step
// and made again as schema.sql makes it, in the step's transaction.
func keepSkeletons(ctx context.Context, tx *sqlx.Tx) ([]string, error) {
	if _, err := tx.ExecContext(ctx, "DROP TRIGGER identities_no_update"); err != nil {
		return nil, err
	}
	if err := core.KeepSkeletons(ctx, tx, "identities"); err != nil {
		return nil, err
	}
	_, err := tx.ExecContext(ctx, `CREATE TRIGGER identities_no_update BEFORE UPDATE ON identities
BEGIN SELECT RAISE(ABORT, 'identities are never changed'); END`)
	return nil, err
}

// Upgrade upgrades the back office's ledger file at path to this
// vegas-desk's schema version, in place: it takes a backup into
// backupDir (Backup), then runs the steps (Steps) and sets the version in
// one write transaction, which is rolled back, leaving the file as it
// was, unless the file then holds exactly schema.sql's schema. With
// dryRun it only says what it would do. A file of this version is left
// alone (Done, no steps); one of a newer version is refused
// (core.ErrTooNew).
func Upgrade(ctx context.Context, path, backupDir string, dryRun bool) (core.Upgrade, error) {
	return upgrade(ctx, path, backupDir, dryRun, Kind{AppID: ApplicationID, Schema: LedgerSchema}, Steps)
}

func upgrade(ctx context.Context, path, backupDir string, dryRun bool, k Kind, steps []core.Step) (core.Upgrade, error) {
	u := core.Upgrade{Location: path, To: core.SchemaVersion}
	if app, err := Header(path); err != nil {
		return u, err
	} else if app != k.AppID {
		return u, fmt.Errorf("%w: %s is not a back office's ledger file; only those are upgraded in place (a sealed counter ledger is sealed again from the upgraded back office)", core.ErrNotLedger, path)
	}
	// Refused as Open refuses it: not SQLite, cut short, a rollback
	// journal beside it, a version too new or too old.
	if _, err := precheck(path, k); err != nil && !errors.Is(err, core.ErrNeedsUpgrade) {
		return u, err
	}
	w, err := sqlx.Open("sqlite", DSN(path, append([]string{"_txlock=immediate"}, commonPragmas...)...))
	if err != nil {
		return u, fmt.Errorf("open ledger %s: %w", path, err)
	}
	defer w.Close()
	w.SetMaxOpenConns(1)
	if err := w.GetContext(ctx, &u.From, "PRAGMA user_version"); err != nil {
		return u, fmt.Errorf("open ledger %s: %w", path, Classify(err))
	}
	if u.From == core.SchemaVersion {
		u.Done = true
		return u, checkSchema(ctx, w, path, k)
	}
	plan, err := core.Plan(steps, u.From, core.SchemaVersion)
	if err != nil {
		return u, fmt.Errorf("%w: %s: %w", core.ErrTooOld, path, err)
	}
	for _, s := range plan {
		u.Steps = append(u.Steps, s.Says)
	}
	if dryRun {
		return u, nil
	}
	if u.Backup, err = Backup(ctx, path, backupDir, backupName(path, u.From)); err != nil {
		return u, fmt.Errorf("upgrade %s: the backup before it: %w", path, err)
	}
	tx, err := w.BeginTxx(ctx, nil)
	if err != nil {
		return u, fmt.Errorf("upgrade %s: %w", path, Classify(err))
	}
	defer tx.Rollback()
	var again int
	if err := tx.GetContext(ctx, &again, "PRAGMA user_version"); err != nil || again != u.From {
		return u, fmt.Errorf("upgrade %s: its version changed meanwhile (%d, was %d): %v", path, again, u.From, err)
	}
	if u.Notes, err = core.RunSteps(ctx, tx, plan); err != nil {
		return u, fmt.Errorf("upgrade %s: %w; the file is left as it was", path, err)
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", core.SchemaVersion)); err != nil {
		return u, err
	}
	if err := checkSchema(ctx, tx, path, k); err != nil {
		return u, fmt.Errorf("upgrade %s: the upgraded schema is not this version's (%w); the file is left as it was", path, err)
	}
	if err := tx.Commit(); err != nil {
		return u, fmt.Errorf("upgrade %s: %w", path, err)
	}
	u.Done = true
	return u, nil
}

// backupName is the name of the backup of the file at path taken before
// its upgrade from version v.
func backupName(path string, v int) string {
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	return fmt.Sprintf("%s.v%d.%s.db", base, v, time.Now().UTC().Format("20060102T150405Z"))
}

// Backup writes a copy of the ledger file at path into dir/name, through
// SQLite's VACUUM INTO on a read-only connection of its own: one read
// transaction, so a consistent snapshot of the file while others keep
// writing to it. The copy is
// written under a temporary name, synced, then renamed and its directory
// synced: a backup is whole or absent, never partial. It returns the
// copy's path. Each of meta, a meta row (key, value), is written into the
// copy before it takes its name, unless it has a row of that key: a
// backup names the ledger it was taken of (ledger.MetaBackupOf).
func Backup(ctx context.Context, path, dir, name string, meta ...[2]string) (string, error) {
	db, err := sqlx.Open("sqlite", DSN(path, append([]string{"mode=ro"}, readPragmas...)...))
	if err != nil {
		return "", err
	}
	defer db.Close()
	if err := platform.PrivateDir(dir); err != nil { // issue 36: a backup is a whole ledger
		return "", err
	}
	dst := filepath.Join(dir, name)
	if _, err := os.Stat(dst); err == nil {
		return "", fmt.Errorf("%s exists already", dst)
	}
	tmp, err := os.CreateTemp(dir, "."+name+".*.partial")
	if err != nil {
		return "", err
	}
	tmpName := tmp.Name()
	tmp.Close()
	os.Remove(tmpName) // VACUUM INTO writes a file that does not exist
	ok := false
	defer func() {
		if !ok {
			os.Remove(tmpName)
			os.Remove(tmpName + "-journal")
		}
	}()
	if _, err := db.ExecContext(ctx, "VACUUM INTO ?", tmpName); err != nil {
		return "", fmt.Errorf("VACUUM INTO %s: %w", tmpName, Classify(err))
	}
	if err := addMeta(ctx, tmpName, meta); err != nil {
		return "", err
	}
	if err := platform.PrivateFile(tmpName); err != nil { // VACUUM INTO writes 0644 under umask 022
		return "", err
	}
	if err := core.SyncRename(tmpName, dst); err != nil {
		return "", err
	}
	ok = true
	return dst, nil
}

// addMeta writes the meta rows of meta into the file at path that it has
// no row of, in one transaction, in the file's own journal mode (VACUUM
// INTO's copy is no WAL file: no -wal and -shm are left beside it).
func addMeta(ctx context.Context, path string, meta [][2]string) error {
	if len(meta) == 0 {
		return nil
	}
	db, err := sqlx.Open("sqlite", DSN(path, append([]string{"_txlock=immediate"}, readPragmas...)...))
	if err != nil {
		return err
	}
	defer db.Close()
	tx, err := db.BeginTxx(ctx, nil)
	if err != nil {
		return Classify(err)
	}
	defer tx.Rollback()
	for _, m := range meta {
		if _, err := tx.ExecContext(ctx, "INSERT INTO meta (key, value) SELECT ?, ? WHERE NOT EXISTS (SELECT 1 FROM meta WHERE key = ?)", m[0], m[1], m[0]); err != nil {
			return Classify(err)
		}
	}
	if err := tx.Commit(); err != nil {
		return Classify(err)
	}
	return db.Close()
}
