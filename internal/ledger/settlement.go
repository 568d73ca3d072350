package ledger

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"vegas-desk/internal/game"
	"vegas-desk/internal/paper"
)

// The retail reports: a payment's receipt, a counter's day report and its
// settlement for a period. Each is one function that reads the ledger and
// returns plain data (…Facts); its Paper method makes the paper package's
// document of it, which the command line and the app print.

// ReceiptFacts is what a payment's receipt shows.
type ReceiptFacts struct {
	Claim     Claim // voided or not
	GameName  string
	Head      string // the journal's head when printing
	PrintedAt time.Time
}

// Receipt returns the facts of the receipt of payment number number. A
// counter's login on a shared ledger, or a sealed counter ledger, prints
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
	g, err := l.gameOf(ctx, c.Game)
	if err != nil {
		return ReceiptFacts{}, err
	}
	head, err := l.head(ctx)
	if err != nil {
		return ReceiptFacts{}, err
	}
	return ReceiptFacts{Claim: c, GameName: g.Name, Head: head, PrintedAt: l.now()}, nil
}

// MaskSerial prints a serial with its secret part hidden
// (game.Serial.Masked); a serial that does not parse prints as "—": a
// paper never shows a whole serial.
func MaskSerial(serial string) string {
	s, err := game.ParseSerial(serial)
	if err != nil {
		return "—"
	}
	return s.Masked()
}

// Paper is the receipt as paper prints it, its times in loc.
func (r ReceiptFacts) Paper(loc *time.Location) paper.Receipt {
	c := r.Claim
	p := paper.Receipt{Game: c.Game, GameName: r.GameName, Serial: MaskSerial(c.Serial), Amount: c.Amount,
		PaidAt: c.At.In(loc), Desk: c.Desk, Cashier: c.Operator, Payment: c.Number, EntryHash: c.Hash,
		JournalHead: r.Head, PrintedAt: r.PrintedAt.In(loc)}
	if c.Voided {
		p.Voided, p.VoidedAt, p.VoidedBy, p.VoidReason = true, c.VoidedAt.In(loc), c.VoidedBy, c.VoidReason
	}
	return p
}

// DayFacts is a counter's day: the payments made there that day, the voids
// made that day of its payments (of any day), the prizes above its limit
// it sent to the back office, the packs it received and activated that day
// with what those put on sale are worth, and the journal's head.
type DayFacts struct {
	Desk      string
	Day       time.Time // the day's first instant, in the day's location
	Payments  []Claim   // made that day, voided since or not
	Voids     []Claim   // voided that day
	Received  []game.PackCode
	Activated []game.PackCode
	// Sales are the packs activated that day, each with its value: a pack
	// is sold to the retailer when it goes on sale (see SettlementFacts).
	Sales []Sale
	// Referrals are the prizes above the counter's payout limit it sent to
	// the back office that day, one per ticket (Tries counts the times it
	// was shown), oldest first. On a sealed counter ledger and to a
	// counter's login, a Serial is only its part printed outside the
	// ticket ("531-0001-0456789"), and a sealed ledger's Amount is 0 (it
	// keeps no unpaid prize). ReferralsUnknown: the shared ledger's server
	// is older than the function that lists them to a counter's login.
	Referrals        []Referral
	ReferralsUnknown bool
	Head             string
	PrintedAt        time.Time
}

// Sale is a pack put on sale at a counter and what it is worth: its
// tickets at the game's price.
type Sale struct {
	Pack    game.PackCode
	Tickets int
	Value   int // euros
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
	from, to := dayBounds(day)
	f := DayFacts{Desk: desk, Day: from}
	var err error
	if f.Payments, err = l.Claims(ctx, ClaimFilter{Desk: desk, Since: from, Until: to}); err != nil {
		return DayFacts{}, err
	}
	if f.Voids, err = l.voidsBetween(ctx, desk, from, to); err != nil {
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
	f.Received, f.Activated = packsOf(received), packsOf(activated)
	if f.Sales, err = l.salesOf(ctx, f.Activated); err != nil {
		return DayFacts{}, err
	}
	if f.Referrals, f.ReferralsUnknown, err = l.referralsBetween(ctx, desk, from, to); err != nil {
		return DayFacts{}, err
	}
	if f.Head, err = l.head(ctx); err != nil {
		return DayFacts{}, err
	}
	f.PrintedAt = l.now()
	return f, nil
}

// voidsBetween lists desk's payments voided from since until before until.
func (l *Ledger) voidsBetween(ctx context.Context, desk string, since, until time.Time) ([]Claim, error) {
	if l.desk != "" {
		cs, err := l.Claims(ctx, ClaimFilter{})
		if err != nil {
			return nil, err
		}
		var out []Claim
		for _, c := range cs {
			if c.Voided && c.Desk == desk && !c.VoidedAt.Before(since) && c.VoidedAt.Before(until) {
				out = append(out, c)
			}
		}
		return out, nil
	}
	var rows []claimRow
	if err := sel(ctx, l.r, &rows, claimSelect+" WHERE c.kind = 'claim' AND c.desk = ? AND v.at >= ? AND v.at < ? ORDER BY v.id",
		desk, formatTime(since), formatTime(until)); err != nil {
		return nil, fmt.Errorf("list voids: %w", l.classify(err))
	}
	out := make([]Claim, len(rows))
	for i := range rows {
		out[i] = rows[i].claim()
	}
	return out, nil
}

// salesOf prices packs put on sale: each one's tickets at its game's price.
func (l *Ledger) salesOf(ctx context.Context, packs []game.PackCode) ([]Sale, error) {
	price := map[int]int{}
	out := make([]Sale, 0, len(packs))
	for _, p := range packs {
		if _, ok := price[p.Game]; !ok {
			g, err := l.gameOf(ctx, p.Game)
			if err != nil {
				return nil, err
			}
			price[p.Game] = g.Price
		}
		out = append(out, Sale{Pack: p, Tickets: game.PackSize, Value: game.PackSize * price[p.Game]})
	}
	return out, nil
}

// referralsBetween lists desk's referrals from since until before until,
// one per ticket (referralsOf). A counter's login reads its own through
// vegas.my_referrals, which a server made by an older vegas-desk lacks:
// then it says the referrals are unknown (true).
func (l *Ledger) referralsBetween(ctx context.Context, desk string, since, until time.Time) ([]Referral, bool, error) {
	var rows []entry
	var err error
	if l.desk != "" {
		err = sel(ctx, l.r, &rows, "SELECT id, at, serial, game, block, position, amount, desk, operator FROM vegas.my_referrals(?, ?)",
			formatTime(since), formatTime(until))
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "42883" { // undefined_function
			return nil, true, nil
		}
	} else {
		err = sel(ctx, l.r, &rows, "SELECT "+entryCols+" FROM journal WHERE kind = 'referral' AND desk = ? AND at >= ? AND at < ? ORDER BY id",
			desk, formatTime(since), formatTime(until))
	}
	if err != nil {
		return nil, false, fmt.Errorf("list referrals: %w", l.classify(err))
	}
	return referralsOf(rows), false, nil
}

// paperPacks turns pack codes into paper's packs.
func paperPacks(ps []game.PackCode) []paper.Pack {
	out := make([]paper.Pack, len(ps))
	for i, p := range ps {
		out[i] = paper.Pack{Game: p.Game, Block: p.Block, Pack: p.Pack}
	}
	return out
}

// Paper is the day report as paper prints it, its times in loc.
func (f DayFacts) Paper(loc *time.Location) paper.DayReport {
	r := paper.DayReport{Desk: f.Desk, Day: f.Day.In(loc), PacksReceived: paperPacks(f.Received),
		ReferralsUnknown: f.ReferralsUnknown, JournalHead: f.Head, PrintedAt: f.PrintedAt.In(loc)}
	for _, s := range f.Sales {
		r.Sales = append(r.Sales, paper.Sale{Pack: paper.Pack{Game: s.Pack.Game, Block: s.Pack.Block, Pack: s.Pack.Pack},
			Tickets: s.Tickets, Value: s.Value})
	}
	for _, x := range f.Referrals {
		serial := MaskSerial(x.Serial)
		if serial == "—" {
			serial = x.Serial // the part printed outside the ticket: nothing to mask
		}
		r.Referrals = append(r.Referrals, paper.Referral{At: x.At.In(loc), Serial: serial, Amount: x.Amount,
			Cashier: x.Operator, Tries: x.Tries})
	}
	for _, c := range f.Payments {
		r.Payments = append(r.Payments, paper.Payment{Number: c.Number, At: c.At.In(loc), Serial: MaskSerial(c.Serial),
			Amount: c.Amount, Cashier: c.Operator})
	}
	for _, c := range f.Voids {
		r.Voids = append(r.Voids, paper.Void{Payment: c.Number, At: c.VoidedAt.In(loc), Serial: MaskSerial(c.Serial),
			Amount: c.Amount, By: c.VoidedBy, Reason: c.VoidReason})
	}
	return r
}

// SettlementFacts is what a counter and the operator owe each other for a
// period of whole days, for one game.
//
// The packs on sale in the period are the packs the counter activated in
// it: a pack is sold to the retailer, all its 200 tickets at the ticket
// price, when it goes on sale at its counter, whatever becomes of it later
// (sold out, returned, reported stolen or settled). A pack counts in the
// period of its activation, and in no other, so statements of successive
// periods add up and a statement never changes when later moves are made.
//
// The prizes are the payments made at the counter in the period that no
// void cancels when the statement is made: a voided payment is not the
// operator's to repay.
type SettlementFacts struct {
	Desk     string
	Game     int
	From, To time.Time // the first and the last day (their first instant), both included
	// Packs are the packs activated at the desk in the period, in order.
	Packs    []game.PackCode
	PackSize int // tickets in a pack
	Price    int // euros a ticket
	// Payments are the payments counted, in journal order; PrizeCount and
	// PrizeSum add them up.
	Payments   []Claim
	PrizeCount int
	PrizeSum   int
	Rate       int // the commission, in hundredths of a percent (the commission setting)
	PrintedAt  time.Time
}

// Settlement returns desk's settlement for game gameCode from the day of
// from to the day of to, both included, in their location (time.Local for
// the counter's days). Only the back office settles.
func (l *Ledger) Settlement(ctx context.Context, desk string, gameCode int, from, to time.Time) (SettlementFacts, error) {
	if err := l.backOffice("settlement"); err != nil {
		return SettlementFacts{}, err
	}
	desk = strings.TrimSpace(desk)
	if desk == "" {
		return SettlementFacts{}, errors.New("settlement: name the desk")
	}
	first, _ := dayBounds(from)
	last, end := dayBounds(to)
	if last.Before(first) {
		return SettlementFacts{}, errors.New("settlement: the period ends before it starts: give --since before --until")
	}
	g, err := l.gameOf(ctx, gameCode)
	if err != nil {
		return SettlementFacts{}, err
	}
	s := SettlementFacts{Desk: desk, Game: gameCode, From: first, To: last, PackSize: game.PackSize, Price: g.Price}
	moves, err := l.PackEntries(ctx, PackEntryFilter{Desk: desk, Since: first, Until: end, Moves: []string{"activate"}})
	if err != nil {
		return SettlementFacts{}, err
	}
	var ofGame []PackEntry
	for _, m := range moves {
		if m.Game == gameCode {
			ofGame = append(ofGame, m)
		}
	}
	s.Packs = packsOf(ofGame)
	cs, err := l.Claims(ctx, ClaimFilter{Game: gameCode, Desk: desk, Since: first, Until: end})
	if err != nil {
		return SettlementFacts{}, err
	}
	for _, c := range cs {
		if !c.Voided {
			s.Payments = append(s.Payments, c)
			s.PrizeCount++
			s.PrizeSum += c.Amount
		}
	}
	if s.Rate, err = l.Setting(ctx, SettingCommission); err != nil {
		return SettlementFacts{}, err
	}
	s.PrintedAt = l.now()
	return s, nil
}

// Paper is the settlement as paper prints it (and works out its figures),
// its times in loc.
func (s SettlementFacts) Paper(loc *time.Location) paper.Settlement {
	return paper.Settlement{Desk: s.Desk, From: s.From.In(loc), To: s.To.In(loc), Packs: paperPacks(s.Packs),
		PackSize: s.PackSize, TicketPrice: s.Price, PrizeCount: s.PrizeCount, PrizeSum: s.PrizeSum,
		CommissionRate: s.Rate, PrintedAt: s.PrintedAt.In(loc)}
}
