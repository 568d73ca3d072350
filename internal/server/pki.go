package server

import (
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"

	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/ledger/protocol"
	"vegas-desk/internal/signing"
)

// The ledger's own certificate authority, in a directory (serve --init):
//
//	authority.key  the authority's Ed25519 key, a signing key file (its
//	               passphrase protects it as it protects the signing key)
//	authority.crt  its certificate: what the server trusts a desk by, and
//	               what a desk trusts the server by
//	server.key     the server's key (PKCS #8, 0600: the server starts alone)
//	server.crt     the server's certificate, signed by the authority
//
// Every certificate names the ledger (its organizational unit is the
// ledger's id); a desk's names the desk (its common name).
const (
	AuthorityKey  = "authority.key"
	AuthorityCert = "authority.crt"
	ServerKey     = "server.key"
	ServerCert    = "server.crt"
)

// Validity of what the authority signs.
const (
	AuthorityYears = 10
	ServerYears    = 2
	DeskYears      = 2
)

// Authority is the ledger's certificate authority, its key open.
type Authority struct {
	Cert *x509.Certificate
	Key  crypto.Signer
}

// NewAuthority makes an authority of ledger id with key.
func NewAuthority(ledgerID string, key crypto.Signer, now time.Time) (*Authority, error) {
	tmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: "vegas-desk authority", Organization: []string{protocol.Organization}, OrganizationalUnit: []string{ledgerID}},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.AddDate(AuthorityYears, 0, 0),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true, IsCA: true, MaxPathLenZero: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &Authority{Cert: cert, Key: key}, nil
}

func serial() *big.Int {
	n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	return n
}

// Ledger is the id of the ledger the authority signs for.
func (a *Authority) Ledger() string { return a.Cert.Subject.OrganizationalUnit[0] }

// sign signs a certificate of pub from tmpl.
func (a *Authority) sign(tmpl *x509.Certificate, pub crypto.PublicKey) ([]byte, error) {
	tmpl.SerialNumber = serial()
	return x509.CreateCertificate(rand.Reader, tmpl, a.Cert, pub, a.Key)
}

// ServerCertificate signs a server certificate for hosts (names or IP
// addresses), with a new key: certificate and key, DER.
func (a *Authority) ServerCertificate(hosts []string, now time.Time) (cert, key []byte, err error) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		Subject:   pkix.Name{CommonName: hosts[0], Organization: []string{protocol.Organization}, OrganizationalUnit: []string{a.Ledger()}},
		NotBefore: now.Add(-time.Hour), NotAfter: now.AddDate(ServerYears, 0, 0),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	if cert, err = a.sign(tmpl, pub); err != nil {
		return nil, nil, err
	}
	key, err = x509.MarshalPKCS8PrivateKey(priv)
	return cert, key, err
}

// DeskCertificate signs desk's certificate for incarnation epoch of the
// ledger (ledger.Epochs; protocol.CertEpoch), valid from notBefore to
// notAfter, for client authentication only, with a new key, and returns
// the desk file's text (protocol.DeskFile).
func (a *Authority) DeskCertificate(desk string, epoch int, notBefore, notAfter time.Time) ([]byte, error) {
	if err := core.CheckDeskID(desk); err != nil {
		return nil, err
	}
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		Subject:   pkix.Name{CommonName: desk, Organization: []string{protocol.Organization}, OrganizationalUnit: []string{a.Ledger()}},
		NotBefore: notBefore, NotAfter: notAfter,
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
		ExtraExtensions: protocol.EpochExtension(epoch),
	}
	cert, err := a.sign(tmpl, pub)
	if err != nil {
		return nil, err
	}
	key, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return nil, err
	}
	return protocol.DeskFile(cert, a.Cert.Raw, key), nil
}

// Init makes the authority of ledger id in dir (made 0700; an existing
// one that others may read is refused), its key in a
// key file under passphrase, and, unless the operator gives the server's
// own certificate (certGiven), the server's certificate for hosts. Nothing
// there is replaced.
func Init(dir, ledgerID string, hosts []string, passphrase []byte, certGiven bool) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	// An existing directory others may read is refused, not changed: it
	// may hold more than the authority (a home directory).
	if err := protocol.CheckPrivateDir(dir); err != nil {
		return fmt.Errorf("serve --init: %w, or give a new directory", err)
	}
	names := []string{AuthorityKey, AuthorityCert, ServerKey, ServerCert}
	for _, n := range names {
		if _, err := os.Lstat(filepath.Join(dir, n)); err == nil {
			return fmt.Errorf("%s exists already: serve --init makes a new authority in an empty directory", filepath.Join(dir, n))
		}
	}
	key, err := signing.Generate()
	if err != nil {
		return err
	}
	a, err := NewAuthority(ledgerID, key.Signer(), time.Now())
	if err != nil {
		return err
	}
	if err := signing.WriteKeyFile(filepath.Join(dir, AuthorityKey), key, passphrase); err != nil {
		return err
	}
	if err := writeNew(filepath.Join(dir, AuthorityCert), pemOf("CERTIFICATE", a.Cert.Raw)); err != nil {
		return err
	}
	if certGiven {
		return nil
	}
	cert, pk, err := a.ServerCertificate(hosts, time.Now())
	if err != nil {
		return err
	}
	if err := writeNew(filepath.Join(dir, ServerKey), pemOf("PRIVATE KEY", pk)); err != nil {
		return err
	}
	return writeNew(filepath.Join(dir, ServerCert), pemOf("CERTIFICATE", cert))
}

// OpenAuthority opens dir's authority with passphrase.
func OpenAuthority(dir string, passphrase []byte) (*Authority, error) {
	cert, err := ReadCertificate(filepath.Join(dir, AuthorityCert))
	if err != nil {
		return nil, err
	}
	if err := protocol.CheckPrivate(filepath.Join(dir, AuthorityKey)); err != nil {
		return nil, fmt.Errorf("the authority's key: %w", err)
	}
	key, err := signing.ReadKeyFile(filepath.Join(dir, AuthorityKey), passphrase)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, AuthorityKey), err)
	}
	if !key.Signer().Public().(ed25519.PublicKey).Equal(cert.PublicKey) {
		return nil, fmt.Errorf("%s is not the key of %s", AuthorityKey, AuthorityCert)
	}
	return &Authority{Cert: cert, Key: key.Signer()}, nil
}

// ReadCertificate reads a PEM certificate file.
func ReadCertificate(path string) (*x509.Certificate, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	b, _ := pem.Decode(data)
	if b == nil || b.Type != "CERTIFICATE" {
		return nil, fmt.Errorf("%s: not a PEM certificate", path)
	}
	return x509.ParseCertificate(b.Bytes)
}

func pemOf(kind string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der})
}

// writeNew writes data to a new file at path, 0600.
func writeNew(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	return errors.Join(err, f.Sync(), f.Close())
}

// WriteDeskFile writes a desk file to a new file at path (0600).
func WriteDeskFile(path string, data []byte) error { return writeNew(path, data) }
