package main

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/pflag"

	"vegas-desk/internal/ledger"
)

// upgrade upgrades the ledger of --db in place (ledger.Upgrade): it says
// what it changes, backs the ledger up, then upgrades it in one
// transaction.
func (c *cli) upgrade(fs *pflag.FlagSet) work {
	dir := fs.String("backup-dir", "", "where the backup taken before the upgrade goes (default: beside a file; the working directory for a database)")
	dry := fs.Bool("dry-run", false, "say what the upgrade would change, and change nothing")
	asJSON := fs.Bool("json", false, "JSON output")
	return work{run: func(_ *ledger.Ledger, args []string) error {
		if _, err := c.positional(fs, args, 0, "no argument"); err != nil {
			return err
		}
		if *dir == "" {
			*dir = "."
			if !ledger.IsURL(c.dbPath()) {
				*dir = filepath.Dir(c.dbPath())
			}
		}
		u, err := ledger.Upgrade(c.ctx, c.dbPath(), *dir, *dry)
		if err != nil {
			return err
		}
		if *asJSON {
			return c.json(map[string]any{"ledger": u.Location, "from": u.From, "to": u.To, "steps": u.Steps,
				"backup": u.Backup, "notes": u.Notes, "done": u.Done})
		}
		if u.From == u.To {
			c.printf(c.stdout, "%s has schema version %d, this vegas-desk's: nothing to upgrade\n", u.Location, u.From)
			return nil
		}
		c.printf(c.stdout, "%s: schema version %d to %d\n", u.Location, u.From, u.To)
		for _, s := range u.Steps {
			fmt.Fprintf(c.stdout, "  - %s\n", s)
		}
		if !u.Done {
			c.printf(c.stdout, "nothing changed (--dry-run)\n")
			return nil
		}
		c.printf(c.stdout, "backup before the upgrade: %s\n", u.Backup)
		for _, n := range u.Notes {
			c.printf(c.stdout, "note: %s\n", n)
		}
		c.printf(c.stdout, "upgraded, in one transaction\n")
		return nil
	}}
}
