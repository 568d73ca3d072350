package paper

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"time"
)

// DayReport is one counter's day: its payments and voids, the prizes it
// sent to the back office, the packs it received and put on sale with
// their value, and the journal's head: what the drawer is reconciled with.
type DayReport struct {
	Desk          string
	Day           time.Time // any time of the day, in the counter's location
	Payments      []Payment // the payments made that day, in any order
	Voids         []Void    // the voids made that day, of payments of any day
	Referrals     []Referral
	PacksReceived []Pack
	Sales         []Sale // the packs put on sale that day
	// Doubles are the double payments a payment of the counter's that day
	// takes part in (counted in Payments all the same).
	Doubles     []DoublePayment
	JournalHead string // hex hash of the journal's last entry when printing
	// PrintedAt is when the report is printed; it is the PDF's date too
	// (Day when zero).
	PrintedAt time.Time
}

// Payment is a prize paid at a counter.
type Payment struct {
	Number  int64     // the payment (claim) number
	At      time.Time // in the counter's location
	Serial  string    // masked by the caller, as on the receipt
	Amount  int       // euros
	Cashier string
}

// Referral is a prize above the counter's payout limit, sent to the back
// office, which pays it: the counter paid nothing.
type Referral struct {
	At      time.Time // the first time it was shown, in the counter's location
	Serial  string    // masked, or the part printed outside the ticket
	Amount  int       // euros; 0 where the ledger keeps no unpaid prize (a sealed counter ledger)
	Cashier string
	Tries   int // the times it was shown that day
}

// Sale is a pack put on sale at the counter: sold to the retailer, its
// tickets at the game's price.
type Sale struct {
	Pack    Pack
	Tickets int
	Value   int // euros
}

// Void is the voiding of a payment.
type Void struct {
	Payment int64     // the number of the payment voided
	At      time.Time // when it was voided, in the counter's location
	Serial  string    // the voided payment's serial, masked
	Amount  int       // the voided payment's amount, in euros
	By      string    // who voided it
	Reason  string
}

// WriteDayReport writes a counter's day report: A4, as many pages as it
// takes, the payments table's header repeated on each.
//
// The totals are the day's cash: per prize, the payments made that day
// less the voids made that day (a void may undo an earlier day's payment,
// so a net count or sum can be negative).
func WriteDayReport(w io.Writer, r DayReport) error {
	m := meta{
		title: "Rapport du jour — guichet " + orDash(r.Desk) + " — " + date(r.Day) + printed(r.PrintedAt),
		date:  docDate(r.PrintedAt, r.Day),
	}
	return writeA4(w, m, r.layout)
}

// printed is the end of a footer: " — imprimé le …", or nothing.
func printed(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return " — imprimé le " + stamp(t)
}

func (r *DayReport) layout(d *doc) {
	d.title("Rapport du jour", "Guichet "+orDash(r.Desk)+" — "+longDate(r.Day))
	r.summary(d)
	r.events(d)
	r.totals(d)
	doubles(d, r.Doubles)
	r.referrals(d)
	r.sales(d)

	d.heading(fmt.Sprintf("Carnets reçus (%d)", len(distinctPacks(r.PacksReceived))), 5)
	d.mono("", 9)
	d.para(0, 4.5, packList(r.PacksReceived), "L")

	d.heading("Journal", 10)
	d.hexField("Tête du journal à l’impression", r.JournalHead, 8)
}

// DayFigures are a day's sums, which the report's summary and the
// command line's exports give.
type DayFigures struct {
	Paid, Voided int // euros paid that day, and of the payments voided that day
	Sales        int // euros: the value of the packs put on sale
	Referred     int // euros sent to the back office (the amounts known)
}

// Net is the day's prizes: paid less voided.
func (f DayFigures) Net() int { return f.Paid - f.Voided }

// Figures adds up the day: what was paid and voided, what the packs put on
// sale are worth, and what was sent to the back office.
func (r *DayReport) Figures() DayFigures {
	var f DayFigures
	for _, p := range r.Payments {
		f.Paid += p.Amount
	}
	for _, v := range r.Voids {
		f.Voided += v.Amount
	}
	for _, s := range r.Sales {
		f.Sales += s.Value
	}
	for _, x := range r.Referrals {
		f.Referred += x.Amount
	}
	return f
}

// summary prints the day in four lines, to reconcile the drawer with: the
// packs put on sale, the prizes paid (less the voids), what the two come
// to, and the prizes sent to the back office, which the drawer did not pay.
func (r *DayReport) summary(d *doc) {
	f := r.Figures()
	d.heading("Récapitulatif", 4*rowH)
	lw := 75.0
	d.field(lw, rowH, "Carnets mis en vente", count(len(r.Sales), "carnet")+" — "+euros(f.Sales))
	d.field(lw, rowH, "Gains payés, annulations déduites", fmt.Sprintf("%s − %s = %s", euros(f.Paid), euros(f.Voided), signed(f.Net(), euros)))
	d.field(lw, rowH, "Ventes moins gains payés", signed(f.Sales-f.Net(), euros))
	referred := count(len(r.Referrals), "ticket") + " — " + euros(f.Referred) + ", payés par le service central, pas par la caisse"
	d.field(lw, rowH, "Renvois au service central", referred)
}

// referrals prints the prizes sent to the back office, one line a ticket.
func (r *DayReport) referrals(d *doc) {
	d.heading(fmt.Sprintf("Renvois au service central (%d)", len(r.Referrals)), 2*rowH)
	if len(r.Referrals) == 0 {
		d.font("", 9.5)
		d.line(5, "Aucun gain renvoyé au service central ce jour.", "L")
		return
	}
	t := table{d, []column{
		{"Heure", 15, "L", false},
		{"Ticket", 72, "L", true},
		{"Gain", 25, "R", false},
		{"Présenté", 20, "R", false},
		{"Caissier", 48, "L", false},
	}, 1}
	t.header()
	total := 0
	for _, x := range r.Referrals {
		amount := "non gardé"
		if x.Amount > 0 {
			amount = euros(x.Amount)
			total += x.Amount
		}
		t.row("", "", x.At.Format("15:04:05"), orDash(x.Serial), amount, fmt.Sprintf("%d%sfois", max(x.Tries, 1), nbsp), orDash(x.Cashier))
	}
	t.row("B", "", "Total", "", euros(total), "", "")
}

// sales prints the packs put on sale, each with its value, and the total.
func (r *DayReport) sales(d *doc) {
	d.heading(fmt.Sprintf("Carnets mis en vente (%d)", len(r.Sales)), 2*rowH)
	if len(r.Sales) == 0 {
		d.font("", 9.5)
		d.line(5, "Aucun carnet mis en vente ce jour.", "L")
		return
	}
	t := table{d, []column{
		{"Carnet", 45, "L", true},
		{"Tickets", 25, "R", false},
		{"Valeur", 30, "R", false},
	}, 0}
	t.header()
	tickets, value := 0, 0
	for _, s := range r.Sales {
		t.row("", "", s.Pack.String(), number(s.Tickets), euros(s.Value))
		tickets += s.Tickets
		value += s.Value
	}
	t.row("B", "", "Total", number(tickets), euros(value))
}

// event is a row of the day's table: a payment or a void.
type event struct {
	at      time.Time
	number  int64
	void    bool
	serial  string
	amount  int
	cashier string
	reason  string
}

// events prints the payments and voids in the order they happened.
func (r *DayReport) events(d *doc) {
	var evs []event
	for _, p := range r.Payments {
		evs = append(evs, event{p.At, p.Number, false, p.Serial, p.Amount, p.Cashier, ""})
	}
	for _, v := range r.Voids {
		evs = append(evs, event{v.At, v.Payment, true, v.Serial, v.Amount, v.By, v.Reason})
	}
	slices.SortStableFunc(evs, func(a, b event) int {
		return cmp.Or(a.at.Compare(b.at), cmp.Compare(a.number, b.number))
	})

	d.heading(fmt.Sprintf("Paiements (%d) et annulations (%d)", len(r.Payments), len(r.Voids)), 2*rowH)
	if len(evs) == 0 {
		d.font("", 9.5)
		d.line(5, "Aucun paiement ni annulation ce jour.", "L")
		return
	}
	t := table{d, []column{
		{"Heure", 15, "L", false},
		{"Paiement", 17, "R", false},
		{"Opération", 20, "L", false},
		{"Ticket", 72, "L", true}, // a masked serial whole: 38 characters of Courier
		{"Montant", 20, "R", false},
		{"Caissier", 36, "L", false},
	}, 2}
	t.header()
	for _, e := range evs {
		op, amount, note := "paiement", euros(e.amount), ""
		if e.void {
			op, amount = "annulation", "−"+amount
			note = "Motif" + nbsp + ":" + nbsp + orDash(e.reason)
		}
		t.row("", note, e.at.Format("15:04:05"), "n°"+nbsp+fmt.Sprint(e.number), op, orDash(e.serial), amount, orDash(e.cashier))
	}
}

// prizeTotal is a line of the totals per prize.
type prizeTotal struct{ amount, paid, voided int }

// totals prints, per prize, the day's payments, voids, and what they come to.
func (r *DayReport) totals(d *doc) {
	by := map[int]*prizeTotal{}
	get := func(amount int) *prizeTotal {
		if by[amount] == nil {
			by[amount] = &prizeTotal{amount: amount}
		}
		return by[amount]
	}
	for _, p := range r.Payments {
		get(p.Amount).paid++
	}
	for _, v := range r.Voids {
		get(v.Amount).voided++
	}
	var rows []prizeTotal
	for _, pt := range by {
		rows = append(rows, *pt)
	}
	slices.SortFunc(rows, func(a, b prizeTotal) int { return cmp.Compare(b.amount, a.amount) })

	d.heading("Totaux par gain", 3*rowH)
	if len(rows) == 0 {
		d.font("", 9.5)
		d.line(5, "Rien à totaliser.", "L")
		return
	}
	t := table{d, []column{
		{"Gain", 40, "R", false},
		{"Paiements", 30, "R", false},
		{"Annulations", 30, "R", false},
		{"Nombre net", 35, "R", false},
		{"Montant net", 45, "R", false},
	}, 0}
	t.header()
	var total prizeTotal
	sum := 0
	for _, pt := range rows {
		net := pt.paid - pt.voided
		t.row("", "", euros(pt.amount), number(pt.paid), number(pt.voided), signed(net, number), signed(net*pt.amount, euros))
		total.paid += pt.paid
		total.voided += pt.voided
		sum += net * pt.amount
	}
	net := total.paid - total.voided
	t.row("B", "", "Total", number(total.paid), number(total.voided), signed(net, number), signed(sum, euros))
}

// signed prints n with format, and a minus sign when it is negative.
func signed(n int, format func(int) string) string {
	if n < 0 {
		return "−" + format(-n)
	}
	return format(n)
}
