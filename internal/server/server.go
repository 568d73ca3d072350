// Package server is vegas-desk serve: the validation server counters ask
// over HTTPS, in front of a back office's ledger (a SQLite file or a
// PostgreSQL database). A desk authenticates with a client certificate
// signed by the ledger's own authority (mTLS, TLS 1.3); every question is
// a call of the ledger's API (package ledger) made as the desk of the
// certificate, after the desk's row is read again (disabled, lock-out):
// the rule itself is the ledger's, in Go. The API is narrow and versioned
// (/v1/…), its answers the command line's --json (package wire).
package server

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"sync"
	"time"

	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/protocol"
)

// Limits of what a client may hold or send.
const (
	MaxBody         = 16 << 10 // a question's body
	MaxHeader       = 8 << 10
	MaxConnsPerDesk = 8
)

// Config is a server's settings; zero fields take the defaults.
type Config struct {
	// Dir holds the authority's certificate and the server's key and
	// certificate (Init); CertFile and KeyFile, when given, are the
	// operator's own server certificate and key instead.
	Dir, CertFile, KeyFile string
	// Timeouts: of a request's headers (and the handshake), of its whole
	// read, of the answer's write, and of an idle connection.
	ReadHeaderTimeout, ReadTimeout, WriteTimeout, IdleTimeout time.Duration
	// MaxConnsPerDesk bounds one desk's open connections.
	MaxConnsPerDesk int
	// The monitor's listener (ServeMonitor): its open connections at
	// most, and how long one may stay idle.
	MonitorMaxConns    int
	MonitorIdleTimeout time.Duration
	// LockedQuantum: a locked-out desk's question is answered at a
	// multiple of it after its arrival (timing).
	LockedQuantum time.Duration
	// Log receives the server's lines (log.go); nil: none.
	Log *slog.Logger
}

// Server serves one ledger.
type Server struct {
	l      *ledger.Ledger
	cfg    Config
	tls    *tls.Config
	http   *http.Server
	mon    *http.Server // the monitor's (ServeMonitor), under mu
	mu     sync.Mutex
	byDesk map[string]int
	conns  map[net.Conn]*slot
	watch  // its log and metrics (log.go, metrics.go)
	// servable is ledger.CheckServable's answer once it refused: a
	// replaced ledger is replaced for good (meta rows are written once).
	servable struct {
		sync.Mutex
		err error
	}
	// epoch is the ledger's incarnation, deskEpoch the first whose desk
	// files it takes (ledger.Epochs: written once, when it was made).
	epoch, deskEpoch int
}

// servableErr refuses every request once a restore replaced the ledger
// (issue 29: ledger.CheckServable), and once replaced, replaced for good.
// A question (question true) reads the fence in its own read, in the
// statement that reads its desk's gate (core.Gate.Replaced: issue 36, a
// server went on paying for up to a second beside the restore that
// replaced its ledger when the fence was read at most once a second;
// issue 37, a statement of its own before each question); every other
// request reads it here, before it is answered.
func (s *Server) servableErr(ctx context.Context, question bool) error {
	sv := &s.servable
	sv.Lock()
	err := sv.err
	sv.Unlock()
	if err != nil || question {
		return err
	}
	if err := ledger.CheckServable(ctx, s.l); errors.Is(err, ledger.ErrReplaced) {
		return s.replaced(ctx, err)
	}
	return nil
}

// replaced is the refusal of a ledger found replaced (err, from
// CheckServable or a question's gate), kept: every later request is
// refused with it, without reading the ledger.
func (s *Server) replaced(ctx context.Context, err error) error {
	if full := ledger.CheckServable(ctx, s.l); errors.Is(full, ledger.ErrReplaced) {
		err = full // the ledger's id, location, and its restore's
	}
	sv := &s.servable
	sv.Lock()
	defer sv.Unlock()
	if sv.err == nil {
		sv.err = err
	}
	return sv.err
}

// checkEpoch refuses a desk file of another incarnation of the ledger
// (issue 36): one of a later incarnation proves that a restore replaced
// this ledger (only the authority signs it, for the restore), which is
// then marked replaced and serves no desk; one of an incarnation before
// those the ledger takes (a restore that could not fence its original)
// needs a new desk file.
func (s *Server) checkEpoch(ctx context.Context, desk string, cert *x509.Certificate) error {
	e, ok := protocol.CertEpoch(cert)
	switch {
	case !ok:
		return fail(protocol.CodeDeskRevoked, fmt.Sprintf("desk %s's desk file names no incarnation of the ledger that vegas-desk writes: ask the back office for a new desk file", desk))
	case e > s.epoch:
		err := s.l.Superseded(ctx, e)
		if err == nil {
			err = ledger.CheckServable(ctx, s.l)
		}
		if errors.Is(err, ledger.ErrReplaced) {
			s.servable.Lock()
			s.servable.err = err
			s.servable.Unlock()
		}
		return fail(protocol.CodeOtherLedger, fmt.Sprintf("desk %s's desk file was issued for incarnation %d of ledger %s, and this server's is incarnation %d: a restore replaced it; serve the restore (%v)",
			desk, e, s.l.ID(), s.epoch, err))
	case e < s.deskEpoch:
		return fail(protocol.CodeDeskRevoked, fmt.Sprintf("desk %s's desk file was issued for incarnation %d of ledger %s; this one is incarnation %d, restored without fencing its original, "+
			"and takes no desk file issued before it: ask the back office for a new desk file (desks cert %s --out FILE)", desk, e, s.l.ID(), s.epoch, desk))
	}
	return nil
}

// New makes the server of l with cfg.
func New(l *ledger.Ledger, cfg Config) (*Server, error) {
	if cfg.ReadHeaderTimeout == 0 {
		cfg.ReadHeaderTimeout = 5 * time.Second
	}
	if cfg.ReadTimeout == 0 {
		cfg.ReadTimeout = 10 * time.Second
	}
	if cfg.WriteTimeout == 0 {
		cfg.WriteTimeout = 20 * time.Second
	}
	if cfg.IdleTimeout == 0 {
		cfg.IdleTimeout = 60 * time.Second
	}
	if cfg.MaxConnsPerDesk == 0 {
		cfg.MaxConnsPerDesk = MaxConnsPerDesk
	}
	// Issue 29: a ledger a restore replaced serves no desk beside it.
	if err := ledger.CheckServable(context.Background(), l); err != nil {
		return nil, err
	}
	epoch, deskEpoch, err := l.Epochs(context.Background())
	if err != nil {
		return nil, err
	}
	ca, err := ReadCertificate(filepath.Join(cfg.Dir, AuthorityCert))
	if err != nil {
		return nil, fmt.Errorf("the ledger's authority: %w (make it with vegas-desk serve --init)", err)
	}
	if len(ca.Subject.OrganizationalUnit) != 1 || ca.Subject.OrganizationalUnit[0] != l.ID() {
		return nil, fmt.Errorf("%s is the authority of another ledger (%v), not of %s's (%s)", filepath.Join(cfg.Dir, AuthorityCert),
			ca.Subject.OrganizationalUnit, l.Location(), l.ID())
	}
	if cfg.CertFile == "" {
		cfg.CertFile, cfg.KeyFile = filepath.Join(cfg.Dir, ServerCert), filepath.Join(cfg.Dir, ServerKey)
	}
	if err := protocol.CheckPrivate(cfg.KeyFile); err != nil {
		return nil, fmt.Errorf("the server's key: %w", err)
	}
	cert, err := tls.LoadX509KeyPair(cfg.CertFile, cfg.KeyFile)
	if err != nil {
		return nil, fmt.Errorf("the server's certificate: %w", err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(ca)
	l.LockOutGuesses()
	s := &Server{l: l, cfg: cfg, byDesk: map[string]int{}, conns: map[net.Conn]*slot{}, epoch: epoch, deskEpoch: deskEpoch}
	s.tls = &tls.Config{MinVersion: tls.VersionTLS13, Certificates: []tls.Certificate{cert},
		ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: roots, VerifyConnection: s.verify}
	s.http = &http.Server{Handler: s.routes(), TLSConfig: s.tls, MaxHeaderBytes: MaxHeader,
		ReadHeaderTimeout: cfg.ReadHeaderTimeout, ReadTimeout: cfg.ReadTimeout, WriteTimeout: cfg.WriteTimeout,
		IdleTimeout: cfg.IdleTimeout, ConnContext: s.connContext, ConnState: s.connState,
		TLSNextProto: map[string]func(*http.Server, *tls.Conn, http.Handler){}} // HTTP/1.1: one question a connection at a time
	s.watchOver()
	return s, nil
}

// verify refuses, at the handshake, a certificate (already checked against
// the authority: its dates, its use for client authentication) that names
// no desk or another ledger.
func (s *Server) verify(cs tls.ConnectionState) error {
	if len(cs.PeerCertificates) == 0 {
		return errors.New("no client certificate: a desk presents its desk file's")
	}
	_, id, ok := protocol.Names(cs.PeerCertificates[0])
	if !ok || id != s.l.ID() {
		return fmt.Errorf("a certificate of another ledger (%q)", id)
	}
	return nil
}

// Serve answers on ln until Shutdown.
func (s *Server) Serve(ln net.Listener) error {
	s.started(ln)
	err := s.http.Serve(tls.NewListener(ln, s.tls))
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	s.stopped(err)
	return err
}

// Shutdown stops the server, letting questions in flight end, and its
// monitor.
func (s *Server) Shutdown(ctx context.Context) error {
	if mon := s.monitor(); mon != nil {
		defer mon.Close()
	}
	return s.http.Shutdown(ctx)
}

// Close stops the server and its monitor at once.
func (s *Server) Close() error {
	if mon := s.monitor(); mon != nil {
		mon.Close()
	}
	return s.http.Close()
}

func (s *Server) monitor() *http.Server {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mon
}

// slot is a connection's place in its desk's count; its fields are the
// server's mu's.
type slot struct {
	conn  net.Conn
	desk  string
	cert  *x509.Certificate // the certificate it counts by
	over  bool
	taken bool
}

type slotKey struct{}

func (s *Server) connContext(ctx context.Context, c net.Conn) context.Context {
	sl := &slot{conn: c}
	s.mu.Lock()
	s.conns[c] = sl
	s.mu.Unlock()
	return context.WithValue(ctx, slotKey{}, sl)
}

// connState gives a closed connection's place back.
func (s *Server) connState(c net.Conn, st http.ConnState) {
	if st != http.StateClosed && st != http.StateHijacked {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if sl := s.conns[c]; sl != nil {
		s.untake(sl)
	}
	delete(s.conns, c)
}

// untake gives sl's place back, once (s.mu held).
func (s *Server) untake(sl *slot) {
	if !sl.taken {
		return
	}
	if s.byDesk[sl.desk]--; s.byDesk[sl.desk] <= 0 {
		delete(s.byDesk, sl.desk)
	}
	sl.taken = false
}

// slotOf is the place of r's connection (nil for a request asked of
// Handler, not through Serve, which holds no connection of the server's).
func slotOf(r *http.Request) *slot {
	sl, _ := r.Context().Value(slotKey{}).(*slot)
	return sl
}

// take counts the connection of a request against desk's bound, once, by
// the certificate cert; it reports whether the desk holds more
// connections than allowed.
func (s *Server) take(r *http.Request, desk string, cert *x509.Certificate) bool {
	sl := slotOf(r)
	if sl == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !sl.taken {
		sl.taken, sl.desk, sl.cert = true, desk, cert
		s.byDesk[desk]++
		sl.over = s.byDesk[desk] > s.cfg.MaxConnsPerDesk
	}
	return sl.over
}

// release gives the place of r's connection back: the ledger refused its
// certificate cert of desk (revoked; the desk disabled or unknown: all),
// and the connection closes after its answer. The other connections of
// that certificate (of the desk, when all) are closed now: none of them
// counts against the desk's bound (issue 44 item 4b).
func (s *Server) release(r *http.Request, desk string, cert *x509.Certificate, all bool) {
	mine := slotOf(r)
	if mine == nil {
		return
	}
	serial := protocol.CertSerial(cert)
	var closing []net.Conn
	s.mu.Lock()
	s.untake(mine)
	for c, sl := range s.conns {
		if sl != mine && sl.taken && sl.desk == desk && (all || sl.cert != nil && protocol.CertSerial(sl.cert) == serial) {
			s.untake(sl)
			closing = append(closing, c)
		}
	}
	s.mu.Unlock()
	s.closeRefused(desk, closing)
}

// closeRefused closes the connections of a certificate the ledger refuses.
func (s *Server) closeRefused(desk string, conns []net.Conn) {
	for _, c := range conns {
		c.Close()
	}
	if len(conns) > 0 {
		s.log.Warn("connections of a refused certificate closed", "desk", desk, "connections", len(conns))
	}
}

// evict closes desk's other connections whose certificate the ledger no
// longer accepts (revoked, replaced: a stolen desk file; the desk disabled
// or gone), read now, so that they do not count against the bound (issue
// 44 item 4b: a thief's 8 connections kept the new terminal out); it
// reports whether r's connection is still over the bound.
func (s *Server) evict(ctx context.Context, r *http.Request, desk string) bool {
	mine := slotOf(r)
	s.mu.Lock()
	certs := map[string]*x509.Certificate{}
	for _, sl := range s.conns {
		if sl != mine && sl.taken && sl.desk == desk && sl.cert != nil {
			certs[protocol.CertSerial(sl.cert)] = sl.cert
		}
	}
	s.mu.Unlock()
	refused := map[string]bool{}
	for serial, cert := range certs {
		d, accepts, err := s.l.DeskState(ctx, desk, cert)
		if errors.Is(err, ledger.ErrNotFound) || err == nil && (d.Disabled || !accepts) {
			refused[serial] = true
		}
	}
	var closing []net.Conn
	s.mu.Lock()
	for c, sl := range s.conns {
		if sl != mine && sl.taken && sl.desk == desk && sl.cert != nil && refused[protocol.CertSerial(sl.cert)] {
			s.untake(sl)
			closing = append(closing, c)
		}
	}
	mine.over = s.byDesk[desk] > s.cfg.MaxConnsPerDesk
	over := mine.over
	s.mu.Unlock()
	s.closeRefused(desk, closing)
	return over
}

// Handler is the API's handler, without TLS: the fuzz targets ask it with
// a request whose TLS state they make.
func (s *Server) Handler() http.Handler { return s.http.Handler }
