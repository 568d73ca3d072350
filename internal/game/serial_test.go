package game

import (
	"errors"
	"strings"
	"testing"
)

func TestSerialRoundTrip(t *testing.T) {
	s := Serial{Game: 531, Block: 1, Position: 456789, Secret: 1234_5678_9012_3456}
	str := s.String()
	if !strings.HasPrefix(str, "531-0001-0456789-1234-5678-9012-3456-") || len(str) != SerialDigits+7 {
		t.Fatalf("String() = %q", str)
	}
	for _, in := range []string{str, s.Compact(), " " + strings.ReplaceAll(str, "-", " ") + " ", strings.ReplaceAll(str, "-", "--")} {
		got, err := ParseSerial(in)
		if err != nil || got != s {
			t.Errorf("ParseSerial(%q) = %+v, %v; want %+v", in, got, err, s)
		}
	}
	if s.Pack() != 456789/PackSize {
		t.Errorf("Pack() = %d", s.Pack())
	}
}

// Fixed expected outputs (issue 9), computed independently (Python hashlib
// and a Damm table): any change to the serial's layout, its
// check digit or the derivation of its secret part shows here.
func TestSerialFixedOutputs(t *testing.T) {
	s := Serial{Game: 531, Block: 1, Position: 456789, Secret: 1234_5678_9012_3456}
	if got, want := s.String(), "531-0001-0456789-1234-5678-9012-3456-0"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if got, want := s.Compact(), "5310001045678912345678901234560"; got != want {
		t.Errorf("Compact() = %q, want %q", got, want)
	}
	if got, want := s.Masked(), "531-0001-0456789-••••-••••-••••-3456-0"; got != want {
		t.Errorf("Masked() = %q, want %q", got, want)
	}
	var key SerialKey
	for i := range key {
		key[i] = byte(i)
	}
	if got, want := key.Secret(456789), int64(8320229499158030); got != want {
		t.Errorf("Secret(456789) = %d, want %d", got, want)
	}
}

// The check digit catches every single-digit error and every swap of two
// adjacent different digits (issue 2, 5c), before anything is looked up.
func TestCheckDigitCatchesTypos(t *testing.T) {
	serials := []Serial{
		{531, 1, 0, 0}, {531, 1, 1999999, SecretModulus - 1}, {999, 9999, 1234567, 9090909090909090}, {100, 42, 909090, 90},
	}
	for _, s := range serials {
		good := s.Compact()
		for i := 0; i < len(good); i++ {
			for d := byte('0'); d <= '9'; d++ {
				if d == good[i] {
					continue
				}
				bad := good[:i] + string(d) + good[i+1:]
				if _, err := ParseSerial(bad); !errors.Is(err, ErrCheckDigit) {
					t.Errorf("%s → %s (digit %d): err = %v, want ErrCheckDigit", good, bad, i, err)
				}
			}
			if i+1 < len(good) && good[i] != good[i+1] {
				bad := good[:i] + string(good[i+1]) + string(good[i]) + good[i+2:]
				if _, err := ParseSerial(bad); !errors.Is(err, ErrCheckDigit) {
					t.Errorf("%s → %s (swap %d): err = %v, want ErrCheckDigit", good, bad, i, err)
				}
			}
		}
	}
	// Luhn misses 09 ↔ 90; Damm does not.
	s := Serial{531, 1, 90, 0}.Compact()
	swapped := strings.Replace(s, "0000090", "0000009", 1)
	if _, err := ParseSerial(swapped); !errors.Is(err, ErrCheckDigit) {
		t.Errorf("09↔90 swap not caught: %v", err)
	}
}

func TestParseSerialErrors(t *testing.T) {
	withCheck := func(d string) string { return d + string(dammDigit(d)) }
	tests := []struct {
		in      string
		want    error
		message string
	}{
		{"", ErrSerialFormat, "0 digits, want 31"},
		{"531-0001", ErrSerialFormat, "7 digits, want 31"},
		{"531-0001-0456789-1234-5678-9012-3456-0x", ErrSerialFormat, `'x' is not a digit`},
		{"53100010456789123456789012345611", ErrSerialFormat, "32 digits"},
		{"531-0001-0456789-304172-9", ErrSerialFormat, "21 digits, want 31"}, // the serial of schema 1
		{withCheck("099000100000000000000000000000"), ErrSerialFormat, "game code 099"},
		{withCheck("531000000000000000000000000000"), ErrSerialFormat, "block 0000"},
		{withCheck("531000120000000000000000000000"), ErrSerialFormat, "position 2000000"},
	}
	for _, tt := range tests {
		_, err := ParseSerial(tt.in)
		if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.message) {
			t.Errorf("ParseSerial(%q) = %v, want %v mentioning %q", tt.in, err, tt.want, tt.message)
		}
	}
}

func TestSecretDependsOnKeyAndPosition(t *testing.T) {
	var a, b SerialKey
	b[0] = 1
	if a.Secret(7) == a.Secret(8) && a.Secret(8) == a.Secret(9) {
		t.Error("secret does not depend on the position")
	}
	same := 0
	for pos := range 1000 {
		s := a.Secret(pos)
		if s < 0 || s >= SecretModulus {
			t.Fatalf("secret %d out of range", s)
		}
		if s == b.Secret(pos) {
			same++
		}
	}
	if same > 2 {
		t.Errorf("%d of 1000 secrets equal under two keys", same)
	}
}

func FuzzParseSerial(f *testing.F) {
	f.Add("531-0001-0456789-1234-5678-9012-3456-0")
	f.Add(Serial{531, 1, 456789, 1234_5678_9012_3456}.Compact())
	f.Add("")
	f.Add("--  --")
	f.Add("٣١٢")
	f.Fuzz(func(t *testing.T, in string) {
		s, err := ParseSerial(in)
		if err != nil {
			if !errors.Is(err, ErrSerialFormat) && !errors.Is(err, ErrCheckDigit) {
				t.Fatalf("ParseSerial(%q): %v wraps neither ErrSerialFormat nor ErrCheckDigit", in, err)
			}
			if !strings.HasPrefix(err.Error(), "serial: ") {
				t.Fatalf("error %q does not name the field", err)
			}
			return
		}
		if !s.Valid() {
			t.Fatalf("ParseSerial(%q) = %+v, out of range", in, s)
		}
		back, err := ParseSerial(s.String())
		if err != nil || back != s {
			t.Fatalf("round trip of %+v: %+v, %v", s, back, err)
		}
	})
}

func TestParseSeed(t *testing.T) {
	s, err := ParseSeed(testSeed.String())
	if err != nil || s != testSeed {
		t.Errorf("round trip: %v, %v", s, err)
	}
	for _, bad := range []string{"", "5eed", strings.Repeat("zz", 32), strings.Repeat("00", 33)} {
		if _, err := ParseSeed(bad); err == nil || !strings.Contains(err.Error(), "64 hexadecimal digits") {
			t.Errorf("ParseSeed(%q) = %v", bad, err)
		}
	}
}
