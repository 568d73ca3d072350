package ledger

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/core"
)

// Receipt returns the facts of the receipt of payment number number. A
// counter on a validation server, or a sealed counter ledger, prints
// its own payments' receipts.
func (l *Ledger) Receipt(ctx context.Context, number int64) (ReceiptFacts, error) {
	var c Claim
	if desk := l.CounterDesk(); desk != "" {
		cs, err := l.Claims(ctx, ClaimFilter{})
		if err != nil {
			return ReceiptFacts{}, err
		}
		found := false
		for _, x := range cs {
			if x.Number == number {
				c, found = x, true
			}
		}
		if !found {
			return ReceiptFacts{}, fmt.Errorf("payment %d: %w: no payment of desk %s has this number", number, ErrNotFound, desk)
		}
	} else {
		var err error
		if c, err = l.ClaimByNumber(ctx, number); err != nil {
			return ReceiptFacts{}, err
		}
	}
	g, err := l.b.Game(ctx, c.Game)
	if err != nil {
		return ReceiptFacts{}, err
	}
	head, err := l.b.Head(ctx)
	if err != nil {
		return ReceiptFacts{}, err
	}
	return ReceiptFacts{Claim: c, GameName: g.Name, Head: head, PrintedAt: l.now()}, nil
}

// DayReport returns desk's day: day is any time of it, in the location
// whose midnights bound it (time.Local for the counter's). A counter's
// login on a shared ledger reports on its own desk.
func (l *Ledger) DayReport(ctx context.Context, desk string, day time.Time) (DayFacts, error) {
	desk = strings.TrimSpace(desk)
	if own := l.CounterDesk(); own != "" {
		if desk != "" && desk != own {
			return DayFacts{}, fmt.Errorf("day report: %w: this ledger is desk %s's, not %s's", ErrDeskMismatch, own, desk)
		}
		desk = own
	}
	if desk == "" {
		return DayFacts{}, errors.New("day report: name the desk")
	}
	from, to := core.DayBounds(day)
	f := DayFacts{Desk: desk, Day: from}
	var err error
	if f.Payments, err = l.Claims(ctx, ClaimFilter{Desk: desk, Since: from, Until: to}); err != nil {
		return DayFacts{}, err
	}
	if f.Voids, err = l.b.VoidsBetween(ctx, desk, from, to); err != nil {
		return DayFacts{}, err
	}
	moves, err := l.PackEntries(ctx, PackEntryFilter{Desk: desk, Since: from, Until: to, Moves: []string{"receive", "activate"}})
	if err != nil {
		return DayFacts{}, err
	}
	var received, activated []PackEntry
	for _, m := range moves {
		if m.Move == "receive" {
			received = append(received, m)
		} else {
			activated = append(activated, m)
		}
	}
	f.Received, f.Activated = core.PacksOf(received), core.PacksOf(activated)
	if f.Sales, err = l.salesOf(ctx, f.Activated); err != nil {
		return DayFacts{}, err
	}
	if f.Referrals, err = l.b.ReferralsBetween(ctx, desk, from, to); err != nil {
		return DayFacts{}, err
	}
	if bo, ok := l.b.(core.BackOffice); ok { // only the back office imports, and knows double payments
		cases, err := bo.Cases(ctx)
		if err != nil {
			return DayFacts{}, err
		}
		f.Cases = core.CasesOf(cases, desk, from, to)
	}
	if f.Head, err = l.b.Head(ctx); err != nil {
		return DayFacts{}, err
	}
	f.PrintedAt = l.now()
	return f, nil
}

// salesOf prices packs put on sale: each one's tickets at its game's price.
func (l *Ledger) salesOf(ctx context.Context, packs []game.PackCode) ([]core.Sale, error) {
	price := map[int]int{}
	out := make([]core.Sale, 0, len(packs))
	for _, p := range packs {
		if _, ok := price[p.Game]; !ok {
			g, err := l.b.Game(ctx, p.Game)
			if err != nil {
				return nil, err
			}
			price[p.Game] = g.Price
		}
		out = append(out, core.Sale{Pack: p, Tickets: game.PackSize, Value: game.PackSize * price[p.Game]})
	}
	return out, nil
}

// DailyReport sums the active claims that f selects per day (local time)
// and desk, by day then desk.
func (l *Ledger) DailyReport(ctx context.Context, f ClaimFilter) ([]DayDesk, error) {
	claims, err := l.Claims(ctx, f)
	if err != nil {
		return nil, err
	}
	idx := map[[2]string]int{}
	var out []DayDesk
	for _, c := range claims {
		if c.Voided {
			continue
		}
		k := [2]string{c.At.Local().Format("2006-01-02"), c.Desk}
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, DayDesk{Day: k[0], Desk: k[1]})
		}
		out[i].Count++
		out[i].Sum += c.Amount
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Day != out[j].Day {
			return out[i].Day < out[j].Day
		}
		return out[i].Desk < out[j].Desk
	})
	return out, nil
}
