package main

import (
	"os"
	"testing"
)

// privateDir is a temporary folder of the test's, its owner's alone
// (0700): a command writes a file that holds serials (-o of render,
// print, receipt, daily; claim --receipt) only into such
// a folder (checkPrivateOut), and t.TempDir() is 0777 less the umask.
func privateDir(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}
