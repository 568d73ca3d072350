//go:build !linux && !windows

package main

import "os"

// readHidden is not available on this system: passphrases come from
// --passphrase-file or VEGAS_DESK_PASSPHRASE.
func readHidden(*os.File) ([]byte, error) {
	return nil, badInput("typing a passphrase is supported on Linux only: give --passphrase-file FILE or VEGAS_DESK_PASSPHRASE")
}
