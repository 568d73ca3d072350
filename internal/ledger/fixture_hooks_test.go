package ledger_test

import (
	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/ledgertest"
)

// The internal tests' fixtures are ledgertest's, shared with every other
// package's tests (see FixtureDir in main_test.go).
func init() {
	ledger.FixtureDir = ledgertest.Dir
	ledger.FixturePostgres = ledgertest.Postgres
	ledger.StartPostgres = ledgertest.StartPostgres
}
