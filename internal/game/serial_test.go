package game

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
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
	good := Serial{531, 1, 456789, 1234_5678_9012_3456}
	typo := []byte(good.String())
	typo[len(typo)-1] = '0' + (typo[len(typo)-1]-'0'+1)%10
	tests := []struct {
		in   string
		want error
		what string // what to do, after the sentinel
	}{
		{"", ErrSerialFormat, "0 digits where a serial has 31"},
		{"531-0001", ErrSerialFormat, "7 digits where a serial has 31"},
		{good.String() + "x", ErrSerialFormat, `'x' is not a digit`},
		{good.Compact() + "6", ErrSerialFormat, "32 digits"},
		{"531-0001-0456789-304172-9", ErrSerialFormat, "21 digits where a serial has 31"}, // the serial of schema 1
		{string(typo), ErrCheckDigit, "a digit was mistyped; type the serial again"},
		{withCheck("099000100000000000000000000000"), ErrSerialFormat, "game code 099 does not exist"},
		{withCheck("531000000000000000000000000000"), ErrSerialFormat, "block 0000 does not exist"},
		{withCheck("531000120000000000000000000000"), ErrSerialFormat, "position 2000000 is past the block's last ticket, 1999999"},
	}
	for _, tt := range tests {
		_, err := ParseSerial(tt.in)
		if !errors.Is(err, tt.want) {
			t.Errorf("ParseSerial(%q) = %v, want %v", tt.in, err, tt.want)
			continue
		}
		// Each thing is said once: the input, what is wrong, what to do.
		msg := err.Error()
		if head := "serial " + strconv.Quote(tt.in) + ": " + tt.want.Error() + ": " + tt.what; !strings.HasPrefix(msg, head) {
			t.Errorf("ParseSerial(%q) = %q, want it to start with %q", tt.in, msg, head)
		}
		if (tt.in != "" && strings.Count(msg, tt.in) != 1) || strings.Count(msg, tt.want.Error()) != 1 {
			t.Errorf("ParseSerial(%q): %q repeats itself", tt.in, msg)
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
			if !strings.HasPrefix(err.Error(), "serial "+strconv.Quote(in)+": ") {
				t.Fatalf("error %q does not name the serial", err)
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

// Every serial written out in the documentation and in this package's
// comments is a valid serial (someone will type the example), and none is
// in the 21-digit layout of schema 1.
func TestDocumentedSerials(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	docs, _ := filepath.Glob("../../docs/*.md")
	files = append(append(files, "../../README.md"), docs...)
	serial := regexp.MustCompile(`\b\d{3}-\d{4}-\d{7}-\d{4}-\d{4}-\d{4}-\d{4}-\d\b`)
	old := regexp.MustCompile(`\b\d{3}-\d{4}-\d{7}-\d{6}-\d\b`)
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range serial.FindAllString(string(b), -1) {
			n++
			if _, err := ParseSerial(s); err != nil {
				t.Errorf("%s: %v", f, err)
			}
		}
		for _, s := range old.FindAllString(string(b), -1) {
			t.Errorf("%s: %s is a serial of schema 1; write one of 31 digits", f, s)
		}
	}
	if n < 3 {
		t.Errorf("found %d serials in %v: the pattern misses them", n, files)
	}
}
