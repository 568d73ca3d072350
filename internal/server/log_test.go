package server_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"errors"
	"maps"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/wire"
	"vegas-desk/internal/server"
	"vegas-desk/internal/server/servertest"
)

// logBuffer is a log's writer the test reads while the server writes.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// lines are the JSON lines written so far.
func (b *logBuffer) lines(t *testing.T) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(b.String()))
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("a log line that is not JSON: %q: %v", sc.Text(), err)
		}
		out = append(out, m)
	}
	return out
}

// find is the first line of msg whose fields hold want.
func find(lines []map[string]any, msg string, want map[string]any) map[string]any {
	for _, l := range lines {
		if l["msg"] != msg {
			continue
		}
		ok := true
		for k, v := range want {
			if l[k] != v {
				ok = false
			}
		}
		if ok {
			return l
		}
	}
	return nil
}

// The server's JSON log of real questions through mTLS: the start with the
// ledger served; a line per question with its id (the answer's
// X-Request-Id), desk, question, verdict or code, duration; a payment's
// amount and request id; refusals with their reason (already claimed, a
// mistyped serial, a disabled desk, a desk the ledger does not list); one
// lock-out line for twenty guesses; the stop. No line holds a serial's
// secret part, the winner's identity, a key or the authority's
// certificate.
func TestServerLog(t *testing.T) {
	ctx := context.Background()
	o, serials := office(t)
	prize := slices.Max(slices.Collect(maps.Keys(serials.Winners)))
	if _, err := o.AddDesk(ctx, "C9", prize, bo); err != nil {
		t.Fatal(err)
	}
	if _, err := o.AddDesk(ctx, "C8", 100, bo); err != nil {
		t.Fatal(err)
	}
	var logs logBuffer
	s := servertest.Start(t, o, server.Config{Log: server.NewLogger(&logs, "json")})
	c9 := s.Open(t, "C9")
	// The winner's identity read from her card's zone (issue 44): neither
	// the zone nor what it holds (name, number, birth date) is logged.
	winner := &ledger.Winner{MRZ: "IDFRAT7MK2QLV86<<<<<<<<<<<<<<<\n8511043F3609208FRA<<<<<<<<<<<0\nSECRETNAME<<JEANNE<<<<<<<<<<<<"}
	big := serials.Winners[prize][0]
	cl, err := c9.Claim(ctx, ledger.ClaimRequest{Serial: big, Method: ledger.MethodSerial, Who: ledger.Identity{Operator: "ann"},
		Request: "req-77", Limit: ledger.NoLimit, Winner: winner})
	if err != nil {
		t.Fatalf("claim of %d €: %v", prize, err)
	}
	if _, err := c9.Claim(ctx, claimOf(big, "ann")); !errors.Is(err, ledger.ErrAlreadyClaimed) {
		t.Fatalf("second claim: %v", err)
	}
	small := serials.Winners[3][0]
	mistyped := small[:len(small)-1] + string('0'+(small[len(small)-1]-'0'+1)%10)
	// (The Go client checks a serial itself: asked raw.)
	hc := client(t, s.DeskFile(t, "C9"))
	if st, body := post(t, hc, s.URL, "/v1/lookup", wire.LookupRequest{Serial: mistyped, Operator: "ann"}); st != http.StatusBadRequest {
		t.Fatalf("a mistyped serial: %d %s", st, body)
	}
	// Twenty guesses lock C1 out; its next questions are refused as locked.
	c1 := s.Open(t, "C1")
	var guesses []string
	for i := range 20 {
		wrong := []byte(small)
		wrong[20] = '0' + byte((int(wrong[20]-'0')+1+i%9)%10)
		g := fixCheck(t, string(wrong))
		guesses = append(guesses, g)
		c1.Lookup(ctx, g, ledger.Identity{Operator: "mallory"}, ledger.NoLimit)
	}
	for range 3 {
		if _, err := c1.Lookup(ctx, small, ledger.Identity{Operator: "mallory"}, ledger.NoLimit); !errors.Is(err, ledger.ErrLocked) {
			t.Fatalf("after twenty guesses: %v", err)
		}
	}
	c8 := s.Open(t, "C8")
	if err := o.DisableDesk(ctx, "C8", bo); err != nil {
		t.Fatal(err)
	}
	c8.Lookup(ctx, small, ledger.Identity{Operator: "bob"}, ledger.NoLimit)
	// A desk file of another authority: the handshake fails (a WARN line).
	_, otherKey, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	other, err := server.NewAuthority(o.ID(), otherKey, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ledger.OpenServer(s.URL, s.DeskFileOf(t, other, "C9", time.Now().Add(-time.Hour), time.Now().AddDate(1, 0, 0))); err == nil {
		t.Fatal("a desk file of another authority was let in")
	}
	unknown := s.DeskFile(t, "C404")
	if _, err := ledger.OpenServer(s.URL, unknown); err == nil {
		t.Fatal("a desk the ledger does not list was let in")
	}

	// The id of a line is the answer's X-Request-Id.
	resp, err := hc.Get(s.URL + "/v1/head")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	headID := resp.Header.Get(server.RequestIDHeader)

	if err := s.Server.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(logs.String(), `"msg":"stopped"`) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	lines := logs.lines(t)
	pub := func(serial string) string {
		sr, err := game.ParseSerial(serial)
		if err != nil {
			t.Fatal(err)
		}
		return game.PublicSerial(sr.Game, sr.Block, sr.Position)
	}
	for _, c := range []struct {
		msg  string
		want map[string]any
	}{
		{"serving", map[string]any{"ledger": o.ID(), "location": o.Location(), "listen": s.Addr}},
		{"answer", map[string]any{"desk": "C9", "question": "claim", "verdict": "paid", "status": 200.0, "amount": float64(cl.Amount),
			"serial": pub(big), "request": "req-77", "operator": "ann"}}, // who paid (issue 36 item 7)
		{"refused", map[string]any{"desk": "C9", "question": "claim", "verdict": "already-claimed", "code": "refused", "status": 409.0, "serial": pub(big)}},
		{"refused", map[string]any{"desk": "C9", "question": "lookup", "code": "bad-serial", "status": 400.0, "level": "WARN"}},
		{"refused", map[string]any{"desk": "C1", "question": "lookup", "verdict": "unknown-serial", "serial": pub(guesses[0]), "operator": "mallory"}},
		{"refused", map[string]any{"desk": "C1", "question": "lookup", "verdict": "locked"}},
		{"desk locked out", map[string]any{"desk": "C1", "level": "WARN"}},
		{"refused", map[string]any{"desk": "C8", "code": "desk-disabled", "status": 403.0}},
		{"refused", map[string]any{"desk": "C404", "question": "hello", "code": "unknown-desk", "status": 403.0}},
		{"answer", map[string]any{"desk": "C9", "question": "head", "verdict": "ok", "id": headID}},
		{"stopped", map[string]any{"ledger": o.ID()}},
	} {
		l := find(lines, c.msg, c.want)
		if l == nil {
			t.Errorf("no %q line with %v in the log:\n%s", c.msg, c.want, logs.String())
			continue
		}
		if c.msg == "answer" || c.msg == "refused" {
			// In seconds (a question takes milliseconds here; in
			// nanoseconds it read 774000).
			if took, ok := l["took"].(float64); !ok || took <= 0 || took > 10 {
				t.Errorf("%v: no duration in seconds", l)
			}
			if id, _ := l["id"].(string); len(id) != 16 {
				t.Errorf("%v: no request id", l)
			}
		}
	}
	if !slices.ContainsFunc(lines, func(l map[string]any) bool {
		msg, _ := l["msg"].(string)
		return l["from"] == "http" && l["level"] == "WARN" && strings.Contains(msg, "TLS handshake error")
	}) {
		t.Errorf("no line for the handshake refused:\n%s", logs.String())
	}
	n := 0
	for _, l := range lines {
		if l["msg"] == "desk locked out" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d lock-out lines for one lock-out", n)
	}
	// Nothing secret: no serial's secret part (the serials sent, the
	// guesses, the mistyped one), the winner, a key or a certificate.
	text := logs.String()
	secrets := []string{"SECRETNAME", "T7MK2QLV8", "851104", "PRIVATE KEY", "CERTIFICATE"}
	for _, serial := range append([]string{big, small, mistyped}, guesses...) {
		digits := strings.ReplaceAll(serial, "-", "")
		secrets = append(secrets, serial, digits[14:26], serial[17:31])
	}
	for _, name := range []string{server.ServerKey, server.AuthorityCert} {
		data, err := os.ReadFile(s.Dir + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		secrets = append(secrets, strings.Split(string(data), "\n")[1])
	}
	for _, sec := range secrets {
		if strings.Contains(text, sec) {
			t.Errorf("the log holds %q", sec)
		}
	}
}
