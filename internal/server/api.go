package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"strings"
	"time"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/remote"
	"vegas-desk/internal/ledger/wire"
)

// QuestionTimeout bounds the ledger's work on one question.
const QuestionTimeout = 10 * time.Second

// asker is what a question is given: the desk of the certificate, read now.
type asker struct {
	desk ledger.Desk
}

// handler answers a question of a desk: a value to write as JSON, or an
// error (classify).
type handler func(ctx context.Context, r *http.Request, a asker) (any, error)

// route is one call of the API.
type route struct {
	method, path string
	h            handler
	// question: a lookup, claim or search, refused while the desk is
	// locked out.
	question bool
}

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	for _, rt := range []route{
		{"GET", "/v1/hello", s.hello, false},
		{"GET", "/v1/head", s.head, false},
		{"GET", "/v1/blocks", s.blocks, false},
		{"GET", "/v1/games/{code}", s.game, false},
		{"POST", "/v1/lookup", s.lookup, true},
		{"POST", "/v1/claim", s.claim, true},
		{"POST", "/v1/find", s.find, true},
		{"GET", "/v1/claims", s.claims, false},
		{"GET", "/v1/voids", s.voids, false},
		{"GET", "/v1/referrals", s.referrals, false},
		{"GET", "/v1/packs", s.packs, false},
		{"GET", "/v1/pack-moves", s.packMoves, false},
		{"POST", "/v1/packs/move", s.move, false},
	} {
		mux.Handle(rt.path, s.as(rt))
	}
	mux.Handle("/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		write(w, nil, &apiError{http.StatusNotFound, wire.CodeNoSuchQuestion, fmt.Sprintf("%s: no such question (the API is under /v1/)", r.URL.Path), nil})
	}))
	return mux
}

// as answers rt as the desk of the request's certificate: its connection
// counted against the desk's bound, its row read again, its lock-out
// honoured by the questions.
func (s *Server) as(rt route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if p := recover(); p != nil {
				write(w, nil, &apiError{http.StatusInternalServerError, wire.CodeInternal, "the server failed on this question; nothing was recorded by it", nil})
			}
		}()
		if r.TLS == nil || len(r.TLS.PeerCertificates) == 0 {
			write(w, nil, &apiError{http.StatusUnauthorized, wire.CodeUnknownDesk, "no desk certificate", nil})
			return
		}
		id, _, _ := remote.Names(r.TLS.PeerCertificates[0])
		if s.take(r, id) {
			w.Header().Set("Connection", "close")
			write(w, nil, &apiError{http.StatusTooManyRequests, wire.CodeTooMany,
				fmt.Sprintf("desk %s holds more than %d connections to the server", id, s.cfg.MaxConnsPerDesk), nil})
			return
		}
		if r.Method != rt.method {
			w.Header().Set("Allow", rt.method)
			write(w, nil, &apiError{http.StatusMethodNotAllowed, wire.CodeMethod, fmt.Sprintf("%s %s: ask with %s", r.Method, r.URL.Path, rt.method), nil})
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), QuestionTimeout)
		defer cancel()
		d, err := s.l.DeskState(ctx, id)
		switch {
		case errors.Is(err, ledger.ErrNotFound):
			err = &apiError{http.StatusForbidden, wire.CodeUnknownDesk, fmt.Sprintf("desk %s is not a desk of this ledger (see desks list)", id), nil}
		case err == nil && d.Disabled:
			err = &apiError{http.StatusForbidden, wire.CodeDeskDisabled, fmt.Sprintf("desk %s is disabled; ask the back office", id), nil}
		case err == nil && rt.question && !d.LockedUntil.IsZero():
			err = &ledger.Refusal{Verdict: ledger.Locked, Until: d.LockedUntil}
		}
		if err != nil {
			write(w, nil, classify(err))
			return
		}
		v, err := rt.h(ctx, r, asker{desk: d})
		write(w, v, classify(err))
	})
}

// apiError is an answer that is not one.
type apiError struct {
	status        int
	code, message string
	refusal       *wire.Refusal
}

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
		return &apiError{http.StatusConflict, wire.CodeRefused, err.Error(), &w}
	case errors.As(err, &mb):
		return &apiError{http.StatusRequestEntityTooLarge, wire.CodeTooLarge, fmt.Sprintf("a question's body is at most %d bytes", MaxBody), nil}
	case errors.Is(err, game.ErrCheckDigit), errors.Is(err, game.ErrSerialFormat):
		return &apiError{http.StatusBadRequest, wire.CodeBadSerial, err.Error(), nil}
	case errors.As(err, &ge):
		return &apiError{http.StatusBadRequest, wire.CodeBadContents, err.Error(), nil}
	case errors.Is(err, ledger.ErrNotWinner):
		return &apiError{http.StatusBadRequest, wire.CodeNotWinner, err.Error(), nil}
	case errors.Is(err, ledger.ErrRequestReused):
		return &apiError{http.StatusConflict, wire.CodeRequestReused, err.Error(), nil}
	case errors.Is(err, ledger.ErrNotFound):
		return &apiError{http.StatusNotFound, wire.CodeNotFound, err.Error(), nil}
	case errors.Is(err, ledger.ErrPackMove):
		return &apiError{http.StatusConflict, wire.CodePackMove, err.Error(), nil}
	case errors.Is(err, ledger.ErrDeskMismatch):
		return &apiError{http.StatusForbidden, wire.CodeDeskMismatch, err.Error(), nil}
	case errors.Is(err, ledger.ErrDeskDisabled):
		return &apiError{http.StatusForbidden, wire.CodeDeskDisabled, err.Error(), nil}
	case errors.Is(err, ledger.ErrCounterOnly):
		return &apiError{http.StatusForbidden, wire.CodeForbidden, err.Error(), nil}
	case errors.Is(err, ledger.ErrUnreachable), errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return &apiError{http.StatusServiceUnavailable, wire.CodeUnavailable, "the ledger did not answer: " + err.Error(), nil}
	case errors.Is(err, ledger.ErrInvalid):
		return &apiError{http.StatusBadRequest, wire.CodeBadRequest, err.Error(), nil}
	}
	// Not the question's fault: the ledger failed on it (its transaction
	// rolled back, nothing recorded by it).
	return &apiError{http.StatusInternalServerError, wire.CodeInternal, "the ledger failed on this question: " + err.Error(), nil}
}

// write writes v as JSON, or e's answer, at once (never a part of one).
func write(w http.ResponseWriter, v any, e *apiError) {
	note(w, v, e)
	status := http.StatusOK
	if e != nil {
		status, v = e.status, wire.Error{Code: e.code, Message: e.message, Refusal: e.refusal}
	}
	data, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		data, _ = json.Marshal(wire.Error{Code: wire.CodeInternal, Message: "the answer could not be written"})
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
		return &apiError{http.StatusBadRequest, wire.CodeBadRequest, "the body is not the question's JSON: " + err.Error(), nil}
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			return err
		}
		return &apiError{http.StatusBadRequest, wire.CodeBadRequest, "the body holds more than one JSON object", nil}
	}
	return nil
}

// own refuses a body that names another desk than the certificate's.
func own(a asker, desk string) error {
	if desk != "" && strings.TrimSpace(desk) != a.desk.ID {
		return &apiError{http.StatusForbidden, wire.CodeDeskMismatch,
			fmt.Sprintf("this certificate is desk %s's; it cannot ask as desk %q", a.desk.ID, desk), nil}
	}
	return nil
}

// limitOf is an asked limit: none (NoLimit) or 0 or more euros.
func limitOf(n *int) (ledger.Limit, error) {
	switch {
	case n == nil:
		return ledger.NoLimit, nil
	case *n < 0:
		return 0, &apiError{http.StatusBadRequest, wire.CodeBadRequest, "limit: give 0 or more euros, or no limit", nil}
	}
	return ledger.LimitOf(*n), nil
}

func quietLog() *log.Logger { return log.New(io.Discard, "", 0) }
