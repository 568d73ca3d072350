package ledger_test

import (
	"testing"

	"vegas-desk/internal/ledger"
	"vegas-desk/internal/server"
	"vegas-desk/internal/server/servertest"
)

// The conformance table asks a counter through the validation server too
// (see ServedDesks in conformance_test.go).
func init() {
	ledger.ServedDesks = func(tb testing.TB, office *ledger.Ledger) func(string) *ledger.Ledger {
		s := servertest.Start(tb, office, server.Config{})
		return func(desk string) *ledger.Ledger { return s.Open(tb, desk) }
	}
}
