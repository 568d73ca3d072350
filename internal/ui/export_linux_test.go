package ui

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"fyne.io/fyne/v2/storage"
)

// A file the app saves (a block's export, a paper, the payments' CSV) is
// its owner's alone, whatever the umask: an export holds every serial of a
// block.
func TestExportIsTheOwners(t *testing.T) {
	defer syscall.Umask(syscall.Umask(0o022))
	path := filepath.Join(t.TempDir(), "bloc-531-1.jsonl")
	w, err := storage.Writer(storage.NewFileURI(path))
	if err != nil {
		t.Fatal(err)
	}
	if err := exportTo(w, func(w io.Writer) error { _, err := io.WriteString(w, "{}\n"); return err }); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("saved with mode %v under umask 022, want -rw-------", st.Mode().Perm())
	}
}
