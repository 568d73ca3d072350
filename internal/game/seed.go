package game

import (
	"bufio"
	"bytes"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// A block no single party chose: the operator and an auditor each draw a
// secret and commit to it (Commit) before the block is generated; the
// block's seed is derived from both secrets (DrawSeed), so that neither
// could choose it alone, and each secret, once revealed, is checked
// against its commitment.

// Role is who drew a secret: the operator or the auditor.
type Role string

// The two roles; a drawn block needs one secret of each.
const (
	Operator Role = "operator"
	Auditor  Role = "auditor"
)

// ParseRole reads a role's name.
func ParseRole(s string) (Role, error) {
	switch r := Role(s); r {
	case Operator, Auditor:
		return r, nil
	}
	return "", fmt.Errorf("role %q: want operator or auditor", s)
}

// Secret is a party's 32 random bytes.
type Secret [32]byte

// Commitment is SHA-256 of a secret with its role and game (Commit).
type Commitment [32]byte

// String writes the commitment as 64 hexadecimal digits.
func (c Commitment) String() string { return hex.EncodeToString(c[:]) }

// ParseCommitment reads a commitment written as 64 hexadecimal digits.
func ParseCommitment(s string) (Commitment, error) {
	var c Commitment
	b, err := hex.DecodeString(strings.TrimSpace(s))
	if err != nil || len(b) != len(c) {
		return c, fmt.Errorf("commitment %q: want %d hexadecimal digits", s, 2*len(c))
	}
	copy(c[:], b)
	return c, nil
}

// The domain tags of the hashes below: a commitment, a reveal's hash and a
// drawn seed are never the hash of one another's bytes.
const (
	commitTag = "vegas-desk/seed-commitment/1"
	revealTag = "vegas-desk/seed-reveal/1"
	drawTag   = "vegas-desk/drawn-seed/1"
)

// Commit is the commitment to secret s of role r for game code g:
// SHA-256("vegas-desk/seed-commitment/1" ‖ 0 ‖ role ‖ 0 ‖ game as 2 bytes
// big-endian ‖ s).
func Commit(r Role, g int, s Secret) Commitment {
	h := sha256.New()
	h.Write([]byte(commitTag))
	h.Write([]byte{0})
	h.Write([]byte(r))
	h.Write([]byte{0})
	h.Write(binary.BigEndian.AppendUint16(nil, uint16(g)))
	h.Write(s[:])
	var c Commitment
	h.Sum(c[:0])
	return c
}

// RevealHash is the hash of a revealed secret that a block's certificate
// shows: SHA-256("vegas-desk/seed-reveal/1" ‖ 0 ‖ s). It names the secret
// without giving it away.
func RevealHash(s Secret) [32]byte {
	return sha256.Sum256(append([]byte(revealTag+"\x00"), s[:]...))
}

// SeedFile is a party's seed file: a secret file (Secret set), which its
// party keeps until the block is generated, or the commitment alone, which
// is handed over and recorded in the ledger.
type SeedFile struct {
	Role       Role
	Game       int
	Commitment Commitment
	Secret     *Secret // nil in a commitment file
}

// The first lines of the two kinds of seed file.
const (
	secretHeader     = "vegas-desk seed secret 1"
	commitmentHeader = "vegas-desk seed commitment 1"
)

// NewSecretFile draws a secret of role r for game code g from crypto/rand.
func NewSecretFile(r Role, g int) (SeedFile, error) {
	if _, err := ParseRole(string(r)); err != nil {
		return SeedFile{}, err
	}
	if g < MinGameCode || g > MaxGameCode {
		return SeedFile{}, fmt.Errorf("game code %d: want %d to %d", g, MinGameCode, MaxGameCode)
	}
	var s Secret
	if _, err := rand.Read(s[:]); err != nil {
		return SeedFile{}, err
	}
	return SeedFile{Role: r, Game: g, Commitment: Commit(r, g, s), Secret: &s}, nil
}

// Text is the file's text: a secret file
//
//	vegas-desk seed secret 1
//	role=auditor
//	game=531
//	commitment=<64 hex digits>
//	secret=<64 hex digits>
//
// or, without its secret, a commitment file (first line "vegas-desk seed
// commitment 1", no secret line).
func (f SeedFile) Text() string {
	head := commitmentHeader
	if f.Secret != nil {
		head = secretHeader
	}
	t := fmt.Sprintf("%s\nrole=%s\ngame=%d\ncommitment=%s\n", head, f.Role, f.Game, f.Commitment)
	if f.Secret != nil {
		t += "secret=" + hex.EncodeToString(f.Secret[:]) + "\n"
	}
	return t
}

// Public is the file without its secret: its commitment file.
func (f SeedFile) Public() SeedFile { f.Secret = nil; return f }

// MaxSeedFile bounds a seed file read from outside: its text is under 200
// bytes.
const MaxSeedFile = 4096

// ErrNotSeedFile: the bytes are not a seed file.
var ErrNotSeedFile = errors.New("not a seed file of vegas-desk seed commit")

// ParseSeedFile reads a secret file or a commitment file (Text). A secret
// file's commitment must be its secret's: a file whose lines disagree is
// refused, whatever line was changed.
func ParseSeedFile(data []byte) (SeedFile, error) {
	if len(data) > MaxSeedFile {
		return SeedFile{}, fmt.Errorf("%w: %d bytes, and a seed file has fewer than %d", ErrNotSeedFile, len(data), MaxSeedFile)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	var f SeedFile
	if !sc.Scan() {
		return f, fmt.Errorf("%w: the file is empty", ErrNotSeedFile)
	}
	var secret bool
	switch strings.TrimSuffix(sc.Text(), "\r") {
	case secretHeader:
		secret = true
	case commitmentHeader:
	default:
		return f, fmt.Errorf("%w: its first line is %q", ErrNotSeedFile, firstChars(sc.Text()))
	}
	seen := map[string]string{}
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if line == "" {
			continue
		}
		name, value, ok := strings.Cut(line, "=")
		if !ok {
			return f, fmt.Errorf("%w: line %q is not name=value", ErrNotSeedFile, firstChars(line))
		}
		switch name {
		case "role", "game", "commitment", "secret":
		default:
			return f, fmt.Errorf("%w: unknown line %q", ErrNotSeedFile, firstChars(name))
		}
		if _, twice := seen[name]; twice {
			return f, fmt.Errorf("%w: %s is given twice", ErrNotSeedFile, name)
		}
		seen[name] = value
	}
	want := []string{"role", "game", "commitment"}
	if secret {
		want = append(want, "secret")
	} else if _, ok := seen["secret"]; ok {
		return f, fmt.Errorf("%w: a commitment file holds no secret", ErrNotSeedFile)
	}
	for _, name := range want {
		if _, ok := seen[name]; !ok {
			return f, fmt.Errorf("%w: no %s line", ErrNotSeedFile, name)
		}
	}
	var err error
	if f.Role, err = ParseRole(seen["role"]); err != nil {
		return f, fmt.Errorf("%w: %w", ErrNotSeedFile, err)
	}
	g, err := strconv.Atoi(seen["game"])
	if err != nil || g < MinGameCode || g > MaxGameCode || strconv.Itoa(g) != seen["game"] {
		return f, fmt.Errorf("%w: game %q: want a game code, %d to %d", ErrNotSeedFile, firstChars(seen["game"]), MinGameCode, MaxGameCode)
	}
	f.Game = g
	if f.Commitment, err = ParseCommitment(seen["commitment"]); err != nil {
		return f, fmt.Errorf("%w: %w", ErrNotSeedFile, err)
	}
	if secret {
		b, err := hex.DecodeString(seen["secret"])
		var s Secret
		if err != nil || len(b) != len(s) {
			return f, fmt.Errorf("%w: secret: want %d hexadecimal digits", ErrNotSeedFile, 2*len(s))
		}
		copy(s[:], b)
		if Commit(f.Role, f.Game, s) != f.Commitment {
			return f, fmt.Errorf("%w: its secret is not the one its commitment line commits to: the file was changed", ErrNotSeedFile)
		}
		f.Secret = &s
	}
	return f, nil
}

func firstChars(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// ErrReveal: a revealed secret does not open its commitment, or the
// reveals are not one of each role.
var ErrReveal = errors.New("the reveals do not open the commitments")

// Match checks that reveal r opens commitment c: a secret file of c's
// role and game whose secret commits to c.
func Match(c Commitment, r SeedFile) error {
	if r.Secret == nil {
		return fmt.Errorf("%w: the %s's file holds no secret: it is a commitment file; give the secret file seed commit wrote", ErrReveal, r.Role)
	}
	if got := Commit(r.Role, r.Game, *r.Secret); got != c {
		return fmt.Errorf("%w: the %s's secret (game %d) commits to %s, not to %s", ErrReveal, r.Role, r.Game, got, c)
	}
	return nil
}

// DrawSeed derives a block's seed for game code g from the two reveals,
// one of each role, whose commitments must be commitments (in any order):
// HKDF-SHA256 with the secret the operator's secret ‖ the auditor's, the
// salt "vegas-desk/drawn-seed/1", and the info the game code (2 bytes
// big-endian) ‖ the operator's commitment ‖ the auditor's. Neither party
// can choose the seed without the other's secret, which it committed to
// before seeing it.
func DrawSeed(g int, commitments []Commitment, reveals []SeedFile) (Seed, error) {
	if len(commitments) != 2 || len(reveals) != 2 {
		return Seed{}, fmt.Errorf("%w: a drawn seed needs two commitments and their two reveals, one of the operator and one of the auditor (%d and %d given)",
			ErrReveal, len(commitments), len(reveals))
	}
	if commitments[0] == commitments[1] {
		return Seed{}, fmt.Errorf("%w: the two commitments are the same (%s): give the operator's and the auditor's", ErrReveal, commitments[0])
	}
	var byRole = map[Role]SeedFile{}
	for _, r := range reveals {
		if _, twice := byRole[r.Role]; twice {
			return Seed{}, fmt.Errorf("%w: two reveals of the %s: give one of the operator and one of the auditor", ErrReveal, r.Role)
		}
		byRole[r.Role] = r
	}
	op, au := byRole[Operator], byRole[Auditor]
	for _, r := range []SeedFile{op, au} {
		if r.Game != g {
			return Seed{}, fmt.Errorf("%w: the %s's secret is of game %d, not of game %d", ErrReveal, r.Role, r.Game, g)
		}
		if r.Secret == nil {
			return Seed{}, fmt.Errorf("%w: the %s's file holds no secret: it is a commitment file; give the secret file seed commit wrote", ErrReveal, r.Role)
		}
		if commitments[0] != r.Commitment && commitments[1] != r.Commitment {
			return Seed{}, fmt.Errorf("%w: the %s's secret commits to %s, which is not one of the commitments given", ErrReveal, r.Role, r.Commitment)
		}
		if err := Match(r.Commitment, r); err != nil {
			return Seed{}, err
		}
	}
	info := binary.BigEndian.AppendUint16(nil, uint16(g))
	info = append(append(info, op.Commitment[:]...), au.Commitment[:]...)
	key, err := hkdf.Key(sha256.New, append(op.Secret[:], au.Secret[:]...), []byte(drawTag), string(info), len(Seed{}))
	if err != nil {
		return Seed{}, err
	}
	return Seed(key), nil
}
