package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"vegas-desk/internal/ledger"
	"vegas-desk/internal/server"
	"vegas-desk/internal/server/servertest"
)

// monitor serves s's monitor (GET /metrics, GET /healthz) on a loopback
// port of its own, plain HTTP, until the test ends; it returns its URL.
func monitor(t *testing.T, s *server.Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	mon := &http.Server{Handler: s.Monitor()}
	go mon.Serve(ln)
	t.Cleanup(func() { mon.Close() })
	return "http://" + ln.Addr().String()
}

// get is an answer's status and body, asked with no client certificate.
func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// scrape is s's metrics, read from its monitor mon once every question s
// has answered is counted: a question's record comes after its answer.
func scrape(t *testing.T, s *server.Server, mon string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := server.Recorded(ctx, s); err != nil {
		t.Fatal(err)
	}
	_, body := get(t, mon+"/metrics")
	return body
}

// metric is the value of the sample name{labels} in a scrape (-1: none).
func metric(scrape, sample string) float64 {
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(sample) + ` (\S+)$`).FindStringSubmatch(scrape)
	if m == nil {
		return -1
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	return v
}

// The monitor after real questions through mTLS: /healthz answers without
// a certificate while the ledger answers, 503 once it does not; /metrics
// counts the questions by kind and verdict, their latency, the payments
// and their euros, the chain's delay, refusals and lock-outs by desk, the
// open connections by desk and the ledger's failures.
func TestMetrics(t *testing.T) {
	ctx := context.Background()
	o, serials := office(t)
	s := servertest.Start(t, o, server.Config{})
	mon := monitor(t, s.Server)
	st, body := get(t, mon+"/healthz")
	var h server.Health
	if st != http.StatusOK || json.Unmarshal([]byte(body), &h) != nil || !h.OK || !h.Serving || h.Ledger != o.ID() {
		t.Fatalf("healthz: %d %s", st, body)
	}
	// The desks' port still wants a desk's certificate.
	if _, err := http.Get(s.URL + "/healthz"); err == nil {
		t.Error("the desks' port answered a client without a certificate")
	}

	c1 := s.Open(t, "C1")
	who := ledger.Identity{Operator: "ann"}
	win := serials.Winners[50][0]
	if _, err := c1.Claim(ctx, claimOf(win, "ann")); err != nil {
		t.Fatal(err)
	}
	if _, err := c1.Claim(ctx, claimOf(win, "ann")); !errors.Is(err, ledger.ErrAlreadyClaimed) {
		t.Fatalf("second claim: %v", err)
	}
	if _, err := c1.Lookup(ctx, serials.Winners[3][0], who, ledger.NoLimit); err != nil {
		t.Fatal(err)
	}
	c2 := s.Open(t, "C2")
	good := serials.Winners[3][1]
	for i := range 21 {
		wrong := []byte(good)
		wrong[20] = '0' + byte((int(wrong[20]-'0')+1+i%9)%10)
		c2.Lookup(ctx, fixCheck(t, string(wrong)), who, ledger.NoLimit)
	}
	if err := o.DisableDesk(ctx, "C1", bo); err != nil {
		t.Fatal(err)
	}
	c1.Lookup(ctx, good, who, ledger.NoLimit)

	scraped := scrape(t, s.Server, mon)
	for sample, want := range map[string]float64{
		`vegas_questions_total{question="claim",verdict="paid"}`:            1,
		`vegas_questions_total{question="claim",verdict="already-claimed"}`: 1,
		`vegas_questions_total{question="lookup",verdict="payable"}`:        1,
		`vegas_questions_total{question="lookup",verdict="unknown-serial"}`: 20,
		`vegas_questions_total{question="lookup",verdict="locked"}`:         1,
		`vegas_questions_total{question="lookup",verdict="desk-disabled"}`:  1,
		`vegas_question_seconds_count{question="claim"}`:                    2,
		`vegas_payments_total`:                                     1,
		`vegas_paid_euros_total`:                                   50,
		`vegas_chain_delay_seconds_count`:                          1,
		`vegas_refusals_total{desk="C1",reason="already-claimed"}`: 1,
		`vegas_refusals_total{desk="C1",reason="desk-disabled"}`:   1,
		`vegas_refusals_total{desk="C2",reason="unknown-serial"}`:  20,
		`vegas_refusals_total{desk="C2",reason="locked"}`:          1,
		`vegas_lockouts_total{desk="C2"}`:                          1,
		`vegas_connections{desk="C1"}`:                             -1, // disabled: its connection closed, not counted (issue 44 item 4b)
		`vegas_connections{desk="C2"}`:                             1,
		`vegas_ledger_up`:                                          1,
	} {
		if got := metric(scraped, sample); got != want {
			t.Errorf("%s = %v, want %v", sample, got, want)
		}
	}
	if metric(scraped, `vegas_question_seconds_bucket{question="claim",le="10"}`) != 2 || metric(scraped, "go_goroutines") <= 0 {
		t.Errorf("no latency buckets or Go's metrics:\n%s", scraped)
	}

	// The ledger gone: the health check says so, the desks' questions
	// count as the ledger's failures.
	o.Close()
	st, body = get(t, mon+"/healthz")
	if st != http.StatusServiceUnavailable || json.Unmarshal([]byte(body), &h) != nil || h.OK || h.Error == "" {
		t.Errorf("healthz, the ledger closed: %d %s", st, body)
	}
	if _, err := c2.Head(ctx); err == nil {
		t.Error("head answered, the ledger closed")
	}
	scraped = scrape(t, s.Server, mon)
	if metric(scraped, `vegas_ledger_errors_total{code="healthz"}`) != 1 || metric(scraped, `vegas_ledger_errors_total{code="internal"}`) != 1 ||
		metric(scraped, `vegas_ledger_up`) != 0 {
		t.Errorf("the ledger's failures not counted:\n%s", scraped)
	}
	// Every metric the runbook names (its table, its alert rules) is one
	// the server exports (each has been counted by now).
	readme, err := os.ReadFile("../../docs/runbook.md")
	if err != nil {
		t.Fatal(err)
	}
	section := string(readme)[strings.Index(string(readme), "## Watching it\n"):]
	section = section[:strings.Index(section, "### Lock-outs\n")]
	for _, name := range regexp.MustCompile(`vegas_[a-z_]+`).FindAllString(section, -1) {
		name = strings.TrimSuffix(name, "_bucket")
		if !strings.Contains(scraped, "# TYPE "+name+" ") {
			t.Errorf("docs/runbook.md names %s, which the server does not export", name)
		}
	}
}
