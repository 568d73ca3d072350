//go:build !windows

package protocol

import (
	"fmt"
	"os"
)

// CheckPrivate refuses a private key's file (a desk file, the server's
// key, the authority's key) that its group or others may read or write,
// as ssh refuses a private key: its mode must be 0600 or less, and the
// error says the chmod that makes it so. (On Windows, whose files have no
// POSIX modes, it checks nothing.)
func CheckPrivate(path string) error {
	return checkMode(path, "600")
}

// CheckPrivateDir refuses a directory of private keys that its group or
// others may read, write or enter.
func CheckPrivateDir(dir string) error {
	return checkMode(dir, "700")
}

func checkMode(path, want string) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if m := st.Mode().Perm(); m&0o077 != 0 {
		return fmt.Errorf("%s: %w (mode %04o): it holds a private key, its owner's alone; run chmod %s %s", path, ErrLooseMode, m, want, path)
	}
	return nil
}
