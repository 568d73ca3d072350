// Package platform holds what the operating system decides: where a desk's
// ledger lives, who the operator is, files only their owner may read, a
// terminal, a pipe closed by its reader, the system's language. Linux's
// answers are in the _other files, unchanged from before Windows; Windows'
// in the _windows files, done the Windows way (tested under wine by make
// test-windows).
package platform

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// AppDir is the folder of vegas-desk's own files (the default ledger)
// under the system's data directory (DataDir).
const AppDir = "vegas-desk"

// DefaultLedger is the ledger of a desk that names none.
func DefaultLedger() string { return filepath.Join(DataDir(), AppDir, "ledger.db") }

// MkdirAllOwnerOnly makes dir and its missing parents, as os.MkdirAll(dir,
// 0o700) does, and makes each folder it created its owner's alone
// (OwnerOnly): a folder that was there is left as it was.
func MkdirAllOwnerOnly(dir string) error {
	var made []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil {
			break
		}
		made = append(made, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	for _, d := range made {
		if err := OwnerOnly(d); err != nil {
			return err
		}
	}
	return nil
}

// languageOf is the app's language ("fr" or "en") for a locale name as
// Windows (fr-FR) or Unix (fr_FR.UTF-8) writes it: French for any French
// locale, English for any other; "" for none.
func languageOf(locale string) string {
	l := strings.ToLower(strings.TrimSpace(locale))
	switch {
	case l == "":
		return ""
	case l == "fr" || strings.HasPrefix(l, "fr-") || strings.HasPrefix(l, "fr_") || strings.HasPrefix(l, "fr."):
		return "fr"
	}
	return "en"
}

// ErrLooseFolder: a folder of files that hold serials (backups, copies
// before an upgrade, database dumps) that others may read, write or enter.
var ErrLooseFolder = errors.New("a folder of files that hold serials must be its owner's alone")

// PrivateDir makes dir its owner's alone as MkdirAllOwnerOnly does, or
// refuses an existing one that others may read, write or enter
// (ErrLooseFolder, with the chmod that makes it so): a backup is a whole
// ledger, which pays every unpaid winner (issue 36).
func PrivateDir(dir string) error {
	if err := MkdirAllOwnerOnly(dir); err != nil {
		return err
	}
	return looseFolder(dir)
}

// PrivateFile makes the file at path its owner's alone: 0600, whatever
// the umask was when it was written (on Windows an access list for its
// owner alone).
func PrivateFile(path string) error {
	if err := os.Chmod(path, 0o600); err != nil {
		return err
	}
	return OwnerOnly(path)
}
