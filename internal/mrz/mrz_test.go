package mrz

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

// ICAO Doc 9303's own specimens (part 4, the TD3 passport of Utopia; part
// 5, the TD1 card of Utopia), as printed there, and French zones made to
// the French layouts; each field read, each check digit the one computed.
var zones = []struct {
	name, text string
	want       Document
}{
	{"icao-td3-utopia", "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<\nL898902C36UTO7408122F1204159ZE184226B<<<<<10",
		Document{Format: TD3, Code: "P", Issuer: "UTO", Number: "L898902C3", Surname: "ERIKSSON", GivenNames: "ANNA MARIA",
			Nationality: "UTO", Sex: "F", Birth: "740812", Expiry: "120415"}},
	{"icao-td1-utopia", "I<UTOD231458907<<<<<<<<<<<<<<<\n7408122F1204159UTO<<<<<<<<<<<6\nERIKSSON<<ANNA<MARIA<<<<<<<<<<",
		Document{Format: TD1, Code: "I", Issuer: "UTO", Number: "D23145890", Surname: "ERIKSSON", GivenNames: "ANNA MARIA",
			Nationality: "UTO", Sex: "F", Birth: "740812", Expiry: "120415"}},
	{"cni-2021", "IDFRAX4RTBPFW46<<<<<<<<<<<<<<<\n9007138F3002119FRA<<<<<<<<<<<6\nMARTIN<<MAELYS<GAELLE<MARIE<<<",
		Document{Format: TD1, Code: "ID", Issuer: "FRA", Number: "X4RTBPFW4", Surname: "MARTIN", GivenNames: "MAELYS GAELLE MARIE",
			Nationality: "FRA", Sex: "F", Birth: "900713", Expiry: "300211"}},
	{"titre-de-sejour", "IRFRAK29HP4XW11<<<<<<<<<<<<<<<\n8304173M3106154SEN<<<<<<<<<<<8\nDIALLO<<AMADOU<<<<<<<<<<<<<<<<",
		Document{Format: TD1, Code: "IR", Issuer: "FRA", Number: "K29HP4XW1", Surname: "DIALLO", GivenNames: "AMADOU",
			Nationality: "SEN", Sex: "M", Birth: "830417", Expiry: "310615"}},
	{"passeport", "P<FRAORSTED<<ZOE<<<<<<<<<<<<<<<<<<<<<<<<<<<<\n19KD428717FRA8803012F3205172<<<<<<<<<<<<<<<2",
		Document{Format: TD3, Code: "P", Issuer: "FRA", Number: "19KD42871", Surname: "ORSTED", GivenNames: "ZOE",
			Nationality: "FRA", Sex: "F", Birth: "880301", Expiry: "320517"}},
	{"cni-before-2021", "IDFRADUPONT<<<<<<<<<<<<<<<<<<<931021\n8806931028579JEAN<<MARC<<<<6504223M2",
		Document{Format: FrenchID, Code: "ID", Issuer: "FRA", Number: "880693102857", Surname: "DUPONT", GivenNames: "JEAN MARC",
			Sex: "M", Birth: "650422"}},
	// As a reader acting as a keyboard may type it: one line, CR LF, lower case, spaces.
	{"one-line-lower", "idfrax4rtbpfw46<<<<<<<<<<<<<<< 9007138f3002119fra<<<<<<<<<<<6\r\nmartin<<maelys<gaelle<marie<<<",
		Document{Format: TD1, Code: "ID", Issuer: "FRA", Number: "X4RTBPFW4", Surname: "MARTIN", GivenNames: "MAELYS GAELLE MARIE",
			Nationality: "FRA", Sex: "F", Birth: "900713", Expiry: "300211"}},
}

func TestParse(t *testing.T) {
	for _, z := range zones {
		t.Run(z.name, func(t *testing.T) {
			got, err := Parse(z.text)
			if err != nil {
				t.Fatal(err)
			}
			got.Lines = nil
			if !reflect.DeepEqual(got, z.want) {
				t.Errorf("got %+v\nwant %+v", got, z.want)
			}
		})
	}
}

// ICAO's printed check digits are the ones CheckDigit computes (its
// worked example, 9303-3 4.9, and the Utopia specimens' fields).
func TestCheckDigit(t *testing.T) {
	for s, want := range map[string]int{"520727": 3, "L898902C3": 6, "740812": 2, "120415": 9, "ZE184226B<<<<<": 1,
		"D23145890": 7, "L898902C3674081221204159ZE184226B<<<<<1": 0, "X4RTBPFW4": 6, "<": 0, "a": -1} {
		if got := CheckDigit(s); got != want {
			t.Errorf("CheckDigit(%q) = %d, want %d", s, got, want)
		}
	}
}

// Every digit of each zone typed as another digit makes it refused:
// each digit lies in a field that a check digit covers, with a weight (7,
// 3 or 1) prime to 10. (A letter for another whose value differs by 10,
// A for 0, is not caught by 9303's digits: the name, the number's
// format and the dates are checked besides.)
func TestParseMistyped(t *testing.T) {
	for _, z := range zones[:6] {
		lines := strings.Split(z.text, "\n")
		for li, line := range lines {
			for i := range len(line) {
				if line[i] < '0' || line[i] > '9' {
					continue
				}
				for c := byte('0'); c <= '9'; c++ {
					if line[i] == c {
						continue
					}
					m := append([]string(nil), lines...)
					m[li] = line[:i] + string(c) + line[i+1:]
					if d, err := Parse(strings.Join(m, "\n")); !errors.Is(err, ErrCheckDigit) && !errors.Is(err, ErrFormat) {
						t.Errorf("%s line %d col %d typed %c: read %+v, %v", z.name, li+1, i+1, c, d, err)
					}
				}
			}
		}
	}
}

func TestParseRefused(t *testing.T) {
	for _, c := range []struct{ name, text string }{
		{"empty", ""},
		{"short", "IDFRAX4RTBPFW46<<<<<<<<<<<<<<<\n9007138F3002119FRA<<<<<<<<<<<6"},
		{"number-check", "IDFRAX4RTBPFW47<<<<<<<<<<<<<<<\n9007138F3002119FRA<<<<<<<<<<<6\nMARTIN<<MAELYS<GAELLE<MARIE<<<"},
		{"invented-number", "IDFRA000000001<<<<<<<<<<<<<<<<\n9007138F3002119FRA<<<<<<<<<<<6\nNOM<<PRENOM<<<<<<<<<<<<<<<<<<<"},
		{"no-such-day", "IDFRAX4RTBPFW46<<<<<<<<<<<<<<<\n9013318F3002119FRA<<<<<<<<<<<6\nMARTIN<<MAELYS<GAELLE<MARIE<<<"},
		{"accent", "IDFRAX4RTBPFW46<<<<<<<<<<<<<<<\n9007138F3002119FRA<<<<<<<<<<<6\nMARTIN<<MAËLYS<GAELLE<MARIE<<"},
		{"td2", strings.Repeat("I<UTO", 14) + "<<"},
		{"filler-in-number", "IDFRAX4RT<PFW46<<<<<<<<<<<<<<<\n9007138F3002119FRA<<<<<<<<<<<6\nMARTIN<<MAELYS<GAELLE<MARIE<<<"},
		{"passport-as-card", "P<FRAX4RTBPFW46<<<<<<<<<<<<<<<\n9007138F3002119FRA<<<<<<<<<<<6\nMARTIN<<MAELYS<GAELLE<MARIE<<<"},
	} {
		if d, err := Parse(c.text); err == nil {
			t.Errorf("%s: read %+v", c.name, d)
		}
	}
}

func TestDates(t *testing.T) {
	day := func(s string) time.Time { t, _ := time.Parse("2006-01-02", s); return t }
	cni, _ := Parse(zones[2].text)
	old, _ := Parse(zones[5].text)
	for _, c := range []struct {
		d             Document
		at            string
		birth, expiry string
		age           int
	}{
		{cni, "2026-12-07", "1990-07-13", "2030-02-11", 36},
		{cni, "2008-07-12", "1990-07-13", "2030-02-11", 17},
		{cni, "2008-07-13", "1990-07-13", "2030-02-11", 18},
		// Issued in June 1988 to an adult: 10 years then (before 2004).
		{old, "2026-12-07", "1965-04-22", "1998-06-30", 61},
	} {
		at := day(c.at)
		if b := c.d.BirthDate(at).Format("2006-01-02"); b != c.birth {
			t.Errorf("%s at %s: born %s, want %s", c.d.Number, c.at, b, c.birth)
		}
		if e := c.d.ExpiryDate(at).Format("2006-01-02"); e != c.expiry {
			t.Errorf("%s at %s: expires %s, want %s", c.d.Number, c.at, e, c.expiry)
		}
		if a := c.d.AgeAt(at); a != c.age {
			t.Errorf("%s at %s: age %d, want %d", c.d.Number, c.at, a, c.age)
		}
	}
	// A card before 2021 issued in 2013 to an adult: 15 years.
	d := Document{Format: FrenchID, Number: "130793102857", Birth: "650422"}
	if e := d.ExpiryDate(day("2026-12-07")).Format("2006-01-02"); e != "2028-07-31" {
		t.Errorf("issued July 2013 to an adult: expires %s, want 2028-07-31", e)
	}
	d.Birth = "000101" // a minor then: 10 years
	if e := d.ExpiryDate(day("2026-12-07")).Format("2006-01-02"); e != "2023-07-31" {
		t.Errorf("issued July 2013 to a minor: expires %s, want 2023-07-31", e)
	}
}

// The zone is outside input: whatever the text, Parse answers without
// panicking, and a zone it reads has every check digit right and reads
// again the same from its lines.
func FuzzParse(f *testing.F) {
	for _, z := range zones {
		f.Add(z.text)
	}
	f.Add("IDFRA<<<<<<<<<<<<<<<<<<<<<<<<<\n<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<\n<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<")
	f.Add(strings.Repeat("<", 88))
	f.Add(strings.Repeat("<", 72))
	f.Fuzz(func(t *testing.T, text string) {
		d, err := Parse(text)
		if err != nil {
			return
		}
		again, err := Parse(d.Text())
		if err != nil || !reflect.DeepEqual(again, d) {
			t.Fatalf("%q read as %+v, its lines again %+v %v", text, d, again, err)
		}
		if d.Number == "" || d.Surname == "" || len(d.Birth) != 6 {
			t.Fatalf("%q read as %+v", text, d)
		}
		at := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
		if d.BirthDate(at).After(at) || d.AgeAt(at) < 0 || d.AgeAt(at) > 100 {
			t.Fatalf("%q: born %v, %d years old", text, d.BirthDate(at), d.AgeAt(at))
		}
		_ = d.ExpiryDate(at)
	})
}
