// Package servertest starts a validation server (package server) for the
// tests, in front of a ledger they hold: a real TLS listener on
// 127.0.0.1:0, the ledger's own authority made for the test, and desk
// files signed by it.
package servertest

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/protocol"
	"vegas-desk/internal/server"
)

// Served is a server running for a test.
type Served struct {
	URL       string
	Dir       string
	Authority *server.Authority
	Server    *server.Server
	Addr      string
	office    *ledger.Ledger
}

// Start serves l with cfg (its Dir made here) until the test ends.
func Start(tb testing.TB, l *ledger.Ledger, cfg server.Config) *Served {
	tb.Helper()
	dir := tb.TempDir()
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	a, err := server.NewAuthority(l.ID(), key, time.Now())
	if err != nil {
		tb.Fatal(err)
	}
	cert, pk, err := a.ServerCertificate([]string{"127.0.0.1", "localhost"}, time.Now())
	if err != nil {
		tb.Fatal(err)
	}
	for name, b := range map[string]*pem.Block{server.AuthorityCert: {Type: "CERTIFICATE", Bytes: a.Cert.Raw},
		server.ServerCert: {Type: "CERTIFICATE", Bytes: cert}, server.ServerKey: {Type: "PRIVATE KEY", Bytes: pk}} {
		if err := os.WriteFile(filepath.Join(dir, name), pem.EncodeToMemory(b), 0o600); err != nil {
			tb.Fatal(err)
		}
	}
	return serve(tb, l, cfg, dir, a)
}

// Beside starts another server of the same ledger (l: the same database,
// through a login of its own), with s's authority and certificate: one
// more address for the same desk files, until the test ends.
func (s *Served) Beside(tb testing.TB, l *ledger.Ledger, cfg server.Config) *Served {
	tb.Helper()
	dir := tb.TempDir()
	for _, name := range []string{server.AuthorityCert, server.ServerCert, server.ServerKey} {
		data, err := os.ReadFile(filepath.Join(s.Dir, name))
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, name), data, 0o600)
		}
		if err != nil {
			tb.Fatal(err)
		}
	}
	return serve(tb, l, cfg, dir, s.Authority)
}

// serve serves l with cfg and the certificates in dir.
func serve(tb testing.TB, l *ledger.Ledger, cfg server.Config, dir string, a *server.Authority) *Served {
	tb.Helper()
	cfg.Dir = dir
	s, err := server.New(l, cfg)
	if err != nil {
		tb.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	tb.Cleanup(func() {
		s.Close()
		if err := <-done; err != nil {
			tb.Errorf("serve: %v", err)
		}
	})
	return &Served{URL: "https://" + ln.Addr().String(), Dir: dir, Authority: a, Server: s, Addr: ln.Addr().String(), office: l}
}

// DeskFile writes a desk file of desk, valid for a year, and returns its
// path.
func (s *Served) DeskFile(tb testing.TB, desk string) string {
	tb.Helper()
	return s.DeskFileOf(tb, s.Authority, desk, time.Now().Add(-time.Hour), time.Now().AddDate(1, 0, 0))
}

// DeskFileOf writes a desk file of desk signed by a, valid from notBefore
// to notAfter; the desk, when the ledger lists it, accepts its certificate
// beside the others it was given (as desks cert --keep-old).
func (s *Served) DeskFileOf(tb testing.TB, a *server.Authority, desk string, notBefore, notAfter time.Time) string {
	tb.Helper()
	epoch, _, err := s.office.Epochs(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	data, err := a.DeskCertificate(desk, epoch, notBefore, notAfter)
	if err != nil {
		tb.Fatal(err)
	}
	d, err := protocol.ParseDeskFile(data)
	if err != nil {
		tb.Fatal(err)
	}
	_, err = s.office.AcceptDeskCert(context.Background(), desk, d.Cert.Leaf, true, ledger.Identity{Desk: "BO", Operator: "servertest"})
	if err != nil && !errors.Is(err, ledger.ErrNotFound) {
		tb.Fatal(err)
	}
	path := filepath.Join(tb.TempDir(), desk+".desk")
	if err := server.WriteDeskFile(path, data); err != nil {
		tb.Fatal(err)
	}
	return path
}

// Open opens the ledger of desk on the server, with a new desk file.
func (s *Served) Open(tb testing.TB, desk string) *ledger.Ledger {
	tb.Helper()
	l, err := ledger.OpenServer(s.URL, s.DeskFile(tb, desk))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { l.Close() })
	return l
}
