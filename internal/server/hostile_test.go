package server_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"errors"
	"io"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/protocol"
	"vegas-desk/internal/ledger/wire"
	"vegas-desk/internal/server"
	"vegas-desk/internal/server/servertest"
)

// client is an HTTP client that presents the desk file at path.
func client(t *testing.T, path string) *http.Client {
	t.Helper()
	d, err := protocol.ReadDeskFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: tlsOf(d)}}
}

func tlsOf(d *protocol.Desk) *tls.Config {
	return &tls.Config{MinVersion: tls.VersionTLS13, RootCAs: d.Roots, Certificates: []tls.Certificate{d.Cert}}
}

// ask posts body (a string as is, else its JSON) to path and reads the
// answer's status and error code.
func ask(t *testing.T, c *http.Client, url, path string, body any) (int, wire.Error) {
	t.Helper()
	var rd io.Reader = strings.NewReader("")
	if s, ok := body.(string); ok {
		rd = strings.NewReader(s)
	} else if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	method := http.MethodPost
	if body == nil {
		method = http.MethodGet
	}
	req, _ := http.NewRequest(method, url+path, rd)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer resp.Body.Close()
	var e wire.Error
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		if err := json.Unmarshal(data, &e); err != nil || e.Code == "" {
			t.Errorf("%s: a %s answered %q, not a JSON error", path, resp.Status, data)
		}
	}
	return resp.StatusCode, e
}

// Certificates the server must refuse at the handshake, before any
// question: one of another authority, one of another ledger signed by the
// right authority, an expired one, and one not made for a client.
func TestForeignCertificatesRefused(t *testing.T) {
	ctx := context.Background()
	o, serials := office(t)
	s := servertest.Start(t, o, server.Config{})
	_, otherKey, _ := ed25519.GenerateKey(rand.Reader)
	other, err := server.NewAuthority(o.ID(), otherKey, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	// The same authority's key, for a ledger of another id.
	otherLedger := &server.Authority{Cert: reissue(t, s.Authority, "another-ledger"), Key: s.Authority.Key}
	now := time.Now()
	cases := map[string]string{
		"another authority": s.DeskFileOf(t, other, "C1", now.Add(-time.Hour), now.AddDate(1, 0, 0)),
		"another ledger":    s.DeskFileOf(t, otherLedger, "C1", now.Add(-time.Hour), now.AddDate(1, 0, 0)),
		"expired":           s.DeskFileOf(t, s.Authority, "C1", now.AddDate(-1, 0, 0), now.Add(-time.Minute)),
		"not yet valid":     s.DeskFileOf(t, s.Authority, "C1", now.Add(time.Hour), now.AddDate(1, 0, 0)),
		"for a server":      serverUse(t, s),
	}
	mark, _ := o.Head(ctx)
	for name, path := range cases {
		t.Run(name, func(t *testing.T) {
			d, err := protocol.ReadDeskFile(path)
			if err != nil {
				t.Fatal(err)
			}
			d.Roots.AddCert(s.Authority.Cert) // trust the real server: only the client's certificate is wrong
			c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: tlsOf(d)}}
			body, _ := json.Marshal(wire.LookupRequest{Serial: serials.Winners[3][0], Operator: "mallory"})
			resp, err := c.Post(s.URL+"/v1/lookup", "application/json", bytes.NewReader(body))
			if err == nil {
				resp.Body.Close()
				t.Fatalf("the server answered %s", resp.Status)
			}
			if _, err := ledger.OpenServer(s.URL, path); err == nil {
				t.Fatal("the desk opened a ledger")
			}
		})
	}
	if h, _ := o.Head(ctx); h != mark {
		t.Error("a refused certificate's question was recorded")
	}
}

// reissue is a's certificate again, for ledger id.
func reissue(t *testing.T, a *server.Authority, id string) *x509.Certificate {
	tmpl := *a.Cert
	tmpl.Subject.OrganizationalUnit = []string{id}
	tmpl.RawSubject, tmpl.RawIssuer = nil, nil
	tmpl.SerialNumber = big.NewInt(7)
	der, err := x509.CreateCertificate(rand.Reader, &tmpl, &tmpl, a.Cert.PublicKey, a.Key)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := x509.ParseCertificate(der)
	return c
}

// serverUse is a desk file whose certificate, signed by the right
// authority and naming desk C1, is for server authentication only.
func serverUse(t *testing.T, s *servertest.Served) string {
	pub, priv, _ := ed25519.GenerateKey(rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(9),
		Subject:   pkix.Name{CommonName: "C1", Organization: []string{protocol.Organization}, OrganizationalUnit: []string{s.Authority.Ledger()}},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().AddDate(1, 0, 0),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, s.Authority.Cert, pub, s.Authority.Key)
	if err != nil {
		t.Fatal(err)
	}
	key, _ := x509.MarshalPKCS8PrivateKey(priv)
	path := t.TempDir() + "/server-use.desk"
	if err := server.WriteDeskFile(path, protocol.DeskFile(der, s.Authority.Cert.Raw, key)); err != nil {
		t.Fatal(err)
	}
	return path
}

// A desk asks only as itself: a body naming another desk is refused, and
// nothing is recorded; a desk the ledger does not list is refused too.
func TestDeskAsksOnlyAsItself(t *testing.T) {
	ctx := context.Background()
	o, serials := office(t)
	s := servertest.Start(t, o, server.Config{})
	c := client(t, s.DeskFile(t, "C1"))
	mark, _ := o.Head(ctx)
	for path, body := range map[string]any{
		"/v1/lookup":     wire.LookupRequest{Serial: serials.Winners[3][0], Operator: "mallory", Desk: "C2"},
		"/v1/claim":      wire.ClaimRequest{Serial: serials.Winners[3][0], Operator: "mallory", Desk: "C2"},
		"/v1/packs/move": wire.MoveRequest{Game: 531, Block: 1, First: 1, Last: 1, Move: "receive", Operator: "mallory", Desk: "C2"},
	} {
		if status, e := ask(t, c, s.URL, path, body); status != http.StatusForbidden || e.Code != protocol.CodeDeskMismatch {
			t.Errorf("%s as C2: %d %+v", path, status, e)
		}
	}
	if h, _ := o.Head(ctx); h != mark {
		t.Error("a question as another desk was recorded")
	}
	ghost := client(t, s.DeskFile(t, "C9"))
	if status, e := ask(t, ghost, s.URL, "/v1/lookup", wire.LookupRequest{Serial: serials.Winners[3][0], Operator: "x"}); status != http.StatusForbidden || e.Code != protocol.CodeUnknownDesk {
		t.Errorf("a desk the ledger does not list: %d %+v", status, e)
	}
	if status, e := ask(t, c, s.URL, "/v1/packs?state=stock", nil); status != http.StatusForbidden || e.Code != protocol.CodeForbidden {
		t.Errorf("the stock: %d %+v", status, e)
	}
	if status, e := ask(t, c, s.URL, "/v1/packs/move", wire.MoveRequest{Game: 531, Block: 1, First: 1, Last: 1, Move: "stolen", Operator: "m"}); status != http.StatusForbidden {
		t.Errorf("a move of the back office's: %d %+v", status, e)
	}
}

// A question's read refuses its desk itself (unknown, disabled); a
// question that fails before its read (a body that is not the question's,
// a serial that is not one, another desk's name) is refused as its desk
// is all the same, first, as the server's gate always answered.
func TestDeskRefusedBeforeItsBody(t *testing.T) {
	ctx := context.Background()
	o, serials := office(t)
	s := servertest.Start(t, o, server.Config{})
	c1 := client(t, s.DeskFile(t, "C1"))
	ghost := client(t, s.DeskFile(t, "C9"))
	if err := o.DisableDesk(ctx, "C1", bo); err != nil {
		t.Fatal(err)
	}
	serial := serials.Winners[3][0]
	bad := serial[:len(serial)-1] + string('0'+(serial[len(serial)-1]-'0'+1)%10)
	mark, _ := o.Head(ctx)
	for _, q := range []struct{ what, path, body string }{
		{"a lookup", "/v1/lookup", `{"serial":"` + serial + `","operator":"ann"}`},
		{"a claim", "/v1/claim", `{"serial":"` + serial + `","operator":"ann"}`},
		{"a search", "/v1/find", `{"ticket":{},"operator":"ann"}`},
		{"a body with a field too many", "/v1/claim", `{"serial":"` + serial + `","operator":"ann","extra":1}`},
		{"a serial whose check digit is wrong", "/v1/lookup", `{"serial":"` + bad + `","operator":"ann"}`},
		{"another desk's name", "/v1/claim", `{"serial":"` + serial + `","operator":"ann","desk":"C2"}`},
	} {
		for _, d := range []struct {
			c    *http.Client
			code string
		}{{c1, protocol.CodeDeskDisabled}, {ghost, protocol.CodeUnknownDesk}} {
			if status, e := ask(t, d.c, s.URL, q.path, q.body); status != http.StatusForbidden || e.Code != d.code {
				t.Errorf("%s: %d %+v, want %s", q.what, status, e, d.code)
			}
		}
	}
	if h, _ := o.Head(ctx); h != mark {
		t.Error("a refused desk's question was recorded")
	}
}

// Bodies that are not the question's: 4xx, a JSON error, nothing written.
func TestBadBodies(t *testing.T) {
	ctx := context.Background()
	o, serials := office(t)
	s := servertest.Start(t, o, server.Config{})
	c := client(t, s.DeskFile(t, "C1"))
	serial := serials.Winners[3][0]
	mark, _ := o.Head(ctx)
	for _, b := range []struct {
		path, body, code string
	}{
		{"/v1/claim", `{"serial":"` + serial + `","operator":"ann","extra":1}`, protocol.CodeBadRequest},
		{"/v1/claim", `{"serial":` + "531" + `,"operator":"ann"}`, protocol.CodeBadRequest},
		{"/v1/claim", `{"serial":"` + serial + `","operator":"ann"}{}`, protocol.CodeBadRequest},
		{"/v1/claim", `{"serial":"` + serial + `","operator":"ann","limit":-1}`, protocol.CodeBadRequest},
		{"/v1/claim", `{"serial":"` + serial + `","operator":"` + strings.Repeat("x", 20000) + `"}`, protocol.CodeTooLarge},
		{"/v1/claim", `{"serial":"` + serial + `","operator":"` + strings.Repeat("é", 65) + `"}`, protocol.CodeBadRequest},
		{"/v1/lookup", `{"serial":"531-0001-0000000-0000-0000-0000-0000-1","operator":"ann"}`, protocol.CodeBadSerial},
		{"/v1/lookup", `[]`, protocol.CodeBadRequest},
		{"/v1/lookup", ``, protocol.CodeBadRequest},
		{"/v1/find", `{"ticket":{"bonus":"x"},"operator":"ann"}`, protocol.CodeBadContents},
		{"/v1/packs/move", `{"game":"531"}`, protocol.CodeBadRequest},
		{"/v1/nothing", `{}`, protocol.CodeNoSuchQuestion},
	} {
		status, e := ask(t, c, s.URL, b.path, b.body)
		if status < 400 || status >= 500 || e.Code != b.code {
			t.Errorf("%s %.80s: %d %+v, want code %s", b.path, b.body, status, e, b.code)
		}
	}
	if status, e := ask(t, c, s.URL, "/v1/claims?desk=C2", nil); status != http.StatusBadRequest {
		t.Errorf("claims of another desk by query: %d %+v", status, e)
	}
	req, _ := http.NewRequest(http.MethodGet, s.URL+"/v1/claim", nil)
	if resp, err := c.Do(req); err != nil || resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /v1/claim: %v %v", resp, err)
	}
	if h, _ := o.Head(ctx); h != mark {
		t.Error("a bad body was recorded")
	}
}

// A client that sends its headers a byte at a time is cut once the
// header timeout passes; one that holds more connections than its bound
// is answered too-many-connections.
func TestSlowClients(t *testing.T) {
	o, _ := office(t)
	s := servertest.Start(t, o, server.Config{ReadHeaderTimeout: 300 * time.Millisecond, ReadTimeout: 600 * time.Millisecond, MaxConnsPerDesk: 2})
	path := s.DeskFile(t, "C1")
	d, err := protocol.ReadDeskFile(path)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := tls.Dial("tcp", s.Addr, tlsOf(d))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	start := time.Now()
	head := "GET /v1/hello HTTP/1.1\r\nHost: x\r\nX-Slow: " + strings.Repeat("a", 1000)
	cut := false
	for i := 0; i < len(head) && time.Since(start) < 10*time.Second; i++ {
		if _, err := conn.Write([]byte{head[i]}); err != nil {
			cut = true
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !cut {
		// The write may still fit in the socket's buffer: the read says.
		conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		_, err := bufio.NewReader(conn).ReadByte()
		var ne interface{ Timeout() bool }
		cut = err != nil && !(errors.As(err, &ne) && ne.Timeout())
	}
	if !cut || time.Since(start) > 9*time.Second {
		t.Fatalf("a byte-by-byte client was not cut (%v)", time.Since(start))
	}
	// Two connections of C1 held open are allowed; the third is refused.
	var held []*tls.Conn
	for i := range 3 {
		c, err := tls.Dial("tcp", s.Addr, tlsOf(d))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		held = append(held, c)
		c.Write([]byte("GET /v1/hello HTTP/1.1\r\nHost: x\r\n\r\n"))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		want := http.StatusOK
		if i == 2 {
			want = http.StatusTooManyRequests
		}
		if resp.StatusCode != want {
			t.Errorf("connection %d: %s, want %d", i+1, resp.Status, want)
		}
	}
	// Once one closes, the desk may connect again.
	held[0].Close()
	held[2].Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		status, _ := ask(t, client(t, path), s.URL, "/v1/hello", nil)
		if status == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after two connections closed, still %d", status)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A ledger that fails on a question is the server's fault, not the
// question's: 500 internal (nothing recorded); a ledger that cannot be
// reached, 503 unavailable; neither is a bad request.
func TestLedgerFailures(t *testing.T) {
	o, serials := office(t)
	s := servertest.Start(t, o, server.Config{})
	c := client(t, s.DeskFile(t, "C1"))
	q := map[string]any{"serial": serials.Winners[3][0], "operator": "ann"}
	if status, e := ask(t, c, s.URL, "/v1/lookup", q); status != http.StatusOK {
		t.Fatalf("lookup: %d %+v", status, e)
	}
	o.Close() // the file's connections gone: every read fails
	if status, e := ask(t, c, s.URL, "/v1/lookup", q); status != http.StatusInternalServerError || e.Code != protocol.CodeInternal {
		t.Errorf("a failing ledger: %d %+v, want 500 %s", status, e, protocol.CodeInternal)
	}

	pg, shared := ownOffice(t, startWithBlock)
	if _, err := shared.AddDesk(context.Background(), "C1", 100, bo); err != nil {
		t.Fatal(err)
	}
	ps := servertest.Start(t, shared, server.Config{})
	pc := client(t, ps.DeskFile(t, "C1"))
	if status, e := ask(t, pc, ps.URL, "/v1/lookup", q); status != http.StatusOK {
		t.Fatalf("lookup on PostgreSQL: %d %+v", status, e)
	}
	pg.Stop()
	if status, e := ask(t, pc, ps.URL, "/v1/lookup", q); status != http.StatusServiceUnavailable || e.Code != protocol.CodeUnavailable {
		t.Errorf("PostgreSQL stopped: %d %+v, want 503 %s", status, e, protocol.CodeUnavailable)
	}
}
