package benchref

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// PKI is a bare server's authority: the server's files written to a
// directory, the counters' certificates kept in memory for the client.
type PKI struct {
	Roots    *x509.CertPool
	Counters []tls.Certificate
}

// MakePKI writes to dir an authority's certificate and the loopback
// server's certificate and key, and makes counters client certificates
// (Ed25519 keys, as serve's authority makes them).
func MakePKI(dir string, counters int) (*PKI, error) {
	now := time.Now()
	caPub, caKey, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "bare authority"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(48 * time.Hour),
		KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true, IsCA: true}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, caPub, caKey)
	if err != nil {
		return nil, err
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, err
	}
	leaf := func(n int64, name string, usage x509.ExtKeyUsage) ([]byte, ed25519.PrivateKey, error) {
		pub, key, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			return nil, nil, err
		}
		t := &x509.Certificate{SerialNumber: big.NewInt(n), Subject: pkix.Name{CommonName: name},
			NotBefore: now.Add(-time.Hour), NotAfter: now.Add(48 * time.Hour),
			KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage}}
		if usage == x509.ExtKeyUsageServerAuth {
			t.IPAddresses = []net.IP{net.IPv4(127, 0, 0, 1)}
		}
		der, err := x509.CreateCertificate(rand.Reader, t, ca, pub, caKey)
		return der, key, err
	}
	srvDER, srvKey, err := leaf(2, "127.0.0.1", x509.ExtKeyUsageServerAuth)
	if err != nil {
		return nil, err
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(srvKey)
	if err != nil {
		return nil, err
	}
	for name, data := range map[string][]byte{
		CAFile:   pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		CertFile: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srvDER}),
		KeyFile:  pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			return nil, err
		}
	}
	p := &PKI{Roots: x509.NewCertPool()}
	p.Roots.AddCert(ca)
	for i := range counters {
		der, key, err := leaf(int64(3+i), fmt.Sprintf("counter-%d", i+1), x509.ExtKeyUsageClientAuth)
		if err != nil {
			return nil, err
		}
		p.Counters = append(p.Counters, tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key})
	}
	return p, nil
}
