package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/server"
)

// Commands of a shared ledger: its desks, and copying a ledger between a
// file and a database.

// deskFlags are the flags every desks subcommand has, and its name.
type deskFlags struct {
	fs       *pflag.FlagSet
	sub      string
	asJSON   *bool
	operator *string
}

func (f deskFlags) who() ledger.Identity { return defaultIdentity("", *f.operator) }

// deskCommand declares the flags every desks subcommand has on fs, named
// "desks SUB", and then define's own (deskAdd's).
func (c *cli) deskCommand(define func(*cli, deskFlags) work) func(*pflag.FlagSet) work {
	return func(fs *pflag.FlagSet) work {
		f := deskFlags{fs: fs, sub: strings.TrimPrefix(fs.Name(), "desks "), asJSON: fs.Bool("json", false, "JSON output"),
			operator: fs.String("operator", "", "operator name (default: $USER)")}
		return define(c, f)
	}
}

func (c *cli) deskAdd(f deskFlags) work {
	limit := f.fs.Int("limit", 150, "the counter's payout limit in euros")
	out := f.fs.String("out", "", "write the counter's desk file for the validation server (vegas-desk serve) here")
	dir := f.fs.String("dir", defaultServeDir(), "(--out) the authority's directory (serve --init)")
	pass := f.fs.String("passphrase-file", "", "(--out) the file holding the authority key's passphrase")
	count := f.fs.Int("count", 0, "add this many desks at once, PREFIX1 … PREFIXN, in one transaction; --out is then the new folder of their desk files")
	prefix := f.fs.String("prefix", "", "(--count) the desks' ids: this, then their number")
	many := func() bool { return f.fs.Changed("count") || f.fs.Changed("prefix") }
	return work{check: func(args []string) error {
		if many() {
			if _, err := c.positional(f.fs, args, 0, "no desk ID with --count (the ids are --prefix and a number)"); err != nil {
				return err
			}
			return checkDesksAdded(*count, *prefix, *limit, *out)
		}
		if _, err := c.positional(f.fs, args, 1, "one desk ID"); err != nil {
			return err
		}
		if *out != "" {
			if _, err := os.Lstat(*out); err == nil {
				return badInput("desks add: --out %s exists: a desk file is written to a new file", *out)
			}
		}
		return nil
	}, run: func(l *ledger.Ledger, pos []string) error {
		if many() {
			return c.deskAddMany(l, f, *count, *prefix, *limit, *out, *dir, *pass)
		}
		d, err := l.AddDesk(c.ctx, pos[0], *limit, f.who())
		if err != nil {
			return err
		}
		if *out != "" {
			if err := c.deskFile(l, d.ID, *dir, *out, *pass, false); err != nil {
				return failf("desk %s added, but its desk file was not written: %w (desks add again is refused: write one with desks cert %s --out FILE)", d.ID, err, d.ID)
			}
		}
		if *f.asJSON {
			return c.json(deskJSON(d))
		}
		c.printf(c.stdout, "desk %s added, payout limit %s\n", d.ID, game.FormatAmount(d.Limit))
		return nil
	}}
}

// MaxDesksAdded is how many desks one desks add --count adds at most.
const MaxDesksAdded = 100_000

// deskAddMany adds desks prefix1 … prefixN and writes their desk files into
// the new folder out (0700; each file ID.desk, 0600), in one transaction
// after the files: all of them, or, on any failure, no desk and no file
// (the folder removed).
func (c *cli) deskAddMany(l *ledger.Ledger, f deskFlags, n int, prefix string, limit int, out, dir, pass string) (err error) {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = prefix + strconv.Itoa(i+1)
	}
	a, epoch, err := c.deskAuthority(l, dir, pass)
	if err != nil {
		return err
	}
	start := time.Now()
	if err := os.Mkdir(out, 0o700); err != nil {
		return failf("desks add: the folder of the desk files: %w", err)
	}
	// Nothing half-made: the folder and every file in it go with any
	// failure, the transaction's too.
	defer func() {
		if err != nil {
			if rm := os.RemoveAll(out); rm != nil {
				err = errors.Join(err, failf("desks add: %s could not be removed (delete it: its desk files are of no desk): %w", out, rm))
			}
		}
	}()
	desks := make([]ledger.NewDesk, n)
	for i, id := range ids {
		data, d, err := newDeskFile(a, id, epoch)
		if err != nil {
			return failf("desks add: desk %s's certificate: %w; no desk added", id, err)
		}
		if err := server.WriteDeskFile(filepath.Join(out, id+".desk"), data); err != nil {
			return failf("desks add: desk %s's desk file: %w; no desk added", id, err)
		}
		desks[i] = ledger.NewDesk{ID: id, Limit: limit, Cert: d.Cert.Leaf}
		if err := c.ctx.Err(); err != nil {
			return failf("desks add: interrupted: %w; no desk added", err)
		}
	}
	if err := l.AddDesks(c.ctx, desks, f.who()); err != nil {
		return failf("desks add: %w; no desk added, no desk file left", err)
	}
	took := time.Since(start)
	if *f.asJSON {
		return c.json(map[string]any{"added": n, "first": ids[0], "last": ids[n-1], "limit": limit, "out": out, "seconds": took.Seconds()})
	}
	c.printf(c.stdout, "%d desks added, %s … %s, payout limit %s, in %.1f s; their desk files in %s (ID.desk): give each to its counter alone\n",
		n, ids[0], ids[n-1], game.FormatAmount(limit), took.Seconds(), out)
	return nil
}

// checkDesksAdded checks desks add --count's flags before the ledger is
// opened.
func checkDesksAdded(n int, prefix string, limit int, out string) error {
	switch {
	case n < 1 || n > MaxDesksAdded:
		return badInput("desks add: --count %d: give 1 to %d desks", n, MaxDesksAdded)
	case prefix == "":
		return badInput("desks add: --count needs --prefix P: the desks are P1 … P%d", n)
	case out == "":
		return badInput("desks add: --count needs --out DIR: the new folder of the %d desk files", n)
	case limit < 0:
		return badInput("desks add: --limit %d: give 0 or more euros", limit)
	}
	for _, id := range []string{prefix + "1", prefix + strconv.Itoa(n)} { // the shortest and the longest
		if err := core.CheckRealDeskID(id); err != nil {
			return badInput("desks add: --prefix %s: %v", terminal(prefix), err)
		}
	}
	if _, err := os.Lstat(out); err == nil {
		return badInput("desks add: --out %s exists: --count writes its desk files into a new folder", out)
	}
	return nil
}

func (c *cli) deskList(f deskFlags) work {
	return work{check: func(args []string) error {
		_, err := c.positional(f.fs, args, 0, "no argument")
		return err
	}, run: func(l *ledger.Ledger, _ []string) error { return c.listDesks(l, f) }}
}

func (c *cli) listDesks(l *ledger.Ledger, f deskFlags) error {
	ds, err := l.Desks(c.ctx)
	if err != nil {
		return err
	}
	certs, err := deskCerts(c, l)
	if err != nil {
		return err
	}
	if *f.asJSON {
		out := []any{}
		for _, d := range ds {
			m := deskJSON(d)
			m["certificates"] = certsJSON(certs[d.ID])
			out = append(out, m)
		}
		return c.json(out)
	}
	for _, d := range ds {
		state := c.tr("active")
		switch {
		case d.Disabled:
			state = c.tr("disabled")
		case !d.LockedUntil.IsZero():
			state = c.tr("locked until %s: %s (desks unlock %s)", c.minute(d.LockedUntil), c.text(core.LockReason), terminal(d.ID))
		}
		fmt.Fprintf(c.stdout, "%-16s %12s  %s\n", terminal(d.ID), game.FormatAmount(d.Limit), state)
		for _, x := range certs[d.ID] {
			c.printf(c.stdout, "%-16s certificate %s until %s\n", "", x.Serial, c.day(x.Expires()))
		}
		if certs != nil && len(certs[d.ID]) == 0 {
			c.printf(c.stdout, "%-16s no certificate: desks cert %s --out FILE writes its desk file\n", "", terminal(d.ID))
		}
	}
	if len(ds) == 0 {
		c.printf(c.stdout, "no desks yet: vegas-desk desks add ID\n")
	}
	return nil
}

// deskChange disables, enables or unlocks a desk.
func (c *cli) deskChange(f deskFlags) work {
	return work{check: func(args []string) error {
		_, err := c.positional(f.fs, args, 1, "one desk ID")
		return err
	}, run: func(l *ledger.Ledger, pos []string) error { return c.changeDesk(l, f, pos[0]) }}
}

func (c *cli) changeDesk(l *ledger.Ledger, f deskFlags, id string) error {
	change := map[string]func(context.Context, string, ledger.Identity) error{
		"disable": l.DisableDesk, "enable": l.EnableDesk, "unlock": l.UnlockDesk,
	}[f.sub]
	if err := change(c.ctx, id, f.who()); err != nil {
		return err
	}
	done := map[string]string{"disable": "disabled", "enable": "enabled", "unlock": "unlocked"}[f.sub]
	c.printf(c.stdout, "desk %s %s\n", terminal(id), c.text(done))
	return nil
}

func (c *cli) deskLimit(f deskFlags) work {
	var limit int
	return work{check: func(args []string) error {
		pos, err := c.positional(f.fs, args, 2, "a desk ID and a limit in euros")
		if err != nil {
			return err
		}
		if limit, err = strconv.Atoi(pos[1]); err != nil || limit < 0 {
			return badInput("desks limit: %q is not a number of euros", pos[1])
		}
		return nil
	}, run: func(l *ledger.Ledger, pos []string) error { return c.limitDesk(l, f, pos[0], limit) }}
}

func (c *cli) limitDesk(l *ledger.Ledger, f deskFlags, id string, limit int) error {
	if err := l.SetDeskLimit(c.ctx, id, limit, f.who()); err != nil {
		return err
	}
	c.printf(c.stdout, "desk %s pays up to %s\n", terminal(id), game.FormatAmount(limit))
	return nil
}

// deskCerts are the certificates each desk accepts, by desk; nil on a
// ledger that keeps none (a counter's on a server).
func deskCerts(c *cli, l *ledger.Ledger) (map[string][]ledger.DeskCert, error) {
	list, err := l.DeskCerts(c.ctx)
	if errors.Is(err, ledger.ErrCounterOnly) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := map[string][]ledger.DeskCert{}
	for _, x := range list {
		out[x.Desk] = append(out[x.Desk], x)
	}
	return out, nil
}

func certsJSON(cs []ledger.DeskCert) []map[string]any {
	out := []map[string]any{}
	for _, x := range cs {
		out = append(out, map[string]any{"serial": x.Serial, "not_after": x.Expires()})
	}
	return out
}

func deskJSON(d ledger.Desk) map[string]any {
	m := map[string]any{"id": d.ID, "limit": d.Limit, "disabled": d.Disabled, "locked_until": nil}
	if !d.LockedUntil.IsZero() {
		m["locked_until"], m["locked_why"] = d.LockedUntil, core.LockReason
	}
	return m
}

func (c *cli) copyLedger(fs *pflag.FlagSet) work {
	restore := fs.Bool("restore", false, "make TO the ledger FROM was copied from (or FROM itself): its id, desk files and counter ledgers; the original, if it answers, is marked replaced and serves no more")
	gone := fs.Bool("original-gone", false, "with --restore: the original cannot be reached to be marked replaced and is gone for good; every desk then needs a new desk file (desks cert)")
	asJSON := fs.Bool("json", false, "JSON output")
	return work{run: func(_ *ledger.Ledger, args []string) error {
		pos, err := c.positional(fs, args, 2, "FROM and TO, each a file path or a postgres:// URL")
		if err != nil {
			return err
		}
		from, to := pos[0], pos[1]
		if *gone && !*restore {
			return badInput("copy: --original-gone is said of a restore's original: give --restore too")
		}
		if !ledger.IsURL(from) {
			if _, err := os.Stat(from); err != nil {
				return badInput("copy: no ledger at %s", from)
			}
		}
		src, err := ledger.OpenReadOnly(from)
		if err != nil {
			return err
		}
		defer src.Close()
		var progress func(done, total int)
		if f, ok := c.stderr.(*os.File); ok && isTerminal(f) {
			progress = func(done, total int) { c.printf(c.stderr, "\rcopying: %3d %%", done*100/max(total, 1)) }
		}
		var dst *ledger.Ledger
		var r ledger.Restored
		if *restore {
			dst, r, err = ledger.Restore(c.ctx, src, to, ledger.RestoreOptions{OriginalGone: *gone, Progress: progress})
		} else {
			dst, err = ledger.Copy(c.ctx, src, to, progress)
		}
		if progress != nil {
			fmt.Fprintln(c.stderr)
		}
		if err != nil {
			return err
		}
		defer dst.Close()
		head, err := dst.Head(c.ctx)
		if err != nil {
			return err
		}
		bs, err := dst.Blocks(c.ctx)
		if err != nil {
			return err
		}
		if *asJSON {
			out := []any{}
			for _, b := range bs {
				out = append(out, blockJSON(b))
			}
			m := map[string]any{"from": src.Location(), "to": dst.Location(), "id": dst.ID(), "blocks": out, "head": head, "restore": *restore}
			if *restore {
				m["replaces"], m["original_marked"], m["original_why"] = r.Original, r.Replaced, r.Why
				m["epoch"], m["desk_epoch"] = r.Epoch, r.DeskEpoch
			} else {
				m["copy_of"] = src.ID()
			}
			return c.json(m)
		}
		if !*restore {
			c.printf(c.stdout, "copied %s to %s: a new ledger %s (a copy of %s): %d block(s), journal head %s\n"+
				"its desks need desk files of its own (serve --init, desks cert); copy --restore makes a copy that replaces the original\n",
				src.Location(), dst.Location(), dst.ID(), src.ID(), len(bs), head)
			return nil
		}
		c.printf(c.stdout, "restored %s into %s: it REPLACES ledger %s (at %s), with its authority and counter ledgers: %d block(s), journal head %s\n",
			src.Location(), dst.Location(), dst.ID(), r.Original, len(bs), head)
		if r.Replaced {
			c.printf(c.stdout, "the original at %s answered and was marked replaced: its servers answer no desk from their next question on (restart its server on %s); its desk files work on the restore (incarnation %d)\n",
				r.Original, dst.Location(), r.Epoch)
		} else {
			c.printf(c.stdout, "the original at %s was not marked replaced (%s): never serve it again beside %s; the restore is incarnation %d and takes no earlier desk file: give every desk a new one (desks cert ID --out FILE), which an original brought back refuses\n",
				r.Original, terminal(r.Why), dst.Location(), r.Epoch)
		}
		return nil
	}}
}
