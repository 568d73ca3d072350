package protocol

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"strings"
)

// A desk file is what desks add --out writes for one counter: a first
// line naming the format, then three PEM blocks: the desk's certificate
// (signed by the ledger's authority, naming the desk and the ledger), the
// authority's certificate (the one that signs the server's too: the
// counter trusts it alone), and the desk's private key (PKCS #8). The file
// is the counter's alone (0600).

// DeskFileHeader is a desk file's first line.
const DeskFileHeader = "vegas-desk desk file 1"

// Organization is the organization of every certificate of a ledger's
// authority; a certificate's organizational unit is its ledger's id.
const Organization = "vegas-desk"

// ErrNotDeskFile: the file is not a desk file.
var ErrNotDeskFile = errors.New("not a vegas-desk desk file")

// Desk is a desk file, read.
type Desk struct {
	ID, Ledger string
	Cert       tls.Certificate
	Authority  *x509.Certificate
	Roots      *x509.CertPool
}

// DeskFile writes a desk file's text.
func DeskFile(cert, authority, key []byte) []byte {
	var b bytes.Buffer
	b.WriteString(DeskFileHeader + "\n")
	pem.Encode(&b, &pem.Block{Type: "CERTIFICATE", Bytes: cert})
	pem.Encode(&b, &pem.Block{Type: "CERTIFICATE", Bytes: authority})
	pem.Encode(&b, &pem.Block{Type: "PRIVATE KEY", Bytes: key})
	return b.Bytes()
}

// ReadDeskFile reads the desk file at path.
func ReadDeskFile(path string) (*Desk, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("desk file: %w", err)
	}
	if !st.Mode().IsRegular() || st.Size() > 64<<10 {
		return nil, fmt.Errorf("desk file %s: %w: not a regular file of at most 64 KiB", path, ErrNotDeskFile)
	}
	if err := CheckPrivate(path); err != nil {
		return nil, fmt.Errorf("desk file %w", err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("desk file: %w", err)
	}
	d, err := ParseDeskFile(data)
	if err != nil {
		return nil, fmt.Errorf("desk file %s: %w", path, err)
	}
	return d, nil
}

// ParseDeskFile reads a desk file's text.
func ParseDeskFile(data []byte) (*Desk, error) {
	if !bytes.HasPrefix(data, []byte(DeskFileHeader+"\n")) {
		return nil, ErrNotDeskFile
	}
	var blocks []*pem.Block
	rest := data
	for len(blocks) < 4 {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			break
		}
		blocks = append(blocks, b)
	}
	if len(blocks) != 3 || blocks[0].Type != "CERTIFICATE" || blocks[1].Type != "CERTIFICATE" || blocks[2].Type != "PRIVATE KEY" {
		return nil, fmt.Errorf("%w: want the desk's certificate, the authority's and the desk's key", ErrNotDeskFile)
	}
	leaf, err := x509.ParseCertificate(blocks[0].Bytes)
	if err != nil {
		return nil, fmt.Errorf("%w: the desk's certificate: %w", ErrNotDeskFile, err)
	}
	ca, err := x509.ParseCertificate(blocks[1].Bytes)
	if err != nil {
		return nil, fmt.Errorf("%w: the authority's certificate: %w", ErrNotDeskFile, err)
	}
	key, err := x509.ParsePKCS8PrivateKey(blocks[2].Bytes)
	if err != nil {
		return nil, fmt.Errorf("%w: the desk's key: %w", ErrNotDeskFile, err)
	}
	desk, ledger, ok := Names(leaf)
	if !ok {
		return nil, fmt.Errorf("%w: the certificate names no desk of a ledger", ErrNotDeskFile)
	}
	roots := x509.NewCertPool()
	roots.AddCert(ca)
	return &Desk{ID: desk, Ledger: ledger, Authority: ca, Roots: roots,
		Cert: tls.Certificate{Certificate: [][]byte{blocks[0].Bytes}, PrivateKey: key, Leaf: leaf}}, nil
}

// CertSerial is c's serial number as the ledger keeps it (desk_certs) and
// desks list shows it: lowercase hex.
func CertSerial(c *x509.Certificate) string { return c.SerialNumber.Text(16) }

// Names are the desk and the ledger id a desk's certificate names.
func Names(c *x509.Certificate) (desk, ledger string, ok bool) {
	s := c.Subject
	if len(s.Organization) != 1 || s.Organization[0] != Organization || len(s.OrganizationalUnit) != 1 || s.CommonName == "" ||
		strings.TrimSpace(s.OrganizationalUnit[0]) == "" {
		return "", "", false
	}
	return s.CommonName, s.OrganizationalUnit[0], true
}

// OIDEpoch is the extension of a desk's certificate that names the
// incarnation of its ledger it was issued for (ledger.MetaEpoch): an
// ASN.1 INTEGER, absent for incarnation 0. Its arc is 2.25, a UUID's
// (ITU-T X.667), which needs no registration.
var OIDEpoch = asn1.ObjectIdentifier{2, 25, 189187382, 926186618, 563892145, 242673026, 839}

// EpochExtension is the extension naming incarnation epoch (none for 0).
func EpochExtension(epoch int) []pkix.Extension {
	if epoch == 0 {
		return nil
	}
	v, _ := asn1.Marshal(epoch)
	return []pkix.Extension{{Id: OIDEpoch, Value: v}}
}

// CertEpoch is the incarnation a desk's certificate was issued for (0 when
// it names none); ok is false for an extension that is not a number.
func CertEpoch(c *x509.Certificate) (epoch int, ok bool) {
	for _, e := range c.Extensions {
		if e.Id.Equal(OIDEpoch) {
			rest, err := asn1.Unmarshal(e.Value, &epoch)
			return epoch, err == nil && len(rest) == 0 && epoch > 0
		}
	}
	return 0, true
}
