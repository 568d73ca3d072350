package counter_test

import (
	"vegas-desk/internal/ledger/counter"
	"vegas-desk/internal/ledger/ledgertest"
)

// The internal tests' fixtures are ledgertest's (see FixtureDir).
func init() { counter.FixtureDir = ledgertest.Dir }
