//go:build !race

package ledger

// raceEnabled: see race_on_test.go.
const raceEnabled = false
