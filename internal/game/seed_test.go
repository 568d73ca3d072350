package game

import (
	"errors"
	"strings"
	"testing"
)

// vectorSecrets are the golden vector's secrets: the operator's the bytes
// 0…31, the auditor's 32…63.
func vectorSecrets() (op, au Secret) {
	for i := range op {
		op[i], au[i] = byte(i), byte(32+i)
	}
	return op, au
}

// The golden vector of the commitments, the reveals' hashes and the drawn
// seed, fixed: computed once by this code and once by an independent
// implementation (Python's hashlib and hmac, HKDF written out by RFC 5869's
// two steps), which agreed. A change to any tag, field order or width fails
// here.
func TestSeedGoldenVector(t *testing.T) {
	op, au := vectorSecrets()
	co, ca := Commit(Operator, 531, op), Commit(Auditor, 531, au)
	for _, c := range []struct{ name, got, want string }{
		{"operator's commitment", co.String(), "def622f33a5b2e25a8d5e0079c508c1a27cc4b38848ca04642019930d24d885b"},
		{"auditor's commitment", ca.String(), "c0cbd113ad9174298a99b5c94f2b2e46c8dd90ac3869533eb1facd3eb9e48879"},
		{"operator's reveal hash", Commitment(RevealHash(op)).String(), "09fca08716adb430a7c64d76a216c8a5278b58c7babf259ce2e8e436b75de150"},
		{"auditor's reveal hash", Commitment(RevealHash(au)).String(), "c4fca7b5e2cbeaee970ca7ba9d33a4034829390748ba015753ef751b01c822c2"},
	} {
		if c.got != c.want {
			t.Errorf("%s: got %s, want %s", c.name, c.got, c.want)
		}
	}
	const wantSeed = "59ac47422c01843ad1eaa64621a8676d35b3dee30ad64cbfd3014a5f2db46fb9"
	ro := SeedFile{Role: Operator, Game: 531, Commitment: co, Secret: &op}
	ra := SeedFile{Role: Auditor, Game: 531, Commitment: ca, Secret: &au}
	// The order the commitments and reveals are given in does not matter:
	// the operator's comes first in the derivation.
	for _, order := range []struct {
		cs []Commitment
		rs []SeedFile
	}{{[]Commitment{co, ca}, []SeedFile{ro, ra}}, {[]Commitment{ca, co}, []SeedFile{ra, ro}}, {[]Commitment{co, ca}, []SeedFile{ra, ro}}} {
		s, err := DrawSeed(531, order.cs, order.rs)
		if err != nil || s.String() != wantSeed {
			t.Errorf("DrawSeed: got %s %v, want %s", s, err, wantSeed)
		}
	}
	// The commitment binds the role and the game.
	if Commit(Auditor, 531, op) == co || Commit(Operator, 532, op) == co {
		t.Error("a commitment does not depend on its role or game")
	}
}

// The files' texts, fixed: what seed commit writes and seed record reads.
func TestSeedFileText(t *testing.T) {
	op, _ := vectorSecrets()
	f := SeedFile{Role: Operator, Game: 531, Commitment: Commit(Operator, 531, op), Secret: &op}
	const wantSecret = "vegas-desk seed secret 1\nrole=operator\ngame=531\n" +
		"commitment=def622f33a5b2e25a8d5e0079c508c1a27cc4b38848ca04642019930d24d885b\n" +
		"secret=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f\n"
	const wantPublic = "vegas-desk seed commitment 1\nrole=operator\ngame=531\n" +
		"commitment=def622f33a5b2e25a8d5e0079c508c1a27cc4b38848ca04642019930d24d885b\n"
	if got := f.Text(); got != wantSecret {
		t.Errorf("secret file:\n%s\nwant:\n%s", got, wantSecret)
	}
	if got := f.Public().Text(); got != wantPublic {
		t.Errorf("commitment file:\n%s\nwant:\n%s", got, wantPublic)
	}
	for _, text := range []string{wantSecret, wantPublic, strings.ReplaceAll(wantSecret, "\n", "\r\n")} {
		g, err := ParseSeedFile([]byte(text))
		if err != nil || g.Role != Operator || g.Game != 531 || g.Commitment != f.Commitment || (g.Secret != nil) != strings.Contains(text, "secret=") {
			t.Errorf("ParseSeedFile(%q) = %+v, %v", text, g, err)
		}
	}
	n, err := NewSecretFile(Auditor, 531)
	if err != nil || n.Secret == nil || Commit(Auditor, 531, *n.Secret) != n.Commitment {
		t.Fatalf("NewSecretFile: %+v %v", n, err)
	}
	if again, err := ParseSeedFile([]byte(n.Text())); err != nil || *again.Secret != *n.Secret {
		t.Errorf("a new secret file does not read back: %v", err)
	}
}

// A seed file changed or made by hand is refused, saying what is wrong.
func TestParseSeedFileRefuses(t *testing.T) {
	op, _ := vectorSecrets()
	good := SeedFile{Role: Operator, Game: 531, Commitment: Commit(Operator, 531, op), Secret: &op}.Text()
	for _, c := range []struct{ name, text, want string }{
		{"empty", "", "empty"},
		{"another file", "vegas-desk signing key 1\n", "first line"},
		{"role changed", strings.Replace(good, "role=operator", "role=auditor", 1), "was changed"},
		{"game changed", strings.Replace(good, "game=531", "game=532", 1), "was changed"},
		{"secret changed", strings.Replace(good, "secret=00", "secret=ff", 1), "was changed"},
		{"unknown role", strings.Replace(good, "role=operator", "role=boss", 1), "want operator or auditor"},
		{"game 0531", strings.Replace(good, "game=531", "game=0531", 1), "game code"},
		{"short secret", strings.Replace(good, "secret=00", "secret=", 1), "hexadecimal"},
		{"no secret", strings.Replace(good, "secret=", "x=", 1), "unknown line"},
		{"twice", good + "role=operator\n", "twice"},
		{"secret in a commitment file", strings.Replace(good, "seed secret 1", "seed commitment 1", 1), "holds no secret"},
		{"no commitment", strings.Replace(good, "commitment=", "#", 1), "not name=value"},
		{"too long", good + strings.Repeat("\n", MaxSeedFile), "fewer than"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseSeedFile([]byte(c.text))
			if !errors.Is(err, ErrNotSeedFile) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want ErrNotSeedFile saying %q", err, c.want)
			}
		})
	}
}

// DrawSeed refuses reveals that are not one of each role opening the
// commitments given.
func TestDrawSeedRefuses(t *testing.T) {
	op, au := vectorSecrets()
	co, ca := Commit(Operator, 531, op), Commit(Auditor, 531, au)
	ro := SeedFile{Role: Operator, Game: 531, Commitment: co, Secret: &op}
	ra := SeedFile{Role: Auditor, Game: 531, Commitment: ca, Secret: &au}
	other := Secret{9}
	ro2 := SeedFile{Role: Operator, Game: 531, Commitment: Commit(Operator, 531, other), Secret: &other}
	forged := ra
	forged.Commitment = co // claims the operator's commitment
	for _, c := range []struct {
		name string
		g    int
		cs   []Commitment
		rs   []SeedFile
		want string
	}{
		{"one reveal", 531, []Commitment{co}, []SeedFile{ro}, "two commitments"},
		{"one commitment twice", 531, []Commitment{co, co}, []SeedFile{ro, ra}, "the same"},
		{"two operators", 531, []Commitment{co, ro2.Commitment}, []SeedFile{ro, ro2}, "two reveals of the operator"},
		{"another secret", 531, []Commitment{co, ca}, []SeedFile{ro2, ra}, "not one of the commitments"},
		{"commitment file", 531, []Commitment{co, ca}, []SeedFile{ro.Public(), ra}, "holds no secret"},
		{"another game", 532, []Commitment{co, ca}, []SeedFile{ro, ra}, "not of game 532"},
		{"a claimed commitment", 531, []Commitment{co, ca}, []SeedFile{ro, forged}, "commits to " + ca.String()},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := DrawSeed(c.g, c.cs, c.rs)
			if !errors.Is(err, ErrReveal) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want ErrReveal saying %q", err, c.want)
			}
		})
	}
}

// FuzzParseSeedFile: whatever the bytes, ParseSeedFile answers without a
// panic; what it accepts writes back to a file it reads the same, and a
// secret file it accepts opens its own commitment.
func FuzzParseSeedFile(f *testing.F) {
	op, _ := vectorSecrets()
	good := SeedFile{Role: Operator, Game: 531, Commitment: Commit(Operator, 531, op), Secret: &op}
	f.Add([]byte(good.Text()))
	f.Add([]byte(good.Public().Text()))
	f.Add([]byte("vegas-desk seed secret 1\nrole=\ngame=\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseSeedFile(data)
		if err != nil {
			if !errors.Is(err, ErrNotSeedFile) {
				t.Fatalf("error %v is not ErrNotSeedFile", err)
			}
			return
		}
		again, err := ParseSeedFile([]byte(s.Text()))
		if err != nil || again.Role != s.Role || again.Game != s.Game || again.Commitment != s.Commitment || (again.Secret == nil) != (s.Secret == nil) {
			t.Fatalf("%q reads %+v, whose text reads %+v, %v", data, s, again, err)
		}
		if s.Secret != nil && Match(s.Commitment, s) != nil {
			t.Fatalf("an accepted secret file does not open its commitment: %q", data)
		}
	})
}
