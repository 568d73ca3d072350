//go:build !windows

package protocol

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A private key's file others may read or write is refused, naming the
// file and the chmod that fixes it; a desk file so is refused before it
// is read. A directory of keys likewise.
func TestLooseModesRefused(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "C1.desk")
	if err := os.WriteFile(path, []byte("vegas-desk desk file 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for mode, ok := range map[os.FileMode]bool{0o600: true, 0o400: true, 0o640: false, 0o604: false, 0o620: false, 0o666: false, 0o644: false} {
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
		err := CheckPrivate(path)
		if ok != (err == nil) || !ok && (!errors.Is(err, ErrLooseMode) || !strings.Contains(err.Error(), "chmod 600 "+path)) {
			t.Errorf("mode %04o: %v", mode, err)
		}
		_, err = ReadDeskFile(path)
		if ok && !errors.Is(err, ErrNotDeskFile) || !ok && !errors.Is(err, ErrLooseMode) {
			t.Errorf("a desk file of mode %04o: %v", mode, err)
		}
	}
	for mode, ok := range map[os.FileMode]bool{0o700: true, 0o750: false, 0o755: false, 0o701: false} {
		if err := os.Chmod(dir, mode); err != nil {
			t.Fatal(err)
		}
		err := CheckPrivateDir(dir)
		if ok != (err == nil) || !ok && !strings.Contains(err.Error(), "chmod 700 "+dir) {
			t.Errorf("a directory of mode %04o: %v", mode, err)
		}
	}
	os.Chmod(dir, 0o700)
}
