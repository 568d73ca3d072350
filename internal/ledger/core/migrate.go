package core

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/jmoiron/sqlx"
)

// ErrNeedsUpgrade: a ledger of an earlier schema version that this
// vegas-desk upgrades in place (vegas-desk upgrade); it is left untouched
// until then.
var ErrNeedsUpgrade = errors.New("ledger of an earlier version: upgrade it")

// Step is one step of a ledger's upgrade in place, from schema version
// From to From+1, run in the one transaction of the whole upgrade. Each
// engine keeps its steps in order (sqlite.Steps, postgres.Steps); a
// schema change adds one step at the end of its engine's list and bumps
// the version: see docs/runbook.md, "Upgrades in place".
type Step struct {
	From int
	// Says what the step changes, in a line an operator reads before it
	// runs.
	Says string
	// SQL runs first, then Run when not nil; Run's notes are what it did
	// that an operator should know (a login it could not remove, say).
	SQL string
	Run func(ctx context.Context, tx *sqlx.Tx) (notes []string, err error)
}

// Plan is the steps that take a ledger of version from to version to, in
// order; an error names the version no step starts from.
func Plan(steps []Step, from, to int) ([]Step, error) {
	var plan []Step
	for v := from; v < to; v++ {
		found := false
		for _, s := range steps {
			if s.From == v {
				plan = append(plan, s)
				found = true
				break
			}
		}
		if !found {
			return nil, fmt.Errorf("no upgrade step from schema version %d", v)
		}
	}
	return plan, nil
}

// RunSteps runs plan in tx, in order, and returns the steps' notes.
func RunSteps(ctx context.Context, tx *sqlx.Tx, plan []Step) ([]string, error) {
	var notes []string
	for _, s := range plan {
		if s.SQL != "" {
			if _, err := tx.ExecContext(ctx, s.SQL); err != nil {
				return nil, fmt.Errorf("upgrade step %d→%d (%s): %w", s.From, s.From+1, s.Says, err)
			}
		}
		if s.Run != nil {
			n, err := s.Run(ctx, tx)
			if err != nil {
				return nil, fmt.Errorf("upgrade step %d→%d (%s): %w", s.From, s.From+1, s.Says, err)
			}
			notes = append(notes, n...)
		}
	}
	return notes, nil
}

// Upgrade is what an upgrade in place did or, with a dry run, would do.
type Upgrade struct {
	Location string
	From, To int
	Steps    []string // each step's Says
	Backup   string   // the backup taken before the first change
	Notes    []string
	Done     bool
}

// SyncRename makes the whole file tmp the file dst: it syncs tmp, renames
// it, and syncs their directory (where the system can: Windows cannot
// open a directory to sync it), so that dst is never seen partial, even
// after a crash.
func SyncRename(tmp, dst string) error {
	f, err := os.OpenFile(tmp, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, dst); err != nil {
		return err
	}
	if d, err := os.Open(filepath.Dir(dst)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// KeepSkeletons writes, in an upgrade's transaction, the skeleton of each
// identity of table that has none yet (NameSkeleton of its name).
func KeepSkeletons(ctx context.Context, tx *sqlx.Tx, table string) error {
	var rows []struct {
		Claim int64  `db:"claim"`
		Name  string `db:"name"`
	}
	if err := tx.SelectContext(ctx, &rows, "SELECT claim, name FROM "+table+" WHERE skeleton = ''"); err != nil {
		return err
	}
	for _, r := range rows {
		if _, err := tx.ExecContext(ctx, tx.Rebind("UPDATE "+table+" SET skeleton = ? WHERE claim = ?"), NameSkeleton(r.Name), r.Claim); err != nil {
			return err
		}
	}
	return nil
}
