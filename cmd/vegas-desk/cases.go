package main

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/wire"
)

// cases lists the double payments (a ticket a counter paid offline that
// another payment paid already: ledger.Case), open ones unless --all;
// "cases close PAYMENT --reason TEXT" closes one by a recorded decision.
func (c *cli) cases(fs *pflag.FlagSet) work {
	all := fs.Bool("all", false, "the closed cases too")
	asJSON := fs.Bool("json", false, "JSON output")
	return work{check: func(args []string) error {
		_, err := c.positional(fs, args, 0, "no argument (or: close PAYMENT --reason TEXT)")
		return err
	}, run: func(l *ledger.Ledger, _ []string) error {
		cs, err := l.Cases(c.ctx)
		if err != nil {
			return err
		}
		var shown []ledger.Case
		for _, k := range cs {
			if *all || !k.Closed {
				shown = append(shown, k)
			}
		}
		if *asJSON {
			return c.json(casesJSON(shown))
		}
		for i := range shown {
			fmt.Fprint(c.stdout, c.describeCase(&shown[i]))
		}
		if len(shown) == 0 {
			c.printf(c.stdout, "no open double payment\n")
		}
		return nil
	}}
}

func (c *cli) closeCase(fs *pflag.FlagSet) work {
	reason := fs.String("reason", "", "the decision that closes the case: the money recovered, written off… (required)")
	desk := fs.String("desk", "", "desk ID")
	operator := fs.String("operator", "", "operator name")
	asJSON := fs.Bool("json", false, "JSON output")
	var id int64
	return work{check: func(args []string) (err error) {
		id, err = c.paymentArg(fs, args, "cases close", "cases")
		if err != nil {
			return err
		}
		if strings.TrimSpace(*reason) == "" {
			return badInput("cases close: --reason is required: say what was decided (the money recovered, written off…)")
		}
		return nil
	}, run: func(l *ledger.Ledger, _ []string) error {
		k, err := l.CloseCase(c.ctx, id, *reason, defaultIdentity(*desk, *operator))
		if err != nil {
			return err
		}
		if *asJSON {
			return c.json(caseJSON(&k))
		}
		c.printf(c.stdout, "case %d closed %s by %s: %s\n", k.Number, c.moment(k.ClosedAt), terminal(k.ClosedBy), terminal(k.Decision))
		return nil
	}}
}

// casesJSON is cases' JSON, [] for none.
func casesJSON(ks []ledger.Case) []any {
	out := []any{}
	for i := range ks {
		out = append(out, caseJSON(&ks[i]))
	}
	return out
}

func caseJSON(k *ledger.Case) map[string]any {
	m := map[string]any{"number": k.Number, "serial": k.Serial, "amount": k.Amount, "first": wire.ClaimOf(&k.First),
		"second": wire.ClaimOf(&k.Second), "closed": k.Closed}
	if k.Closed {
		m["decision"], m["closed_at"], m["closed_by"], m["closed_desk"] = k.Decision, k.ClosedAt, k.ClosedBy, k.ClosedDesk
	}
	return m
}

// describeCase is a case's lines: the amount to recover, both payments,
// the decision or how to record one.
func (c *cli) describeCase(k *ledger.Case) string {
	var b strings.Builder
	state := c.tr("OPEN")
	if k.Closed {
		state = c.tr("CLOSED")
	}
	c.printf(&b, "case %d: ticket %s paid twice, %s € to recover — %s\n", k.Number, k.Serial, game.GroupDigits(k.Amount), state)
	for _, p := range []*ledger.Claim{&k.First, &k.Second} {
		line := "  " + c.describeClaim(p)
		if p.Voided {
			line += c.tr("  VOIDED by %q: %s", p.VoidedBy, terminal(p.VoidReason))
		}
		fmt.Fprintln(&b, line)
	}
	if k.Closed {
		c.printf(&b, "  closed %s by %s: %s\n", c.moment(k.ClosedAt), terminal(k.ClosedBy), terminal(k.Decision))
	} else {
		c.printf(&b, "  close it: vegas-desk cases close %d --reason TEXT\n", k.Number)
	}
	return b.String()
}
