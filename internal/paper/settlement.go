package paper

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/core"
)

// Settlement is what a counter and the operator owe each other for a
// period. The retailer takes the money of the tickets it sells, pays the
// prizes out of it and earns a commission on its sales: it owes the
// operator its sales less the prizes and the commission, and when that is
// below zero the operator owes it the difference.
type Settlement struct {
	Desk     string
	From, To time.Time // the period, both days included
	// Packs are the packs on sale in the period. Each counts once, sold
	// whole: sales are packs × PackSize × TicketPrice.
	Packs       []Pack
	PackSize    int // tickets in a pack; 0 for the game's 200
	TicketPrice int // euros a ticket; 0 for the game's 3 €
	PrizeCount  int // prizes paid in the period, net of voids
	PrizeSum    int // their sum, in euros
	// Doubles are the double payments a payment of the counter's in the
	// period takes part in: counted in the prizes (it paid them out).
	Doubles []DoublePayment
	// CommissionRate is the retailer's commission on its sales, in
	// hundredths of a percent: 500 is 5 %, 550 is 5,5 %.
	CommissionRate int
	// PrintedAt is when the statement is made; it is the PDF's date too
	// (To when zero).
	PrintedAt time.Time
}

// Cents is an amount of money in euro cents.
type Cents int64

// String prints an amount the French way: "1 645,00 €", "−430,00 €".
func (c Cents) String() string {
	sign := ""
	if c < 0 {
		sign, c = "−", -c
	}
	return fmt.Sprintf("%s%s,%02d%s€", sign, number(int(c/100)), c%100, nbsp)
}

// decimal prints an amount for a machine: "1645.00".
func (c Cents) decimal() string {
	sign := ""
	if c < 0 {
		sign, c = "-", -c
	}
	return fmt.Sprintf("%s%d.%02d", sign, c/100, c%100)
}

// Figures are a settlement's numbers, each worked out from its input.
type Figures struct {
	Packs      int   // packs on sale, each once
	PackSize   int   // tickets in a pack
	Tickets    int   // Packs × PackSize
	Price      Cents // a ticket
	Sales      Cents // Tickets × Price
	PrizeCount int
	Prizes     Cents
	Rate       int   // the commission rate, in hundredths of a percent
	Commission Cents // Sales × Rate, rounded to the nearest cent, halves up
	// Balance is Sales − Prizes − Commission: above zero the retailer owes
	// it to the operator, below zero the operator owes its opposite to the
	// retailer.
	Balance Cents
}

// Figures works out the settlement's numbers.
func (s Settlement) Figures() Figures {
	size, price := s.PackSize, s.TicketPrice
	if size == 0 {
		size = game.PackSize
	}
	if price == 0 {
		price = game.Price
	}
	f := Figures{
		Packs:      len(distinctPacks(s.Packs)),
		PackSize:   size,
		Price:      Cents(price) * 100,
		PrizeCount: s.PrizeCount,
		Prizes:     Cents(s.PrizeSum) * 100,
		Rate:       s.CommissionRate,
	}
	f.Tickets = f.Packs * f.PackSize
	f.Sales = Cents(f.Tickets) * f.Price
	f.Commission = (f.Sales*Cents(f.Rate) + 5000) / 10000
	f.Balance = f.Sales - f.Prizes - f.Commission
	return f
}

// Owed says who owes whom how much: "Le détaillant doit 1 645,00 € à
// l’opérateur.", "L’opérateur doit 430,00 € au détaillant." or "Personne
// ne doit rien : le solde est nul."
func (f Figures) Owed() string {
	switch {
	case f.Balance > 0:
		return "Le détaillant doit " + f.Balance.String() + " à l’opérateur."
	case f.Balance < 0:
		return "L’opérateur doit " + (-f.Balance).String() + " au détaillant."
	}
	return "Personne ne doit rien" + nbsp + ": le solde est nul."
}

// check refuses a settlement whose figures would mean nothing.
func (s Settlement) check() error {
	switch {
	case s.PackSize < 0 || s.TicketPrice < 0:
		return errors.New("settlement: negative pack size or ticket price")
	case s.PrizeCount < 0 || s.PrizeSum < 0:
		return errors.New("settlement: negative prizes paid")
	case s.CommissionRate < 0 || s.CommissionRate > 10000:
		return fmt.Errorf("settlement: commission rate %d is not between 0 and 10000 hundredths of a percent", s.CommissionRate)
	case s.To.Before(s.From):
		return errors.New("settlement: the period ends before it starts")
	}
	return nil
}

// percent prints a rate in hundredths of a percent: "5 %", "5,5 %", "2,75 %".
func percent(rate int) string {
	s := fmt.Sprint(rate / 100)
	if frac := rate % 100; frac != 0 {
		s += strings.TrimSuffix(fmt.Sprintf(",%02d", frac), "0")
	}
	return s + nbsp + "%"
}

// WriteSettlement writes the settlement statement of a counter for a
// period: A4, the computation line by line and who owes whom.
func WriteSettlement(w io.Writer, s Settlement) error {
	if err := s.check(); err != nil {
		return err
	}
	period := "du " + date(s.From) + " au " + date(s.To)
	m := meta{
		title: "Relevé de compte — guichet " + orDash(s.Desk) + " — " + period + printed(s.PrintedAt),
		date:  docDate(s.PrintedAt, s.To),
	}
	return writeA4(w, m, func(d *doc) {
		f := s.Figures()
		d.title("Relevé de compte", "Guichet "+orDash(s.Desk)+" — "+period)

		d.heading(fmt.Sprintf("Carnets en vente pendant la période (%d)", f.Packs), 5)
		d.mono("", 9)
		d.para(0, 4.5, packList(s.Packs), "L")

		d.heading("Calcul", 7*rowH)
		t := table{d, []column{
			{"Poste", 50, "L", false},
			{"Calcul", 90, "L", false},
			{"Montant", 40, "R", false},
		}, 0}
		t.header()
		t.row("", "", "Carnets en vente", "", number(f.Packs))
		t.row("", "", "Tickets", count(f.Packs, "carnet")+" × "+count(f.PackSize, "ticket"), number(f.Tickets))
		t.row("", "", "Ventes", count(f.Tickets, "ticket")+" × "+f.Price.String(), f.Sales.String())
		t.row("", "", "Gains payés", count(f.PrizeCount, "gain"), f.Prizes.String())
		t.row("", "", "Commission ("+percent(f.Rate)+" des ventes)", percent(f.Rate)+" × "+f.Sales.String(), f.Commission.String())
		t.row("B", "", "Solde", f.Sales.String()+" − "+f.Prizes.String()+" − "+f.Commission.String(), f.Balance.String())
		d.pdf.Ln(5)
		d.need(14)
		d.font("B", 12)
		d.pdf.SetLineWidth(0.4)
		d.pdf.CellFormat(0, 11, cp1252(f.Owed()), "1", 1, "C", false, 0, "")

		d.pdf.Ln(5)
		d.font("", 8.5)
		d.para(0, 4.2, "Chaque carnet en vente pendant la période est compté vendu en entier. "+
			"Le solde est ce que le détaillant a encaissé (les ventes), moins les gains qu’il a payés "+
			"et sa commission. La commission est arrondie au centime le plus proche.", "L")
		doubles(d, s.Doubles)
	})
}

// WriteSettlementCSV writes settlements as CSV, a header line then one row
// per settlement, so that the statements of several counters or periods
// make one sheet: desk, from, to (dates as 2006-01-02), packs, tickets,
// ticket_price, sales, prize_count, prize_sum, commission_rate (a percentage,
// "5.50"), commission, balance, owed_by, owed_to. Amounts are euros with a
// decimal point ("1645.00"). The balance is never negative: owed_by
// ("retailer" or "operator") owes it to owed_to; both are empty when it is
// zero. Every cell goes through core.CSVCell.
func WriteSettlementCSV(w io.Writer, settlements ...Settlement) error {
	cw := csv.NewWriter(w)
	write := func(cells ...string) {
		for i, c := range cells {
			cells[i] = core.CSVCell(c)
		}
		cw.Write(cells)
	}
	write("desk", "from", "to", "packs", "tickets", "ticket_price", "sales", "prize_count", "prize_sum",
		"commission_rate", "commission", "balance", "owed_by", "owed_to")
	for _, s := range settlements {
		if err := s.check(); err != nil {
			return err
		}
		f := s.Figures()
		by, to, balance := "", "", f.Balance
		switch {
		case balance > 0:
			by, to = "retailer", "operator"
		case balance < 0:
			by, to, balance = "operator", "retailer", -balance
		}
		write(s.Desk, s.From.Format(time.DateOnly), s.To.Format(time.DateOnly),
			fmt.Sprint(f.Packs), fmt.Sprint(f.Tickets), f.Price.decimal(), f.Sales.decimal(),
			fmt.Sprint(f.PrizeCount), f.Prizes.decimal(), fmt.Sprintf("%d.%02d", f.Rate/100, f.Rate%100), f.Commission.decimal(),
			balance.decimal(), by, to)
	}
	cw.Flush()
	return cw.Error()
}
