package paper

import (
	"bytes"
	"compress/zlib"
	"io"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/text/encoding/charmap"
)

func packs(block int, from, n int) []Pack {
	var ps []Pack
	for i := range n {
		ps = append(ps, Pack{531, block, from + i})
	}
	return ps
}

// Figures worked out by hand.
func TestSettlementFigures(t *testing.T) {
	for _, c := range []struct {
		name string
		s    Settlement
		want Figures
		owed string
	}{{
		// 3 packs × 200 tickets × 3 € = 1 800 €; prizes 50 + 15 = 65 €;
		// 5 % of 1 800 € = 90 €; 1 800 − 65 − 90 = 1 645 €.
		name: "retailer owes",
		s:    Settlement{Packs: packs(1, 120, 3), PrizeCount: 2, PrizeSum: 65, CommissionRate: 500},
		want: Figures{Packs: 3, PackSize: 200, Tickets: 600, Price: 300, Sales: 180000, PrizeCount: 2,
			Prizes: 6500, Rate: 500, Commission: 9000, Balance: 164500},
		owed: "Le détaillant doit 1 645,00 € à l’opérateur.",
	}, {
		// 1 pack: 600 €; a 1 000 € prize; 5 % of 600 € = 30 €;
		// 600 − 1 000 − 30 = −430 €.
		name: "operator owes",
		s:    Settlement{Packs: packs(1, 120, 1), PrizeCount: 1, PrizeSum: 1000, CommissionRate: 500},
		want: Figures{Packs: 1, PackSize: 200, Tickets: 200, Price: 300, Sales: 60000, PrizeCount: 1,
			Prizes: 100000, Rate: 500, Commission: 3000, Balance: -43000},
		owed: "L’opérateur doit 430,00 € au détaillant.",
	}, {
		// 600 € − 570 € − 30 € = 0.
		name: "nobody owes",
		s:    Settlement{Packs: packs(1, 120, 1), PrizeCount: 40, PrizeSum: 570, CommissionRate: 500},
		want: Figures{Packs: 1, PackSize: 200, Tickets: 200, Price: 300, Sales: 60000, PrizeCount: 40,
			Prizes: 57000, Rate: 500, Commission: 3000, Balance: 0},
		owed: "Personne ne doit rien : le solde est nul.",
	}, {
		// A pack listed twice is on sale once: 2 packs, 1 200 €;
		// 2,75 % of 1 200 € = 33 €; 1 200 − 33 = 1 167 €.
		name: "duplicate pack",
		s:    Settlement{Packs: append(packs(1, 120, 2), Pack{531, 1, 121}), CommissionRate: 275},
		want: Figures{Packs: 2, PackSize: 200, Tickets: 400, Price: 300, Sales: 120000,
			Rate: 275, Commission: 3300, Balance: 116700},
		owed: "Le détaillant doit 1 167,00 € à l’opérateur.",
	}, {
		// 1 ticket of 1 €, 2,5 %: 2,5 cents round up to 3.
		name: "half a cent",
		s:    Settlement{Packs: packs(1, 0, 1), PackSize: 1, TicketPrice: 1, CommissionRate: 250},
		want: Figures{Packs: 1, PackSize: 1, Tickets: 1, Price: 100, Sales: 100, Rate: 250, Commission: 3, Balance: 97},
		owed: "Le détaillant doit 0,97 € à l’opérateur.",
	}, {
		// 2,4 cents round down to 2.
		name: "under half a cent",
		s:    Settlement{Packs: packs(1, 0, 1), PackSize: 1, TicketPrice: 1, CommissionRate: 240},
		want: Figures{Packs: 1, PackSize: 1, Tickets: 1, Price: 100, Sales: 100, Rate: 240, Commission: 2, Balance: 98},
		owed: "Le détaillant doit 0,98 € à l’opérateur.",
	}} {
		t.Run(c.name, func(t *testing.T) {
			f := c.s.Figures()
			if f != c.want {
				t.Errorf("figures\n got %+v\nwant %+v", f, c.want)
			}
			if got := strings.ReplaceAll(f.Owed(), nbsp, " "); got != c.owed {
				t.Errorf("Owed() = %q, want %q", got, c.owed)
			}
		})
	}
}

func TestCentsString(t *testing.T) {
	for _, c := range []struct {
		c    Cents
		want string
	}{{0, "0,00 €"}, {5, "0,05 €"}, {164500, "1 645,00 €"}, {-43000, "−430,00 €"}, {123456789, "1 234 567,89 €"}} {
		if got := strings.ReplaceAll(c.c.String(), nbsp, " "); got != c.want {
			t.Errorf("Cents(%d) = %q, want %q", c.c, got, c.want)
		}
	}
}

func TestPercent(t *testing.T) {
	for rate, want := range map[int]string{500: "5 %", 550: "5,5 %", 275: "2,75 %", 5: "0,05 %", 0: "0 %", 10000: "100 %"} {
		if got := strings.ReplaceAll(percent(rate), nbsp, " "); got != want {
			t.Errorf("percent(%d) = %q, want %q", rate, got, want)
		}
	}
}

func sampleSettlement() Settlement {
	return Settlement{
		Desk: "D1", From: at(1, 0, 0, 0), To: at(31, 0, 0, 0),
		Packs:      append(packs(1, 120, 3), Pack{531, 2, 40}),
		PrizeCount: 2, PrizeSum: 65, CommissionRate: 500,
		PrintedAt: at(31, 20, 0, 0),
	}
}

func TestSettlement(t *testing.T) {
	owing := sampleSettlement()
	owed := sampleSettlement()
	owed.Desk = "D2"
	owed.Packs = packs(1, 500, 1)
	owed.PrizeCount, owed.PrizeSum, owed.CommissionRate = 1, 1000, 550
	for _, c := range []struct {
		name string
		s    Settlement
		want []string // in the text, and in the content with its no-break spaces
	}{
		{"settlement", owing, []string{"Le détaillant doit 2 215,00 € à l’opérateur.", "4 carnets × 200 tickets"}},
		{"settlement-owed", owed, []string{"L’opérateur doit 433,00 € au détaillant.", "5,5 % × 600,00 €"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			pdf := write(t, func(w *bytes.Buffer) error { return WriteSettlement(w, c.s) })
			text := pdfText(t, pdf)
			golden(t, c.name+".txt", text)
			content := pdfContent(t, pdf)
			for _, want := range c.want {
				if !strings.Contains(text, want) {
					t.Errorf("no %q in the text", want)
				}
				// pdftotext prints no-break spaces as spaces: the content
				// shows where they are.
				typeset := strings.NewReplacer(" €", nbsp+"€", " %", nbsp+"%", "2 215", "2"+nbsp+"215",
					" carnets", nbsp+"carnets", " tickets", nbsp+"tickets").Replace(want)
				if !strings.Contains(content, typeset) {
					t.Errorf("no %q in the content", typeset)
				}
			}
		})
	}
}

func TestSettlementRefused(t *testing.T) {
	for name, s := range map[string]Settlement{
		"negative rate":  {CommissionRate: -1},
		"rate over 100%": {CommissionRate: 10001},
		"negative prize": {PrizeSum: -3},
		"backwards":      {From: at(2, 0, 0, 0), To: at(1, 0, 0, 0)},
	} {
		if err := WriteSettlement(io.Discard, s); err == nil {
			t.Errorf("%s: no error", name)
		}
		if err := WriteSettlementCSV(io.Discard, s); err == nil {
			t.Errorf("%s: no error from the CSV", name)
		}
	}
}

func TestSettlementCSV(t *testing.T) {
	a := sampleSettlement()
	b := sampleSettlement()
	b.Desk = "=HYPERLINK(\"http://x\",\"D2\")"
	b.Packs = packs(1, 500, 1)
	b.PrizeCount, b.PrizeSum, b.CommissionRate = 1, 1000, 550
	c := sampleSettlement()
	c.Desk = "D3"
	c.Packs = packs(1, 600, 1)
	c.PrizeCount, c.PrizeSum = 40, 570
	var buf bytes.Buffer
	if err := WriteSettlementCSV(&buf, a, b, c); err != nil {
		t.Fatal(err)
	}
	want := `desk,from,to,packs,tickets,ticket_price,sales,prize_count,prize_sum,commission_rate,commission,balance,owed_by,owed_to
D1,2025-05-01,2025-05-31,4,800,3.00,2400.00,2,65.00,5.00,120.00,2215.00,retailer,operator
"'=HYPERLINK(""http://x"",""D2"")",2025-05-01,2025-05-31,1,200,3.00,600.00,1,1000.00,5.50,33.00,433.00,operator,retailer
D3,2025-05-01,2025-05-31,1,200,3.00,600.00,40,570.00,5.00,30.00,0.00,,
`
	if got := buf.String(); got != want {
		t.Errorf("CSV\n got %s\nwant %s", got, want)
	}
}

var streams = regexp.MustCompile(`(?s)stream\n(.*?)\nendstream`)

// pdfContent returns the PDF's streams inflated and read as Windows-1252:
// the page contents, with the characters fpdf set, no-break spaces too.
func pdfContent(t *testing.T, pdf []byte) string {
	t.Helper()
	var out strings.Builder
	for _, m := range streams.FindAllSubmatch(pdf, -1) {
		r, err := zlib.NewReader(bytes.NewReader(m[1]))
		if err != nil {
			continue // not a compressed stream
		}
		b, _ := io.ReadAll(r)
		s, err := charmap.Windows1252.NewDecoder().Bytes(b)
		if err != nil {
			t.Fatal(err)
		}
		out.Write(s)
	}
	return out.String()
}
