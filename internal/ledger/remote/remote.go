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
	"strings"
	"time"

	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/ledger/protocol"
	"vegas-desk/internal/ledger/wire"
)

// MaxAnswer bounds an answer the client reads.
const MaxAnswer = 8 << 20

// Backend is a desk's ledger on a server.
type Backend struct {
	base   *url.URL
	client *http.Client
	desk   *protocol.Desk
	info   core.Info
}

// Open reads deskFile and asks the server at rawURL (https://HOST:PORT)
// who it is.
func Open(ctx context.Context, rawURL, deskFile string) (*Backend, error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme != "https" || u.Host == "" || (u.Path != "" && u.Path != "/") || u.User != nil || u.RawQuery != "" {
		return nil, fmt.Errorf("server %q: give https://HOST:PORT (no path, no password)", rawURL)
	}
	u.Path = ""
	d, err := protocol.ReadDeskFile(deskFile)
	if err != nil {
		return nil, err
	}
	b := &Backend{base: u, desk: d}
	b.client = &http.Client{Timeout: protocol.Retry.AttemptTimeout, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{MinVersion: tls.VersionTLS13, RootCAs: d.Roots, Certificates: []tls.Certificate{d.Cert}},
		DialContext:     (&net.Dialer{Timeout: 5 * time.Second}).DialContext, TLSHandshakeTimeout: 5 * time.Second,
		MaxIdleConnsPerHost: 2, IdleConnTimeout: 50 * time.Second, ResponseHeaderTimeout: protocol.Retry.AttemptTimeout - 3*time.Second,
	}}
	var h wire.Hello
	if err := b.do(ctx, http.MethodGet, protocol.Hello, nil, &h); err != nil {
		b.Close()
		return nil, fmt.Errorf("server %s: %w", u, err)
	}
	if h.Ledger != d.Ledger || h.Desk != d.ID {
		b.Close()
		return nil, fmt.Errorf("server %s answers for ledger %s, desk %s; the desk file is desk %s's of ledger %s: %w",
			u, h.Ledger, h.Desk, d.ID, d.Ledger, core.ErrOtherLedger)
	}
	b.info = core.Info{Location: u.String(), Kind: "back-office", Shared: true, Served: true, ID: h.Ledger, Demo: h.Demo,
		Desk: h.Desk, Limit: core.LimitOf(h.Limit)}
	return b, nil
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
	return fmt.Errorf("%s: %w: this is desk %s's ledger on the server %s; do it on the back office's ledger", what, core.ErrCounterOnly, b.desk.ID, b.base)
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
func (b *Backend) do(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, b.base.String()+path, rd)
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
