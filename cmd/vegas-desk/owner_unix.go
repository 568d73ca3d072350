//go:build unix

package main

import (
	"os"
	"syscall"
)

// ownerOf is the user id of the file at path (false: unknown).
func ownerOf(path string) (int, bool) {
	st, err := os.Stat(path)
	if err != nil {
		return 0, false
	}
	s, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(s.Uid), true
}
