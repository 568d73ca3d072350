package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/wire"
)

// The retail commands: the emission's dates, refused attempts, referrals
// and settings (their papers: papers.go). Dates are local days: an on-sale
// date from 00:00, an end of sale and a deadline until the end of the day.

// endOfDay is the last instant of t's local day.
func endOfDay(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), 23, 59, 59, 999_999_999, t.Location())
}

// parseDay reads a local day, 2025-05-01.
func parseDay(field, s string) (time.Time, error) {
	t, err := time.ParseInLocation(time.DateOnly, strings.TrimSpace(s), time.Local)
	if err != nil {
		return time.Time{}, badInput("--%s %q: not a day; write 2025-05-01", field, s)
	}
	return t, nil
}

// dayText prints an instant as its local day, "" for none.
func dayText(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Local().Format(time.DateOnly)
}

func (c *cli) emission(fs *pflag.FlagSet) work {
	code := fs.Int("game", defaultGame, "game code")
	onSale := fs.String("on-sale", "", "first day of sale, from 00:00 (none: unset)")
	endSale := fs.String("end-of-sale", "", "last day of sale, until 23:59:59 (none: unset)")
	deadline := fs.String("deadline", "", fmt.Sprintf("last day of payment, until 23:59:59 (default, and none: the claim-days setting after the end of sale, %d unless changed)", ledger.DefaultClaimDays))
	operator := fs.String("operator", "", "operator name (default: $USER)")
	asJSON := fs.Bool("json", false, "JSON output")
	set := func() bool { return flagSet(fs, "on-sale") || flagSet(fs, "end-of-sale") || flagSet(fs, "deadline") }
	return work{check: func(args []string) error {
		_, err := c.positional(fs, args, 0, "no argument")
		return err
	}, needs: func() access {
		if set() {
			return write
		}
		return read
	}, run: func(l *ledger.Ledger, _ []string) error {
		em, err := l.Emission(c.ctx, *code)
		if err != nil {
			return err
		}
		if set() {
			day := func(name, v string, last bool, cur *time.Time) error {
				if !flagSet(fs, name) {
					return nil
				}
				if strings.TrimSpace(v) == "none" {
					*cur = time.Time{}
					return nil
				}
				t, err := parseDay(name, v)
				if err != nil {
					return err
				}
				if last {
					t = endOfDay(t)
				}
				*cur = t
				return nil
			}
			if err := day("on-sale", *onSale, false, &em.OnSale); err != nil {
				return err
			}
			if err := day("end-of-sale", *endSale, true, &em.EndOfSale); err != nil {
				return err
			}
			if flagSet(fs, "end-of-sale") && !flagSet(fs, "deadline") {
				em.Deadline = time.Time{} // the default: DefaultClaimDays after the end of sale
			}
			if err := day("deadline", *deadline, true, &em.Deadline); err != nil {
				return err
			}
			if em, err = l.SetEmission(c.ctx, *code, em, c.who(l, "", *operator)); err != nil {
				return badInput("emission: %v", err)
			}
		}
		if *asJSON {
			return c.json(map[string]any{"game": em.Game, "name": em.Name, "price": em.Price, "on_sale": dayText(em.OnSale),
				"end_of_sale": dayText(em.EndOfSale), "deadline": dayText(em.Deadline)})
		}
		or := func(s, none string) string {
			if s == "" {
				return none
			}
			return s
		}
		c.printf(c.stdout, "game         %d %s, %d € a ticket\non sale      %s\nend of sale  %s\ndeadline     %s\n",
			em.Game, em.Name, em.Price, or(c.day(em.OnSale), c.tr("not set (claims are not refused as too early)")),
			or(c.day(em.EndOfSale), c.tr("not set")), or(c.day(em.Deadline), c.tr("not set (claims are never refused as too late)")))
		return nil
	}}
}

func (c *cli) attempts(fs *pflag.FlagSet) work {
	reason := fs.String("reason", "", "this verdict only: stolen (a ticket of a stolen pack), unknown-serial, not-activated, expired …")
	since := fs.String("since", "", "from this date (local time)")
	desk := fs.String("desk", "", "this desk only")
	asJSON := fs.Bool("json", false, "JSON output")
	var from time.Time
	return work{check: func(args []string) (err error) {
		if _, err := c.positional(fs, args, 0, "no argument"); err != nil {
			return err
		}
		from, err = parseDate("since", *since)
		return err
	}, run: func(l *ledger.Ledger, _ []string) error {
		all, err := l.Attempts(c.ctx, from)
		if err != nil {
			return err
		}
		out, n := []any{}, 0
		for _, a := range all {
			if *reason != "" && string(a.Reason) != *reason || *desk != "" && a.Desk != *desk {
				continue
			}
			pack := ""
			if s, err := game.ParseSerial(a.Serial); err == nil {
				pack = game.PackCode{Game: s.Game, Block: s.Block, Pack: s.Pack()}.String()
			}
			if *asJSON {
				out = append(out, map[string]any{"entry": a.Entry, "at": a.At, "reason": string(a.Reason), "serial": a.Serial,
					"pack": pack, "desk": a.Desk, "operator": a.Operator, "method": a.Method})
				continue
			}
			c.printf(c.stdout, "%s  %-18s desk %-10s by %-10s %-8s %s", c.moment(a.At), c.word(string(a.Reason)), a.Desk, a.Operator, c.word(a.Method), a.Serial)
			if a.Reason == ledger.Stolen {
				c.printf(c.stdout, "  pack %s", pack)
			}
			fmt.Fprintln(c.stdout)
			n++
		}
		if *asJSON {
			return c.json(out)
		}
		if n == 0 {
			c.printf(c.stdout, "no refused attempt\n")
		}
		return nil
	}}
}

func (c *cli) referrals(fs *pflag.FlagSet) work {
	asJSON := fs.Bool("json", false, "JSON output")
	return work{check: func(args []string) error {
		_, err := c.positional(fs, args, 0, "no argument")
		return err
	}, run: func(l *ledger.Ledger, _ []string) error {
		rs, err := l.Referrals(c.ctx)
		if err != nil {
			return err
		}
		if *asJSON {
			out := []any{}
			for _, r := range rs {
				out = append(out, wire.ReferralOf(r))
			}
			return c.json(out)
		}
		for _, r := range rs {
			c.printf(c.stdout, "referral %d: %s € referred %s by desk %s (%s)", r.Number, game.GroupDigits(r.Amount),
				c.moment(r.At), r.Desk, r.Operator)
			if r.Tries > 1 {
				c.printf(c.stdout, ", %d times, last %s", r.Tries, c.moment(r.Last))
			}
			c.printf(c.stdout, "\n  pay it: vegas-desk claim %s\n", r.Serial)
		}
		if len(rs) == 0 {
			c.printf(c.stdout, "no open referral\n")
		}
		return nil
	}}
}

// signedDigits prints n with its digits grouped and a minus sign when it
// is negative.
func signedDigits(n int) string {
	if n < 0 {
		return "-" + game.GroupDigits(-n)
	}
	return game.GroupDigits(n)
}

// parseRate reads a percentage, "5", "5.5" or "5,25", as hundredths of a
// percent.
func parseRate(s string) (int, error) {
	s = strings.TrimSuffix(strings.TrimSpace(strings.ReplaceAll(s, ",", ".")), "%")
	whole, frac, _ := strings.Cut(strings.TrimSpace(s), ".")
	if len(frac) > 2 {
		return 0, badInput("--commission %q: at most two decimals (5.25)", s)
	}
	w, err1 := strconv.Atoi(whole)
	f, err2 := strconv.Atoi((frac + "00")[:2])
	if err1 != nil || err2 != nil || w < 0 || w > 100 {
		return 0, badInput("--commission %q: a percentage from 0 to 100, like 5 or 5.5", s)
	}
	return w*100 + f, nil
}

func (c *cli) settings(fs *pflag.FlagSet) work {
	threshold := fs.Int("identity-threshold", 0, "the prize, in euros, from which a payment records the winner's identity")
	commission := fs.String("commission", "", "the retailers' commission on their sales, in percent (5.5)")
	days := fs.Int("claim-days", 0, "days from the end of sale to the claim deadline when none is given")
	operator := fs.String("operator", "", "operator name (default: $USER)")
	asJSON := fs.Bool("json", false, "JSON output")
	changes := map[string]int{}
	return work{check: func(args []string) error {
		if _, err := c.positional(fs, args, 0, "no argument"); err != nil {
			return err
		}
		if flagSet(fs, "identity-threshold") {
			if *threshold < 1 {
				return badInput("--identity-threshold %d: give an amount in euros, 1 or more", *threshold)
			}
			changes[ledger.SettingIdentityThreshold] = *threshold
		}
		if flagSet(fs, "commission") {
			r, err := parseRate(*commission)
			if err != nil {
				return err
			}
			changes[ledger.SettingCommission] = r
		}
		if flagSet(fs, "claim-days") {
			if *days < 1 || *days > 3660 {
				return badInput("--claim-days %d: from 1 to 3660", *days)
			}
			changes[ledger.SettingClaimDays] = *days
		}
		return nil
	}, needs: func() access {
		if len(changes) > 0 {
			return write
		}
		return read
	}, run: func(l *ledger.Ledger, _ []string) (err error) {
		for _, k := range []string{ledger.SettingIdentityThreshold, ledger.SettingCommission, ledger.SettingClaimDays} {
			if v, ok := changes[k]; ok {
				if err := l.SetSetting(c.ctx, k, v, c.who(l, "", *operator)); err != nil {
					return err
				}
			}
		}
		vals := map[string]int{}
		for _, k := range []string{ledger.SettingIdentityThreshold, ledger.SettingCommission, ledger.SettingClaimDays} {
			if vals[k], err = l.Setting(c.ctx, k); err != nil {
				return err
			}
		}
		if *asJSON {
			return c.json(map[string]any{"identity_threshold": vals[ledger.SettingIdentityThreshold],
				"commission": vals[ledger.SettingCommission], "claim_days": vals[ledger.SettingClaimDays]})
		}
		r := vals[ledger.SettingCommission]
		c.printf(c.stdout, "identity threshold  %s € (a payment from this prize on records the winner's identity)\n",
			game.GroupDigits(vals[ledger.SettingIdentityThreshold]))
		c.printf(c.stdout, "commission          %d.%02d %% of a retailer's sales\n", r/100, r%100)
		c.printf(c.stdout, "claim days          %d (from the end of sale to the deadline, unless one is given)\n", vals[ledger.SettingClaimDays])
		return nil
	}}
}
