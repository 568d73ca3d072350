//go:build ci

package signing

// newKeyIterations is the PBKDF2 cost of a new key file in the tests'
// builds (the ci tag, which make test and every test command builds with,
// and no build of make build, make cli or make windows): 1,000 rounds, so
// that the keys the tests make and open (serve --init's authority, keygen,
// the seals' key files) cost milliseconds, not 0.2 s each of a 600,000-round
// derivation; at 600,000 they were 8 % of cmd/vegas-desk's tests' CPU. A
// key file records its own cost and is read at it, whichever build reads
// it. TestProductionKeyCost (cmd/vegas-desk) builds the command without
// the tag and checks that its key files keep Iterations.
const newKeyIterations = 1_000
