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
