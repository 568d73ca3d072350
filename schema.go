// Package vegasdesk holds the files embedded in the binary from the root of
// the repository: the ledger schemas.
package vegasdesk

import _ "embed"

// Schema is schema.sql, the schema of a back-office ledger file.
//
//go:embed schema.sql
var Schema string

// CounterSchema is counter.sql, the schema of a sealed counter ledger.
//
//go:embed counter.sql
var CounterSchema string
