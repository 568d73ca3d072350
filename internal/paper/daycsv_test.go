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
		Voids:          []Void{{Payment: 6, At: at(1, 10, 30, 0), Serial: "531-0001-0000003-••••-••••-••••-1234-5", Amount: 3, By: "Benoît", Reason: "erreur"}},
		PacksReceived:  []Pack{{531, 1, 12}, {531, 1, 11}, {531, 1, 12}},
		PacksActivated: []Pack{{531, 1, 11}},
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
		{"desk", "day", "kind", "at", "payment", "serial", "amount", "cashier", "reason", "pack"},
		{"'=D1", "2025-05-01", "payment", "2025-05-01T10:00:00+02:00", "6", "531-0001-0000003-••••-••••-••••-1234-5", "3", "Zoé", "", ""},
		{"'=D1", "2025-05-01", "void", "2025-05-01T10:30:00+02:00", "6", "531-0001-0000003-••••-••••-••••-1234-5", "3", "Benoît", "erreur", ""},
		{"'=D1", "2025-05-01", "payment", "2025-05-01T11:00:00+02:00", "7", "531-0001-0000004-••••-••••-••••-1234-5", "50", "Anaïs", "", ""},
		{"'=D1", "2025-05-01", "received", "", "", "", "", "", "", "531-0001-0011"},
		{"'=D1", "2025-05-01", "received", "", "", "", "", "", "", "531-0001-0012"},
		{"'=D1", "2025-05-01", "activated", "", "", "", "", "", "", "531-0001-0011"},
		{"'=D1", "2025-05-01", "journal-head", "", "", "", "", "", "60303ae2", ""},
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
