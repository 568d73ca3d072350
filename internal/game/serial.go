package game

import (
	"crypto/aes"
	"crypto/cipher"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// A serial is printed under the scratch layer and is what a retailer types
// or scans. It has 21 digits, printed in five groups:
//
//	GGG-BBBB-PPPPPPP-SSSSSS-C
//	531-0001-0456789-304172-9
//
//	GGG      game code (100–999)
//	BBBB     block number within the game (1–9999)
//	PPPPPPP  the ticket's position in its block (0000000–1999999)
//	SSSSSS   secret part: a pseudo-random function of the block's serial key
//	         and the position; nothing visible on an unscratched ticket
//	         reveals it, so a visible number alone does not find a prize
//	C        Damm check digit over the 20 digits before it: it catches every
//	         single-digit error and every swap of two adjacent digits
//
// The pack of a ticket is its position divided by PackSize.
const (
	SerialDigits = 21
	MinGameCode  = 100
	MaxGameCode  = 999
	MaxBlock     = 9999
	SecretDigits = 6
)

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
	Secret   int
}

// Pack returns the pack that holds the ticket.
func (s Serial) Pack() int { return s.Position / PackSize }

// digits returns the 20 digits before the check digit.
func (s Serial) digits() string {
	return fmt.Sprintf("%03d%04d%07d%06d", s.Game, s.Block, s.Position, s.Secret)
}

// String prints the serial in groups: "531-0001-0456789-304172-9".
func (s Serial) String() string {
	d := s.digits()
	return fmt.Sprintf("%s-%s-%s-%s-%c", d[0:3], d[3:7], d[7:14], d[14:20], dammDigit(d))
}

// Compact prints the serial's 21 digits without separators (the barcode).
func (s Serial) Compact() string {
	d := s.digits()
	return d + string(dammDigit(d))
}

// Valid reports whether every field of s is in range.
func (s Serial) Valid() bool {
	return s.Game >= MinGameCode && s.Game <= MaxGameCode && s.Block >= 1 && s.Block <= MaxBlock &&
		s.Position >= 0 && s.Position < BlockSize && s.Secret >= 0 && s.Secret < 1_000_000
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
		return Serial{}, fmt.Errorf("serial %q: %w: %d digits where a serial has %d (GGG-BBBB-PPPPPPP-SSSSSS-C); type all of them", in, ErrSerialFormat, len(d), SerialDigits)
	}
	if dammDigit(d[:20]) != d[20] {
		return Serial{}, fmt.Errorf("serial %q: %w: a digit was mistyped; type the serial again", in, ErrCheckDigit)
	}
	n := func(a, b int) int { v, _ := strconv.Atoi(d[a:b]); return v }
	s := Serial{Game: n(0, 3), Block: n(3, 7), Position: n(7, 14), Secret: n(14, 20)}
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

// Secrets computes the secret parts of one block's serials: AES-256 keyed
// with the block's serial key, applied to the 16-byte block "serial" ‖ six
// zero bytes ‖ the position as 4 bytes big-endian; the first 8 bytes of the
// result, read big-endian, modulo 10^6.
type Secrets struct{ c cipher.Block }

// Secrets prepares the computation of the block's secret parts.
func (k *SerialKey) Secrets() Secrets {
	c, err := aes.NewCipher(k[:])
	if err != nil {
		panic(err) // a 32-byte key is always valid
	}
	return Secrets{c}
}

// At returns the secret part of the serial of the ticket at position pos.
func (s Secrets) At(pos int) int {
	var in, out [16]byte
	copy(in[:], "serial")
	binary.BigEndian.PutUint32(in[12:], uint32(pos))
	s.c.Encrypt(out[:], in[:])
	return int(binary.BigEndian.Uint64(out[:8]) % 1_000_000)
}

// Secret returns the secret part of the serial at position pos. To compute
// many, use Secrets.
func (k *SerialKey) Secret(pos int) int { return k.Secrets().At(pos) }
