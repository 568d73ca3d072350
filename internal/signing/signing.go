// Package signing holds the back office's Ed25519 signing key, kept in a
// file of its own encrypted under a passphrase, and signs and checks the
// texts vegas-desk certifies: block certificates, counter ledgers and
// checkpoints of the journal head.
//
// A signed text is plain UTF-8 lines "name=value" (see Sign); the key file
// is the same kind of text (see WriteKeyFile). Both formats are versioned
// by their first line and described in docs/ledger-format.md.
package signing

import (
	"bytes"
	"crypto"
	"crypto/aes"
	"crypto/cipher"
	"crypto/ed25519"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"vegas-desk/internal/platform"
)

// Errors a caller must tell apart.
var (
	// ErrWrongPassphrase: the passphrase does not open the key file (or the
	// file was changed: the two cannot be told apart).
	ErrWrongPassphrase = errors.New("wrong passphrase")
	// ErrNotKeyFile: the file is not a vegas-desk key file.
	ErrNotKeyFile = errors.New("not a vegas-desk key file")
	// ErrBadSignature: a signed text whose signature does not match its
	// bytes or the expected key.
	ErrBadSignature = errors.New("signature does not match")
	// ErrNotSigned: not a signed text of vegas-desk.
	ErrNotSigned = errors.New("not a signed vegas-desk text")
)

// Key is an Ed25519 private key.
type Key struct{ priv ed25519.PrivateKey }

// Generate makes a new key from crypto/rand.
func Generate() (*Key, error) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	return &Key{priv}, nil
}

// KeyFromSeed makes the key of a 32-byte seed (tests, fixed examples).
func KeyFromSeed(seed []byte) *Key { return &Key{ed25519.NewKeyFromSeed(seed)} }

// Public returns the public key.
func (k *Key) Public() PublicKey { return PublicKey(k.priv.Public().(ed25519.PublicKey)) }

// PublicKey is an Ed25519 public key; it prints as 64 hexadecimal digits.
type PublicKey ed25519.PublicKey

func (p PublicKey) String() string { return hex.EncodeToString(p) }

// ParsePublicKey reads a public key written as 64 hexadecimal digits
// (spaces ignored, as printed in groups on paper).
func ParsePublicKey(s string) (PublicKey, error) {
	h := strings.Join(strings.Fields(s), "")
	b, err := hex.DecodeString(h)
	if err != nil || len(b) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("public key %q: give the %d hexadecimal digits printed when the key was made (keygen)", s, 2*ed25519.PublicKeySize)
	}
	return PublicKey(b), nil
}

// Sign returns body (lines "name=value\n", the first naming the kind of
// text and its version) followed by two lines: "public_key=" the signer's
// public key in hex, and "signature=" the Ed25519 signature in hex of
// every byte before it (body and the public_key line).
func (k *Key) Sign(body string) string {
	if !strings.HasSuffix(body, "\n") {
		body += "\n"
	}
	signed := body + "public_key=" + k.Public().String() + "\n"
	sig := ed25519.Sign(k.priv, []byte(signed))
	return signed + "signature=" + hex.EncodeToString(sig) + "\n"
}

// Signed is a signed text, checked.
type Signed struct {
	Kind   string    // its first line, e.g. "vegas-desk block certificate 1"
	Fields []Field   // the lines after it, before public_key, in order
	Key    PublicKey // who signed it
	Text   string    // the whole text, signature included
	Digest [32]byte  // SHA-256 of Text
}

// Field is one line "name=value" of a signed text.
type Field struct{ Name, Value string }

// Get returns the value of the first field named name.
func (s *Signed) Get(name string) (string, bool) {
	for _, f := range s.Fields {
		if f.Name == name {
			return f.Value, true
		}
	}
	return "", false
}

// All returns the values of every field named name, in order.
func (s *Signed) All(name string) []string {
	var out []string
	for _, f := range s.Fields {
		if f.Name == name {
			out = append(out, f.Value)
		}
	}
	return out
}

// Verify checks a signed text: its signature over every byte before the
// signature line, made by want (nil: by whichever key it names; the caller
// then must compare Key with a key it trusts). Any byte changed, added or
// removed is refused.
func Verify(text []byte, want PublicKey) (*Signed, error) {
	const sigLine = "signature="
	i := bytes.LastIndex(text, []byte("\n"+sigLine))
	if i < 0 || !bytes.HasPrefix(text, []byte("vegas-desk ")) || !bytes.HasSuffix(text, []byte("\n")) {
		return nil, ErrNotSigned
	}
	signed, sigHex := text[:i+1], string(text[i+1+len(sigLine):len(text)-1])
	sig, err := hex.DecodeString(sigHex)
	if err != nil || len(sig) != ed25519.SignatureSize || strings.ToLower(sigHex) != sigHex {
		return nil, fmt.Errorf("%w: the signature line is damaged", ErrBadSignature)
	}
	lines := strings.Split(strings.TrimSuffix(string(signed), "\n"), "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[len(lines)-1], "public_key=") {
		return nil, ErrNotSigned
	}
	key, err := hex.DecodeString(strings.TrimPrefix(lines[len(lines)-1], "public_key="))
	if err != nil || len(key) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("%w: the public_key line is damaged", ErrBadSignature)
	}
	if !ed25519.Verify(ed25519.PublicKey(key), signed, sig) {
		return nil, fmt.Errorf("%w: the text was changed after it was signed", ErrBadSignature)
	}
	if want != nil && !bytes.Equal(key, want) {
		return nil, fmt.Errorf("%w: signed by key %x, not by %s", ErrBadSignature, key, want)
	}
	s := &Signed{Kind: lines[0], Key: PublicKey(key), Text: string(text), Digest: sha256.Sum256(text)}
	for _, ln := range lines[1 : len(lines)-1] {
		name, value, ok := strings.Cut(ln, "=")
		if !ok {
			return nil, fmt.Errorf("%w: line %q is not name=value", ErrNotSigned, ln)
		}
		s.Fields = append(s.Fields, Field{name, value})
	}
	return s, nil
}

// The key file, version 1: text lines, the last one sealed with
// AES-256-GCM under a key derived from the passphrase with PBKDF2-HMAC-
// SHA256; every line before it is the GCM's additional data, so that no
// parameter and not the public key can be changed unnoticed.
//
//	vegas-desk signing key 1
//	kdf=pbkdf2-hmac-sha256
//	iterations=600000
//	salt=<16 bytes, hex>
//	cipher=aes-256-gcm
//	nonce=<12 bytes, hex>
//	public_key=<32 bytes, hex>
//	sealed=<AES-256-GCM of the 32-byte Ed25519 seed: 48 bytes, hex>
const (
	// KeyFileMagic begins every version of the key file.
	KeyFileMagic  = "vegas-desk signing key "
	keyFileHeader = KeyFileMagic + "1"
	// Iterations of PBKDF2-HMAC-SHA256 for a new key file (OWASP's 2023
	// figure for this function); a file records its own.
	Iterations = 600_000
	// MinPassphrase is the shortest passphrase a new key file accepts.
	MinPassphrase = 12
)

func aead(passphrase []byte, salt []byte, iterations int) (cipher.AEAD, error) {
	k, err := pbkdf2.Key(sha256.New, string(passphrase), salt, iterations, 32)
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(k)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// EncryptKey returns the key file of k under passphrase.
func EncryptKey(k *Key, passphrase []byte) ([]byte, error) {
	if len([]rune(string(passphrase))) < MinPassphrase {
		return nil, fmt.Errorf("the passphrase has %d characters; give at least %d", len([]rune(string(passphrase))), MinPassphrase)
	}
	salt := make([]byte, 16)
	nonce := make([]byte, 12)
	rand.Read(salt)
	rand.Read(nonce)
	g, err := aead(passphrase, salt, newKeyIterations)
	if err != nil {
		return nil, err
	}
	head := fmt.Sprintf("%s\nkdf=pbkdf2-hmac-sha256\niterations=%d\nsalt=%x\ncipher=aes-256-gcm\nnonce=%x\npublic_key=%s\n",
		keyFileHeader, newKeyIterations, salt, nonce, k.Public())
	sealed := g.Seal(nil, nonce, k.priv.Seed(), []byte(head))
	return []byte(head + "sealed=" + hex.EncodeToString(sealed) + "\n"), nil
}

// DecryptKey opens a key file with passphrase.
func DecryptKey(data, passphrase []byte) (*Key, error) {
	i := bytes.LastIndex(data, []byte("\nsealed="))
	if !bytes.HasPrefix(data, []byte(keyFileHeader+"\n")) || i < 0 {
		return nil, ErrNotKeyFile
	}
	head := data[:i+1]
	fields := map[string]string{}
	for _, ln := range strings.Split(strings.TrimSuffix(string(head), "\n"), "\n")[1:] {
		name, value, _ := strings.Cut(ln, "=")
		fields[name] = value
	}
	iter, err := strconv.Atoi(fields["iterations"])
	salt, err1 := hex.DecodeString(fields["salt"])
	nonce, err2 := hex.DecodeString(fields["nonce"])
	sealed, err3 := hex.DecodeString(strings.TrimSpace(string(data[i+len("\nsealed="):])))
	pub, err4 := hex.DecodeString(fields["public_key"])
	if errors.Join(err, err1, err2, err3, err4) != nil || fields["kdf"] != "pbkdf2-hmac-sha256" || fields["cipher"] != "aes-256-gcm" ||
		iter < 1 || iter > 100_000_000 || len(nonce) != 12 || len(pub) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("%w: a line is damaged or of an unknown kind", ErrNotKeyFile)
	}
	g, err := aead(passphrase, salt, iter)
	if err != nil {
		return nil, err
	}
	seed, err := g.Open(nil, nonce, sealed, head)
	if err != nil || len(seed) != ed25519.SeedSize {
		return nil, ErrWrongPassphrase
	}
	k := KeyFromSeed(seed)
	if !bytes.Equal(k.Public(), pub) {
		return nil, fmt.Errorf("%w: its public key does not match its private key", ErrNotKeyFile)
	}
	return k, nil
}

// WriteKeyFile writes k encrypted under passphrase to a new file at path
// (mode 0600, in a directory made 0700 when missing). An existing file is
// never replaced: a key file lost is every future signature lost.
func WriteKeyFile(path string, k *Key, passphrase []byte) error {
	data, err := EncryptKey(k, passphrase)
	if err != nil {
		return err
	}
	if err := platform.MkdirAllOwnerOnly(filepath.Dir(path)); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return fmt.Errorf("%s exists: a key file is never replaced; choose another name", path)
		}
		return err
	}
	// (Windows: 0600 means nothing there; an access list for the owner alone.)
	if err := platform.OwnerOnly(path); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	return f.Close()
}

// MaxKeyFile bounds what ReadKeyFile reads: a key file is a few hundred
// bytes.
const MaxKeyFile = 16 << 10

// ReadKeyFile opens the key file at path with passphrase. A file larger
// than MaxKeyFile (a device, a wrong file) is ErrNotKeyFile, read no
// further than the bound.
func ReadKeyFile(path string, passphrase []byte) (*Key, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxKeyFile+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxKeyFile {
		return nil, fmt.Errorf("key file %s: more than %d KB, %w", path, MaxKeyFile>>10, ErrNotKeyFile)
	}
	k, err := DecryptKey(data, passphrase)
	if err != nil {
		return nil, fmt.Errorf("key file %s: %w", path, err)
	}
	return k, nil
}

// Quote writes a string value of a signed text: Go-quoted, so that any
// text stays on its line and reads back one way.
func Quote(s string) string { return strconv.Quote(s) }

// Unquote reads a value written by Quote.
func Unquote(s string) (string, error) { return strconv.Unquote(s) }

// Signer is the key as a crypto.Signer: the ledger's certificate authority
// (package server) signs certificates with a key kept in a key file.
func (k *Key) Signer() crypto.Signer { return k.priv }
