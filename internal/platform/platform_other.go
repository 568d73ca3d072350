//go:build !windows

package platform

import (
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"syscall"
)

// DataDir is $XDG_DATA_HOME, else ~/.local/share.
func DataDir() string {
	if dir := os.Getenv("XDG_DATA_HOME"); dir != "" {
		return dir
	}
	home, err := os.UserHomeDir()
	if err != nil {
		home = "."
	}
	return filepath.Join(home, ".local", "share")
}

// UserName is the account's name, for an operator nobody named.
func UserName() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return ""
}

// OwnerOnly makes path its owner's alone. Here the mode given at creation
// (0600 for a file, 0700 for a folder) does it already: nothing to do.
func OwnerOnly(string) error { return nil }

// SyncDir fsyncs the folder dir: a file created, linked or renamed in it
// keeps its name through a power cut once this returns.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	return errors.Join(d.Sync(), d.Close())
}

// IsTerminal reports whether f is a terminal.
func IsTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// IsClosedPipe reports whether err is a write to a pipe its reader closed
// (here SIGPIPE usually ends the process before it sees one).
func IsClosedPipe(err error) bool { return errors.Is(err, syscall.EPIPE) }

// Language is the system's language for the app: none here, where the
// app keeps its own default (French) until one is chosen in its settings.
func Language() string { return "" }

// looseFolder refuses a folder that its group or others may use.
func looseFolder(dir string) error {
	st, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if m := st.Mode().Perm(); m&0o077 != 0 {
		return fmt.Errorf("%s: %w (mode %04o): run chmod 700 %s", dir, ErrLooseFolder, m, dir)
	}
	return nil
}
