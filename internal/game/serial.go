package game

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// A serial is printed under the scratch layer and is what a retailer types
// or scans. It has 31 digits, printed in eight groups:
//
//	GGG-BBBB-PPPPPPP-SSSS-SSSS-SSSS-SSSS-C
//
//	GGG      game code (100–999)
//	BBBB     block number within the game (1–9999)
//	PPPPPPP  the ticket's position in its block (0000000–1999999)
//	SSSS…    secret part, 16 digits: a pseudo-random function of the block's
//	         serial key and the position (SerialKey.Secret). Nothing printed
//	         outside the scratch layer reveals it, so a visible number alone
//	         finds no prize; and 10^16 possible values make a guess, even
//	         offline against a sealed counter ledger, cost more than 2^56
//	         SHA-256 evaluations (see docs/trust-model.md)
//	C        Damm check digit over the 30 digits before it: it catches every
//	         single-digit error and every swap of two adjacent digits
//
// The pack of a ticket is its position divided by PackSize.
const (
	SerialDigits = 31
	MinGameCode  = 100
	MaxGameCode  = 999
	MaxBlock     = 9999
	SecretDigits = 16
	// SecretModulus is 10^SecretDigits: secret parts are 0 … SecretModulus-1.
	SecretModulus = 10_000_000_000_000_000
)

// SerialLayout is how a serial is printed, for messages and hints.
const SerialLayout = "GGG-BBBB-PPPPPPP-SSSS-SSSS-SSSS-SSSS-C"

// Errors a caller must tell apart when parsing a serial.
var (
	ErrSerialFormat = errors.New("not a serial")
	ErrCheckDigit   = errors.New("check digit does not match")
)

// Serial identifies one ticket.
type Serial struct {
	Game     int
	Block    int
	Position int
	Secret   int64
}

// PublicSerial is the part of a serial printed outside the scratch layer:
// game, block and position, "531-0001-0456789".
func PublicSerial(gameCode, block, pos int) string {
	return fmt.Sprintf("%03d-%04d-%07d", gameCode, block, pos)
}

// ParsePublicSerial reads a PublicSerial.
func ParsePublicSerial(s string) (gameCode, block, pos int, ok bool) {
	parts := strings.Split(s, "-")
	if len(parts) != 3 || len(parts[0]) != 3 || len(parts[1]) != 4 || len(parts[2]) != 7 {
		return 0, 0, 0, false
	}
	var n [3]int
	for i, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil || v < 0 || strings.TrimLeft(p, "0123456789") != "" {
			return 0, 0, 0, false
		}
		n[i] = v
	}
	return n[0], n[1], n[2], true
}

// Pack returns the pack that holds the ticket.
func (s Serial) Pack() int { return s.Position / PackSize }

// digits returns the 30 digits before the check digit (more when a part
// is out of its range).
func (s Serial) digits() string {
	if s.Game < 0 || s.Game > 999 || s.Block < 0 || s.Block > 9999 || s.Position < 0 || s.Position > 9999999 ||
		s.Secret < 0 || s.Secret >= SecretModulus {
		return fmt.Sprintf("%03d%04d%07d%016d", s.Game, s.Block, s.Position, s.Secret)
	}
	var d [30]byte
	putDigits(d[0:3], int64(s.Game))
	putDigits(d[3:7], int64(s.Block))
	putDigits(d[7:14], int64(s.Position))
	putDigits(d[14:30], s.Secret)
	return string(d[:])
}

// putDigits writes v, which fits, in decimal into the whole of b.
func putDigits(b []byte, v int64) {
	for i := len(b) - 1; i >= 0; i-- {
		b[i] = byte('0' + v%10)
		v /= 10
	}
}

// String prints the serial in groups: "531-0001-0456789-1234-5678-9012-3456-0".
func (s Serial) String() string {
	d := s.digits()
	return d[0:3] + "-" + d[3:7] + "-" + d[7:14] + "-" + d[14:18] + "-" + d[18:22] + "-" + d[22:26] + "-" + d[26:30] + "-" + string(dammDigit(d))
}

// Masked prints the serial with the first twelve digits of its secret part
// hidden, for papers that name a ticket without giving its serial away:
// "531-0001-0456789-••••-••••-••••-3456-7".
func (s Serial) Masked() string {
	str := s.String()
	return str[:17] + "••••-••••-••••" + str[31:]
}

// Compact prints the serial's 31 digits without separators (the barcode).
func (s Serial) Compact() string {
	d := s.digits()
	return d + string(dammDigit(d))
}

// Valid reports whether every field of s is in range.
func (s Serial) Valid() bool {
	return s.Game >= MinGameCode && s.Game <= MaxGameCode && s.Block >= 1 && s.Block <= MaxBlock &&
		s.Position >= 0 && s.Position < BlockSize && s.Secret >= 0 && s.Secret < SecretModulus
}

// ParseSerial reads a serial as typed or scanned. Spaces and dashes are
// ignored. A wrong check digit is reported as ErrCheckDigit before anything
// else is looked at; any other fault wraps ErrSerialFormat. The message
// says each thing once: "serial INPUT: " + the sentinel + ": " + what to do.
func ParseSerial(in string) (Serial, error) {
	var b strings.Builder
	for _, r := range in {
		switch {
		case r == ' ' || r == '-' || r == '\t':
		case r >= '0' && r <= '9':
			b.WriteRune(r)
		default:
			return Serial{}, fmt.Errorf("serial %q: %w: %q is not a digit; type its %d digits (spaces and dashes may separate them)", in, ErrSerialFormat, r, SerialDigits)
		}
	}
	d := b.String()
	if len(d) != SerialDigits {
		return Serial{}, fmt.Errorf("serial %q: %w: %d digits where a serial has %d (%s); type all of them", in, ErrSerialFormat, len(d), SerialDigits, SerialLayout)
	}
	if dammDigit(d[:SerialDigits-1]) != d[SerialDigits-1] {
		return Serial{}, fmt.Errorf("serial %q: %w: a digit was mistyped; type the serial again", in, ErrCheckDigit)
	}
	s := Serial{Game: atoi(d[0:3]), Block: atoi(d[3:7]), Position: atoi(d[7:14]), Secret: int64(atoi(d[14:30]))}
	switch {
	case s.Game < MinGameCode:
		return Serial{}, fmt.Errorf("serial %q: %w: game code %03d does not exist (codes go from %d to %d); check the first 3 digits", in, ErrSerialFormat, s.Game, MinGameCode, MaxGameCode)
	case s.Block < 1:
		return Serial{}, fmt.Errorf("serial %q: %w: block 0000 does not exist (blocks start at 0001); check digits 4 to 7", in, ErrSerialFormat)
	case s.Position >= BlockSize:
		return Serial{}, fmt.Errorf("serial %q: %w: position %d is past the block's last ticket, %07d; check digits 8 to 14", in, ErrSerialFormat, s.Position, BlockSize-1)
	}
	return s, nil
}

// atoi reads a run of decimal digits.
func atoi(d string) int {
	n := 0
	for i := 0; i < len(d); i++ {
		n = 10*n + int(d[i]-'0')
	}
	return n
}

// damm is the quasigroup table of order 10 of H. M. Damm's algorithm.
var damm = [10][10]byte{
	{0, 3, 1, 7, 5, 9, 8, 6, 4, 2},
	{7, 0, 9, 2, 1, 5, 4, 8, 6, 3},
	{4, 2, 0, 6, 8, 7, 1, 3, 5, 9},
	{1, 7, 5, 0, 9, 8, 3, 4, 2, 6},
	{6, 1, 2, 3, 0, 4, 5, 9, 7, 8},
	{3, 6, 7, 4, 2, 0, 9, 5, 8, 1},
	{5, 8, 6, 9, 7, 2, 0, 1, 3, 4},
	{8, 9, 4, 5, 3, 6, 2, 0, 1, 7},
	{9, 4, 3, 8, 6, 1, 7, 2, 0, 5},
	{2, 5, 8, 1, 4, 3, 6, 7, 9, 0},
}

// dammDigit returns the Damm check digit of a string of decimal digits.
func dammDigit(digits string) byte {
	var interim byte
	for i := 0; i < len(digits); i++ {
		interim = damm[interim][digits[i]-'0']
	}
	return '0' + interim
}

// SerialKey is a block's secret key for the secret parts of its serials.
type SerialKey [32]byte

// Secret returns the secret part of the serial of the ticket at position
// pos: the first 8 bytes of SHA-256(key ‖ pos as 4 bytes big-endian), read
// big-endian, modulo 10^16. A key-prefixed SHA-256 of a fixed-length input
// is a pseudo-random function. The ledger computes it in Go wherever it
// checks a serial (a validation server for its counters, which never see
// the key; a sealed counter ledger holds no key, only its records).
func (k *SerialKey) Secret(pos int) int64 {
	var in [32 + 4]byte
	copy(in[:], k[:])
	binary.BigEndian.PutUint32(in[32:], uint32(pos))
	h := sha256.Sum256(in[:])
	return int64(binary.BigEndian.Uint64(h[:8]) % SecretModulus)
}
