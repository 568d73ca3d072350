package main

import (
	"io"

	"vegas-desk/internal/platform"
)

// pipeOut is the standard output of a command, watched for its reader
// going away: export --block 1 | head closes the pipe after ten lines.
// Linux ends the process then (SIGPIPE), quietly; Windows has no such
// signal and the write fails ("the pipe is being closed"), so the command
// stops at that error and run ends as quietly, with exit 0. Any other
// error of the output is reported as before.
type pipeOut struct {
	w      io.Writer
	closed bool // a write found the pipe closed by its reader
}

func (p *pipeOut) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	if err != nil && platform.IsClosedPipe(err) {
		p.closed = true
	}
	return n, err
}

// readerGone reports whether the command's output lost its reader.
func (c *cli) readerGone() bool {
	p, ok := c.stdout.(*pipeOut)
	return ok && p.closed
}
