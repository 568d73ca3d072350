package game

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// Fixed outputs, the check digits computed independently (Python and a
// Damm table).
func TestPackCodeFixedOutputs(t *testing.T) {
	for _, c := range []struct {
		p            PackCode
		str, compact string
	}{
		{PackCode{531, 1, 2283}, "531-0001-2283-2", "531000122832"},
		{PackCode{531, 1, 0}, "531-0001-0000-9", "531000100009"},
		{PackCode{999, 9999, 9999}, "999-9999-9999-9", "999999999999"},
	} {
		if got := c.p.String(); got != c.str {
			t.Errorf("%+v.String() = %q, want %q", c.p, got, c.str)
		}
		if got := c.p.Compact(); got != c.compact {
			t.Errorf("%+v.Compact() = %q, want %q", c.p, got, c.compact)
		}
		for _, in := range []string{c.str, c.compact, " " + strings.ReplaceAll(c.str, "-", " ") + " "} {
			got, err := ParsePackCode(in)
			if err != nil || got != c.p {
				t.Errorf("ParsePackCode(%q) = %+v, %v; want %+v", in, got, err, c.p)
			}
			if !LooksLikePackCode(in) {
				t.Errorf("LooksLikePackCode(%q) = false", in)
			}
		}
	}
	if p := (PackCode{531, 1, 2283}); p.First() != 2283*PackSize || !p.Valid() {
		t.Errorf("First() = %d, Valid() = %v", p.First(), p.Valid())
	}
	for _, in := range []string{"2283", "120-130", Serial{531, 1, 0, 0}.Compact(), "531-0001-2283-2x"} {
		if LooksLikePackCode(in) {
			t.Errorf("LooksLikePackCode(%q) = true", in)
		}
	}
}

// The check digit catches every single-digit error and every swap of two
// adjacent different digits.
func TestPackCodeCheckDigit(t *testing.T) {
	for _, p := range []PackCode{{531, 1, 2283}, {100, 1, 0}, {909, 909, 9090}} {
		good := p.Compact()
		for i := range len(good) {
			for d := byte('0'); d <= '9'; d++ {
				if d == good[i] {
					continue
				}
				bad := good[:i] + string(d) + good[i+1:]
				if _, err := ParsePackCode(bad); !errors.Is(err, ErrCheckDigit) {
					t.Errorf("%s → %s: err = %v, want ErrCheckDigit", good, bad, err)
				}
			}
			if i+1 < len(good) && good[i] != good[i+1] {
				bad := good[:i] + string(good[i+1]) + string(good[i]) + good[i+2:]
				if _, err := ParsePackCode(bad); !errors.Is(err, ErrCheckDigit) {
					t.Errorf("%s → %s (swap): err = %v, want ErrCheckDigit", good, bad, err)
				}
			}
		}
	}
}

func TestParsePackCodeErrors(t *testing.T) {
	withCheck := func(d string) string { return d + string(dammDigit(d)) }
	for _, tt := range []struct {
		in      string
		want    error
		message string
	}{
		{"", ErrPackCodeFormat, "0 digits, want 12"},
		{"2283", ErrPackCodeFormat, "4 digits, want 12"},
		{"531-0001-2283-2x", ErrPackCodeFormat, `'x' is not a digit`},
		{withCheck("09900010000"), ErrPackCodeFormat, "game code 099"},
		{withCheck("53100000000"), ErrPackCodeFormat, "block 0000"},
		{"531-0001-2283-3", ErrCheckDigit, "check digit"},
	} {
		_, err := ParsePackCode(tt.in)
		if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.message) {
			t.Errorf("ParsePackCode(%q) = %v, want %v mentioning %q", tt.in, err, tt.want, tt.message)
		}
	}
}

func FuzzParsePackCode(f *testing.F) {
	f.Add("531-0001-2283-2")
	f.Add("531000122832")
	f.Add("")
	f.Add("٣١٢")
	f.Fuzz(func(t *testing.T, in string) {
		p, err := ParsePackCode(in)
		if err != nil {
			if !errors.Is(err, ErrPackCodeFormat) && !errors.Is(err, ErrCheckDigit) {
				t.Fatalf("ParsePackCode(%q): %v wraps neither ErrPackCodeFormat nor ErrCheckDigit", in, err)
			}
			if !strings.HasPrefix(err.Error(), "pack code: ") {
				t.Fatalf("error %q does not name the field", err)
			}
			return
		}
		if !p.Valid() || !LooksLikePackCode(in) {
			t.Fatalf("ParsePackCode(%q) = %+v, out of range or not recognised", in, p)
		}
		back, err := ParsePackCode(p.String())
		if err != nil || back != p {
			t.Fatalf("round trip of %+v: %+v, %v", p, back, err)
		}
	})
}

func TestParsePacks(t *testing.T) {
	c := func(p int) string { return PackCode{531, 1, p}.String() }
	for _, tt := range []struct {
		items []string
		block int
		want  []PackRange
		err   string
	}{
		{[]string{"12"}, 1, []PackRange{{531, 1, 12, 12}}, ""},
		{[]string{"10-12", "14", "13", c(15), "11"}, 1, []PackRange{{531, 1, 10, 15}}, ""},
		{[]string{c(7), PackCode{531, 2, 7}.Compact()}, 0, []PackRange{{531, 1, 7, 7}, {531, 2, 7, 7}}, ""},
		{[]string{"0-9999"}, 1, []PackRange{{531, 1, 0, 9999}}, ""},
		{[]string{"12"}, 0, nil, "needs its block"},
		{[]string{"12-10"}, 1, nil, "want a pack number"},
		{[]string{"10000"}, 1, nil, "want a pack number"},
		{[]string{"x"}, 1, nil, "want a pack number"},
		{[]string{PackCode{531, 2, 7}.String()}, 1, nil, "not of block 531/1"},
		{[]string{"531-0001-0013-"}, 1, nil, "11 digits"},
		{[]string{" "}, 1, nil, "no pack given"},
	} {
		got, err := ParsePacks(tt.items, 531, tt.block)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParsePacks(%q) = %v, %v; want an error with %q", tt.items, got, err, tt.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("ParsePacks(%q) = %v, %v; want %v", tt.items, got, err, tt.want)
		}
	}
	if r := (PackRange{531, 1, 10, 12}); r.Count() != 3 || r.String() != c(10)+" to "+c(12) {
		t.Errorf("%v: %d, %s", r, r.Count(), r)
	}
}
