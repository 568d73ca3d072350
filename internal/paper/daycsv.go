package paper

import (
	"cmp"
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"time"
)

// WriteDayReportCSV writes a counter's day report as CSV, for a
// spreadsheet: a header line, then one row per event in the order they
// happened — payments and voids — then the packs received and activated:
//
//	desk, day, kind, at, payment, serial, amount, cashier, reason, pack
//
// kind is "payment", "void", "received" or "activated"; day is 2006-01-02,
// at RFC 3339 (empty for packs, which the report lists by day); amount is
// in euros, the amount paid or voided (kind says which: a negative number
// would need CSVCell's quote and read as text); pack is the pack's game-block-pack. The
// journal's head ends the file on a row of kind "journal-head" (in
// reason). Every cell goes through CSVCell.
func WriteDayReportCSV(w io.Writer, r DayReport) error {
	cw := csv.NewWriter(w)
	write := func(cells ...string) {
		for i, c := range cells {
			cells[i] = CSVCell(c)
		}
		cw.Write(cells)
	}
	day := r.Day.Format(time.DateOnly)
	write("desk", "day", "kind", "at", "payment", "serial", "amount", "cashier", "reason", "pack")
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
		write(r.Desk, day, kind, e.at.Format(time.RFC3339), fmt.Sprint(e.number), e.serial, fmt.Sprint(e.amount), e.cashier, e.reason, "")
	}
	for _, k := range []struct {
		kind  string
		packs []Pack
	}{{"received", r.PacksReceived}, {"activated", r.PacksActivated}} {
		for _, p := range distinctPacks(k.packs) {
			write(r.Desk, day, k.kind, "", "", "", "", "", "", p.String())
		}
	}
	write(r.Desk, day, "journal-head", "", "", "", "", "", r.JournalHead, "")
	cw.Flush()
	return cw.Error()
}
