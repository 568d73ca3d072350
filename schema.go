// Package vegasdesk holds the files embedded in the binary from the root of
// the repository: the ledger schema.
package vegasdesk

import _ "embed"

// Schema is schema.sql, version 1 of the ledger schema.
//
//go:embed schema.sql
var Schema string
