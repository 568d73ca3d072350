// Package remote is a counter's ledger on a validation server (vegas-desk
// serve, package server): a core.Backend that asks the server's API over
// HTTPS, authenticated by the desk's certificate (a desk file), and trusts
// the ledger's authority alone. The server answers as the desk of the
// certificate; whatever cannot reach it is core.ErrUnreachable, and
// nothing is paid.
package remote

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/ledger/protocol"
	"vegas-desk/internal/ledger/wire"
)

// MaxAnswer bounds an answer the client reads.
const MaxAnswer = 8 << 20

// Backend is a desk's ledger on a server, or on any of several servers of
// the same ledger (serve on one database, or on the primary and standby of
// a pilot: docs/pilot-standby.md).
type Backend struct {
	bases  []*url.URL // the servers, in the order given
	cur    atomic.Int32
	client *http.Client
	desk   *protocol.Desk
	info   core.Info
}

// Servers reads a validation server's address, or several separated by
// commas (each https://HOST:PORT): a counter given several asks the next
// when one does not answer.
func Servers(raw string) ([]*url.URL, error) {
	var out []*url.URL
	for _, part := range strings.Split(raw, ",") {
		part = strings.TrimSpace(part)
		u, err := url.Parse(part)
		if err != nil || u.Scheme != "https" || u.Host == "" || (u.Path != "" && u.Path != "/") || u.User != nil || u.RawQuery != "" {
			return nil, fmt.Errorf("server %q: give https://HOST:PORT (no path, no password), or several separated by commas", part)
		}
		u.Path = ""
		if slices.ContainsFunc(out, func(o *url.URL) bool { return o.Host == u.Host }) {
			return nil, fmt.Errorf("server %s is given twice in %q", u, raw)
		}
		out = append(out, u)
	}
	return out, nil
}

// Open reads deskFile and asks the server at rawURL (https://HOST:PORT;
// several separated by commas: the first that answers) who it is.
func Open(ctx context.Context, rawURL, deskFile string) (*Backend, error) {
	bases, err := Servers(rawURL)
	if err != nil {
		return nil, err
	}
	d, err := protocol.ReadDeskFile(deskFile)
	if err != nil {
		return nil, err
	}
	b := &Backend{bases: bases, desk: d}
	b.client = &http.Client{Timeout: protocol.Retry.AttemptTimeout, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{MinVersion: tls.VersionTLS13, RootCAs: d.Roots, Certificates: []tls.Certificate{d.Cert}},
		DialContext:     (&net.Dialer{Timeout: 5 * time.Second}).DialContext, TLSHandshakeTimeout: 5 * time.Second,
		MaxIdleConnsPerHost: 2, IdleConnTimeout: 50 * time.Second, ResponseHeaderTimeout: protocol.Retry.AttemptTimeout - 3*time.Second,
	}}
	shown := b.shown()
	var h wire.Hello
	if err := b.do(ctx, http.MethodGet, protocol.Hello, nil, &h); err != nil {
		b.Close()
		return nil, fmt.Errorf("server %s: %w", shown, err)
	}
	if h.Ledger != d.Ledger || h.Desk != d.ID {
		b.Close()
		return nil, fmt.Errorf("server %s answers for ledger %s, desk %s; the desk file is desk %s's of ledger %s: %w",
			b.bases[b.cur.Load()], h.Ledger, h.Desk, d.ID, d.Ledger, core.ErrOtherLedger)
	}
	b.info = core.Info{Location: shown, Kind: "back-office", Shared: true, Served: true, ID: h.Ledger, Demo: h.Demo,
		Desk: h.Desk, Limit: core.LimitOf(h.Limit)}
	return b, nil
}

// shown is the servers' addresses as given, separated by commas.
func (b *Backend) shown() string {
	s := make([]string, len(b.bases))
	for i, u := range b.bases {
		s[i] = u.String()
	}
	return strings.Join(s, ",")
}

// Info says what the ledger is: the desk's on the server.
func (b *Backend) Info() core.Info { return b.info }

// Close forgets the connections.
func (b *Backend) Close() error {
	b.client.CloseIdleConnections()
	return nil
}

// Ping asks the server who it is.
func (b *Backend) Ping(ctx context.Context) error {
	var h wire.Hello
	return b.do(ctx, http.MethodGet, protocol.Hello, nil, &h)
}

// Refuse: what the back office does is not asked of a server.
func (b *Backend) Refuse(what string) error {
	return fmt.Errorf("%s: %w: this is desk %s's ledger on the server %s; do it on the back office's ledger", what, core.ErrCounterOnly, b.desk.ID, b.shown())
}

// serverError is an error the server answered: its message, and what it
// is (protocol.Kinds).
type serverError struct {
	msg       string
	err, also error
}

func (e *serverError) Error() string { return e.msg }
func (e *serverError) Is(target error) bool {
	return target != nil && (target == e.err || target == e.also)
}

// errorOf is the error of the server's answer e.
func errorOf(e wire.Error) error {
	if e.Code == protocol.CodeRefused && e.Refusal != nil {
		return e.Refusal.Core()
	}
	k := protocol.KindOf(e.Code)
	if k.Code != e.Code {
		return &serverError{msg: fmt.Sprintf("the server answered %q: %s", e.Code, e.Message), err: k.Err, also: k.Also}
	}
	return &serverError{msg: e.Message, err: k.Err, also: k.Also}
}

// do asks the server, once (a lost answer: protocol.Retry): body (nil:
// none) as JSON, the answer into out. A request that never reached the
// server, or whose answer was lost, is core.ErrUnreachable.
//
// Given several servers, it asks the one that answered last; one that
// does not answer (ErrUnreachable, an answer of unavailable included) is
// left for the next, asked at once when asking again cannot do twice what
// was asked once: a read (GET), a claim (its request id answers the first
// answer, on any server of the ledger), or any question that never reached
// the server (no connection). A lookup or a move of packs that may have
// reached it is not asked again (a lookup of a wrong serial counts
// against the desk's lock-out): its caller is told ErrUnreachable, and its
// next question goes to the next server.
func (b *Backend) do(ctx context.Context, method, path string, body, out any) error {
	var data []byte
	if body != nil {
		var err error
		if data, err = json.Marshal(body); err != nil {
			return err
		}
	}
	first := int(b.cur.Load())
	var err error
	for k := range len(b.bases) {
		i := (first + k) % len(b.bases)
		err = b.ask(ctx, b.bases[i], method, path, data, out)
		if !errors.Is(err, core.ErrUnreachable) {
			b.cur.Store(int32(i))
			return err
		}
		// Not answered: the next server from now on.
		b.cur.CompareAndSwap(int32(i), int32((i+1)%len(b.bases)))
		if ctx.Err() != nil || !(method == http.MethodGet || path == protocol.Claim || notSent(err)) {
			return err
		}
	}
	return err
}

// notSent reports whether a failed exchange never sent its request: the
// connection was refused or not made.
func notSent(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// ask asks the server at base once.
func (b *Backend) ask(ctx context.Context, base *url.URL, method, path string, body []byte, out any) error {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, base.String()+path, rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := b.client.Do(req)
	if err != nil {
		return unreachable(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxAnswer+1))
	if err != nil {
		return unreachable(err)
	}
	if len(data) > MaxAnswer {
		return fmt.Errorf("the server's answer is over %d bytes", MaxAnswer)
	}
	if resp.StatusCode != http.StatusOK {
		var e wire.Error
		if err := json.Unmarshal(data, &e); err != nil || e.Code == "" {
			return fmt.Errorf("%w: the server answered %s", core.ErrUnreachable, resp.Status)
		}
		return errorOf(e)
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("the server's answer to %s: %w", path, err)
	}
	return nil
}

// unreachable is a failed exchange: a server whose certificate the desk
// file's authority did not sign serves another ledger (ErrOtherLedger); a
// certificate the server refuses says so; anything else (no answer, a
// connection lost) is ErrUnreachable.
func unreachable(err error) error {
	var cv *tls.CertificateVerificationError
	if errors.As(err, &cv) {
		return fmt.Errorf("%w: the server's certificate is not signed by the desk file's authority (%w)", core.ErrOtherLedger, err)
	}
	if s := err.Error(); strings.Contains(s, "tls: ") && (strings.Contains(s, "certificate") || strings.Contains(s, "alert")) {
		return fmt.Errorf("%w: the server refused this desk's certificate (%v): ask the back office for a new desk file", core.ErrUnreachable, err)
	}
	return fmt.Errorf("%w: %w", core.ErrUnreachable, err)
}
