package main

import (
	"os"

	"golang.org/x/sys/windows"
)

// readHidden reads a line from the console f without echoing it: the
// console's echo is turned off (line input kept, Ctrl-C kept) while the
// line is typed, as golang.org/x/term does.
func readHidden(f *os.File) ([]byte, error) {
	h := windows.Handle(f.Fd())
	var old uint32
	if err := windows.GetConsoleMode(h, &old); err != nil {
		return nil, err
	}
	quiet := old&^windows.ENABLE_ECHO_INPUT | windows.ENABLE_LINE_INPUT | windows.ENABLE_PROCESSED_INPUT
	if err := windows.SetConsoleMode(h, quiet); err != nil {
		return nil, err
	}
	defer windows.SetConsoleMode(h, old)
	return readLine(f)
}
