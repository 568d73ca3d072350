package paper

import (
	"time"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/core"
)

// The retail papers made of the facts a ledger reads (core.ReceiptFacts,
// DayFacts, SettlementFacts): here, beside the PDFs, so that the rule
// (core) links no PDF library. A paper never shows a whole serial
// (core.MaskSerial).

// ReceiptOf is the receipt of r, its times in loc.
func ReceiptOf(r core.ReceiptFacts, loc *time.Location) Receipt {
	c := r.Claim
	p := Receipt{Game: c.Game, GameName: r.GameName, Serial: core.MaskSerial(c.Serial), Amount: c.Amount,
		PaidAt: c.At.In(loc), Desk: c.Desk, Cashier: c.Operator, Payment: c.Number, EntryHash: c.Hash,
		JournalHead: r.Head, PrintedAt: r.PrintedAt.In(loc)}
	if c.Voided {
		p.Voided, p.VoidedAt, p.VoidedBy, p.VoidReason = true, c.VoidedAt.In(loc), c.VoidedBy, c.VoidReason
	}
	return p
}

// DayReportOf is the day report of f, its times in loc.
func DayReportOf(f core.DayFacts, loc *time.Location) DayReport {
	r := DayReport{Desk: f.Desk, Day: f.Day.In(loc), PacksReceived: packsOf(f.Received),
		Doubles: doublesOf(f.Cases, loc), JournalHead: f.Head, PrintedAt: f.PrintedAt.In(loc)}
	for _, s := range f.Sales {
		r.Sales = append(r.Sales, Sale{Pack: Pack{Game: s.Pack.Game, Block: s.Pack.Block, Pack: s.Pack.Pack},
			Tickets: s.Tickets, Value: s.Value})
	}
	for _, x := range f.Referrals {
		serial := core.MaskSerial(x.Serial)
		r.Referrals = append(r.Referrals, Referral{At: x.At.In(loc), Serial: serial, Amount: x.Amount,
			Cashier: x.Operator, Tries: x.Tries})
	}
	for _, c := range f.Payments {
		r.Payments = append(r.Payments, Payment{Number: c.Number, At: c.At.In(loc), Serial: core.MaskSerial(c.Serial),
			Amount: c.Amount, Cashier: c.Operator})
	}
	for _, c := range f.Voids {
		r.Voids = append(r.Voids, Void{Payment: c.Number, At: c.VoidedAt.In(loc), Serial: core.MaskSerial(c.Serial),
			Amount: c.Amount, By: c.VoidedBy, Reason: c.VoidReason})
	}
	return r
}

// SettlementOf is the settlement of s (whose Figures work out its
// figures), its times in loc.
func SettlementOf(s core.SettlementFacts, loc *time.Location) Settlement {
	return Settlement{Desk: s.Desk, From: s.From.In(loc), To: s.To.In(loc), Packs: packsOf(s.Packs),
		PackSize: s.PackSize, TicketPrice: s.Price, PrizeCount: s.PrizeCount, PrizeSum: s.PrizeSum,
		Doubles: doublesOf(s.Cases, loc), CommissionRate: s.Rate, PrintedAt: s.PrintedAt.In(loc)}
}

// packsOf turns pack codes into packs.
func packsOf(ps []game.PackCode) []Pack {
	out := make([]Pack, len(ps))
	for i, p := range ps {
		out[i] = Pack{Game: p.Game, Block: p.Block, Pack: p.Pack}
	}
	return out
}
