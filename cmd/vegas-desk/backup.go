package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/spf13/pflag"

	"vegas-desk/internal/ledger"
)

// backup takes a verified backup of the ledger of --db into --dir
// (Ledger.Backup), while counters keep paying through serve.
func (c *cli) backup(fs *pflag.FlagSet) work {
	dir := fs.String("dir", "", "the directory of the backups")
	keep := fs.Int("keep", 0, "keep only the N most recent backups of this ledger in --dir (0: all)")
	asJSON := fs.Bool("json", false, "JSON output")
	return work{check: func(args []string) error {
		if _, err := c.positional(fs, args, 0, "no argument"); err != nil {
			return err
		}
		if *dir == "" {
			return badInput("backup: give --dir, the directory of the backups")
		}
		return nil
	}, run: func(l *ledger.Ledger, _ []string) error {
		b, err := l.Backup(c.ctx, *dir, *keep)
		if err != nil {
			return err
		}
		if *asJSON {
			return c.json(b)
		}
		c.printf(c.stdout, "backup %s: %d block(s), %d entries, journal head %s, verified (restore: vegas-desk copy --restore %s NEW-FILE-OR-URL)\n",
			b.File, b.Blocks, b.Entries, b.Head, b.File)
		return nil
	}}
}

// backups takes a backup of l into dir every period until ctx ends,
// keeping the keep most recent, and logs each one (or its failure).
func backups(ctx context.Context, l *ledger.Ledger, dir string, every time.Duration, keep int, log *slog.Logger) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			b, err := l.Backup(ctx, dir, keep)
			if err != nil {
				log.Error("backup failed", slog.String("dir", dir), slog.String("error", err.Error()))
				continue
			}
			log.Info("backup", slog.String("file", b.File), slog.Int("blocks", b.Blocks), slog.Int64("entries", int64(b.Entries)),
				slog.String("head", b.Head), slog.Bool("verified", true))
		}
	}
}
