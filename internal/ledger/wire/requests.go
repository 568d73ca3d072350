package wire

import "encoding/json"

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

// Winner is a winner's identity.
type Winner struct {
	Name      string `json:"name"`
	DocType   string `json:"doc_type"`
	DocNumber string `json:"doc_number"`
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

// Stable error codes.
const (
	CodeRefused        = "refused"        // a verdict that refuses: see Refusal
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
	CodeOtherLedger    = "other-ledger"   // a certificate of another ledger
	CodeTooMany        = "too-many-connections"
	CodePackMove       = "pack-move"   // a move the packs' states do not allow
	CodeForbidden      = "forbidden"   // what a counter may not ask
	CodeUnavailable    = "unavailable" // the ledger behind the server cannot answer
	CodeInternal       = "internal"    // anything else
	CodeMethod         = "method-not-allowed"
	CodeNoSuchQuestion = "no-such-question"
)
