//go:build race

package ui

// raceEnabled: the tests run under the race detector, where sealing a
// block for a counter ledger takes minutes; that test is left to the run
// without it.
const raceEnabled = true
