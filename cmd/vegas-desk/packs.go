package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"golang.org/x/text/language"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/ledger/wire"
	"vegas-desk/internal/paper"
)

// parsePacks reads PACK arguments (game.ParsePacks); a fault is bad input.
func parsePacks(args []string, gameCode, block int) ([]game.PackRange, error) {
	rs, err := game.ParsePacks(args, gameCode, block)
	if err != nil {
		if block == 0 && strings.Contains(err.Error(), "needs its block") {
			return nil, badInput("%v: give --block N", err)
		}
		return nil, badInput("%v", err)
	}
	return rs, nil
}

// done says move done to n packs: "returned"; in French "rendu", "rendus".
func (c *cli) done(move string, n int) string {
	if c.lang != language.French {
		return pastTense[move]
	}
	if fr, ok := frenchDone()[move]; ok {
		return fr[min(max(n, 1), 2)-1]
	}
	return pastTense[move]
}

var pastTense = map[string]string{"deliver": "delivered", "receive": "received", "activate": "activated (on sale)",
	"settle": "settled", "return": "returned", "stolen": "reported stolen", "destroyed": "reported destroyed"}

// packsMove moves packs: fs's name is "packs MOVE".
func (c *cli) packsMove(fs *pflag.FlagSet) work {
	move := strings.TrimPrefix(fs.Name(), "packs ")
	code, block := blockFlags(fs)
	span := fs.String("packs", "", "packs A-B (or one pack)")
	desk := fs.String("desk", "", "the counter: the one packs are delivered to, or that holds them")
	reason := fs.String("reason", "", "why (return, stolen, destroyed)")
	operator := fs.String("operator", "", "operator name (default: $USER)")
	asJSON := fs.Bool("json", false, "JSON output")
	var spans []game.PackRange
	return work{check: func(args []string) (err error) {
		pos, err := c.flags(fs, args)
		if err != nil {
			return err
		}
		if *span != "" {
			pos = append(pos, *span)
		}
		spans, err = parsePacks(pos, *code, *block)
		if err != nil {
			return err
		}
		if move == "deliver" && strings.TrimSpace(*desk) == "" {
			return badInput("packs deliver: --desk ID is required: the counter the packs go to")
		}
		return nil
	}, run: func(l *ledger.Ledger, _ []string) error {
		who := c.who(l, "", *operator)
		var done []any
		for i, s := range spans {
			err := l.MovePacks(c.ctx, ledger.PackMove{Game: s.Game, Block: s.Block, First: s.First, Last: s.Last, Move: move,
				Desk: *desk, Reason: *reason}, who)
			if err != nil {
				if i > 0 {
					c.printf(c.stderr, "vegas-desk: packs %s: %d of %d group(s) of packs moved before this one\n", move, i, len(spans))
				}
				return err
			}
			if *asJSON {
				done = append(done, map[string]any{"game": s.Game, "block": s.Block, "first": s.First, "last": s.Last,
					"count": s.Count(), "move": move, "first_code": game.PackCode{Game: s.Game, Block: s.Block, Pack: s.First}.String()})
				continue
			}
			c.printf(c.stdout, "%s %s: %s\n", c.done(move, s.Count()), c.count(s.Count(), "pack", "packs"), c.packRange(s))
		}
		if *asJSON {
			return c.json(done)
		}
		return nil
	}}
}

func (c *cli) packsList(fs *pflag.FlagSet) work {
	code := fs.Int("game", 0, "game code (default: all)")
	block := fs.Int("block", 0, "block number (default: all)")
	desk := fs.String("desk", "", "this counter's packs only")
	state := fs.String("state", "", "packs in this state only (stock lists the packs never moved)")
	asJSON := fs.Bool("json", false, "JSON output")
	return work{check: func(args []string) error {
		if _, err := c.positional(fs, args, 0, "no argument"); err != nil {
			return err
		}
		if *block != 0 && *code == 0 {
			*code = defaultGame
		}
		if *state != "" && !slices.Contains(core.PackStates, *state) {
			return badInput("packs list: --state %q: want one of %s", *state, strings.Join(core.PackStates, ", "))
		}
		return nil
	}, run: func(l *ledger.Ledger, _ []string) error {
		runs, err := l.Packs(c.ctx, ledger.PackFilter{Game: *code, Block: *block, Desk: *desk, State: *state})
		if err != nil {
			return err
		}
		if *asJSON {
			out := []any{}
			for _, r := range runs {
				out = append(out, wire.PackRunOf(r))
			}
			return c.json(out)
		}
		total := 0
		for _, r := range runs {
			total += r.Count()
			line := fmt.Sprintf("%-36s %12s  %-10s", c.packRange(game.PackRange{Game: r.Game, Block: r.Block, First: r.First, Last: r.Last}),
				c.count(r.Count(), "pack", "packs"), c.word(r.State))
			if r.Desk != "" {
				line += c.tr("  desk %s", r.Desk)
			}
			if r.Entry != 0 {
				line += c.tr("  %s %s by %s", c.move(r.Move), c.moment(r.At), r.Operator)
			}
			fmt.Fprintln(c.stdout, strings.TrimRight(line, " "))
		}
		switch {
		case len(runs) == 0 && *state == "":
			c.printf(c.stdout, "no pack has left the stock (packs list --state stock lists the stock)\n")
		case len(runs) == 0:
			c.printf(c.stdout, "no pack\n")
		default:
			fmt.Fprintln(c.stdout, c.count(total, "pack", "packs"))
		}
		return nil
	}}
}

// maxLabels bounds one print of labels: a block's 10,000 packs, 417 A4
// sheets.
const maxLabels = game.Packs

// packsLabels prints a label per pack: its code with the check digit, its
// game, block and tickets, and the Code 128 barcode a counter scans.
func (c *cli) packsLabels(fs *pflag.FlagSet) work {
	code, block := blockFlags(fs)
	span := fs.String("packs", "", "packs A-B (or one pack)")
	out := fs.String("o", "", "PDF file to write")
	roll := fs.Bool("roll", false, "one label a page, for a roll of 62 × 29 mm labels (default: A4 sheets of 3 × 8)")
	queue := fs.String("printer", "", "print them on this CUPS queue (lpstat -e lists them)")
	var spans []game.PackRange
	return work{check: func(args []string) (err error) {
		pos, err := c.flags(fs, args)
		if err != nil {
			return err
		}
		if *span != "" {
			pos = append(pos, *span)
		}
		if *out == "" && *queue == "" {
			return badInput("packs labels: -o FILE.pdf or --printer QUEUE is required")
		}
		if len(pos) == 0 {
			return badInput("packs labels: name the packs: --block N --packs A-B, or pack codes")
		}
		spans, err = parsePacks(pos, *code, *block)
		return err
	}, run: func(l *ledger.Ledger, _ []string) error {
		labels := paper.Labels{Roll: *roll, PrintedAt: time.Now()}
		for _, s := range spans {
			if _, err := l.Block(c.ctx, s.Game, s.Block); err != nil {
				return err
			}
			em, err := l.Emission(c.ctx, s.Game)
			if err != nil {
				return err
			}
			labels.GameName = em.Name
			for p := s.First; p <= s.Last; p++ {
				labels.Packs = append(labels.Packs, paper.Pack{Game: s.Game, Block: s.Block, Pack: p})
			}
			if len(labels.Packs) > maxLabels {
				return badInput("packs labels: %d packs at most at once (a block's)", maxLabels)
			}
		}
		write := func(w io.Writer) error { return paper.WriteLabels(w, labels) }
		if *out != "" {
			if err := c.writeOut(*out, write); err != nil {
				return err
			}
		}
		if *queue != "" {
			return c.toPrinter(*queue, c.tr("labels of %s", c.count(len(labels.Packs), "pack", "packs")), "etiquettes.pdf", write)
		}
		return nil
	}}
}
