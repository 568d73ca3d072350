package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/protocol"
	"vegas-desk/internal/ledger/wire"
)

// What serve says, as log/slog lines (Config.Log): a line per question
// (its id, desk, question, verdict or error code, duration), each refusal
// with its reason, each lock-out, the start and the stop with the ledger
// served. A line never holds a serial's secret part (the public part
// game-block-position is named instead), a winner's identity, a key or
// the free text of an error a desk caused (which may quote what it sent):
// a refusal's reason is its code and verdict. The same observation feeds
// the metrics (metrics.go).

// RequestIDHeader carries a question's id in its answer, the id of its log
// line.
const RequestIDHeader = "X-Request-Id"

// observed is a question's answer as write wrote it.
type observed struct {
	http.ResponseWriter
	status int
	v      any
	e      *apiError
}

func (o *observed) WriteHeader(status int) {
	if o.status == 0 {
		o.status = status
	}
	o.ResponseWriter.WriteHeader(status)
}

// note is write's hook: the answer being written to w.
func note(w http.ResponseWriter, v any, e *apiError) {
	if o, ok := w.(*observed); ok {
		o.v, o.e = v, e
	}
}

// outcome is what a log line and the metrics say of an answer.
type outcome struct {
	question, desk, id, request string
	operator                    string // the cashier the question named (not a secret)
	status                      int
	// verdict: the ticket's verdict, "paid", a refusal's verdict, or
	// "ok"; code: the error's code, "" for an answer.
	verdict, code string
	serial        string // the public part
	amount        int    // a payment's
	chained       time.Duration
	until         time.Time // a lock-out's end
	message       string    // the ledger's failure (internal, unavailable)
	took          time.Duration
}

// observe wraps h: each question is answered, then logged and counted.
func (s *Server) observe(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.flight.start()
		defer s.flight.done() // (after its record)
		start := time.Now()
		id := newID()
		w.Header().Set(RequestIDHeader, id)
		o := &observed{ResponseWriter: w}
		var n noted // the question's request id and operator, from its body or header (noteRequest)
		r = r.WithContext(context.WithValue(r.Context(), requestKey{}, &n))
		h.ServeHTTP(o, r)
		out := outcome{id: id, request: n.request, operator: n.operator, took: time.Since(start), status: o.status,
			question: strings.TrimPrefix(r.Pattern, "/v1/")}
		if out.status == 0 {
			out.status = http.StatusOK
		}
		if out.question == "/" || out.question == "" {
			out.question = "other"
		}
		if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 {
			out.desk, _, _ = protocol.Names(r.TLS.PeerCertificates[0])
		}
		out.read(o.v, o.e)
		s.record(r.Context(), out)
	})
}

// requestKey holds, in a question's context, where noteRequest writes
// its request id and operator for the log line.
type requestKey struct{}

// noted is what a question's body says that its log line names.
type noted struct{ request, operator string }

// noteRequest gives the log line of r's question its request id (a
// claim's) and the operator it named: who paid (issue 36 item 7).
func noteRequest(r *http.Request, request, operator string) {
	if p, ok := r.Context().Value(requestKey{}).(*noted); ok {
		p.request, p.operator = request, operator
	}
}

// read fills in what the answer v or the error e says.
func (out *outcome) read(v any, e *apiError) {
	out.verdict = "ok"
	switch x := v.(type) {
	case wire.Ticket:
		out.verdict, out.serial = x.Verdict, game.PublicSerial(x.Game, x.Block, x.Position)
	case *wire.Claim:
		out.verdict, out.serial, out.amount = "paid", game.PublicSerial(x.Game, x.Block, x.Position), x.Amount
		out.chained = time.Duration(x.ChainedMS * float64(time.Millisecond))
	}
	if e == nil {
		return
	}
	out.code, out.verdict = e.code, ""
	if f := e.refusal; f != nil {
		out.verdict = f.Verdict
		if sr, err := game.ParseSerial(f.Serial); err == nil {
			out.serial = game.PublicSerial(sr.Game, sr.Block, sr.Position)
		}
		if f.Until != nil && f.Verdict == string(ledger.Locked) {
			out.until = *f.Until
		}
	}
	if e.code == protocol.CodeInternal || e.code == protocol.CodeUnavailable {
		out.message = hideSecrets(e.detail)
		if out.message == "" {
			out.message = e.message
		}
	}
}

// attrs are out's fields of a log line.
func (out *outcome) attrs() []slog.Attr {
	attrs := []slog.Attr{slog.String("id", out.id), slog.String("desk", out.desk), slog.String("question", out.question),
		slog.Int("status", out.status), Seconds("took", out.took)}
	for _, a := range []struct{ key, value string }{{"verdict", out.verdict}, {"code", out.code}, {"serial", out.serial},
		{"request", out.request}, {"operator", out.operator}, {"error", out.message}} {
		if a.value != "" {
			attrs = append(attrs, slog.String(a.key, a.value))
		}
	}
	if out.amount != 0 {
		attrs = append(attrs, slog.Int("amount", out.amount))
	}
	return attrs
}

// record logs out and counts it.
func (s *Server) record(ctx context.Context, out outcome) {
	level, msg := slog.LevelInfo, "answer"
	switch {
	case out.code == protocol.CodeUnavailable:
		level, msg = slog.LevelError, "ledger unavailable"
	case out.status >= 500:
		level, msg = slog.LevelError, "ledger failed"
	case out.code == protocol.CodeRefused:
		msg = "refused"
	case out.code != "":
		level, msg = slog.LevelWarn, "refused"
	}
	if h := s.log.Handler(); h.Enabled(ctx, level) { // (no line made for no log)
		// The record made here, without the caller's frame that
		// Logger.LogAttrs looks up for every line (no handler of serve's
		// prints it).
		r := slog.NewRecord(time.Now(), level, msg, 0)
		r.AddAttrs(out.attrs()...)
		h.Handle(ctx, r)
	}
	if !out.until.IsZero() && s.lockedOut(out.desk, out.until) {
		s.log.LogAttrs(ctx, slog.LevelWarn, "desk locked out", slog.String("desk", out.desk), slog.Time("until", out.until),
			slog.String("id", out.id))
		s.metrics.add(s.metrics.lockouts, 1, out.desk)
	}
	s.metrics.count(out)
}

// lockOuts remembers each desk's lock-out seen, so that it is logged and
// counted once, not at each of its refused questions.
type lockOuts struct {
	mu    sync.Mutex
	until map[string]time.Time
}

// lockedOut reports whether desk's lock-out until is a new one.
func (s *Server) lockedOut(desk string, until time.Time) bool {
	s.locks.mu.Lock()
	defer s.locks.mu.Unlock()
	if s.locks.until == nil {
		s.locks.until = map[string]time.Time{}
	}
	if s.locks.until[desk].Equal(until) {
		return false
	}
	s.locks.until[desk] = until
	return true
}

// serialText is a serial as the ledger's errors may quote it: 31 digits,
// grouped by dashes or spaces or not.
// Both are compiled when first used: a command process that links the
// server (every one) compiles neither at start (TestStartupInits).
var serialText = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\b(\d{3})[- ]?(\d{4})[- ]?(\d{7})[- ]?\d{4}[- ]?\d{4}[- ]?\d{4}[- ]?\d{4}[- ]?\d\b`)
})

// longNumber is a run of digits as long as a secret part's last 13.
var longNumber = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\d{13,}`) })

// hideSecrets is s (a failure's words: the driver's, the ledger's) with
// every serial quoted in it reduced to its public part, and any other run
// of digits long enough to be a secret part (an argument of a statement)
// masked: a serial's secret part never goes to the log (issue 44 item 5a;
// ledger.Claim's error of a lost answer quotes the claim's serial).
func hideSecrets(s string) string {
	s = serialText().ReplaceAllString(s, "$1-$2-$3-••••-••••-••••-••••-•")
	return longNumber().ReplaceAllStringFunc(s, func(d string) string { return strings.Repeat("•", len(d)) })
}

// Seconds is a duration's attribute of a log line, in seconds (a
// number, the same in text and JSON lines; slog.Duration writes
// nanoseconds in JSON).
func Seconds(key string, d time.Duration) slog.Attr {
	return slog.Float64(key, math.Round(d.Seconds()*1e6)/1e6)
}

// knownLocked reports whether desk was locked out at its last question
// and its lock-out has not ended.
func (s *Server) knownLocked(desk string) bool {
	s.locks.mu.Lock()
	defer s.locks.mu.Unlock()
	return s.locks.until[desk].After(time.Now())
}

// forgetLock forgets desk's lock-out: the back office unlocked it.
func (s *Server) forgetLock(desk string) {
	s.locks.mu.Lock()
	defer s.locks.mu.Unlock()
	delete(s.locks.until, desk)
}

// LockedQuantum is the default of Config.LockedQuantum.
const LockedQuantum = 50 * time.Millisecond

// atQuantum waits until the first multiple of the locked quantum after a
// question's arrival that is still to come: a locked answer leaves then,
// whatever the ledger's work on it took (the first one, which read the
// ticket before it found the desk locked, included).
func (s *Server) atQuantum(arrival time.Time) {
	q := s.cfg.LockedQuantum
	if q <= 0 {
		q = LockedQuantum
	}
	took := time.Since(arrival)
	time.Sleep((took/q+1)*q - took)
}

func newID() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// started and stopped are Serve's lines.
func (s *Server) started(ln net.Listener) {
	s.serving.Store(true)
	s.log.Info("serving", slog.String("ledger", s.l.ID()), slog.String("location", s.l.Location()),
		slog.Bool("demo", s.l.Demo()), slog.String("listen", ln.Addr().String()))
}

func (s *Server) stopped(err error) {
	s.serving.Store(false)
	if err != nil {
		s.log.Error("stopped", slog.String("ledger", s.l.ID()), slog.String("error", err.Error()))
		return
	}
	s.log.Info("stopped", slog.String("ledger", s.l.ID()))
}

// NewLogger is serve's logger on w: JSON lines when asked ("json"), text
// lines ("text") otherwise.
func NewLogger(w io.Writer, format string) *slog.Logger {
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, nil))
	}
	return slog.New(slog.NewTextHandler(w, nil))
}

// watch is what a server says and counts.
type watch struct {
	log     *slog.Logger
	metrics *metrics
	locks   lockOuts
	health  health
	serving atomic.Bool
	flight  inFlight
}

// inFlight counts the questions between their arrival and their record
// (log line and metrics). The record follows the answer: nothing but
// net/http's buffering of a short answer until its handler returns makes
// a client see the metrics of a question it got the answer of; wait says
// when every question answered is recorded, what the tests look at.
type inFlight struct {
	n       atomic.Int64
	waiters atomic.Int64
	mu      sync.Mutex
	idle    chan struct{} // closed when n reaches 0, made by a waiter
}

func (f *inFlight) start() { f.n.Add(1) }

func (f *inFlight) done() {
	if f.n.Add(-1) == 0 && f.waiters.Load() > 0 {
		f.mu.Lock()
		if f.idle != nil {
			close(f.idle)
			f.idle = nil
		}
		f.mu.Unlock()
	}
}

// wait returns once no question is between its arrival and its record.
func (f *inFlight) wait(ctx context.Context) error {
	f.mu.Lock()
	f.waiters.Add(1)
	defer f.waiters.Add(-1)
	if f.n.Load() == 0 {
		f.mu.Unlock()
		return nil
	}
	if f.idle == nil {
		f.idle = make(chan struct{})
	}
	idle := f.idle
	f.mu.Unlock()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%d questions still unrecorded: %w", f.n.Load(), ctx.Err())
	}
}

// watchOver starts the server's log and metrics: each question observed,
// and http.Server's own lines (a handshake refused: a certificate of
// another authority, another ledger, expired; a connection cut) as
// warnings.
func (s *Server) watchOver() {
	s.log = s.cfg.Log
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.metrics = s.newMetrics()
	s.http.Handler = s.observe(s.http.Handler)
	s.http.ErrorLog = slog.NewLogLogger(s.log.With(slog.String("from", "http")).Handler(), slog.LevelWarn)
}
