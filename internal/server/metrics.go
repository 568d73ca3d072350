package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
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
	// monitorRefused: connections to the monitor closed over its bound.
	monitorRefused *family
	connections    func() map[string]int
}

func (s *Server) newMetrics() *metrics {
	m := &metrics{
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
		monitorRefused: counter("vegas_monitor_refused_total",
			"Connections to the monitor closed at once: it held its bound of open connections."),
		connections: func() map[string]int {
			s.mu.Lock()
			defer s.mu.Unlock()
			return maps.Clone(s.byDesk)
		},
	}
	// Each series an alert rule watches starts at 0 where its label is
	// known (issue 36 item 6: a counter born at 1 on its first event
	// showed increase() nothing): each code's ledger errors, and each
	// desk the ledger lists at the start, its lock-outs.
	for _, code := range []string{protocol.CodeInternal, protocol.CodeUnavailable, "healthz"} {
		m.ledgerErrors.add(0, code)
	}
	m.monitorRefused.add(0)
	ctx, cancel := context.WithTimeout(context.Background(), HealthTimeout)
	defer cancel()
	if desks, err := s.l.Desks(ctx); err == nil {
		for _, d := range desks {
			m.lockouts.add(0, d.ID)
		}
	}
	return m
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
	for _, f := range []*family{m.questions, m.latency, m.payments, m.paid, m.refusals, m.lockouts, m.chainDelay, m.ledgerErrors, m.monitorRefused} {
		fams = append(fams, f.clone())
	}
	m.mu.Unlock()
	return writeFamilies(w, fams)
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
	err := mon.Serve(&capped{Listener: ln, max: int64(max), refused: func() { s.metrics.add(s.metrics.monitorRefused, 1) }})
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
	refused func()
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
			l.refused()
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

// The families of metrics and their samples, as the server counts them;
// exposition.go writes them.

// family is one metric and its samples by label values.
type family struct {
	name, help, kind string // kind: counter, gauge, histogram, summary
	labels           []string
	buckets          []float64 // a histogram's upper bounds, +Inf aside
	samples          map[labelKey]*sample
}

// sample is one series of a family.
type sample struct {
	values []string
	value  float64   // a counter's, a gauge's; a histogram's and a summary's sum
	counts []uint64  // a histogram's, per bucket (not cumulative), +Inf last
	count  uint64    // a histogram's, a summary's
	quants []float64 // a summary's quantiles: 0, 0.25, 0.5, 0.75, 1
}

func newFamily(kind, name, help string, buckets []float64, labels ...string) *family {
	return &family{name: name, help: help, kind: kind, labels: labels, buckets: buckets, samples: map[labelKey]*sample{}}
}

func counter(name, help string, labels ...string) *family {
	return newFamily("counter", name, help, nil, labels...)
}
func gauge(name, help string, labels ...string) *family {
	return newFamily("gauge", name, help, nil, labels...)
}
func histogram(name, help string, buckets []float64, labels ...string) *family {
	return newFamily("histogram", name, help, buckets, labels...)
}

// labelKey is a sample's label values, as a map key (no family has more
// than two labels): counting allocates nothing once a sample exists.
type labelKey [2]string

// get is the sample of the label values lv, made at first.
func (f *family) get(lv []string) *sample {
	if len(lv) != len(f.labels) || len(lv) > len(labelKey{}) {
		panic("metric " + f.name + ": " + strconv.Itoa(len(lv)) + " label values for " + strconv.Itoa(len(f.labels)) + " labels")
	}
	var key labelKey
	copy(key[:], lv)
	x := f.samples[key]
	if x == nil {
		x = &sample{values: slices.Clone(lv)}
		if f.kind == "histogram" {
			x.counts = make([]uint64, len(f.buckets)+1)
		}
		f.samples[key] = x
	}
	return x
}

// add adds v to a counter's or a gauge's sample.
func (f *family) add(v float64, lv ...string) { f.get(lv).value += v }

// observe counts v in a histogram's sample.
func (f *family) observe(v float64, lv ...string) {
	x := f.get(lv)
	i, _ := slices.BinarySearch(f.buckets, v) // the first bound ≥ v
	x.counts[i]++
	x.value += v
	x.count++
}

// clone is f and a copy of its samples.
func (f *family) clone() *family {
	c := *f
	c.samples = make(map[labelKey]*sample, len(f.samples))
	for k, x := range f.samples {
		y := *x
		y.counts = slices.Clone(x.counts)
		c.samples[k] = &y
	}
	return &c
}
