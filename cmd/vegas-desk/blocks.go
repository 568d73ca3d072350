package main

import (
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"golang.org/x/text/language"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger"
	"vegas-desk/internal/signing"
)

func (c *cli) generate(fs *pflag.FlagSet) work {
	seedHex := fs.String("seed", "", "64 hex digits (default: a random seed)")
	code := fs.Int("game", defaultGame, "game code")
	activate := fs.Bool("activate", false, "put every pack on sale at once (demonstrations)")
	demo := fs.Bool("demo", false, "a demonstration ledger: a new file, whose packs go on sale at once")
	operator := fs.String("operator", "", "operator name (default: $USER)")
	asJSON := fs.Bool("json", false, "JSON output")
	commitments := fs.String("commitments", "", "draw the seed from the two recorded commitments (seed record): 64 hex digits or a commitment file each, comma-separated")
	reveal := fs.String("reveal", "", "with --commitments: the operator's and the auditor's secret files (seed commit), comma-separated")
	var seed game.Seed
	var opts ledger.GenerateOptions
	return work{check: func(args []string) error {
		if _, err := c.positional(fs, args, 0, "no argument"); err != nil {
			return err
		}
		if *commitments != "" || *reveal != "" {
			if *commitments == "" || *reveal == "" || *seedHex != "" {
				return badInput("generate: a drawn seed takes --commitments C1,C2 and --reveal SECRET1,SECRET2 together, without --seed")
			}
			var err error
			if opts.Commitments, err = commitmentList(*commitments); err != nil {
				return err
			}
			if opts.Reveals, err = seedFiles("reveal", *reveal); err != nil {
				return err
			}
		} else if *seedHex != "" {
			b, err := hex.DecodeString(*seedHex)
			if err != nil || len(b) != len(seed) {
				return badInput("--seed %q: want %d hex digits", *seedHex, 2*len(seed))
			}
			copy(seed[:], b)
		} else {
			var err error
			if seed, err = game.NewSeed(); err != nil {
				return err
			}
		}
		return nil
	}, needs: func() access {
		if *demo {
			return newDemo
		}
		return create
	}, run: func(l *ledger.Ledger, _ []string) error {
		var progress func(done, total int)
		if f, ok := c.stderr.(*os.File); ok && isTerminal(f) {
			progress = func(done, total int) {
				if done%(50*game.ChunkSize) == 0 || done == total {
					c.printf(c.stderr, "\rgenerating: %3d %%", done*100/total)
				}
				if done == total {
					fmt.Fprintln(c.stderr)
				}
			}
		}
		t0 := time.Now()
		opts.Activate, opts.Who, opts.Progress = *activate || *demo, defaultIdentity("", *operator), progress
		b, err := l.Generate(c.ctx, *code, seed, opts)
		if err != nil {
			return err
		}
		secs := time.Since(t0).Seconds()
		how := "operator-alone"
		if len(opts.Reveals) > 0 {
			how = "drawn"
		}
		if *asJSON {
			return c.json(map[string]any{"game": b.Game, "block": b.Number, "tickets": b.Tickets,
				"winners": b.Winners, "payout": b.Payout, "digest": b.Digest, "seed": how, "seconds": secs})
		}
		c.printf(c.stdout, "block %s: %s tickets, %s winners, %s € of prizes\ndigest %s\n%s s\n",
			b.Name(), game.GroupDigits(b.Tickets), game.GroupDigits(b.Winners), game.GroupDigits(b.Payout), b.Digest, c.decimal(secs, 2))
		if how == "drawn" {
			c.printf(c.stdout, "seed drawn from the operator's and the auditor's secrets; the ledger keeps their commitments and the reveals' hashes, never the seed\n")
		} else {
			c.printf(c.stdout, "seed chosen by the operator alone: for demonstrations and tests (its certificate says so); a block for sale is drawn with --commitments and --reveal\n")
		}
		return nil
	}}
}

func blockJSON(b ledger.Block) map[string]any {
	return map[string]any{"game": b.Game, "block": b.Number, "tickets": b.Tickets, "winners": b.Winners,
		"payout": b.Payout, "pack_size": b.PackSize, "digest": b.Digest, "created_at": b.CreatedAt}
}

func (c *cli) blocks(fs *pflag.FlagSet) work {
	asJSON := fs.Bool("json", false, "JSON output")
	return work{check: func(args []string) error {
		_, err := c.positional(fs, args, 0, "no argument")
		return err
	}, run: func(l *ledger.Ledger, _ []string) error {
		bs, err := l.Blocks(c.ctx)
		if err != nil {
			return err
		}
		if *asJSON {
			out := []map[string]any{}
			for _, b := range bs {
				out = append(out, blockJSON(b))
			}
			return c.json(out)
		}
		for _, b := range bs {
			c.printf(c.stdout, "%-9s %s tickets  %s winners  %s €  %s  %s\n", b.Name(), game.GroupDigits(b.Tickets),
				game.GroupDigits(b.Winners), game.GroupDigits(b.Payout), c.minute(b.CreatedAt), b.Digest)
		}
		if len(bs) == 0 {
			c.printf(c.stdout, "no blocks yet: vegas-desk generate\n")
		}
		return nil
	}}
}

func blockFlags(fs *pflag.FlagSet) (*int, *int) {
	return fs.Int("game", defaultGame, "game code"), fs.Int("block", 0, "block number")
}

func (c *cli) report(fs *pflag.FlagSet) work {
	code, block := blockFlags(fs)
	asJSON := fs.Bool("json", false, "JSON output")
	return work{check: func(args []string) error {
		if _, err := c.positional(fs, args, 0, "no argument"); err != nil {
			return err
		}
		if *block <= 0 {
			return badInput("report: --block N is required (see vegas-desk blocks)")
		}
		return nil
	}, run: func(l *ledger.Ledger, _ []string) error {
		r, err := l.Report(c.ctx, *code, *block)
		if err != nil {
			return err
		}
		line := func(t ledger.TierLine) map[string]any {
			return map[string]any{"prize": t.Prize, "table": t.Table, "generated": t.Generated, "claimed": t.Claimed,
				"claimed_sum": t.ClaimedSum, "outstanding": t.Outstanding, "liability": t.Liability}
		}
		if *asJSON {
			tiers := []any{}
			for _, t := range r.Tiers {
				tiers = append(tiers, line(t))
			}
			return c.json(map[string]any{"block": blockJSON(r.Block), "tiers": tiers, "total": line(r.Total)})
		}
		c.printf(c.stdout, "block %s  digest %s\n", r.Block.Name(), r.Block.Digest)
		fmt.Fprintf(c.stdout, "%10s %9s %10s %9s %12s %12s %14s\n", c.text("prize €"), c.text("table"), c.text("generated"), c.text("claimed"),
			c.text("claimed €"), c.text("outstanding"), c.text("liability €"))
		for _, t := range append(r.Tiers, r.Total) {
			p := game.GroupDigits(t.Prize)
			if t == r.Total {
				p = c.text("total")
			}
			fmt.Fprintf(c.stdout, "%10s %9s %10s %9s %12s %12s %14s\n", p, game.GroupDigits(t.Table), game.GroupDigits(t.Generated),
				game.GroupDigits(t.Claimed), game.GroupDigits(t.ClaimedSum), game.GroupDigits(t.Outstanding), game.GroupDigits(t.Liability))
		}
		return nil
	}}
}

func (c *cli) export(fs *pflag.FlagSet) work {
	code, block := blockFlags(fs)
	return work{check: func(args []string) error {
		if _, err := c.positional(fs, args, 0, "no argument"); err != nil {
			return err
		}
		if *block <= 0 {
			return badInput("export: --block N is required (see vegas-desk blocks)")
		}
		return nil
	}, run: func(l *ledger.Ledger, _ []string) error {
		if l.Kind() == "back-office" {
			c.printf(c.stderr, "vegas-desk: export: WARNING: the output gives every ticket's full serial and prize; whoever reads it can claim every unpaid winner: keep it like cash, and never on a counter\n")
		}
		return l.Export(c.ctx, *code, *block, c.stdout, nil)
	}}
}

func (c *cli) verify(fs *pflag.FlagSet) work {
	code, block := blockFlags(fs)
	asJSON := fs.Bool("json", false, "JSON output")
	head := fs.String("head", "", "a journal head kept outside the ledger (a receipt, a checkpoint): the chain must still hold it unchanged")
	keyHex := fs.String("key", "", "a counter ledger: the back office's public key, which must have signed its seal")
	return work{check: func(args []string) error {
		_, err := c.positional(fs, args, 0, "no argument")
		return err
	}, run: func(l *ledger.Ledger, _ []string) error {
		g := *code
		if *block == 0 && !flagSet(fs, "game") {
			g = 0
		}
		r, err := l.Verify(c.ctx, g, *block, nil)
		if err != nil {
			return err
		}
		if *keyHex != "" {
			key, err := signing.ParsePublicKey(*keyHex)
			if err != nil {
				return badInput("verify: --key: %v", err)
			}
			if l.Kind() != "counter" {
				return badInput("verify: --key checks a counter ledger's seal; this is the back office's ledger")
			}
			if r.Key != key.String() {
				r.Problems = append(r.Problems, ledger.Problem{Where: "seal", What: fmt.Sprintf("signed by key %s, not by %s", r.Key, key)})
			}
		}
		var anchor *ledger.Anchor
		if *head != "" {
			a, err := l.CheckHead(c.ctx, *head)
			switch {
			case errors.Is(err, ledger.ErrNotAnchored):
				r.Problems = append(r.Problems, ledger.Problem{Where: "journal head " + *head, What: err.Error()})
			case err != nil:
				return badInput("verify: --head: %v", err)
			default:
				anchor = &a
			}
		}
		if *asJSON {
			probs := []any{}
			for _, p := range r.Problems {
				probs = append(probs, map[string]any{"where": p.Where, "what": p.What})
			}
			out := map[string]any{"ok": r.OK(), "blocks": r.Blocks, "tickets": r.Tickets, "entries": r.Entries, "head": r.Head, "problems": probs}
			if r.Key != "" {
				out["sealed_by"] = r.Key
			}
			if err := c.json(out); err != nil {
				return err
			}
		} else {
			for _, p := range r.Problems {
				fmt.Fprintln(c.stdout, terminal(p.String()))
			}
			status := "OK"
			if !r.OK() {
				status = c.tr("%d PROBLEM(S)", len(r.Problems))
			}
			c.printf(c.stdout, "%s: %d block(s), %s tickets, %d journal entries\n", status, r.Blocks, game.GroupDigits(r.Tickets), r.Entries)
			if r.Key != "" {
				c.printf(c.stdout, "counter ledger of desk %s, sealed by key %s (give the back office's with --key to check it)\n", terminal(l.CounterDesk()), r.Key)
			}
			if anchor != nil {
				c.printf(c.stdout, "head %s is entry %d (%s, %s), unchanged in the chain\n", *head, anchor.Entry, c.word(anchor.Kind), c.moment(anchor.At))
			}
			if r.Head != "" {
				c.printf(c.stdout, "journal head %s (keep it outside the file: verify --head %s must pass later)\n", r.Head, r.Head)
			}
		}
		if !r.OK() {
			c.printf(c.stderr, "vegas-desk: verify: %d problem(s): the ledger does not match its records\n", len(r.Problems))
			return errRefused
		}
		return nil
	}}
}

// flagSet reports whether the command line gave fs's flag name.
func flagSet(fs *pflag.FlagSet, name string) bool {
	f := fs.Lookup(name)
	return f != nil && f.Changed
}

func (c *cli) catalogue(fs *pflag.FlagSet) work {
	return work{check: func(args []string) error {
		_, err := c.positional(fs, args, 0, "no argument")
		return err
	}, run: func(*ledger.Ledger, []string) error {
		text := game.CatalogueText()
		if c.lang == language.French {
			const header = "| prize | way to win | tickets per block | share of the tier |"
			text = strings.NewReplacer(header, c.text(header), "loses everywhere", c.text("loses everywhere")).Replace(text)
			text = share.get().ReplaceAllString(text, "$1,$2 %")
		}
		fmt.Fprint(c.stdout, text)
		return nil
	}}
}

// share is a share of the catalogue (12.5 %), whose point French writes
// as a comma: compiled when first used (a French catalogue's), not at
// every start.
var share = lazyRE(`(\d+)\.(\d) %`)
