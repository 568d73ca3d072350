// Package mrz reads the machine-readable zone of an identity document
// (ICAO Doc 9303): the lines of capitals, digits and '<' at the foot of a
// passport (TD3: 2 lines of 44), of an identity card or a residence permit
// (TD1: 3 lines of 30), and of the French identity card issued before
// August 2021 (its own format: 2 lines of 36). Its check digits catch a
// misread or made-up number or date. The text comes from outside (typed,
// or from an MRZ reader acting as a keyboard): Parse refuses what is not
// a zone whose check digits all hold, and never panics.
package mrz

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Format is the layout of a zone.
type Format string

// The layouts Parse reads.
const (
	TD1      Format = "TD1"    // 3 lines of 30: identity cards, residence permits
	TD3      Format = "TD3"    // 2 lines of 44: passports
	FrenchID Format = "FR-CNI" // 2 lines of 36: the French identity card before August 2021
)

// Document is what a zone says.
type Document struct {
	Format      Format
	Code        string // the document code: "P" or "P<"-like for a passport, "ID", "IR"… for a card ('<' removed)
	Issuer      string // the issuing state, 3 letters (FRA)
	Number      string // the document number ('<' removed)
	Surname     string // the primary identifier, words separated by one space
	GivenNames  string // the secondary identifier, words separated by one space
	Nationality string // 3 letters ("" for the old French card, which has none)
	Sex         string // "M", "F" or "<"
	Birth       string // YYMMDD
	Expiry      string // YYMMDD; "" for the old French card, whose zone has none (ExpiryOf)
	Lines       []string
}

// ErrFormat: the text is not a zone of a known layout.
var ErrFormat = errors.New("not a machine-readable zone")

// ErrCheckDigit: a check digit does not hold (a character misread or
// typed wrong, or a number made up).
var ErrCheckDigit = errors.New("check digit wrong")

// Parse reads a zone: its lines as printed, separated by line breaks (or
// typed on one line: the layout is told by the number of characters),
// in capitals or not; spaces are ignored.
func Parse(text string) (Document, error) {
	var b strings.Builder
	for _, r := range text {
		switch {
		case r == ' ' || r == '\t' || r == '\r' || r == '\n':
		case r >= 'a' && r <= 'z':
			b.WriteRune(r - 'a' + 'A')
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '<':
			b.WriteRune(r)
		default:
			return Document{}, fmt.Errorf("%w: %q (U+%04X) is no character of a zone, which has only capitals, digits and '<'", ErrFormat, r, r)
		}
	}
	z := b.String()
	switch {
	case len(z) == 90:
		return parseTD1([]string{z[:30], z[30:60], z[60:]})
	case len(z) == 88:
		return parseTD3([]string{z[:44], z[44:]})
	case len(z) == 72 && strings.HasPrefix(z, "IDFRA"):
		return parseFrenchID([]string{z[:36], z[36:]})
	case len(z) == 72:
		return Document{}, fmt.Errorf("%w: 2 lines of 36 that are not a French identity card's (TD2 documents are not read)", ErrFormat)
	}
	return Document{}, fmt.Errorf("%w: %d characters; a passport's zone has 2 lines of 44, an identity card's or a residence permit's 3 lines of 30 (2 lines of 36 before 2021): read it again", ErrFormat, len(z))
}

// CheckDigit is the check digit of s (ICAO 9303-3 4.9: weights 7, 3, 1;
// digits their value, A–Z 10–35, '<' 0); -1 when s holds another
// character.
func CheckDigit(s string) int {
	sum := 0
	for i := range len(s) {
		c, v := s[i], 0
		switch {
		case c >= '0' && c <= '9':
			v = int(c - '0')
		case c >= 'A' && c <= 'Z':
			v = int(c-'A') + 10
		case c == '<':
		default:
			return -1
		}
		sum += v * [3]int{7, 3, 1}[i%3]
	}
	return sum % 10
}

// check says whether digit (one character) is the check digit of field,
// naming what it checks.
func check(what, field string, digit byte) error {
	want := CheckDigit(field)
	if digit < '0' || digit > '9' || int(digit-'0') != want {
		return fmt.Errorf("%w: the %s %q has check digit %d, the zone says %q: read it again (a character misread, or a made-up number)", ErrCheckDigit, what, field, want, digit)
	}
	return nil
}

// letters reports whether s is letters and '<' only.
func letters(s string) bool {
	return strings.Trim(s, "<ABCDEFGHIJKLMNOPQRSTUVWXYZ") == ""
}

// words is a field of '<'-separated words as words separated by a space.
func words(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == '<' }), " ")
}

// name splits a name field: the surname, "<<", the given names.
func name(field string) (surname, given string) {
	s, g, _ := strings.Cut(strings.TrimRight(field, "<"), "<<")
	return words(s), words(g)
}

// date checks a YYMMDD field: digits of a day that exists.
func date(what, s string) error {
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return fmt.Errorf("%w: the %s %q is not a date YYMMDD", ErrFormat, what, s)
		}
	}
	if _, ok := day(s, 2000); !ok {
		return fmt.Errorf("%w: the %s %q is no day of the calendar", ErrFormat, what, s)
	}
	return nil
}

// day is the day YYMMDD s in the century of century.
func day(s string, century int) (time.Time, bool) {
	y, m, d := century+int(s[0]-'0')*10+int(s[1]-'0'), int(s[2]-'0')*10+int(s[3]-'0'), int(s[4]-'0')*10+int(s[5]-'0')
	t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	return t, m >= 1 && m <= 12 && t.Day() == d && int(t.Month()) == m
}

// common checks the fields every layout has.
func common(d *Document) error {
	switch {
	case !letters(d.Issuer) || strings.Trim(d.Issuer, "<") == "":
		return fmt.Errorf("%w: issuing state %q: want its 3 letters", ErrFormat, d.Issuer)
	case d.Number == "" || strings.Contains(d.Number, "<"):
		return fmt.Errorf("%w: document number %q: want letters or digits, then '<' to fill the field", ErrFormat, d.Number)
	case d.Surname == "":
		return fmt.Errorf("%w: no name", ErrFormat)
	case d.Sex != "M" && d.Sex != "F" && d.Sex != "<" && d.Sex != "X":
		return fmt.Errorf("%w: sex %q: want M, F, X or <", ErrFormat, d.Sex)
	}
	return nil
}

func parseTD1(l []string) (Document, error) {
	d := Document{Format: TD1, Code: strings.TrimRight(l[0][:2], "<"), Issuer: l[0][2:5], Birth: l[1][:6], Sex: l[1][7:8],
		Expiry: l[1][8:14], Nationality: strings.TrimRight(l[1][15:18], "<"), Lines: l}
	if d.Code == "" || !strings.ContainsRune("IAC", rune(d.Code[0])) || !letters(l[0][:2]) {
		return d, fmt.Errorf("%w: a zone of 3 lines of 30 begins with I, A or C (an identity card or a residence permit), not %q", ErrFormat, l[0][:2])
	}
	number, digit := l[0][5:14], l[0][14]
	if digit == '<' { // a number longer than 9: the rest in the optional field, then its check digit
		rest := strings.TrimRight(l[0][15:30], "<")
		if len(rest) < 2 {
			return d, fmt.Errorf("%w: the document number's check digit is missing", ErrFormat)
		}
		number, digit = number+rest[:len(rest)-1], rest[len(rest)-1]
	}
	d.Number = strings.TrimRight(number, "<")
	d.Surname, d.GivenNames = name(l[2])
	if err := common(&d); err != nil {
		return d, err
	}
	for _, f := range []struct {
		what, field string
		digit       byte
	}{
		{"document number", number, digit},
		{"birth date", l[1][:6], l[1][6]},
		{"expiry date", l[1][8:14], l[1][14]},
		{"zone (its last digit, of lines 1 and 2)", l[0][5:30] + l[1][:7] + l[1][8:15] + l[1][18:29], l[1][29]},
	} {
		if err := check(f.what, f.field, f.digit); err != nil {
			return d, err
		}
	}
	if err := date("birth date", d.Birth); err != nil {
		return d, err
	}
	return d, date("expiry date", d.Expiry)
}

func parseTD3(l []string) (Document, error) {
	d := Document{Format: TD3, Code: strings.TrimRight(l[0][:2], "<"), Issuer: l[0][2:5], Number: strings.TrimRight(l[1][:9], "<"),
		Nationality: strings.TrimRight(l[1][10:13], "<"), Birth: l[1][13:19], Sex: l[1][20:21], Expiry: l[1][21:27], Lines: l}
	if !strings.HasPrefix(d.Code, "P") || !letters(l[0][:2]) {
		return d, fmt.Errorf("%w: a zone of 2 lines of 44 begins with P (a passport), not %q", ErrFormat, l[0][:2])
	}
	d.Surname, d.GivenNames = name(l[0][5:])
	if err := common(&d); err != nil {
		return d, err
	}
	checks := []struct {
		what, field string
		digit       byte
	}{
		{"document number", l[1][:9], l[1][9]},
		{"birth date", l[1][13:19], l[1][19]},
		{"expiry date", l[1][21:27], l[1][27]},
		{"zone (its last digit, of line 2)", l[1][:10] + l[1][13:20] + l[1][21:43], l[1][43]},
	}
	// The personal number's check digit: '<' or 0 when it is empty.
	if pn := l[1][28:42]; strings.Trim(pn, "<") != "" || l[1][42] != '<' {
		checks = append(checks, struct {
			what, field string
			digit       byte
		}{"personal number", pn, l[1][42]})
	}
	for _, f := range checks {
		if err := check(f.what, f.field, f.digit); err != nil {
			return d, err
		}
	}
	if err := date("birth date", d.Birth); err != nil {
		return d, err
	}
	return d, date("expiry date", d.Expiry)
}

// parseFrenchID reads the French identity card of before August 2021:
// line 1 "IDFRA", the surname (25), the issuing office (6); line 2 the
// card's number (12: year and month of issue, office, sequence) and its
// check digit, the given names (14), the birth date and its check digit,
// the sex, and the check digit of both lines.
func parseFrenchID(l []string) (Document, error) {
	d := Document{Format: FrenchID, Code: "ID", Issuer: "FRA", Number: strings.TrimRight(l[1][:12], "<"),
		Birth: l[1][27:33], Sex: l[1][34:35], Lines: l}
	d.Surname, d.GivenNames = words(l[0][5:30]), words(l[1][13:27])
	if !letters(l[0][5:30]) || !letters(l[1][13:27]) {
		return d, fmt.Errorf("%w: a name of the zone holds a character other than a letter or '<'", ErrFormat)
	}
	if err := common(&d); err != nil {
		return d, err
	}
	for _, f := range []struct {
		what, field string
		digit       byte
	}{
		{"document number", l[1][:12], l[1][12]},
		{"birth date", l[1][27:33], l[1][33]},
		{"zone (its last digit, of both lines)", l[0] + l[1][:35], l[1][35]},
	} {
		if err := check(f.what, f.field, f.digit); err != nil {
			return d, err
		}
	}
	if err := date("birth date", d.Birth); err != nil {
		return d, err
	}
	if len(d.Number) != 12 || date("month of issue", d.Number[:4]+"01") != nil {
		return d, fmt.Errorf("%w: the card's number %q does not begin with its year and month of issue", ErrFormat, d.Number)
	}
	return d, nil
}

// BirthDate is the holder's birth date, the century the one that puts it
// on or before at's day.
func (d Document) BirthDate(at time.Time) time.Time {
	today := civil(at)
	t, _ := day(d.Birth, 2000)
	if t.After(today) {
		t, _ = day(d.Birth, 1900)
	}
	return t
}

// ExpiryDate is the last day the document is valid: the zone's expiry
// date (the century the one nearest at), or for the French identity card
// before 2021, whose zone has none, the last day of its month of issue 15
// years on (10 for a card issued to a minor, or before 2004: the law of
// 2013 lengthened to 15 the cards issued to adults from 2004).
func (d Document) ExpiryDate(at time.Time) time.Time {
	if d.Format == FrenchID {
		issued, _ := day(d.Number[:4]+"01", 2000)
		if issued.After(civil(at)) {
			issued, _ = day(d.Number[:4]+"01", 1900)
		}
		years := 10
		if issued.Year() >= 2004 && !issued.Before(d.BirthDate(issued).AddDate(18, 0, 0)) {
			years = 15
		}
		return issued.AddDate(years, 1, -1)
	}
	t, _ := day(d.Expiry, 2000)
	if t.Sub(civil(at)) > 50*365*24*time.Hour {
		t, _ = day(d.Expiry, 1900)
	}
	return t
}

// AgeAt is the holder's age in whole years on at's day.
func (d Document) AgeAt(at time.Time) int {
	b, today := d.BirthDate(at), civil(at)
	age := today.Year() - b.Year()
	if today.Month() < b.Month() || today.Month() == b.Month() && today.Day() < b.Day() {
		age--
	}
	return age
}

// civil is at's day (in at's location), as a UTC midnight.
func civil(at time.Time) time.Time {
	y, m, d := at.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// Text is the zone as read, one line a line.
func (d Document) Text() string { return strings.Join(d.Lines, "\n") }
