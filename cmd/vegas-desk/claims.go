package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/ledger/wire"
)

// paymentArg is cmd's one argument, a payment's number, which command
// lister shows (receipt, void, cases close).
func (c *cli) paymentArg(fs *pflag.FlagSet, args []string, cmd, lister string) (int64, error) {
	pos, err := c.positional(fs, args, 1, "one PAYMENT number")
	if err != nil {
		return 0, err
	}
	id, err := strconv.ParseInt(pos[0], 10, 64)
	if err != nil || id <= 0 {
		return 0, badInput("%s: payment number %q: want the number the %s command shows", cmd, pos[0], lister)
	}
	return id, nil
}

func (c *cli) void(fs *pflag.FlagSet) work {
	reason := fs.String("reason", "", "why the claim is voided (required)")
	desk := fs.String("desk", "", "desk ID")
	operator := fs.String("operator", "", "operator name")
	asJSON := fs.Bool("json", false, "JSON output")
	var id int64
	return work{check: func(args []string) (err error) {
		id, err = c.paymentArg(fs, args, "void", "claims")
		if err != nil {
			return err
		}
		if strings.TrimSpace(*reason) == "" {
			return badInput("void: --reason is required: say why the claim is voided")
		}
		return nil
	}, run: func(l *ledger.Ledger, _ []string) error {
		cl, err := l.Void(c.ctx, id, *reason, defaultIdentity(*desk, *operator))
		if err != nil {
			return err
		}
		if *asJSON {
			return c.json(wire.ClaimOf(&cl))
		}
		c.printf(c.stdout, "payment %d voided %s by %s: %s\n", cl.Number, c.moment(cl.VoidedAt), terminal(cl.VoidedBy), terminal(cl.VoidReason))
		return nil
	}}
}

func (c *cli) claimFilter(fs *pflag.FlagSet) func() (ledger.ClaimFilter, error) {
	code := fs.Int("game", 0, "game code (default: all)")
	block := fs.Int("block", 0, "block number (default: all)")
	since := fs.String("since", "", "from this date (local time)")
	until := fs.String("until", "", "before this date")
	desk := fs.String("desk", "", "this desk only")
	return func() (ledger.ClaimFilter, error) {
		f := ledger.ClaimFilter{Game: *code, Block: *block, Desk: *desk}
		if f.Block != 0 && f.Game == 0 {
			f.Game = defaultGame
		}
		var err error
		if f.Since, err = parseDate("since", *since); err != nil {
			return f, err
		}
		f.Until, err = parseDate("until", *until)
		return f, err
	}
}

func (c *cli) claims(fs *pflag.FlagSet) work {
	filter := c.claimFilter(fs)
	asCSV := fs.Bool("csv", false, "CSV output")
	asJSON := fs.Bool("json", false, "JSON output")
	withIdentity := fs.Bool("with-identity", false, "add the winners' identities (personal data) to --csv or --json")
	asJSONL := fs.Bool("jsonl", false, "a counter ledger's journal with its hashes, for import-claims at the back office")
	var f ledger.ClaimFilter
	return work{check: func(args []string) (err error) {
		if _, err := c.positional(fs, args, 0, "no argument"); err != nil {
			return err
		}
		if *asCSV && *asJSON || *asJSONL && (*asCSV || *asJSON) {
			return badInput("claims: choose one of --csv, --json and --jsonl")
		}
		if *withIdentity && !*asCSV && !*asJSON {
			return badInput("claims: --with-identity goes with --csv or --json")
		}
		f, err = filter()
		return err
	}, run: func(l *ledger.Ledger, _ []string) error {
		if *asJSONL {
			if f != (ledger.ClaimFilter{}) {
				return badInput("claims --jsonl: the export is the whole journal; drop --block, --since, --until and --desk")
			}
			return l.ExportJournal(c.ctx, c.stdout)
		}
		cs, err := l.Claims(c.ctx, f)
		if err != nil {
			return err
		}
		var ids map[int64]ledger.Winner
		if *withIdentity {
			if ids, err = l.Identities(c.ctx); err != nil {
				return err
			}
		}
		switch {
		case *asJSON:
			out := []any{}
			for i := range cs {
				out = append(out, withWinner(wire.ClaimOf(&cs[i]), ids, cs[i].Entry))
			}
			return c.json(out)
		case *asCSV && ids != nil:
			return core.WriteCSVWithIdentity(c.stdout, cs, ids)
		case *asCSV:
			return core.WriteCSV(c.stdout, cs)
		}
		doubles := map[int64]ledger.Case{} // by either payment's number
		if l.CounterDesk() == "" {
			ks, err := l.Cases(c.ctx)
			if err != nil {
				return err
			}
			for _, k := range ks {
				doubles[k.First.Number], doubles[k.Second.Number] = k, k
			}
		}
		for _, cl := range cs {
			line := c.describeClaim(&cl) + "  " + cl.Serial
			if cl.Voided {
				line += c.tr("  VOIDED by %q: %s", cl.VoidedBy, terminal(cl.VoidReason))
			}
			if k, ok := doubles[cl.Number]; ok && !k.Closed {
				line += c.tr("  DOUBLE PAYMENT: case %d open (vegas-desk cases)", k.Number)
			}
			fmt.Fprintln(c.stdout, line)
		}
		return nil
	}}
}

func (c *cli) daily(fs *pflag.FlagSet) work {
	filter := c.claimFilter(fs)
	asJSON := fs.Bool("json", false, "JSON output")
	day := fs.String("day", "", "one counter's day report (with --desk)")
	out := fs.String("o", "", "the day report as PDF (with --day)")
	asCSV := fs.Bool("csv", false, "the day report as CSV (with --day)")
	queue := fs.String("printer", "", "print the day report on this CUPS queue (with --day; lpstat -e lists them)")
	var f ledger.ClaimFilter
	var report func(*ledger.Ledger) error // --day's
	return work{check: func(args []string) error {
		if _, err := c.positional(fs, args, 0, "no argument"); err != nil {
			return err
		}
		var err error
		if f, err = filter(); err != nil {
			return err
		}
		if *day != "" {
			report, err = c.dayReport(f.Desk, *day, *out, *queue, *asJSON, *asCSV)
			return err
		}
		if *out != "" || *asCSV || *queue != "" {
			return badInput("daily: -o, --csv and --printer go with --day DATE (a counter's day report)")
		}
		return nil
	}, run: func(l *ledger.Ledger, _ []string) error {
		if report != nil {
			return report(l)
		}
		ds, err := l.DailyReport(c.ctx, f)
		if err != nil {
			return err
		}
		if *asJSON {
			out := []any{}
			for _, d := range ds {
				out = append(out, map[string]any{"day": d.Day, "desk": d.Desk, "count": d.Count, "sum": d.Sum})
			}
			return c.json(out)
		}
		// Every day and desk, then the total, also when no claim stands.
		line := func(day, desk string, n, sum int) {
			c.printf(c.stdout, "%-10s  %-16s %6d %-6s %12s €\n", day, terminal(desk), n, c.plural(n, "claim", "claims"), game.GroupDigits(sum))
		}
		n, sum := 0, 0
		for _, d := range ds {
			line(c.dayOf(d.Day), d.Desk, d.Count, d.Sum)
			n, sum = n+d.Count, sum+d.Sum
		}
		line(c.text("total"), "", n, sum)
		return nil
	}}
}

// withWinner adds the winner's identity of claim entry to a claim's JSON,
// when ids holds one (--with-identity).
func withWinner(c *wire.Claim, ids map[int64]ledger.Winner, entry int64) any {
	w, ok := ids[entry]
	if !ok {
		return c
	}
	return struct {
		*wire.Claim
		Winner map[string]string `json:"winner"`
	}{c, map[string]string{"name": w.Name, "doc_type": w.DocType, "doc_number": w.DocNumber, "skeleton": w.Skeleton}}
}
