//go:build !race

package ui

// raceEnabled: see race_on_test.go.
const raceEnabled = false
