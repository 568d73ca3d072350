//go:build !windows

package platform

import (
	"os"
	"path/filepath"
	"testing"
)

// ownerOnly checks that path is, or is not, its owner's alone: here its
// mode (0700 for a folder) says so.
func ownerOnly(t *testing.T, path string, want bool) {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := st.Mode().Perm()&0o077 == 0; got != want {
		t.Errorf("%s: mode %v, owner-only %v, want %v", path, st.Mode().Perm(), got, want)
	}
}

// Linux keeps what it had: XDG_DATA_HOME, else ~/.local/share.
func TestDataDir(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", "/srv/data")
	if got := DataDir(); got != "/srv/data" {
		t.Errorf("DataDir() = %s", got)
	}
	t.Setenv("XDG_DATA_HOME", "")
	t.Setenv("HOME", "/home/marie")
	if got := DataDir(); got != filepath.Join("/home/marie", ".local", "share") {
		t.Errorf("DataDir() = %s", got)
	}
}

func TestClosedPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	_, err = w.Write([]byte("x")) // EPIPE: SIGPIPE is not raised for a pipe other than stdout/stderr
	w.Close()
	if !IsClosedPipe(err) {
		t.Errorf("a write to a closed pipe: %v, not a closed pipe", err)
	}
	if IsClosedPipe(os.ErrClosed) {
		t.Error("os.ErrClosed is not a closed pipe")
	}
}
