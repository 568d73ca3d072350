package core

import (
	"cmp"
	"slices"
	"time"

	"vegas-desk/internal/game"
)

// The retail papers' facts: a payment's receipt, a counter's day report and
// its settlement for a period, as plain data (…Facts) read from a ledger;
// the paper package makes its documents of them (paper.ReceiptOf,
// DayReportOf, SettlementOf), which the command line and the app print: the
// rule links no PDF library.

// ReceiptFacts is what a payment's receipt shows.
type ReceiptFacts struct {
	Claim     Claim // voided or not
	GameName  string
	Head      string // the journal's head when printing
	PrintedAt time.Time
}

// MaskSerial prints a serial with its secret part hidden
// (game.Serial.Masked); a public serial (a sealed counter ledger's payment
// keeps no more) with all of it hidden; anything else as "—": a paper
// never shows a whole serial.
func MaskSerial(serial string) string {
	s, err := game.ParseSerial(serial)
	if err == nil {
		return s.Masked()
	}
	if _, _, _, ok := game.ParsePublicSerial(serial); ok {
		return serial + "-••••-••••-••••-••••-•"
	}
	return "—"
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
	// counter through a validation server, a Serial is only its part printed outside the
	// ticket ("531-0001-0456789"), and a sealed ledger's Amount is 0 (it
	// keeps no unpaid prize).
	Referrals []Referral
	// Cases are the double payments (Case) in which a payment of the
	// counter's that day takes part: its payment is counted in Payments
	// (the cash it paid out), the case says what is to recover.
	Cases     []Case
	Head      string
	PrintedAt time.Time
}

// Sale is a pack put on sale at a counter and what it is worth: its
// tickets at the game's price.
type Sale struct {
	Pack    game.PackCode
	Tickets int
	Value   int // euros
}

// ReferralsOf makes referral entries, in journal order, into one Referral
// per ticket, in the order of their first referral.
func ReferralsOf(rows []Entry) []Referral {
	var out []Referral
	idx := map[[3]int]int{}
	for _, e := range rows {
		at := ParseTime(e.AtText)
		k := [3]int{e.Game, e.Block, e.Position}
		if i, ok := idx[k]; ok {
			out[i].Tries++
			out[i].Last = at
			continue
		}
		idx[k] = len(out)
		out = append(out, Referral{Entry: e.ID, Number: e.Number, At: at, Serial: e.Serial, Game: e.Game, Block: e.Block,
			Position: e.Position, Amount: e.Amount, Desk: e.Desk, Operator: e.Operator, Tries: 1, Last: at})
	}
	return out
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
	// Cases are the double payments in which a payment of the counter's in
	// the period takes part (CasesOf): counted in the prizes all the same
	// (what the counter paid out in cash it is owed), to recover.
	Cases     []Case
	Rate      int // the commission, in hundredths of a percent (the commission setting)
	PrintedAt time.Time
}

// DayBounds is the local day of t: its first instant and the next day's.
func DayBounds(t time.Time) (time.Time, time.Time) {
	d := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, t.Location())
	return d, d.AddDate(0, 0, 1)
}

// PacksOf lists the pack codes of moves, in order, each once.
func PacksOf(moves []PackEntry) []game.PackCode {
	var out []game.PackCode
	for _, m := range moves {
		for p := m.First; p <= m.Last; p++ {
			out = append(out, game.PackCode{Game: m.Game, Block: m.Block, Pack: p})
		}
	}
	slices.SortFunc(out, func(a, b game.PackCode) int {
		return cmp.Or(cmp.Compare(a.Game, b.Game), cmp.Compare(a.Block, b.Block), cmp.Compare(a.Pack, b.Pack))
	})
	return slices.Compact(out)
}
