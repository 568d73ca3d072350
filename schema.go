// Package vegasdesk holds the files embedded in the binary from the root of
// the repository: the back office's ledger schema.
package vegasdesk

import _ "embed"

// Schema is schema.sql, the schema of a back-office ledger file.
//
//go:embed schema.sql
var Schema string
