package wire

import (
	"encoding/json"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/core"
)

// The bodies of the API's questions. Desk, when given, must be the desk of
// the client's certificate: the server refuses a body naming another.
// Limit, when given, may only lower the desk's stored payout limit.

// LookupRequest is POST /v1/lookup.
type LookupRequest struct {
	Serial   string `json:"serial"`
	Operator string `json:"operator"`
	Desk     string `json:"desk,omitempty"`
	Limit    *int   `json:"limit,omitempty"`
}

// Winner is a winner's identity: the name, document and number typed
// (a driving licence), or the machine-readable zone of a document that
// carries one, its lines separated by "\n" (the server reads it again,
// checks its digits, the winner's age and the document's expiry, and keeps
// only the name, document and number it gives).
type Winner struct {
	Name      string `json:"name"`
	DocType   string `json:"doc_type"`
	DocNumber string `json:"doc_number"`
	MRZ       string `json:"mrz,omitempty"`
}

// ClaimRequest is POST /v1/claim; the request id may be given as the
// Idempotency-Key header instead (both: the same).
type ClaimRequest struct {
	Serial   string  `json:"serial"`
	Operator string  `json:"operator"`
	Method   string  `json:"method,omitempty"`
	Request  string  `json:"request,omitempty"`
	Desk     string  `json:"desk,omitempty"`
	Limit    *int    `json:"limit,omitempty"`
	Winner   *Winner `json:"winner,omitempty"`
}

// The bodies of a claim, converted here only: a counter's client (package
// remote) sends ClaimRequestOf its claim, the server (package server)
// asks the ledger the claim its body's Core says.

// LimitOf is an asked payout limit as a body gives it (nil: none asked).
func LimitOf(l core.Limit) *int {
	if n, ok := l.Euros(); ok {
		return &n
	}
	return nil
}

// WinnerOf is the JSON form of w (nil for nil).
func WinnerOf(w *core.Winner) *Winner {
	if w == nil {
		return nil
	}
	return &Winner{Name: w.Name, DocType: w.DocType, DocNumber: w.DocNumber, MRZ: w.MRZ}
}

// Core is the identity w gives (nil for nil).
func (w *Winner) Core() *core.Winner {
	if w == nil {
		return nil
	}
	return &core.Winner{Name: w.Name, DocType: w.DocType, DocNumber: w.DocNumber, MRZ: w.MRZ}
}

// ClaimRequestOf is the body of req, a claim of s prepared by the client
// (core.PrepareClaim): its desk is the client's certificate's, not sent.
func ClaimRequestOf(s game.Serial, req core.ClaimRequest) ClaimRequest {
	return ClaimRequest{Serial: s.String(), Operator: req.Who.Operator, Method: req.Method, Request: req.Request,
		Limit: LimitOf(req.Limit), Winner: WinnerOf(req.Winner)}
}

// Core is the claim q asks as who, its limit read (limit): by serial
// when q names no method.
func (q *ClaimRequest) Core(who core.Identity, limit core.Limit) core.ClaimRequest {
	method := q.Method
	if method == "" {
		method = core.MethodSerial
	}
	who.Operator = q.Operator
	return core.ClaimRequest{Serial: q.Serial, Method: method, Who: who, Request: q.Request, Limit: limit, Winner: q.Winner.Core()}
}

// FindRequest is POST /v1/find: the contents in the interchange format.
type FindRequest struct {
	Ticket   json.RawMessage `json:"ticket"`
	Operator string          `json:"operator"`
	Desk     string          `json:"desk,omitempty"`
	Limit    *int            `json:"limit,omitempty"`
}

// MoveRequest is POST /v1/packs/move: the desk's own packs received or
// put on sale.
type MoveRequest struct {
	Game     int    `json:"game"`
	Block    int    `json:"block"`
	First    int    `json:"first"`
	Last     int    `json:"last"`
	Move     string `json:"move"`
	Operator string `json:"operator"`
	Desk     string `json:"desk,omitempty"`
}
