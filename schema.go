// Package vegasdesk holds the files embedded in the binary from the root of
// the repository: the back office's ledger schema.
package vegasdesk

import (
	_ "embed"
	"sync"

	"vegas-desk/internal/ledger/tables"
)

// Schema is schema.sql, the schema of a back-office ledger file, with the
// tables declared once for every engine (internal/ledger/tables) written
// in: made when first asked, not before main (TestStartupInits).
var Schema = sync.OnceValue(func() string { return tables.BackOffice.Expand(schemaText) })

//go:embed schema.sql
var schemaText string
