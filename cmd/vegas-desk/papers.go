package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/spf13/pflag"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/wire"
	"vegas-desk/internal/paper"
	"vegas-desk/internal/printer"
)

// The papers of the retail day: a payment's receipt, a counter's day report
// and its settlement, written to a file or printed through CUPS.

// writeOut writes a document to path ("-": standard output), through
// writeFile: a failure never leaves half a document, nor destroys an
// existing one.
func (c *cli) writeOut(path string, write func(io.Writer) error) error {
	if path == "-" {
		return write(c.stdout)
	}
	return writeFile(path, write)
}

// toPrinter prints a PDF document on a CUPS queue (lp -d QUEUE), and says
// on stderr which job it is. what names the document in messages. A queue
// that does not exist is bad input; a printer that refuses, or no CUPS,
// is a refusal.
func (c *cli) toPrinter(queue, what, name string, write func(io.Writer) error) error {
	ctx, cancel := context.WithTimeout(c.ctx, 30*time.Second)
	defer cancel()
	job, err := printer.PrintDocument(ctx, queue, upperFirst(what), name, write)
	var pe *printer.Error
	switch {
	case errors.As(err, &pe) && errors.Is(err, printer.ErrNoQueue):
		known := "none"
		if qs, err := printer.Queues(ctx); err == nil && len(qs) > 0 {
			known = strings.Join(qs, ", ")
		}
		return badInput("%s: printer %q does not exist: give a queue that lpstat -e lists (here: %s)", what, queue, known)
	case errors.As(err, &pe) && errors.Is(err, printer.ErrRefused):
		return failf("%s: printer %q refused the job (%s): check the printer and its queue (cupsenable, cupsaccept), then print again", what, queue, pe.Detail)
	case errors.As(err, &pe):
		return failf("%s: cannot print on %q: %s; or write the PDF with -o FILE.pdf and print it elsewhere", what, queue, pe.Detail)
	case err != nil:
		return failf("%s: %w", what, err)
	}
	if job == "" {
		job = c.text("sent")
	}
	c.printf(c.stderr, "%s printed on %s (job %s)\n", what, queue, job)
	return nil
}

func (c *cli) receipt(fs *pflag.FlagSet) work {
	out := fs.String("o", "", "PDF file to write (- for standard output)")
	queue := fs.String("printer", "", "print it on this CUPS queue (lpstat -e lists them)")
	asJSON := fs.Bool("json", false, "what the receipt says, as JSON")
	var number int64
	return work{check: func(args []string) (err error) {
		number, err = c.paymentArg(fs, args, "receipt", "claims")
		if err != nil {
			return err
		}
		if *out == "" && !*asJSON && *queue == "" {
			return badInput("receipt: -o FILE.pdf or --printer QUEUE is required (or --json)")
		}
		return nil
	}, run: func(l *ledger.Ledger, _ []string) error {
		// Every receipt of this command is printed again: DUPLICATA. The
		// original is the one claim --receipt writes as it pays (the app's:
		// the first printed by the desk that just paid).
		r, p, err := c.writeReceipt(l, number, *out, *queue, true)
		if err != nil {
			return err
		}
		if *asJSON {
			m := map[string]any{"payment": p.Payment, "game": p.Game, "game_name": p.GameName, "serial": p.Serial,
				"amount": p.Amount, "amount_words": game.AmountWords(p.Amount), "paid_at": r.Claim.At, "desk": p.Desk,
				"cashier": p.Cashier, "entry_hash": p.EntryHash, "journal_head": p.JournalHead, "printed_at": r.PrintedAt,
				"voided": p.Voided}
			if p.Voided {
				m["voided_at"], m["voided_by"], m["void_reason"] = r.Claim.VoidedAt, p.VoidedBy, p.VoidReason
			}
			if *out == "-" {
				return nil // the PDF went to standard output
			}
			return c.json(m)
		}
		if *out != "" && *out != "-" {
			c.printf(c.stderr, "receipt of payment %d written to %s\n", number, *out)
		}
		return nil
	}}
}

// writeReceipt writes payment number's receipt to out and/or prints it
// on queue, marked DUPLICATA when duplicate.
func (c *cli) writeReceipt(l *ledger.Ledger, number int64, out, queue string, duplicate bool) (ledger.ReceiptFacts, paper.Receipt, error) {
	r, err := l.Receipt(c.ctx, number)
	if err != nil {
		return r, paper.Receipt{}, err
	}
	p := paper.ReceiptOf(r, time.Local)
	p.Duplicate = duplicate
	if out != "" {
		if err := c.writeOut(out, func(w io.Writer) error { return paper.WriteReceipt(w, p) }); err != nil {
			return r, p, err
		}
	}
	if queue != "" {
		if err := c.toPrinter(queue, c.tr("receipt of payment %d", number), fmt.Sprintf("recu-%d.pdf", number),
			func(w io.Writer) error { return paper.WriteReceipt(w, p) }); err != nil {
			return r, p, err
		}
	}
	return r, p, nil
}

// format is one of a report's output forms.
func reportFormat(asJSON, asCSV bool, out string) (string, error) {
	n := 0
	for _, b := range []bool{asJSON, asCSV, out != ""} {
		if b {
			n++
		}
	}
	switch {
	case n > 1:
		return "", badInput("choose one of --json, --csv and -o FILE.pdf")
	case asJSON:
		return "json", nil
	case asCSV:
		return "csv", nil
	case out != "":
		return "pdf", nil
	}
	return "text", nil
}

func (c *cli) settlement(fs *pflag.FlagSet) work {
	code := fs.Int("game", defaultGame, "game code")
	desk := fs.String("desk", "", "the counter (required)")
	since := fs.String("since", "", "first day of the period (required)")
	until := fs.String("until", "", "last day of the period, included (required)")
	out := fs.String("o", "", "PDF file to write")
	asCSV := fs.Bool("csv", false, "CSV output")
	asJSON := fs.Bool("json", false, "JSON output")
	var format string
	var from, to time.Time
	return work{check: func(args []string) (err error) {
		if _, err := c.positional(fs, args, 0, "no argument"); err != nil {
			return err
		}
		format, err = reportFormat(*asJSON, *asCSV, *out)
		if err != nil {
			return err
		}
		if strings.TrimSpace(*desk) == "" || *since == "" || *until == "" {
			return badInput("settlement: --desk ID, --since DATE and --until DATE are required")
		}
		from, err = parseDay("since", *since)
		if err != nil {
			return err
		}
		to, err = parseDay("until", *until)
		if err != nil {
			return err
		}
		if to.Before(from) {
			return badInput("settlement: --until %s comes before --since %s", *until, *since)
		}
		return nil
	}, run: func(l *ledger.Ledger, _ []string) error {
		s, err := l.Settlement(c.ctx, *desk, *code, from, to)
		if err != nil {
			return err
		}
		p := paper.SettlementOf(s, time.Local)
		f := p.Figures()
		switch format {
		case "pdf":
			return c.writeOut(*out, func(w io.Writer) error { return paper.WriteSettlement(w, p) })
		case "csv":
			return paper.WriteSettlementCSV(c.stdout, p)
		case "json":
			packs := []string{}
			for _, pc := range s.Packs {
				packs = append(packs, pc.String())
			}
			payments := []any{}
			for i := range s.Payments {
				payments = append(payments, wire.ClaimOf(&s.Payments[i]))
			}
			by, to := "", ""
			switch {
			case f.Balance > 0:
				by, to = "retailer", "operator"
			case f.Balance < 0:
				by, to = "operator", "retailer"
			}
			return c.json(map[string]any{"desk": s.Desk, "game": s.Game, "from": dayText(s.From), "to": dayText(s.To),
				"packs": packs, "pack_count": f.Packs, "pack_size": f.PackSize, "tickets": f.Tickets,
				"ticket_price_cents": int64(f.Price), "sales_cents": int64(f.Sales), "prize_count": f.PrizeCount,
				"prizes_cents": int64(f.Prizes), "commission_rate": f.Rate, "commission_cents": int64(f.Commission),
				"balance_cents": int64(f.Balance), "owed_by": by, "owed_to": to, "payments": payments, "cases": casesJSON(s.Cases),
				"printed_at": s.PrintedAt})
		}
		c.printf(c.stdout, "settlement of desk %s, game %d, %s to %s\n", s.Desk, s.Game, c.day(s.From), c.day(s.To))
		c.printf(c.stdout, "packs on sale   %d (activated in the period)\n", f.Packs)
		c.printf(c.stdout, "sales           %d tickets × %s = %s\n", f.Tickets, c.cents(f.Price), c.cents(f.Sales))
		c.printf(c.stdout, "prizes paid     %d = %s\n", f.PrizeCount, c.cents(f.Prizes))
		c.printf(c.stdout, "commission      %d.%02d %% of the sales = %s\n", f.Rate/100, f.Rate%100, c.cents(f.Commission))
		c.printf(c.stdout, "balance         %s\n", c.cents(f.Balance))
		switch {
		case f.Balance > 0:
			c.printf(c.stdout, "the retailer owes the operator %s\n", c.cents(f.Balance))
		case f.Balance < 0:
			c.printf(c.stdout, "the operator owes the retailer %s\n", c.cents(-f.Balance))
		default:
			c.printf(c.stdout, "nobody owes anything\n")
		}
		for i := range s.Cases {
			fmt.Fprint(c.stdout, c.describeCase(&s.Cases[i]))
		}
		return nil
	}}
}

// plain prints cents as "1645.00 €" for a terminal.
func plain(c paper.Cents) string {
	sign := ""
	if c < 0 {
		sign, c = "-", -c
	}
	return fmt.Sprintf("%s%d.%02d €", sign, c/100, c%100)
}

// dayReport is daily --day: one counter's day as text, JSON, CSV or PDF,
// and printed on a CUPS queue when queue is not empty; its flags are
// checked before the report is made on a ledger.
func (c *cli) dayReport(desk, day, out, queue string, asJSON, asCSV bool) (func(*ledger.Ledger) error, error) {
	format, err := reportFormat(asJSON, asCSV, out)
	if err != nil {
		return nil, err
	}
	t, err := parseDay("day", day)
	if err != nil {
		return nil, err
	}
	return func(l *ledger.Ledger) error { return c.dayReportOf(l, desk, t, out, queue, format) }, nil
}

func (c *cli) dayReportOf(l *ledger.Ledger, desk string, t time.Time, out, queue, format string) error {
	if desk == "" && l.CounterDesk() == "" {
		return badInput("daily --day: --desk ID is required: the counter whose day it is")
	}
	d, err := l.DayReport(c.ctx, desk, t)
	if err != nil {
		return err
	}
	p := paper.DayReportOf(d, time.Local)
	if queue != "" {
		if err := c.toPrinter(queue, c.tr("day report of desk %s, %s", d.Desk, c.day(d.Day)),
			fmt.Sprintf("jour-%s-%s.pdf", d.Desk, d.Day.Format(time.DateOnly)),
			func(w io.Writer) error { return paper.WriteDayReport(w, p) }); err != nil {
			return err
		}
		if format == "text" {
			return nil // printed: nothing else asked
		}
	}
	f := p.Figures()
	switch format {
	case "pdf":
		return c.writeOut(out, func(w io.Writer) error { return paper.WriteDayReport(w, p) })
	case "csv":
		return paper.WriteDayReportCSV(c.stdout, p)
	case "json":
		pays, voids, sales := []any{}, []any{}, []any{}
		for _, x := range p.Payments {
			pays = append(pays, map[string]any{"payment": x.Number, "at": x.At, "serial": x.Serial, "amount": x.Amount, "cashier": x.Cashier})
		}
		for _, x := range p.Voids {
			voids = append(voids, map[string]any{"payment": x.Payment, "at": x.At, "serial": x.Serial, "amount": x.Amount,
				"by": x.By, "reason": x.Reason})
		}
		referrals := []any{}
		for _, x := range p.Referrals {
			var amount any // null where the ledger keeps no unpaid prize (a sealed counter ledger)
			if x.Amount > 0 {
				amount = x.Amount
			}
			referrals = append(referrals, map[string]any{"at": x.At, "serial": x.Serial, "amount": amount, "cashier": x.Cashier, "tries": x.Tries})
		}
		for _, x := range p.Sales {
			sales = append(sales, map[string]any{"pack": x.Pack.String(), "tickets": x.Tickets, "value": x.Value})
		}
		codes := func(ps []game.PackCode) []string {
			out := []string{}
			for _, pc := range ps {
				out = append(out, pc.String())
			}
			return out
		}
		return c.json(map[string]any{"desk": d.Desk, "day": dayText(d.Day), "payments": pays, "voids": voids,
			"paid": f.Paid, "voided": f.Voided, "net": f.Net(), "referrals": referrals, "referred": f.Referred,
			"sales": sales, "sales_value": f.Sales, "sales_less_net": f.Sales - f.Net(), "cases": casesJSON(d.Cases),
			"packs_received": codes(d.Received), "packs_activated": codes(d.Activated), "journal_head": d.Head})
	}
	c.printf(c.stdout, "desk %s, %s\n", d.Desk, c.day(d.Day))
	for _, x := range p.Payments {
		c.printf(c.stdout, "%s  payment  %-6d %s  %8s €  %s\n", x.At.Format(time.TimeOnly), x.Number, x.Serial, game.GroupDigits(x.Amount), terminal(x.Cashier))
	}
	for _, x := range p.Voids {
		c.printf(c.stdout, "%s  void     %-6d %s  %8s €  %s: %s\n", x.At.Format(time.TimeOnly), x.Payment, x.Serial, game.GroupDigits(x.Amount),
			terminal(x.By), terminal(x.Reason))
	}
	for _, x := range p.Referrals {
		amount := c.tr("(not kept)")
		if x.Amount > 0 {
			amount = game.GroupDigits(x.Amount) + " €"
		}
		c.printf(c.stdout, "%s  referral %-6s %s  %10s  %s, shown %d×\n", x.At.Format(time.TimeOnly), "", x.Serial, amount, terminal(x.Cashier), x.Tries)
	}
	c.printf(c.stdout, "%s, %s voided: %s € net\n", c.count(len(p.Payments), "payment", "payments"), c.count(len(p.Voids), "payment", "payments"),
		game.GroupDigits(f.Net()))
	c.printf(c.stdout, "referrals        %d = %s €, paid by the back office\n", len(p.Referrals), game.GroupDigits(f.Referred))
	c.printf(c.stdout, "packs received   %d\npacks on sale    %d = %s €\nsales less net   %s €\n",
		len(d.Received), len(p.Sales), game.GroupDigits(f.Sales), signedDigits(f.Sales-f.Net()))
	for i := range d.Cases {
		fmt.Fprint(c.stdout, c.describeCase(&d.Cases[i]))
	}
	c.printf(c.stdout, "journal head %s\n", d.Head)
	return nil
}

// upperFirst is s with its first letter a capital: a print job's title
// made of a message ("reçu du paiement 12" → "Reçu du paiement 12").
func upperFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}
