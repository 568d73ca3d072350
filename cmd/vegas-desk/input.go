package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
)

// What the command line reads from a file or standard input is bounded to
// what such an input holds: past the bound (a device such as /dev/zero, a
// wrong file, an endless pipe) it is refused, read no further than the
// bound and one byte. A ledger, a counter ledger or a counter's export
// is opened or read by the ledger itself, with bounds of its own.
const (
	// maxTicketDoc bounds check's input: one ticket's contents, a few
	// hundred bytes as export writes them, with room for any layout.
	maxTicketDoc = 64 << 10
	// maxSecretFile bounds a passphrase or password file, and a line
	// typed at the terminal.
	maxSecretFile = 4 << 10
)

// tooLarge is the error of an input past its bound.
type tooLarge struct{ max int64 }

func (e tooLarge) Error() string { return fmt.Sprintf("more than %s", sizeOf(e.max)) }

func sizeOf(n int64) string {
	if n%(1<<10) == 0 {
		return fmt.Sprintf("%d KB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// readBounded reads r whole when it holds at most max bytes; else it stops
// after max+1 bytes and returns tooLarge.
func readBounded(r io.Reader, max int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, tooLarge{max}
	}
	return data, nil
}

// readInput reads the file named path, or standard input for "-", at
// most max bytes.
func (c *cli) readInput(path string, max int64) ([]byte, error) {
	if path == "-" {
		return readBounded(c.stdin, max)
	}
	return readFile(path, max)
}

// readFile reads the file named path, at most max bytes.
func readFile(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readBounded(f, max)
}

// readFirstLine returns the first line of the file named path (without
// its line end), refused when it is longer than max bytes; what follows
// the line is not read.
func readFirstLine(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+2))
	if err != nil {
		return nil, err
	}
	line, _, found := bytes.Cut(data, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	if int64(len(line)) > max || !found && int64(len(data)) > max {
		return nil, tooLarge{max}
	}
	return line, nil
}

// inputName names a command's input in its errors.
func inputName(path string) string {
	if path == "-" {
		return "standard input"
	}
	return path
}
