package server

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"vegas-desk/internal/ledger/protocol"
)

// The monitor: GET /metrics (Prometheus's text format) and GET /healthz,
// on a listener of their own (serve --metrics), plain HTTP, not the desks'
// mTLS one: every connection to the desks' port still presents a desk's
// certificate at the handshake, and what watches the server (Prometheus,
// a load balancer's check, systemd) needs no desk file. The monitor's
// address is for the operator's network alone (default: loopback).

// metrics are a server's, in a registry of its own (two servers in one
// process, as in the tests, count apart).
type metrics struct {
	reg          *prometheus.Registry
	questions    *prometheus.CounterVec
	latency      *prometheus.HistogramVec
	payments     prometheus.Counter
	paid         prometheus.Counter
	refusals     *prometheus.CounterVec
	lockouts     *prometheus.CounterVec
	chainDelay   prometheus.Histogram
	ledgerErrors *prometheus.CounterVec
}

func (s *Server) newMetrics() *metrics {
	m := &metrics{reg: prometheus.NewRegistry(),
		questions: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "vegas_questions_total",
			Help: "Questions answered, by question and verdict (a ticket's verdict, paid, a refusal's verdict, ok) or error code."},
			[]string{"question", "verdict"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "vegas_question_seconds",
			Help: "Time to answer a question, by question.", Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}},
			[]string{"question"}),
		payments: prometheus.NewCounter(prometheus.CounterOpts{Name: "vegas_payments_total",
			Help: "Payments answered (a lost answer asked again counts again)."}),
		paid: prometheus.NewCounter(prometheus.CounterOpts{Name: "vegas_paid_euros_total",
			Help: "Euros of the payments answered."}),
		refusals: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "vegas_refusals_total",
			Help: "Questions refused, by desk and reason (a refusal's verdict, or the error's code)."}, []string{"desk", "reason"}),
		lockouts: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "vegas_lockouts_total",
			Help: "Desks locked out for guessing, by desk."}, []string{"desk"}),
		chainDelay: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "vegas_chain_delay_seconds",
			Help:    "How long a payment's journal entry waited to be chained.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 5, 30, 60}}),
		ledgerErrors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "vegas_ledger_errors_total",
			Help: "Questions the ledger failed on (internal) or did not answer (unavailable), and failed health checks (healthz)."},
			[]string{"code"}),
	}
	up := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "vegas_ledger_up",
		Help: "1 when the ledger answered at this scrape (its journal's head read within HealthTimeout), 0 otherwise."},
		func() float64 {
			if s.ledgerAnswers(context.Background()) != nil {
				return 0
			}
			return 1
		})
	m.reg.MustRegister(up, m.questions, m.latency, m.payments, m.paid, m.refusals, m.lockouts, m.chainDelay, m.ledgerErrors,
		connections{s}, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// count adds out to the metrics.
func (m *metrics) count(out outcome) {
	label := out.verdict
	if out.code != "" && out.code != protocol.CodeRefused {
		label = out.code
	}
	m.questions.WithLabelValues(out.question, label).Inc()
	m.latency.WithLabelValues(out.question).Observe(out.took.Seconds())
	switch {
	case out.verdict == "paid":
		m.payments.Inc()
		m.paid.Add(float64(out.amount))
		m.chainDelay.Observe(out.chained.Seconds())
	case out.code == protocol.CodeInternal || out.code == protocol.CodeUnavailable:
		m.ledgerErrors.WithLabelValues(out.code).Inc()
	case out.code != "":
		m.refusals.WithLabelValues(out.desk, label).Inc()
	}
}

// connections is the gauge of each desk's open connections, read from the
// server's count when scraped.
type connections struct{ s *Server }

var connectionsDesc = prometheus.NewDesc("vegas_connections", "Open connections, by desk.", []string{"desk"}, nil)

func (c connections) Describe(ch chan<- *prometheus.Desc) { ch <- connectionsDesc }

func (c connections) Collect(ch chan<- prometheus.Metric) {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	for desk, n := range c.s.byDesk {
		ch <- prometheus.MustNewConstMetric(connectionsDesc, prometheus.GaugeValue, float64(n), desk)
	}
}

// HealthTimeout bounds the ledger's answer to a health check.
const HealthTimeout = 5 * time.Second

// ledgerAnswers reads the ledger's journal head within HealthTimeout.
func (s *Server) ledgerAnswers(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, HealthTimeout)
	defer cancel()
	if err := s.l.Ping(ctx); err != nil {
		return err
	}
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
	mux.Handle("GET /metrics", promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		err := s.ledgerAnswers(r.Context())
		h := Health{OK: err == nil && s.serving.Load(), Serving: s.serving.Load(), Ledger: s.l.ID(), TookMS: float64(time.Since(start)) / float64(time.Millisecond)}
		status := http.StatusOK
		if err != nil {
			h.Error = "the ledger did not answer: " + err.Error()
			s.metrics.ledgerErrors.WithLabelValues("healthz").Inc()
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
