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
	"vegas-desk/internal/ledger/wire"
)

// MaxAnswer bounds an answer the client reads.
const MaxAnswer = 8 << 20

// Backend is a desk's ledger on a server.
type Backend struct {
	base   *url.URL
	client *http.Client
	desk   *Desk
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
	d, err := ReadDeskFile(deskFile)
	if err != nil {
		return nil, err
	}
	b := &Backend{base: u, desk: d}
	b.client = &http.Client{Timeout: 15 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{MinVersion: tls.VersionTLS13, RootCAs: d.Roots, Certificates: []tls.Certificate{d.Cert}},
		DialContext:     (&net.Dialer{Timeout: 5 * time.Second}).DialContext, TLSHandshakeTimeout: 5 * time.Second,
		MaxIdleConnsPerHost: 2, IdleConnTimeout: 50 * time.Second, ResponseHeaderTimeout: 12 * time.Second,
	}}
	var h wire.Hello
	if err := b.do(ctx, http.MethodGet, "/v1/hello", nil, nil, &h); err != nil {
		b.Close()
		return nil, fmt.Errorf("server %s: %w", u, err)
	}
	if h.Ledger != d.Ledger || h.Desk != d.ID {
		b.Close()
		return nil, fmt.Errorf("server %s answers for ledger %s, desk %s; the desk file is desk %s's of ledger %s: %w",
			u, h.Ledger, h.Desk, d.ID, d.Ledger, core.ErrNotLedger)
	}
	b.info = core.Info{Location: u.String(), Kind: "back-office", Shared: true, ID: h.Ledger, Demo: h.Demo,
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
	return b.do(ctx, http.MethodGet, "/v1/hello", nil, nil, &h)
}

// Refuse: what the back office does is not asked of a server.
func (b *Backend) Refuse(what string) error {
	return fmt.Errorf("%s: %w: this is desk %s's ledger on the server %s; do it on the back office's ledger", what, core.ErrCounterOnly, b.desk.ID, b.base)
}

// serverError is an error the server answered.
type serverError struct {
	msg  string
	kind error
}

func (e *serverError) Error() string { return e.msg }
func (e *serverError) Unwrap() error { return e.kind }

// kinds are the errors of the server's codes.
var kinds = map[string]error{
	wire.CodeRequestReused: core.ErrRequestReused, wire.CodeNotFound: core.ErrNotFound,
	wire.CodeDeskMismatch: core.ErrDeskMismatch, wire.CodeDeskDisabled: core.ErrDeskDisabled,
	wire.CodePackMove: core.ErrPackMove, wire.CodeForbidden: core.ErrCounterOnly, wire.CodeNotWinner: core.ErrNotWinner,
	wire.CodeUnavailable: core.ErrUnreachable, wire.CodeTooMany: core.ErrUnreachable, wire.CodeUnknownDesk: core.ErrDeskDisabled,
}

// do asks the server: body (nil: none) as JSON, the answer into out. A
// request that never reached the server, or whose answer was lost, is
// core.ErrUnreachable.
func (b *Backend) do(ctx context.Context, method, path string, header http.Header, body, out any) error {
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
	for k, v := range header {
		req.Header[k] = v
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
		if e.Code == wire.CodeRefused && e.Refusal != nil {
			return e.Refusal.Core()
		}
		return &serverError{msg: e.Message, kind: kinds[e.Code]}
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("the server's answer to %s: %w", path, err)
	}
	return nil
}

// unreachable is a failed exchange: a certificate the server refuses says
// so; anything else (no answer, a connection lost) is ErrUnreachable.
func unreachable(err error) error {
	var cv *tls.CertificateVerificationError
	if errors.As(err, &cv) {
		return fmt.Errorf("the server's certificate is not the ledger's: %w", err)
	}
	if s := err.Error(); strings.Contains(s, "tls: ") && (strings.Contains(s, "certificate") || strings.Contains(s, "alert")) {
		return fmt.Errorf("%w: the server refused this desk's certificate (%v): ask the back office for a new desk file", core.ErrUnreachable, err)
	}
	return fmt.Errorf("%w: %w", core.ErrUnreachable, err)
}
