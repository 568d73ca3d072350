package signing

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestKeyFile(t *testing.T) {
	k := KeyFromSeed(bytes.Repeat([]byte{3}, 32))
	path := filepath.Join(t.TempDir(), "keys", "bo.key")
	pass := []byte("correct horse battery staple")
	if err := WriteKeyFile(path, k, []byte("short")); err == nil {
		t.Error("a short passphrase was accepted")
	}
	if err := WriteKeyFile(path, k, pass); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v %v", st.Mode(), err)
	}
	if st, _ := os.Stat(filepath.Dir(path)); st.Mode().Perm() != 0o700 {
		t.Errorf("directory mode %v", st.Mode())
	}
	if err := WriteKeyFile(path, k, pass); err == nil || !strings.Contains(err.Error(), "never replaced") {
		t.Errorf("a second write: %v", err)
	}
	back, err := ReadKeyFile(path, pass)
	if err != nil || !bytes.Equal(back.Public(), k.Public()) {
		t.Fatalf("read back: %v", err)
	}
	if _, err := ReadKeyFile(path, []byte("correct horse battery stapler")); !errors.Is(err, ErrWrongPassphrase) {
		t.Errorf("a wrong passphrase: %v", err)
	}
	data, _ := os.ReadFile(path)
	for _, change := range []struct{ from, to string }{
		{fmt.Sprintf("iterations=%d\n", newKeyIterations), fmt.Sprintf("iterations=%d\n", newKeyIterations+1)}, // the cost, lowered or not
		{"public_key=" + k.Public().String()[:4], "public_key=0000"},                                           // another public key
		{"kdf=pbkdf2-hmac-sha256", "kdf=scrypt"},
	} {
		changed := bytes.Replace(data, []byte(change.from), []byte(change.to), 1)
		if bytes.Equal(changed, data) {
			t.Errorf("the key file has no %q", change.from)
		}
		if _, err := DecryptKey(changed, pass); err == nil {
			t.Errorf("%s → %s: opened", change.from, change.to)
		}
	}
	if _, err := DecryptKey([]byte("hello"), pass); !errors.Is(err, ErrNotKeyFile) {
		t.Errorf("not a key file: %v", err)
	}
}

func TestSignVerify(t *testing.T) {
	k := KeyFromSeed(bytes.Repeat([]byte{5}, 32))
	text := k.Sign("vegas-desk checkpoint 1\nledger=abc\nhead=\"x\"\n")
	s, err := Verify([]byte(text), k.Public())
	if err != nil {
		t.Fatal(err)
	}
	if s.Kind != "vegas-desk checkpoint 1" || len(s.Fields) != 2 {
		t.Errorf("%+v", s)
	}
	if v, _ := s.Get("head"); v != `"x"` {
		t.Errorf("head %q", v)
	}
	// Every byte changed in turn, then a byte added and one removed.
	for i := range text {
		b := []byte(text)
		b[i] ^= 0x20
		if _, err := Verify(b, k.Public()); err == nil {
			t.Fatalf("byte %d changed: accepted", i)
		}
	}
	if _, err := Verify([]byte(text+"\n"), k.Public()); err == nil {
		t.Error("a line added: accepted")
	}
	if _, err := Verify([]byte(text[1:]), k.Public()); err == nil {
		t.Error("a byte removed: accepted")
	}
	other := KeyFromSeed(bytes.Repeat([]byte{6}, 32))
	if _, err := Verify([]byte(text), other.Public()); !errors.Is(err, ErrBadSignature) {
		t.Errorf("another key: %v", err)
	}
	forged := other.Sign("vegas-desk checkpoint 1\nledger=abc\nhead=\"x\"\n")
	if _, err := Verify([]byte(forged), k.Public()); !errors.Is(err, ErrBadSignature) {
		t.Errorf("signed by another key: %v", err)
	}
	if _, err := ParsePublicKey(groupsOf(k.Public().String())); err != nil {
		t.Errorf("a key in groups: %v", err)
	}
}

func groupsOf(h string) string {
	var parts []string
	for len(h) > 8 {
		parts, h = append(parts, h[:8]), h[8:]
	}
	return strings.Join(append(parts, h), " ")
}
