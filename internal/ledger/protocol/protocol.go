// Package protocol is what the validation server (package server) and its
// client (package remote) share, written once: the API's routes, its error
// codes with their HTTP statuses and the Go errors a counter's caller tests
// with errors.Is, the retry policy of a lost answer, the naming of the
// ledger's certificates, the desk file's format and the check of a private
// key's file mode. The answers' JSON shapes are package wire's.
package protocol

import (
	"errors"
	"net/http"
	"time"

	"vegas-desk/internal/ledger/core"
)

// Routes of the API (version 1).
const (
	Hello     = "/v1/hello"
	Head      = "/v1/head"
	Blocks    = "/v1/blocks"
	Games     = "/v1/games/" // + the game's code
	Lookup    = "/v1/lookup"
	Claim     = "/v1/claim"
	Find      = "/v1/find"
	Claims    = "/v1/claims"
	Voids     = "/v1/voids"
	Referrals = "/v1/referrals"
	Packs     = "/v1/packs"
	PackMoves = "/v1/pack-moves"
	MovePacks = "/v1/packs/move"
)

// Retry is the policy of a lost answer, the one place it is decided, and
// the one place it runs: on the client of a validation server (package
// remote's Claim, which a counter's Ledger.Claim asks, the app and the
// command line alike); the server, and a ledger a process reads itself, answer each
// question once. A claim whose answer was lost (core.ErrUnreachable: no
// answer, a connection lost, the server's ledger unavailable or unable to
// make the payment durable) is asked again with the same request id after
// Pause, Attempts times in all; the ledger answers a retry with the
// payment it recorded, once durable, so it pays once. The server gives a
// question ServerTimeout, shorter than an attempt by the way there and
// back, so that an attempt gets the server's answer (unavailable, at
// worst) rather than give up first. Nothing else is asked again: a
// refused serial of a lookup counts against the desk's lock-out, a move
// of packs is not idempotent, a list is asked again by whoever reads it.
// So a claim is answered, or refused with ErrUnreachable, within
// Retry.Total(): 2 × 15 s + 1 s = 31 s.
var Retry = RetryPolicy{Attempts: 2, Pause: time.Second, AttemptTimeout: 15 * time.Second, ServerTimeout: 10 * time.Second}

// RetryPolicy is how often and how long a claim is asked.
type RetryPolicy struct {
	Attempts              int
	Pause, AttemptTimeout time.Duration
	ServerTimeout         time.Duration
}

// Total is the longest a claim waits for its answer.
func (p RetryPolicy) Total() time.Duration {
	return time.Duration(p.Attempts)*p.AttemptTimeout + time.Duration(p.Attempts-1)*p.Pause
}

// IdempotencyKey is the header that may carry a claim's request id.
const IdempotencyKey = "Idempotency-Key"

// Stable error codes.
const (
	CodeRefused        = "refused"        // a verdict that refuses: see wire.Error's Refusal
	CodeBadRequest     = "bad-request"    // a body that is not the question's JSON
	CodeTooLarge       = "too-large"      // a body over the bound
	CodeBadSerial      = "bad-serial"     // a serial mistyped (format or check digit)
	CodeBadContents    = "bad-contents"   // contents no genuine ticket shows
	CodeNotWinner      = "not-winner"     // contents that lose: nothing to search
	CodeRequestReused  = "request-reused" // a request id of another ticket
	CodeNotFound       = "not-found"      // no such block, game or payment
	CodeDeskMismatch   = "desk-mismatch"  // a body naming another desk
	CodeDeskDisabled   = "desk-disabled"  // the desk is disabled
	CodeUnknownDesk    = "unknown-desk"   // a certificate of a desk the ledger does not list
	CodeDeskRevoked    = "desk-revoked"   // a certificate its desk no longer accepts
	CodeOtherLedger    = "other-ledger"   // a certificate of another ledger
	CodeTooMany        = "too-many-connections"
	CodePackMove       = "pack-move"   // a move the packs' states do not allow
	CodeForbidden      = "forbidden"   // what a counter may not ask
	CodeUnavailable    = "unavailable" // the ledger behind the server cannot answer
	CodeInternal       = "internal"    // anything else
	CodeMethod         = "method-not-allowed"
	CodeNoSuchQuestion = "no-such-question"
)

// Errors of the codes that no other package names (ledger gives them
// beside its own).
var (
	// ErrBadSerial: the server read no serial in what was typed (its
	// format or its check digit); errors.Is ErrInvalid too.
	ErrBadSerial = errors.New("serial mistyped")
	// ErrBadContents: contents no genuine ticket shows; errors.Is
	// ErrInvalid too.
	ErrBadContents = errors.New("contents no genuine ticket shows")
	// ErrTooLarge: a question over the server's bound; errors.Is
	// ErrInvalid too.
	ErrTooLarge = errors.New("question too large for the server")
	// ErrInternal: the server failed on the question; its ledger recorded
	// nothing of it.
	ErrInternal = errors.New("the server failed on the question")
	// ErrUnavailable: the server answered, its ledger did not; errors.Is
	// ErrUnreachable too (a claim's answer may have been lost: ask again
	// with the same request id).
	ErrUnavailable = errors.New("the server's ledger did not answer")
	// ErrTooMany: the desk holds too many connections to the server;
	// errors.Is ErrUnreachable too.
	ErrTooMany = errors.New("too many connections of the desk")
	// ErrNoSuchQuestion: a route the server does not answer
	// (a client of another version).
	ErrNoSuchQuestion = errors.New("no such question on the server")
	// ErrMethod: a question asked with another HTTP method than its own (a
	// client of another version).
	ErrMethod = errors.New("question asked with another method")
)

// ErrLooseMode: a file of a private key that its owner's group or others
// may read or write (CheckPrivate).
var ErrLooseMode = errors.New("open to its group or others")

// Kind is what an error code means on both sides.
type Kind struct {
	Code   string
	Status int
	// Err is the error the client's answer is (errors.Is), and Also a
	// broader one it is too; Err is nil for CodeRefused, whose answer is
	// the refusal itself (core.Refusal).
	Err, Also error
}

// Kinds are the codes, each once.
var Kinds = []Kind{
	{CodeRefused, http.StatusConflict, nil, nil},
	{CodeBadRequest, http.StatusBadRequest, core.ErrInvalid, nil},
	{CodeTooLarge, http.StatusRequestEntityTooLarge, ErrTooLarge, core.ErrInvalid},
	{CodeBadSerial, http.StatusBadRequest, ErrBadSerial, core.ErrInvalid},
	{CodeBadContents, http.StatusBadRequest, ErrBadContents, core.ErrInvalid},
	{CodeNotWinner, http.StatusBadRequest, core.ErrNotWinner, nil},
	{CodeRequestReused, http.StatusConflict, core.ErrRequestReused, nil},
	{CodeNotFound, http.StatusNotFound, core.ErrNotFound, nil},
	{CodeDeskMismatch, http.StatusForbidden, core.ErrDeskMismatch, nil},
	{CodeDeskDisabled, http.StatusForbidden, core.ErrDeskDisabled, nil},
	{CodeUnknownDesk, http.StatusForbidden, core.ErrDeskUnknown, nil},
	{CodeDeskRevoked, http.StatusForbidden, core.ErrDeskRevoked, nil},
	{CodeOtherLedger, http.StatusForbidden, core.ErrOtherLedger, nil},
	{CodeTooMany, http.StatusTooManyRequests, ErrTooMany, core.ErrUnreachable},
	{CodePackMove, http.StatusConflict, core.ErrPackMove, nil},
	{CodeForbidden, http.StatusForbidden, core.ErrCounterOnly, nil},
	{CodeUnavailable, http.StatusServiceUnavailable, ErrUnavailable, core.ErrUnreachable},
	{CodeInternal, http.StatusInternalServerError, ErrInternal, nil},
	{CodeMethod, http.StatusMethodNotAllowed, ErrMethod, nil},
	{CodeNoSuchQuestion, http.StatusNotFound, ErrNoSuchQuestion, nil},
}

// KindOf is code's kind; a code this version does not know (a newer
// server's) is CodeInternal's.
func KindOf(code string) Kind {
	for _, k := range Kinds {
		if k.Code == code {
			return k
		}
	}
	return KindOf(CodeInternal)
}
