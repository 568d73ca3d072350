package server_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/ledgertest"
	"vegas-desk/internal/ledger/protocol"
	"vegas-desk/internal/pgtest"
	"vegas-desk/internal/server"
	"vegas-desk/internal/server/servertest"
)

// secretForms are the ways the secret part of serial may be written: its
// 16 digits, grouped as printed (1234-5678-9012-3456) or in one run.
func secretForms(t *testing.T, serial string) []string {
	t.Helper()
	s, err := game.ParseSerial(serial)
	if err != nil {
		t.Fatal(err)
	}
	printed := s.String()
	return []string{printed[17:36], s.Compact()[14:30]}
}

// PostgreSQL stopped behind serve (issue 36 item 4, issue 44 item 5a): a
// counter's lookup, claim and ping are answered `unavailable` with a
// sentence that names no role, database, address or driver; the server's
// log says what failed (the detail is the operator's), and neither the
// answers, the log nor the metrics hold any claim's secret part.
func TestLedgerAwayTellsNothing(t *testing.T) {
	ctx := context.Background()
	pg, o := ownOffice(t, startWithBlock)
	var log logBuffer
	s := servertest.Start(t, o, server.Config{Log: server.NewLogger(&log, "json")})
	mon := monitor(t, s.Server)
	desk := s.DeskFile(t, "D1")
	c, err := ledger.OpenServer(s.URL, desk)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	raw := client(t, desk)
	serials := ledgertest.SerialsOf(t, ledgertest.Block)
	win, win2 := serials.Winners[6][0], serials.Winners[6][1]
	start, err := pg.Stopped()
	if err != nil {
		t.Fatal(err)
	}
	// What the database's driver says, which a counter must not be told.
	port := pg.URL(pgtest.Owner, "x")
	port = port[strings.LastIndex(port, ":")+1:]
	if i := strings.IndexAny(port, "/?"); i >= 0 {
		port = port[:i]
	}
	told := []string{"user=", "database=", "127.0.0.1", port, "failed to connect", "dial", "pgx", "postgres"}
	secrets := append(secretForms(t, win), secretForms(t, win2)...)

	// answers are what the server answered; local, what the counter's
	// ledger made of it (which names the serial its own cashier typed).
	var answers, local []string
	_, err = c.Lookup(ctx, win, ledger.Identity{Operator: "ann"}, ledger.NoLimit)
	local = append(local, "lookup: "+errString(err))
	if !errors.Is(err, ledger.ErrUnavailable) {
		t.Errorf("lookup: %v, want ErrUnavailable", err)
	}
	short, cancel := context.WithTimeout(ctx, 30*time.Second)
	_, err = c.Claim(short, claimOf(win2, "ann"))
	cancel()
	local = append(local, "claim: "+errString(err))
	if !errors.Is(err, ledger.ErrUnavailable) {
		t.Errorf("claim: %v, want ErrUnavailable", err)
	}
	err = c.Ping(ctx)
	local = append(local, "ping: "+errString(err))
	if !errors.Is(err, ledger.ErrUnavailable) {
		t.Errorf("ping: %v, want ErrUnavailable", err)
	}
	for _, q := range []struct{ path, body string }{
		{protocol.Lookup, `{"serial":"` + win + `","operator":"ann"}`},
		{protocol.Claim, `{"serial":"` + win2 + `","operator":"ann","request":"r-away"}`},
		{protocol.Find, `{"ticket":"x"}`},
		{protocol.Hello, ""},
		{protocol.Claims, ""},
	} {
		method := http.MethodPost
		if q.body == "" {
			method = http.MethodGet
		}
		req, _ := http.NewRequest(method, s.URL+q.path, strings.NewReader(q.body))
		resp, err := raw.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		answers = append(answers, q.path+": "+strconv.Itoa(resp.StatusCode)+" "+string(data))
		if q.path != protocol.Find && resp.StatusCode != http.StatusServiceUnavailable {
			t.Errorf("%s: %d %s, want 503 unavailable", q.path, resp.StatusCode, data)
		}
	}
	scraped := scrape(t, s.Server, mon)
	for _, a := range answers {
		t.Logf("answered %s", a)
		for _, w := range append(told, secrets...) {
			if strings.Contains(a, w) {
				t.Errorf("a counter is told %q: %s", w, a)
			}
		}
	}
	for _, a := range local {
		t.Logf("the counter says %s", a)
		for _, w := range told {
			if strings.Contains(a, w) {
				t.Errorf("a counter is told %q: %s", w, a)
			}
		}
	}
	logged := log.String()
	for _, sec := range secrets {
		if strings.Contains(logged, sec) {
			t.Errorf("serve's log holds the secret part %s:\n%s", sec, logged)
		}
		if strings.Contains(scraped, sec) {
			t.Errorf("the metrics hold the secret part %s", sec)
		}
	}
	// The detail is the operator's: serve's log says what failed.
	if !strings.Contains(logged, "ledger unavailable") || !strings.Contains(logged, port) {
		t.Errorf("serve's log does not say why the ledger is unavailable:\n%s", logged)
	}
	if err := start(); err != nil {
		t.Fatal(err)
	}
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}
