package paper

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"
)

func TestDayReportCSV(t *testing.T) {
	r := DayReport{
		Desk: "=D1", Day: at(1, 0, 0, 0), JournalHead: "60303ae2",
		Payments: []Payment{
			{Number: 7, At: at(1, 11, 0, 0), Serial: "531-0001-0000004-••••-••••-••••-1234-5", Amount: 50, Cashier: "Anaïs"},
			{Number: 6, At: at(1, 10, 0, 0), Serial: "531-0001-0000003-••••-••••-••••-1234-5", Amount: 3, Cashier: "Zoé"},
		},
		Voids: []Void{{Payment: 6, At: at(1, 10, 30, 0), Serial: "531-0001-0000003-••••-••••-••••-1234-5", Amount: 3, By: "Benoît", Reason: "erreur"}},
		Referrals: []Referral{
			{At: at(1, 10, 15, 0), Serial: "531-0001-0000009-••••-••••-••••-1234-5", Amount: 1000, Cashier: "Zoé", Tries: 2},
			{At: at(1, 12, 0, 0), Serial: "531-0001-0000010", Cashier: "Zoé", Tries: 1}, // a sealed ledger keeps no prize
		},
		PacksReceived: []Pack{{531, 1, 12}, {531, 1, 11}, {531, 1, 12}},
		Sales:         []Sale{{Pack{531, 1, 11}, 200, 600}},
	}
	var b bytes.Buffer
	if err := WriteDayReportCSV(&b, r); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(strings.NewReader(b.String())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"desk", "day", "kind", "at", "payment", "serial", "amount", "cashier", "reason", "pack", "tries"},
		{"'=D1", "2025-05-01", "payment", "2025-05-01T10:00:00+02:00", "6", "531-0001-0000003-••••-••••-••••-1234-5", "3", "Zoé", "", "", ""},
		{"'=D1", "2025-05-01", "void", "2025-05-01T10:30:00+02:00", "6", "531-0001-0000003-••••-••••-••••-1234-5", "3", "Benoît", "erreur", "", ""},
		{"'=D1", "2025-05-01", "payment", "2025-05-01T11:00:00+02:00", "7", "531-0001-0000004-••••-••••-••••-1234-5", "50", "Anaïs", "", "", ""},
		{"'=D1", "2025-05-01", "referral", "2025-05-01T10:15:00+02:00", "", "531-0001-0000009-••••-••••-••••-1234-5", "1000", "Zoé", "", "", "2"},
		{"'=D1", "2025-05-01", "referral", "2025-05-01T12:00:00+02:00", "", "531-0001-0000010", "", "Zoé", "", "", "1"},
		{"'=D1", "2025-05-01", "received", "", "", "", "", "", "", "531-0001-0011-5", ""},
		{"'=D1", "2025-05-01", "received", "", "", "", "", "", "", "531-0001-0012-8", ""},
		{"'=D1", "2025-05-01", "activated", "", "", "", "600", "", "", "531-0001-0011-5", ""},
		{"'=D1", "2025-05-01", "journal-head", "", "", "", "", "", "60303ae2", "", ""},
	}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d:\n%s", len(rows), len(want), b.String())
	}
	for i := range want {
		if strings.Join(rows[i], "|") != strings.Join(want[i], "|") {
			t.Errorf("row %d:\n got %q\nwant %q", i, rows[i], want[i])
		}
	}
}
