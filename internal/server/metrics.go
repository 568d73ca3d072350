package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"sync"
	"time"

	"vegas-desk/internal/ledger/protocol"
)

// The monitor: GET /metrics (Prometheus's text format) and GET /healthz,
// on a listener of their own (serve --metrics), plain HTTP, not the desks'
// mTLS one: every connection to the desks' port still presents a desk's
// certificate at the handshake, and what watches the server (Prometheus,
// a load balancer's check, systemd) needs no desk file. The monitor's
// address is for the operator's network alone (default: loopback).

// metrics are a server's (two servers in one process, as in the tests,
// count apart), in Prometheus's text format (exposition.go). They are
// written here rather than with Prometheus's Go client: that client's
// packages (and procfs's, protobuf's) build their default registry and
// their tables in their init, in every process that links them, so every
// command of the binary, a lookup as much as serve, paid for them at start
// (issue 38); what serve exports is the same.
type metrics struct {
	mu           sync.Mutex
	up           func() float64
	questions    *family
	latency      *family
	payments     *family
	paid         *family
	refusals     *family
	lockouts     *family
	chainDelay   *family
	ledgerErrors *family
	connections  func() map[string]int
}

func (s *Server) newMetrics() *metrics {
	return &metrics{
		up: func() float64 {
			if s.ledgerAnswers(context.Background()) != nil {
				return 0
			}
			return 1
		},
		questions: counter("vegas_questions_total",
			"Questions answered, by question and verdict (a ticket's verdict, paid, a refusal's verdict, ok) or error code.",
			"question", "verdict"),
		latency: histogram("vegas_question_seconds", "Time to answer a question, by question.",
			[]float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}, "question"),
		payments: counter("vegas_payments_total", "Payments answered (a lost answer asked again counts again)."),
		paid:     counter("vegas_paid_euros_total", "Euros of the payments answered."),
		refusals: counter("vegas_refusals_total",
			"Questions refused, by desk and reason (a refusal's verdict, or the error's code).", "desk", "reason"),
		lockouts: counter("vegas_lockouts_total", "Desks locked out for guessing, by desk.", "desk"),
		chainDelay: histogram("vegas_chain_delay_seconds", "How long a payment's journal entry waited to be chained.",
			[]float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 5, 30, 60}),
		ledgerErrors: counter("vegas_ledger_errors_total",
			"Questions the ledger failed on (internal) or did not answer (unavailable), and failed health checks (healthz).",
			"code"),
		connections: func() map[string]int {
			s.mu.Lock()
			defer s.mu.Unlock()
			return maps.Clone(s.byDesk)
		},
	}
}

// add adds v to f's sample of the label values lv.
func (m *metrics) add(f *family, v float64, lv ...string) {
	m.mu.Lock()
	f.add(v, lv...)
	m.mu.Unlock()
}

// count adds out to the metrics.
func (m *metrics) count(out outcome) {
	label := out.verdict
	if out.code != "" && out.code != protocol.CodeRefused {
		label = out.code
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.questions.add(1, out.question, label)
	m.latency.observe(out.took.Seconds(), out.question)
	switch {
	case out.verdict == "paid":
		m.payments.add(1)
		m.paid.add(float64(out.amount))
		m.chainDelay.observe(out.chained.Seconds())
	case out.code == protocol.CodeInternal || out.code == protocol.CodeUnavailable:
		m.ledgerErrors.add(1, out.code)
	case out.code != "":
		m.refusals.add(1, out.desk, label)
	}
}

// write writes every metric, Prometheus's text format, families by name.
func (m *metrics) write(w io.Writer) error {
	up := gauge("vegas_ledger_up",
		"1 when the ledger answered at this scrape (its journal's head read within HealthTimeout), 0 otherwise.")
	up.add(m.up())
	conns := gauge("vegas_connections", "Open connections, by desk.", "desk")
	for desk, n := range m.connections() {
		conns.add(float64(n), desk)
	}
	fams := append(runtimeFamilies(), processFamilies()...)
	fams = append(fams, up, conns)
	m.mu.Lock()
	for _, f := range []*family{m.questions, m.latency, m.payments, m.paid, m.refusals, m.lockouts, m.chainDelay, m.ledgerErrors} {
		fams = append(fams, f.clone())
	}
	m.mu.Unlock()
	return writeFamilies(w, fams)
}

// HealthTimeout bounds the ledger's answer to a health check.
const HealthTimeout = 5 * time.Second

// ledgerAnswers reads the ledger's journal head within HealthTimeout.
func (s *Server) ledgerAnswers(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, HealthTimeout)
	defer cancel()
	_, err := s.l.Head(ctx)
	return err
}

// Health is a health check's answer.
type Health struct {
	OK      bool    `json:"ok"`
	Serving bool    `json:"serving"` // the desks' listener is open
	Ledger  string  `json:"ledger"`
	TookMS  float64 `json:"took_ms"`
	Error   string  `json:"error,omitempty"`
}

// Monitor is the monitor's handler: GET /metrics and GET /healthz (200
// when the server serves and the ledger answers — its journal's head read
// within HealthTimeout —, 503 otherwise).
func (s *Server) Monitor() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, r *http.Request) {
		var b bytes.Buffer
		if err := s.metrics.write(&b); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		w.Write(b.Bytes())
	})
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		err := s.ledgerAnswers(r.Context())
		h := Health{OK: err == nil && s.serving.Load(), Serving: s.serving.Load(), Ledger: s.l.ID(), TookMS: float64(time.Since(start)) / float64(time.Millisecond)}
		status := http.StatusOK
		if err != nil {
			h.Error = "the ledger did not answer: " + err.Error()
			s.metrics.add(s.metrics.ledgerErrors, 1, "healthz")
			s.log.Error("health check failed", slog.String("error", err.Error()))
		}
		if !h.OK {
			status = http.StatusServiceUnavailable
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(h)
	})
	return mux
}
