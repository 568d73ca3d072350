package remote_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/ledgertest"
	"vegas-desk/internal/ledger/protocol"
	"vegas-desk/internal/server"
	"vegas-desk/internal/server/servertest"
)

// dropping is the validation server of a ledger of the block fixture
// (desk C1) behind a front that answers each question in full, so that a
// claim commits, and then, while drops is above 0, closes the connection
// without the answer: a counter's answer lost after the payment was
// recorded. asked counts the questions of each route that reached it.
type dropping struct {
	office *ledger.Ledger
	url    string
	desk   string
	drops  atomic.Int32
	asked  map[string]*atomic.Int32
}

func newDropping(t *testing.T) (*dropping, ledgertest.Serials) {
	t.Helper()
	o, err := ledger.Open(ledgertest.Copy(t, ledgertest.Block))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { o.Close() })
	if _, err := o.AddDesk(context.Background(), "C1", 100, ledger.Identity{Desk: "BO", Operator: "eve"}); err != nil {
		t.Fatal(err)
	}
	s := servertest.Start(t, o, server.Config{})
	d := &dropping{office: o, desk: s.DeskFile(t, "C1"), asked: map[string]*atomic.Int32{}}
	for _, p := range []string{protocol.Hello, protocol.Claim, protocol.Lookup, protocol.Claims} {
		d.asked[p] = new(atomic.Int32)
	}
	inner := s.Server.Handler()
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n := d.asked[r.URL.Path]; n != nil {
			n.Add(1)
		}
		if r.URL.Path == protocol.Hello || d.drops.Add(-1) < 0 {
			inner.ServeHTTP(w, r)
			return
		}
		inner.ServeHTTP(httptest.NewRecorder(), r) // answered, and lost
		c, _, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		c.Close()
	}))
	cert, err := tls.LoadX509KeyPair(filepath.Join(s.Dir, server.ServerCert), filepath.Join(s.Dir, server.ServerKey))
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(s.Authority.Cert)
	ts.TLS = &tls.Config{MinVersion: tls.VersionTLS13, Certificates: []tls.Certificate{cert}, ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: roots}
	ts.StartTLS()
	t.Cleanup(ts.Close)
	d.url = ts.URL
	return d, ledgertest.SerialsOf(t, ledgertest.Block)
}

// short makes the retry policy's pause short for a test.
func short(t *testing.T) {
	was := protocol.Retry
	protocol.Retry.Pause = 10 * time.Millisecond
	t.Cleanup(func() { protocol.Retry = was })
}

// A claim whose answer is lost after the payment was recorded is asked
// again with its request id, and answered the payment recorded: paid
// once, the counter told so. Lost every time, the counter is told
// ErrUnreachable after Retry.Attempts questions, nothing paid twice; asked
// again later with the same request id, it learns the payment. A lookup
// or a list is asked once (a refused serial counts against the lock-out; a
// list is asked again by whoever reads it).
func TestRetryOfALostAnswer(t *testing.T) {
	short(t)
	ctx := context.Background()
	d, serials := newDropping(t)
	c1, err := ledger.OpenServer(d.url, d.desk)
	if err != nil {
		t.Fatal(err)
	}
	defer c1.Close()
	who := ledger.Identity{Operator: "ann"}
	claim := func(serial, request string) (ledger.Claim, error) {
		return c1.Claim(ctx, ledger.ClaimRequest{Serial: serial, Method: ledger.MethodSerial, Who: who, Request: request, Limit: ledger.NoLimit})
	}
	paid := func() int {
		cs, err := d.office.Claims(ctx, ledger.ClaimFilter{})
		if err != nil {
			t.Fatal(err)
		}
		return len(cs)
	}

	d.drops.Store(1)
	c, err := claim(serials.Winners[50][0], "r-1")
	if err != nil || c.Amount != 50 || c.Request != "r-1" {
		t.Fatalf("a claim whose first answer was lost: %+v %v", c, err)
	}
	if n := d.asked[protocol.Claim].Load(); n != 2 || paid() != 1 {
		t.Fatalf("asked %d times, %d payments; want 2 and 1", n, paid())
	}

	d.asked[protocol.Claim].Store(0)
	d.drops.Store(1000)
	start := time.Now()
	_, err = claim(serials.Winners[15][0], "r-2")
	if !errors.Is(err, ledger.ErrUnreachable) || time.Since(start) > protocol.Retry.Total() {
		t.Fatalf("every answer lost: %v after %v", err, time.Since(start))
	}
	if n := d.asked[protocol.Claim].Load(); n != int32(protocol.Retry.Attempts) || paid() != 2 {
		t.Fatalf("asked %d times, %d payments; want %d and 2", n, paid(), protocol.Retry.Attempts)
	}
	d.drops.Store(0)
	again, err := claim(serials.Winners[15][0], "r-2")
	if err != nil || again.Amount != 15 || paid() != 2 {
		t.Fatalf("asked again later: %+v %v, %d payments", again, err, paid())
	}

	d.drops.Store(1000)
	if _, err := c1.Lookup(ctx, serials.Losers[0], who, ledger.NoLimit); !errors.Is(err, ledger.ErrUnreachable) || d.asked[protocol.Lookup].Load() != 1 {
		t.Errorf("a lookup whose answer was lost: %v, asked %d times; want once", err, d.asked[protocol.Lookup].Load())
	}
	d.drops.Store(1)
	if _, err := c1.Claims(ctx, ledger.ClaimFilter{}); !errors.Is(err, ledger.ErrUnreachable) {
		t.Errorf("a list whose answer was lost: %v", err)
	}
	if cs, err := c1.Claims(ctx, ledger.ClaimFilter{}); err != nil || len(cs) != 2 {
		t.Errorf("a list asked again: %d claims, %v", len(cs), err)
	}
}

// The policy's total is what its doc comment and the README say.
func TestRetryTotal(t *testing.T) {
	if got := protocol.Retry.Total(); got != 31*time.Second {
		t.Errorf("Retry.Total() = %v; the README says 31 s", got)
	}
}

// A desk file pointed at the server of another ledger (another authority)
// is told so (ErrOtherLedger), not that the server is unreachable; the
// server's own desk file opens it.
func TestAnotherLedgersServer(t *testing.T) {
	d, _ := newDropping(t)
	o, err := ledger.Open(ledgertest.Copy(t, ledgertest.Block))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { o.Close() })
	if _, err := o.AddDesk(context.Background(), "C1", 100, ledger.Identity{Desk: "BO", Operator: "eve"}); err != nil {
		t.Fatal(err)
	}
	other := servertest.Start(t, o, server.Config{})
	_, err = ledger.OpenServer(other.URL, d.desk)
	if !errors.Is(err, ledger.ErrOtherLedger) || errors.Is(err, ledger.ErrUnreachable) {
		t.Errorf("another ledger's server: %v", err)
	}
	l, err := ledger.OpenServer(other.URL, other.DeskFile(t, "C1"))
	if err != nil {
		t.Fatalf("its own desk file: %v", err)
	}
	l.Close()
}
