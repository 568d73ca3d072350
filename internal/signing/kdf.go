//go:build !ci

package signing

// newKeyIterations is the PBKDF2 cost of a new key file: Iterations in
// every build but the tests' (kdf_ci.go).
const newKeyIterations = Iterations
