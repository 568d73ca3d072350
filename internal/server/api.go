package server

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/ledger/protocol"
	"vegas-desk/internal/ledger/wire"
)

// QuestionTimeout bounds the ledger's work on one question: the retry
// policy's, shorter than a client's attempt.
var QuestionTimeout = protocol.Retry.ServerTimeout

// asker is what a question is given: the desk of the certificate (read
// now by the gate, but for a question, which reads it itself: its id),
// and the certificate's serial.
type asker struct {
	desk ledger.Desk
	cert string
}

// handler answers a question of a desk: a value to write as JSON, or an
// error (classify).
type handler func(ctx context.Context, r *http.Request, a asker) (any, error)

// route is one call of the API.
type route struct {
	method, path string
	h            handler
	// question: a lookup, claim or search, refused while the desk is
	// locked out; it reads the desk's row and certificates in its own
	// read (core.Gate), where any other route reads them first (gate).
	question bool
}

// table is the API: every call the server answers.
func (s *Server) table() []route {
	return []route{
		{"GET", protocol.Hello, s.hello, false},
		{"GET", protocol.Head, s.head, false},
		{"GET", protocol.Blocks, s.blocks, false},
		{"GET", protocol.Games + "{code}", s.game, false},
		{"POST", protocol.Lookup, s.lookup, true},
		{"POST", protocol.Claim, s.claim, true},
		{"POST", protocol.Find, s.find, true},
		{"GET", protocol.Claims, s.claims, false},
		{"GET", protocol.Voids, s.voids, false},
		{"GET", protocol.Referrals, s.referrals, false},
		{"GET", protocol.Packs, s.packs, false},
		{"GET", protocol.PackMoves, s.packMoves, false},
		{"POST", protocol.MovePacks, s.move, false},
	}
}

// Routes are the API's calls as the server registers them, "METHOD
// /path" each ({code} for a path's part): what docs/api/openapi.yaml
// documents, held to it by TestOpenAPI.
func Routes() []string {
	var out []string
	for _, rt := range (*Server)(nil).table() {
		out = append(out, rt.method+" "+rt.path)
	}
	return out
}

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	for _, rt := range s.table() {
		mux.Handle(rt.path, s.as(rt))
	}
	mux.Handle("/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		write(w, nil, fail(protocol.CodeNoSuchQuestion, fmt.Sprintf("%s: no such question (the API is under /v1/)", r.URL.Path)))
	}))
	return mux
}

// as answers rt as the desk of the request's certificate: its connection
// counted against the desk's bound, its row and its certificates read
// again (unknown, disabled, revoked), its lock-out honoured by the
// questions. A question reads them in its own read (core.Gate); any other
// route reads them first (gate).
func (s *Server) as(rt route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrival := time.Now()
		defer func() {
			if p := recover(); p != nil {
				e := fail(protocol.CodeInternal, "the server failed on this question; nothing was recorded by it")
				e.detail = fmt.Sprint("panic: ", p)
				write(w, nil, e)
			}
		}()
		if r.TLS == nil || len(r.TLS.PeerCertificates) == 0 {
			write(w, nil, fail(protocol.CodeUnknownDesk, "no desk certificate"))
			return
		}
		id, _, _ := protocol.Names(r.TLS.PeerCertificates[0])
		cert := r.TLS.PeerCertificates[0]
		ctx, cancel := context.WithTimeout(r.Context(), QuestionTimeout)
		defer cancel()
		if s.take(r, id, cert) && s.evict(ctx, r, id) {
			w.Header().Set("Connection", "close")
			write(w, nil, fail(protocol.CodeTooMany,
				fmt.Sprintf("desk %s holds more than %d connections to the server", id, s.cfg.MaxConnsPerDesk)))
			return
		}
		// A certificate the ledger refuses (revoked, its desk disabled or
		// unknown) holds no connection: closed after its answer, and its
		// other connections (the desk's, disabled or unknown) at once; it
		// never counts against the desk's bound.
		write := func(w http.ResponseWriter, v any, e *apiError) {
			if e != nil && (e.code == protocol.CodeDeskRevoked || e.code == protocol.CodeDeskDisabled || e.code == protocol.CodeUnknownDesk) {
				w.Header().Set("Connection", "close")
				s.release(r, id, cert, e.code != protocol.CodeDeskRevoked)
			}
			if e != nil && e.refusal != nil && e.refusal.Verdict == string(ledger.Locked) {
				s.atQuantum(arrival)
			}
			write(w, v, e)
		}
		if r.Method != rt.method {
			w.Header().Set("Allow", rt.method)
			write(w, nil, fail(protocol.CodeMethod, fmt.Sprintf("%s %s: ask with %s", r.Method, r.URL.Path, rt.method)))
			return
		}
		// The desk's ledger is its restore's now: a question's read reads
		// the fence itself (core.Gate.Replaced, questionErr); the rest ask.
		if err := s.servableErr(ctx, rt.question); err != nil {
			write(w, nil, fail(protocol.CodeOtherLedger, err.Error()))
			return
		}
		if err := s.checkEpoch(ctx, id, cert); err != nil {
			write(w, nil, classify(err))
			return
		}
		a := asker{desk: ledger.Desk{ID: id}, cert: protocol.CertSerial(cert)}
		if rt.question && s.knownLocked(id) {
			// A desk locked out at its last question: refused as locked
			// from its row alone, before any ticket is read, so that the
			// answer's time does not depend on the serial (issue 44
			// item 5b). Unlocked since (the back office), it asks on.
			if _, err := s.gate(ctx, id, cert, true); err != nil {
				write(w, nil, classify(err))
				return
			}
			s.forgetLock(id)
		}
		if !rt.question {
			d, err := s.gate(ctx, id, cert, false)
			if err != nil {
				write(w, nil, classify(err))
				return
			}
			a.desk = d
		}
		v, err := rt.h(ctx, r, a)
		if rt.question {
			err = s.questionErr(ctx, id, cert, err)
		}
		write(w, v, classify(err))
	})
}

// gate reads desk id's row and certificates now (no cache, one
// statement) and is its refusal if the ledger does not serve it: unknown,
// disabled, cert revoked, locked out (a question, when question).
func (s *Server) gate(ctx context.Context, id string, cert *x509.Certificate, question bool) (ledger.Desk, error) {
	d, accepts, err := s.l.DeskState(ctx, id, cert)
	if errors.Is(err, ledger.ErrNotFound) {
		err = core.Gate{Asked: true}.Refused(id)
	} else if err == nil {
		err = core.Gate{Asked: true, Listed: true, Disabled: d.Disabled, Accepts: accepts}.Refused(id)
	}
	if r := d.LockedAt(time.Now()); err == nil && question && r != nil {
		err = r
	}
	return d, refusedDesk(err, id, cert)
}

// questionErr is the answer to a question's err. A question's read reads
// its desk's gate itself (core.Gate: the desk, its certificate, its
// lock-out, in the statement that reads the rest): a desk it refuses is
// answered as the gate answers it. An error that is no answer of the
// ledger's decision (a body, a serial or a desk refused before the read,
// a failure) is rare: the gate is read then, and its refusal answers
// first, as it always has.
func (s *Server) questionErr(ctx context.Context, id string, cert *x509.Certificate, err error) error {
	var r *ledger.Refusal
	switch {
	case err == nil, errors.As(err, &r):
		return err
	case errors.Is(err, ledger.ErrReplaced):
		return fail(protocol.CodeOtherLedger, s.replaced(ctx, err).Error())
	case errors.Is(err, ledger.ErrDeskUnknown), errors.Is(err, ledger.ErrDeskDisabled), errors.Is(err, ledger.ErrDeskRevoked):
		return refusedDesk(err, id, cert)
	}
	if rerr := s.servableErr(ctx, false); rerr != nil {
		return fail(protocol.CodeOtherLedger, rerr.Error())
	}
	var ae *apiError
	if _, gerr := s.gate(ctx, id, cert, true); errors.As(gerr, &ae) || errors.As(gerr, &r) {
		return gerr
	}
	return err
}

// refusedDesk is the answer to a desk the ledger does not serve (err from
// core.Gate), or err.
func refusedDesk(err error, id string, cert *x509.Certificate) error {
	switch {
	case errors.Is(err, ledger.ErrDeskUnknown):
		return fail(protocol.CodeUnknownDesk, fmt.Sprintf("desk %s is not a desk of this ledger (see desks list)", id))
	case errors.Is(err, ledger.ErrDeskDisabled):
		return fail(protocol.CodeDeskDisabled, fmt.Sprintf("desk %s is disabled; ask the back office", id))
	case errors.Is(err, ledger.ErrDeskRevoked): // its certificates, read at every question as its row is
		return fail(protocol.CodeDeskRevoked, fmt.Sprintf("desk %s no longer accepts this desk file's certificate (%s): it was revoked or replaced (desks cert); ask the back office for the new desk file",
			id, protocol.CertSerial(cert)))
	}
	return err
}

// apiError is an answer that is not one.
type apiError struct {
	code, message string
	refusal       *wire.Refusal
	// detail is what serve's log says of a failure the desk is told only
	// by its code and a sentence (internal, unavailable): the driver's
	// words name the database, its role and address, and may quote what
	// was asked. It never goes to an answer (issue 36 item 4).
	detail string
}

// fail is the answer of code with message.
func fail(code, message string) *apiError { return &apiError{code: code, message: message} }

func (e *apiError) Error() string { return e.message }

// classify is the answer to err (nil for nil).
func classify(err error) *apiError {
	var ae *apiError
	var r *ledger.Refusal
	var ge game.Errors
	var mb *http.MaxBytesError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ae):
		return ae
	case errors.As(err, &r):
		w := wire.RefusalOf(r)
		w.Entry = r.Entry
		return &apiError{code: protocol.CodeRefused, message: err.Error(), refusal: &w}
	case errors.As(err, &mb):
		return fail(protocol.CodeTooLarge, fmt.Sprintf("a question's body is at most %d bytes", MaxBody))
	case errors.Is(err, game.ErrCheckDigit), errors.Is(err, game.ErrSerialFormat):
		return fail(protocol.CodeBadSerial, err.Error())
	case errors.As(err, &ge):
		return fail(protocol.CodeBadContents, err.Error())
	case errors.Is(err, ledger.ErrNotWinner):
		return fail(protocol.CodeNotWinner, err.Error())
	case errors.Is(err, ledger.ErrRequestReused):
		return fail(protocol.CodeRequestReused, err.Error())
	case errors.Is(err, ledger.ErrNotFound):
		return fail(protocol.CodeNotFound, err.Error())
	case errors.Is(err, ledger.ErrPackMove):
		return fail(protocol.CodePackMove, err.Error())
	case errors.Is(err, ledger.ErrDeskMismatch):
		return fail(protocol.CodeDeskMismatch, err.Error())
	case errors.Is(err, ledger.ErrDeskDisabled):
		return fail(protocol.CodeDeskDisabled, err.Error())
	case errors.Is(err, ledger.ErrDeskUnknown):
		return fail(protocol.CodeUnknownDesk, err.Error())
	case errors.Is(err, ledger.ErrDeskRevoked):
		return fail(protocol.CodeDeskRevoked, err.Error())
	case errors.Is(err, ledger.ErrOtherLedger):
		return fail(protocol.CodeOtherLedger, err.Error())
	case errors.Is(err, ledger.ErrCounterOnly):
		return fail(protocol.CodeForbidden, err.Error())
	case errors.Is(err, ledger.ErrNotDurable):
		// Nothing is known to be paid: the counter asks again with the
		// same request id, answered so until the payment is durable.
		return &apiError{code: protocol.CodeUnavailable, detail: err.Error(),
			message: "the ledger could not make the payment durable; nothing is known to be paid: ask again with the same request id"}
	case errors.Is(err, ledger.ErrUnreachable), errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return &apiError{code: protocol.CodeUnavailable, message: UnavailableMessage, detail: err.Error()}
	case errors.Is(err, ledger.ErrInvalid):
		return fail(protocol.CodeBadRequest, err.Error())
	}
	// Not the question's fault: the ledger failed on it (its transaction
	// rolled back, nothing recorded by it).
	return &apiError{code: protocol.CodeInternal, message: InternalMessage, detail: err.Error()}
}

// What a desk is told of its server's ledger's failure: a sentence, the
// same whatever failed; the question's id (its answer's X-Request-Id)
// finds the detail in serve's log.
const (
	UnavailableMessage = "the validation server answers, but its ledger (the back office's database) does not: " +
		"nothing was recorded by this question; the back office finds why in serve's log"
	InternalMessage = "the validation server's ledger failed on this question: nothing was recorded by it; " +
		"the back office finds why in serve's log"
)

// write writes v as JSON, or e's answer, at once (never a part of one).
func write(w http.ResponseWriter, v any, e *apiError) {
	note(w, v, e)
	status := http.StatusOK
	if e != nil {
		msg := e.message
		if e.detail != "" {
			if id := w.Header().Get(RequestIDHeader); id != "" {
				msg += " (question " + id + ")"
			}
		}
		status, v = protocol.KindOf(e.code).Status, wire.Error{Code: e.code, Message: msg, Refusal: e.refusal}
	}
	data, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		data, _ = json.Marshal(wire.Error{Code: protocol.CodeInternal, Message: "the answer could not be written"})
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(append(data, '\n'))
}

// decode reads the body of r into v: one JSON object of at most MaxBody
// bytes, every field known, of its type.
func decode(r *http.Request, v any) error {
	body := http.MaxBytesReader(nil, r.Body, MaxBody)
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			return err
		}
		return fail(protocol.CodeBadRequest, "the body is not the question's JSON: "+err.Error())
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			return err
		}
		return fail(protocol.CodeBadRequest, "the body holds more than one JSON object")
	}
	return nil
}

// own refuses a body that names another desk than the certificate's.
func own(a asker, desk string) error {
	if desk != "" && strings.TrimSpace(desk) != a.desk.ID {
		return fail(protocol.CodeDeskMismatch,
			fmt.Sprintf("this certificate is desk %s's; it cannot ask as desk %q", a.desk.ID, desk))
	}
	return nil
}

// asks is a question's asked limit (none, NoLimit, or 0 or more euros),
// once its desk, if it names one, is the certificate's (own).
func (a asker) asks(n *int, desk string) (ledger.Limit, error) {
	switch {
	case n != nil && *n < 0:
		return 0, fail(protocol.CodeBadRequest, "limit: give 0 or more euros, or no limit")
	case n == nil:
		return ledger.NoLimit, own(a, desk)
	}
	return ledger.LimitOf(*n), own(a, desk)
}

// The API's calls, as the table routes them.

func (s *Server) hello(ctx context.Context, r *http.Request, a asker) (any, error) {
	return wire.Hello{Demo: s.l.Demo(), Desk: a.desk.ID, Ledger: s.l.ID(), Limit: a.desk.Limit}, nil
}

func (s *Server) head(ctx context.Context, r *http.Request, a asker) (any, error) {
	h, err := s.l.Head(ctx)
	return wire.Head{Head: h}, err
}

func (s *Server) blocks(ctx context.Context, r *http.Request, a asker) (any, error) {
	bs, err := s.l.Blocks(ctx)
	out := make([]wire.Block, len(bs))
	for i, b := range bs {
		out[i] = wire.BlockOf(b)
	}
	return out, err
}

func (s *Server) game(ctx context.Context, r *http.Request, a asker) (any, error) {
	code, err := strconv.Atoi(r.PathValue("code"))
	if err != nil || code < 100 || code > 999 {
		return nil, fail(protocol.CodeBadRequest, "a game's code is 100 to 999")
	}
	g, err := s.l.Game(ctx, code)
	return wire.GameOf(g), err
}

// shown is payment c as the asking desk may see it: in full when the desk
// made it; another desk's by its date only (who paid it, at which desk,
// under which request are that desk's and the back office's).
func (a asker) shown(c *ledger.Claim) *ledger.Claim {
	if c == nil || c.Desk == a.desk.ID {
		return c
	}
	return &ledger.Claim{At: c.At}
}

// shownErr is err with the payment a refusal names as the desk may see it.
func (a asker) shownErr(err error) error {
	var r *ledger.Refusal
	if !errors.As(err, &r) || r.First == a.shown(r.First) {
		return err
	}
	shown := *r
	shown.First = a.shown(r.First)
	return &shown
}

// who is the desk of the certificate, its certificate, and the operator
// given.
func (a asker) who(operator string) ledger.Identity {
	return ledger.Identity{Desk: a.desk.ID, Operator: operator, Cert: a.cert}
}

func (s *Server) lookup(ctx context.Context, r *http.Request, a asker) (any, error) {
	var q wire.LookupRequest
	if err := decode(r, &q); err != nil {
		return nil, err
	}
	limit, err := a.asks(q.Limit, q.Desk)
	if err != nil {
		return nil, err
	}
	noteRequest(r, "", q.Operator)
	t, err := s.l.Lookup(ctx, q.Serial, a.who(q.Operator), limit)
	if err != nil {
		return nil, a.shownErr(err)
	}
	t.Claim = a.shown(t.Claim)
	return wire.TicketOf(t), nil
}

func (s *Server) claim(ctx context.Context, r *http.Request, a asker) (any, error) {
	var q wire.ClaimRequest
	if err := decode(r, &q); err != nil {
		return nil, err
	}
	limit, err := a.asks(q.Limit, q.Desk)
	if err != nil {
		return nil, err
	}
	key := r.Header.Get(protocol.IdempotencyKey)
	switch {
	case key != "" && q.Request != "" && key != q.Request:
		return nil, fail(protocol.CodeBadRequest, "the Idempotency-Key header and the body's request differ: give one request id")
	case key != "":
		q.Request = key
	}
	noteRequest(r, q.Request, q.Operator)
	c, err := s.l.Claim(ctx, q.Core(a.who(q.Operator), limit)) // the body read in one place: wire
	if err != nil {
		return nil, a.shownErr(err)
	}
	return wire.ClaimOf(&c), nil
}

func (s *Server) find(ctx context.Context, r *http.Request, a asker) (any, error) {
	var q wire.FindRequest
	if err := decode(r, &q); err != nil {
		return nil, err
	}
	limit, err := a.asks(q.Limit, q.Desk)
	if err != nil {
		return nil, err
	}
	in, err := game.ParseDoc(q.Ticket)
	if err != nil {
		return nil, err
	}
	noteRequest(r, "", q.Operator)
	t, err := s.l.FindByContents(ctx, &in.Ticket, a.who(q.Operator), limit)
	if err != nil {
		return nil, a.shownErr(err)
	}
	t.Claim = a.shown(t.Claim)
	return wire.TicketOf(t), nil
}

// query reads a list's query: since and until (RFC 3339), game, block,
// state and moves, each at most once; anything else is refused.
type query struct {
	since, until time.Time
	game, block  int
	state        string
	moves        []string
}

func readQuery(r *http.Request, allowed ...string) (query, error) {
	var q query
	bad := func(msg string) (query, error) {
		return query{}, fail(protocol.CodeBadRequest, msg)
	}
	for k, vs := range r.URL.Query() {
		if !slices.Contains(allowed, k) || len(vs) != 1 {
			return bad("query: " + k + " is not asked here, or given twice; this list takes " + strings.Join(allowed, ", "))
		}
		v := vs[0]
		var err error
		switch k {
		case "since", "until":
			var t time.Time
			if t, err = time.Parse(time.RFC3339Nano, v); k == "since" {
				q.since = t
			} else {
				q.until = t
			}
		case "game", "block":
			var n int
			if n, err = strconv.Atoi(v); err == nil && n < 0 {
				err = strconv.ErrRange
			}
			if k == "game" {
				q.game = n
			} else {
				q.block = n
			}
		case "state":
			q.state = v
		case "moves":
			q.moves = strings.Split(v, ",")
		}
		if err != nil {
			return bad("query: " + k + " " + strconv.Quote(v) + ": not a time (RFC 3339) or a number")
		}
	}
	return q, nil
}

func (s *Server) claims(ctx context.Context, r *http.Request, a asker) (any, error) {
	q, err := readQuery(r, "since", "until", "game", "block")
	if err != nil {
		return nil, err
	}
	cs, err := s.l.Claims(ctx, ledger.ClaimFilter{Game: q.game, Block: q.block, Since: q.since, Until: q.until, Desk: a.desk.ID})
	return wire.Claims(cs), err
}

func (s *Server) voids(ctx context.Context, r *http.Request, a asker) (any, error) {
	q, err := readQuery(r, "since", "until")
	if err != nil {
		return nil, err
	}
	cs, err := s.l.VoidsBetween(ctx, a.desk.ID, q.since, q.until)
	return wire.Claims(cs), err
}

func (s *Server) referrals(ctx context.Context, r *http.Request, a asker) (any, error) {
	q, err := readQuery(r, "since", "until")
	if err != nil {
		return nil, err
	}
	if q.until.IsZero() {
		q.until = time.Now().Add(time.Hour)
	}
	rs, err := s.l.ReferralsBetween(ctx, a.desk.ID, q.since, q.until)
	out := make([]wire.Referral, len(rs))
	for i, x := range rs {
		// A day report prints these: the part of the serial printed
		// outside the ticket, not its secret part (whoever reads the
		// paper must not be able to claim the prize).
		x.Serial = game.PublicSerial(x.Game, x.Block, x.Position)
		out[i] = wire.ReferralOf(x)
	}
	return out, err
}

func (s *Server) packs(ctx context.Context, r *http.Request, a asker) (any, error) {
	q, err := readQuery(r, "game", "block", "state")
	if err != nil {
		return nil, err
	}
	if q.state == "stock" {
		return nil, fail(protocol.CodeForbidden, "the stock is the back office's; a desk lists its own packs")
	}
	rs, err := s.l.Packs(ctx, ledger.PackFilter{Game: q.game, Block: q.block, State: q.state, Desk: a.desk.ID})
	out := make([]wire.PackRun, len(rs))
	for i, x := range rs {
		out[i] = wire.PackRunOf(x)
	}
	return out, err
}

func (s *Server) packMoves(ctx context.Context, r *http.Request, a asker) (any, error) {
	q, err := readQuery(r, "since", "until", "moves")
	if err != nil {
		return nil, err
	}
	es, err := s.l.PackEntries(ctx, ledger.PackEntryFilter{Desk: a.desk.ID, Since: q.since, Until: q.until, Moves: q.moves})
	out := make([]wire.PackEntry, len(es))
	for i, x := range es {
		out[i] = wire.PackEntryOf(x)
	}
	return out, err
}

func (s *Server) move(ctx context.Context, r *http.Request, a asker) (any, error) {
	var q wire.MoveRequest
	if err := decode(r, &q); err != nil {
		return nil, err
	}
	if err := own(a, q.Desk); err != nil {
		return nil, err
	}
	if q.Move != "receive" && q.Move != "activate" {
		return nil, fail(protocol.CodeForbidden, "move "+strconv.Quote(q.Move)+": a desk receives and activates its own packs; the rest is the back office's")
	}
	noteRequest(r, "", q.Operator)
	m := ledger.PackMove{Game: q.Game, Block: q.Block, First: q.First, Last: q.Last, Move: q.Move, Desk: a.desk.ID}
	if err := s.l.MovePacks(ctx, m, a.who(q.Operator)); err != nil {
		return nil, err
	}
	return struct{}{}, nil
}
