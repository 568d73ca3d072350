//go:build !windows

package server_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/ledgertest"
	"vegas-desk/internal/server"
	"vegas-desk/internal/server/servertest"
)

// Keys others may read are refused, as ssh refuses them, naming the file
// and the chmod that fixes it: the server's key (the server does not
// start), the authority's key (no desk file is signed), a counter's desk
// file (the counter does not open); serve --init refuses a directory
// others may read, and leaves it as it was.
func TestLooseKeyModesRefused(t *testing.T) {
	o, _ := office(t)
	s := servertest.Start(t, o, server.Config{})
	key := filepath.Join(s.Dir, server.ServerKey)
	if err := os.Chmod(key, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := server.New(o, server.Config{Dir: s.Dir}); !errors.Is(err, ledger.ErrLooseMode) || !strings.Contains(err.Error(), "chmod 600 "+key) {
		t.Errorf("server.key 0644: %v", err)
	}
	os.Chmod(key, 0o600)
	if _, err := server.New(o, server.Config{Dir: s.Dir}); err != nil {
		t.Errorf("server.key 0600: %v", err)
	}

	desk := s.DeskFile(t, "C1")
	os.Chmod(desk, 0o666)
	if _, err := ledger.OpenServer(s.URL, desk); !errors.Is(err, ledger.ErrLooseMode) || !strings.Contains(err.Error(), "chmod 600 "+desk) {
		t.Errorf("a desk file 0666: %v", err)
	}

	dir := filepath.Join(t.TempDir(), "ca")
	if err := server.Init(dir, o.ID(), []string{"127.0.0.1"}, []byte(ledgertest.Passphrase), false); err != nil {
		t.Fatal(err)
	}
	ca := filepath.Join(dir, server.AuthorityKey)
	os.Chmod(ca, 0o640)
	if _, err := server.OpenAuthority(dir, []byte(ledgertest.Passphrase)); !errors.Is(err, ledger.ErrLooseMode) || !strings.Contains(err.Error(), "chmod 600 "+ca) {
		t.Errorf("authority.key 0640: %v", err)
	}

	open := t.TempDir()
	os.Chmod(open, 0o755)
	err := server.Init(open, o.ID(), []string{"127.0.0.1"}, []byte(ledgertest.Passphrase), false)
	if !errors.Is(err, ledger.ErrLooseMode) || !strings.Contains(err.Error(), "chmod 700 "+open) {
		t.Errorf("serve --init in a 0755 directory: %v", err)
	}
	if st, _ := os.Stat(open); st.Mode().Perm() != 0o755 {
		t.Errorf("the directory's mode was changed to %04o", st.Mode().Perm())
	}
	if left, _ := os.ReadDir(open); len(left) != 0 {
		t.Errorf("serve --init refused, yet wrote %v", left)
	}
}
