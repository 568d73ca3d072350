// Package printer prints documents as a counter prints its receipts. On
// Linux through CUPS's own command-line client (printer_cups.go): lp -d
// QUEUE FILE sends a file to a print queue, lpstat -e lists the queues. On
// Windows through the Windows spooler (printer_windows.go): its printers,
// its default printer, a job sent to one. It turns their failures into
// errors a caller can tell apart (ErrNoCUPS, ErrNoQueue, ErrRefused) and
// says what the system said.
package printer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode"
	"unicode/utf8"
)

var (
	// ErrNoCUPS: CUPS cannot print here: its client (lp, lpstat) is not
	// installed, or its scheduler does not answer (on Windows: the
	// spooler does not answer).
	ErrNoCUPS = errors.New("CUPS cannot print here")
	// ErrNoQueue: CUPS has no print queue of that name.
	ErrNoQueue = errors.New("no such printer")
	// ErrRefused: the queue exists but did not take the job (stopped, not
	// accepting jobs, or another fault lp names).
	ErrRefused = errors.New("the printer refused the job")
)

// Error is a print that failed: the queue, what the CUPS client said, and
// the kind of failure (errors.Is ErrNoCUPS, ErrNoQueue or ErrRefused).
type Error struct {
	Queue  string
	Detail string // lp's or lpstat's own words, or ""
	Kind   error
}

func (e *Error) Error() string {
	s := fmt.Sprintf("printer %q: %v", e.Queue, e.Kind)
	if e.Detail != "" {
		s += " (" + e.Detail + ")"
	}
	return s
}

func (e *Error) Unwrap() error { return e.Kind }

// PrintDocument writes a document with write to a temporary file named
// after name, prints it on queue as a job titled title (what the queue's
// list shows: "Reçu du paiement 12", not a temporary file's name), and
// removes the file (lp has sent it to the scheduler by then). It returns
// the job's id (Print).
func PrintDocument(ctx context.Context, queue, title, name string, write func(io.Writer) error) (string, error) {
	if !ValidQueue(queue) {
		return "", &Error{Queue: queue, Detail: "not the name of a print queue", Kind: ErrNoQueue}
	}
	f, err := os.CreateTemp("", "vegas-desk-*-"+name)
	if err != nil {
		return "", err
	}
	defer os.Remove(f.Name())
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", err
	}
	return Print(ctx, queue, title, f.Name())
}

// jobTitle is a job's title as the queue shows it: title on one line,
// without control characters, at most 200 bytes (CUPS keeps 255), or
// vegas-desk's name when it says nothing.
func jobTitle(title string) string {
	title = strings.Join(strings.FieldsFunc(title, func(r rune) bool { return unicode.IsControl(r) || unicode.IsSpace(r) }), " ")
	for len(title) > 200 {
		_, n := utf8.DecodeLastRuneInString(title)
		title = title[:len(title)-n]
	}
	if title == "" {
		return "vegas-desk"
	}
	return title
}
