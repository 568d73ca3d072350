package paper

import (
	"cmp"
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"time"

	"vegas-desk/internal/ledger/core"
)

// WriteDayReportCSV writes a counter's day report as CSV, for a
// spreadsheet: a header line, then one row per event in the order they
// happened — payments and voids —, the referrals to the back office, then
// the packs received and put on sale:
//
//	desk, day, kind, at, payment, serial, amount, cashier, reason, pack, tries
//
// kind is "payment", "void", "referral", "double-payment", "received" or
// "activated"; a double-payment row is a case (DoublePayment): payment its
// number, amount what is to recover, reason both payments and, once
// closed, the decision; day is
// 2006-01-02, at RFC 3339 (empty for packs, which the report lists by day);
// amount is in euros: the amount paid or voided (kind says which: a
// negative number would need core.CSVCell's quote and read as text), the prize
// referred (empty where the ledger keeps none), or the value of a pack put
// on sale; pack is the pack's code with its check digit; tries is the
// number of times a referred ticket was shown. The journal's head ends
// the file on a row of kind "journal-head" (in reason). Every cell goes through core.CSVCell.
func WriteDayReportCSV(w io.Writer, r DayReport) error {
	cw := csv.NewWriter(w)
	write := func(cells ...string) {
		for i, c := range cells {
			cells[i] = core.CSVCell(c)
		}
		cw.Write(cells)
	}
	day := r.Day.Format(time.DateOnly)
	write("desk", "day", "kind", "at", "payment", "serial", "amount", "cashier", "reason", "pack", "tries")
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
	for _, e := range evs {
		kind := "payment"
		if e.void {
			kind = "void"
		}
		write(r.Desk, day, kind, e.at.Format(time.RFC3339), fmt.Sprint(e.number), e.serial, fmt.Sprint(e.amount), e.cashier, e.reason, "", "")
	}
	for _, x := range r.Referrals {
		amount := ""
		if x.Amount > 0 {
			amount = fmt.Sprint(x.Amount)
		}
		write(r.Desk, day, "referral", x.At.Format(time.RFC3339), "", x.Serial, amount, x.Cashier, "", "", fmt.Sprint(x.Tries))
	}
	for _, x := range r.Doubles {
		reason := x.Payments
		if x.Decision != "" {
			reason += " — " + x.Decision
		}
		write(r.Desk, day, "double-payment", "", fmt.Sprint(x.Case), x.Serial, fmt.Sprint(x.Amount), "", reason, "", "")
	}
	for _, p := range distinctPacks(r.PacksReceived) {
		write(r.Desk, day, "received", "", "", "", "", "", "", p.String(), "")
	}
	for _, x := range r.Sales {
		write(r.Desk, day, "activated", "", "", "", fmt.Sprint(x.Value), "", "", x.Pack.String(), "")
	}
	write(r.Desk, day, "journal-head", "", "", "", "", "", r.JournalHead, "", "")
	cw.Flush()
	return cw.Error()
}
