package server_test

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/protocol"
	"vegas-desk/internal/server"
	"vegas-desk/internal/server/servertest"
)

// held is a connection of a desk file kept open between its questions.
type held struct {
	c  *tls.Conn
	rd *bufio.Reader
}

// hold opens a connection to s with the desk file at path.
func hold(t *testing.T, s *servertest.Served, path string) *held {
	t.Helper()
	d, err := protocol.ReadDeskFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c, err := tls.Dial("tcp", s.Addr, tlsOf(d))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &held{c: c, rd: bufio.NewReader(c)}
}

// hello asks GET /v1/hello on h and reads the answer's status and code
// (0 and the error when the connection is closed).
func (h *held) hello() (int, string, error) {
	h.c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(h.c, "GET /v1/hello HTTP/1.1\r\nHost: server\r\n\r\n"); err != nil {
		return 0, "", err
	}
	resp, err := http.ReadResponse(h.rd, nil)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), nil
}

// closed reports whether the server closed h within d.
func (h *held) closed(d time.Duration) bool {
	h.c.SetReadDeadline(time.Now().Add(d))
	_, err := h.rd.ReadByte()
	return err != nil && !errors.Is(err, os.ErrDeadlineExceeded)
}

// A stolen desk file holds its desk's connections (issue 44 item 4b): the
// thief opens the desk's 8 and keeps them; the back office gives the desk a
// new desk file (desks cert), which must be let in — the revoked
// certificate's connections are closed and do not count —, and a thief's
// connection that asks again is refused and closed. A disabled desk's
// connections likewise.
func TestRevokedConnectionsDoNotCount(t *testing.T) {
	ctx := context.Background()
	o, serials := office(t)
	s := servertest.Start(t, o, server.Config{})
	stolen := s.DeskFile(t, "C1")
	var thief []*held
	for i := range server.MaxConnsPerDesk {
		h := hold(t, s, stolen)
		if st, body, err := h.hello(); st != http.StatusOK {
			t.Fatalf("the thief's connection %d: %d %s %v", i, st, body, err)
		}
		thief = append(thief, h)
	}
	replacement := newCert(t, s, o, "C1", false)
	// The thief asks on one of them: refused, and the connection closed.
	if st, body, err := thief[0].hello(); st != http.StatusForbidden || !strings.Contains(body, protocol.CodeDeskRevoked) {
		t.Errorf("the revoked desk file: %d %s %v", st, body, err)
	}
	if !thief[0].closed(2 * time.Second) {
		t.Error("a revoked certificate's connection left open after its refusal")
	}
	// The new terminal is let in, and pays.
	counter, err := ledger.OpenServer(s.URL, replacement)
	if err != nil {
		t.Fatalf("the new desk file while the stolen one holds the desk's connections: %v", err)
	}
	defer counter.Close()
	if _, err := counter.Claim(ctx, claimOf(serials.Winners[3][0], "ann")); err != nil {
		t.Fatalf("the new desk file's claim: %v", err)
	}
	// The thief's other connections were closed by the server.
	for i, h := range thief[1:] {
		if !h.closed(2 * time.Second) {
			t.Errorf("the thief's connection %d still open", i+1)
		}
	}

	// A disabled desk: its connections are refused, closed, and do not
	// count once it is enabled again. (The counter holds one.)
	var desk []*held
	for range server.MaxConnsPerDesk - 1 {
		h := hold(t, s, replacement)
		if st, body, err := h.hello(); st != http.StatusOK {
			t.Fatalf("the desk's connection: %d %s %v", st, body, err)
		}
		desk = append(desk, h)
	}
	if err := o.DisableDesk(ctx, "C1", bo); err != nil {
		t.Fatal(err)
	}
	if st, body, _ := desk[0].hello(); st != http.StatusForbidden || !strings.Contains(body, protocol.CodeDeskDisabled) {
		t.Errorf("a disabled desk: %d %s", st, body)
	}
	if !desk[0].closed(2 * time.Second) {
		t.Error("a disabled desk's connection left open after its refusal")
	}
	h := hold(t, s, replacement)
	if st, body, _ := h.hello(); st != http.StatusForbidden || !strings.Contains(body, protocol.CodeDeskDisabled) {
		t.Errorf("a disabled desk's new connection: %d %s", st, body)
	}
	for i, h := range desk[1:] {
		if !h.closed(2 * time.Second) {
			t.Errorf("the disabled desk's connection %d still open", i+1)
		}
	}
	if err := o.EnableDesk(ctx, "C1", bo); err != nil {
		t.Fatal(err)
	}
	if _, err := counter.Lookup(ctx, serials.Winners[3][1], ledger.Identity{Operator: "ann"}, ledger.NoLimit); err != nil {
		t.Errorf("the desk enabled again: %v", err)
	}
	counter.Close()

	// A thief who never asks again: the desk's next connection over the
	// bound finds its certificate revoked, and its connections closed.
	thief = nil
	for i := range server.MaxConnsPerDesk {
		h := hold(t, s, replacement)
		if st, body, err := h.hello(); st != http.StatusOK {
			t.Fatalf("the thief's connection %d: %d %s %v", i, st, body, err)
		}
		thief = append(thief, h)
	}
	third := newCert(t, s, o, "C1", false)
	again, err := ledger.OpenServer(s.URL, third)
	if err != nil {
		t.Fatalf("the new desk file while the silent thief holds the desk's connections: %v", err)
	}
	defer again.Close()
	for i, h := range thief {
		if !h.closed(2 * time.Second) {
			t.Errorf("the silent thief's connection %d still open", i)
		}
	}
	// The bound still holds for certificates the desk accepts.
	for range server.MaxConnsPerDesk - 1 {
		if st, body, _ := hold(t, s, third).hello(); st != http.StatusOK {
			t.Fatalf("the desk's own connection: %d %s", st, body)
		}
	}
	if st, body, _ := hold(t, s, third).hello(); st != http.StatusTooManyRequests {
		t.Errorf("the desk's connection over its bound: %d %s", st, body)
	}
}
