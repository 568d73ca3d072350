//go:build race

package game

// raceDetector: the tests run under the race detector, which makes a block
// ten times slower to generate; a test that generates one chooses smaller
// cases there (the first pass of make test runs them all).
const raceDetector = true
