//go:build race

package ledger

// raceEnabled: the tests run under the race detector (make test's second
// run), where sealing a block takes minutes; the tests that seal a block of
// their own are left to the first run.
const raceEnabled = true
