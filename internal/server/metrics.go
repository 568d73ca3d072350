package server

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
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
	// monitorRefused: connections to the monitor closed over its bound.
	monitorRefused prometheus.Counter
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
		monitorRefused: prometheus.NewCounter(prometheus.CounterOpts{Name: "vegas_monitor_refused_total",
			Help: "Connections to the monitor closed at once: it held its bound of open connections."}),
	}
	up := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "vegas_ledger_up",
		Help: "1 when the ledger answered at this scrape (its journal's head read within HealthTimeout), 0 otherwise."},
		func() float64 {
			if s.ledgerAnswers(context.Background()) != nil {
				return 0
			}
			return 1
		})
	// Each series an alert rule watches starts at 0 where its label is
	// known (issue 36 item 6: a counter born at 1 on its first event
	// showed increase() nothing): each code's ledger errors, and each
	// desk the ledger lists at the start, its lock-outs.
	for _, code := range []string{protocol.CodeInternal, protocol.CodeUnavailable, "healthz"} {
		m.ledgerErrors.WithLabelValues(code)
	}
	ctx, cancel := context.WithTimeout(context.Background(), HealthTimeout)
	defer cancel()
	if desks, err := s.l.Desks(ctx); err == nil {
		for _, d := range desks {
			m.lockouts.WithLabelValues(d.ID)
		}
	}
	m.reg.MustRegister(up, m.questions, m.latency, m.payments, m.paid, m.refusals, m.lockouts, m.chainDelay, m.ledgerErrors, m.monitorRefused,
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

// ledgerAnswers reads the ledger's journal head within HealthTimeout. The
// monitor's checks asked at once share one read (health): however many
// its port gets, they hold at most one of the ledger's connections, the
// others the desks' (issue 44 item 4a).
func (s *Server) ledgerAnswers(ctx context.Context) error {
	h := &s.health
	h.mu.Lock()
	if h.wait == nil {
		wait := make(chan struct{})
		h.wait = wait
		h.mu.Unlock()
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), HealthTimeout)
		err := s.l.Ping(rctx) // a file whose sync failed answers no more (issue 43)
		if err == nil {
			_, err = s.l.Head(rctx)
		}
		cancel()
		h.mu.Lock()
		h.err, h.wait = err, nil
		h.mu.Unlock()
		close(wait)
		return err
	}
	wait := h.wait
	h.mu.Unlock()
	select {
	case <-wait:
	case <-ctx.Done():
		return ctx.Err()
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.err
}

// health is the monitor's read of the ledger in flight, and its answer.
type health struct {
	mu   sync.Mutex
	wait chan struct{} // closed when the read in flight is done
	err  error
}

// Health is a health check's answer.
type Health struct {
	OK      bool    `json:"ok"`
	Serving bool    `json:"serving"` // the desks' listener is open
	Ledger  string  `json:"ledger"`
	TookMS  float64 `json:"took_ms"`
	Error   string  `json:"error,omitempty"`
}

// The monitor's listener is open to whoever reaches its address, with no
// certificate: what one connection may hold is bounded, and all of them
// together (issue 44 item 4a: 20,000 idle keep-alive connections once took
// all of serve's open files, and desks timed out on their own port).
const (
	// MonitorMaxConns bounds its open connections: one over it is closed
	// at once (a scrape or a health check needs one).
	MonitorMaxConns = 64
	// MonitorIdleTimeout closes a connection idle between two questions.
	MonitorIdleTimeout = 10 * time.Second
)

// ServeMonitor serves the monitor (Monitor) on ln until the server is
// closed: a question's headers within ReadHeaderTimeout, its answer within
// WriteTimeout, a connection idle MonitorIdleTimeout closed, at most
// MonitorMaxConns open (Config's, when given).
func (s *Server) ServeMonitor(ln net.Listener) error {
	idle, max := s.cfg.MonitorIdleTimeout, s.cfg.MonitorMaxConns
	if idle <= 0 {
		idle = MonitorIdleTimeout
	}
	if max <= 0 {
		max = MonitorMaxConns
	}
	mon := &http.Server{Handler: s.Monitor(), MaxHeaderBytes: MaxHeader,
		ReadHeaderTimeout: s.cfg.ReadHeaderTimeout, ReadTimeout: s.cfg.ReadTimeout, WriteTimeout: s.cfg.WriteTimeout,
		IdleTimeout: idle, ErrorLog: s.http.ErrorLog}
	s.mu.Lock()
	s.mon = mon
	s.mu.Unlock()
	err := mon.Serve(&capped{Listener: ln, max: int64(max), refused: s.metrics.monitorRefused})
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// capped is a listener that holds at most max connections: one more is
// closed as soon as it is accepted (so that it holds no file, and its
// client learns at once), and counted.
type capped struct {
	net.Listener
	max     int64
	open    atomic.Int64
	refused prometheus.Counter
}

func (l *capped) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.open.Add(1) > l.max {
			l.open.Add(-1)
			if tc, ok := c.(*net.TCPConn); ok {
				tc.SetLinger(0) // a reset: no TIME_WAIT kept for it
			}
			c.Close()
			l.refused.Inc()
			continue
		}
		return &cappedConn{Conn: c, l: l}, nil
	}
}

// cappedConn gives its place back when closed.
type cappedConn struct {
	net.Conn
	l    *capped
	once sync.Once
}

func (c *cappedConn) Close() error {
	c.once.Do(func() { c.l.open.Add(-1) })
	return c.Conn.Close()
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
