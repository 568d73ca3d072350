//go:build !windows

package printer

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// ValidQueue reports whether name can be a CUPS queue's name: not empty,
// printable, without spaces, "/", "#", quotes or a leading "-" (which lp
// would read as an option).
func ValidQueue(name string) bool {
	return name != "" && !strings.HasPrefix(name, "-") && !strings.ContainsFunc(name, func(r rune) bool {
		return r <= ' ' || r == 0x7f || strings.ContainsRune(`/#\'"`, r)
	})
}

// run runs a CUPS client in the C locale, so that its messages can be read,
// and returns its standard output, or its standard error in the error.
func run(ctx context.Context, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), "LC_ALL=C", "LANG=C", "LANGUAGE=C")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if err != nil {
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = strings.TrimSpace(out.String())
		}
		if errors.Is(err, exec.ErrNotFound) {
			return "", &Error{Detail: name + " is not installed (Debian: apt-get install cups-client)", Kind: ErrNoCUPS}
		}
		if ctx.Err() != nil {
			return "", &Error{Detail: name + " did not answer in time", Kind: ErrNoCUPS}
		}
		if msg == "" {
			msg = err.Error()
		}
		return "", &Error{Detail: msg, Kind: classify(msg)}
	}
	return out.String(), nil
}

// classify reads what a CUPS client printed on a failure.
func classify(msg string) error {
	m := strings.ToLower(msg)
	switch {
	case strings.Contains(m, "does not exist") || strings.Contains(m, "unknown destination"):
		return ErrNoQueue
	case strings.Contains(m, "unable to connect") || strings.Contains(m, "scheduler is not running") ||
		strings.Contains(m, "connection refused"):
		return ErrNoCUPS
	}
	return ErrRefused
}

// Queues lists the print queues CUPS knows here, as lpstat -e does, in its
// order. No queue is an empty list.
func Queues(ctx context.Context) ([]string, error) {
	out, err := run(ctx, "lpstat", "-e")
	var pe *Error
	if errors.As(err, &pe) && strings.Contains(strings.ToLower(pe.Detail), "no destinations") {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var qs []string
	for _, l := range strings.Split(out, "\n") {
		if q := strings.TrimSpace(l); q != "" {
			qs = append(qs, q)
		}
	}
	if len(qs) == 0 && schedulerDown(ctx) {
		return nil, &Error{Detail: noScheduler, Kind: ErrNoCUPS}
	}
	return qs, nil
}

const noScheduler = "lpstat -r: scheduler is not running"

// schedulerDown reports whether lpstat -r says that no CUPS scheduler
// runs. CUPS's client says no more than that itself: with none running,
// lp answers "The printer or class does not exist." and lpstat -e lists
// nothing, as for a scheduler without that queue (testdata/cups of
// printertest, recorded from the real lp and lpstat).
func schedulerDown(ctx context.Context) bool {
	out, err := run(ctx, "lpstat", "-r")
	return err == nil && strings.Contains(out, "scheduler is not running")
}

// jobID finds lp's "request id is Q-12 (1 file(s))".
// Compiled when first used, not in every process that links the printer.
var jobID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`request id is (\S+)`) })

// Print sends the file at path to queue (lp -d QUEUE FILE) and returns the
// job's id as lp names it ("Q-12"), or "" when it names none. A failure is
// an *Error: lpstat -r tells no scheduler running (ErrNoCUPS) from a queue
// that does not exist (ErrNoQueue), and when lp does not say why, lpstat
// -e tells a queue that does not exist from one that refused the job
// (ErrRefused).
func Print(ctx context.Context, queue, title, path string) (string, error) {
	if !ValidQueue(queue) {
		return "", &Error{Queue: queue, Detail: "not the name of a print queue", Kind: ErrNoQueue}
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs // never read as an option
	}
	out, err := run(ctx, "lp", "-d", queue, "-t", jobTitle(title), path)
	var pe *Error
	if errors.As(err, &pe) {
		pe.Queue = queue
		switch {
		case errors.Is(pe.Kind, ErrNoCUPS):
		case schedulerDown(ctx):
			pe.Kind, pe.Detail = ErrNoCUPS, noScheduler
		case errors.Is(pe.Kind, ErrRefused):
			if qs, qerr := Queues(ctx); qerr == nil && !slices.Contains(qs, queue) {
				pe.Kind = ErrNoQueue
			}
		}
		return "", pe
	}
	if m := jobID().FindStringSubmatch(out); m != nil {
		return m[1], nil
	}
	return "", nil
}

// Default is the queue CUPS prints on when none is chosen (lpstat -d), ""
// when it has none.
func Default(ctx context.Context) (string, error) {
	out, err := run(ctx, "lpstat", "-d")
	var pe *Error
	if errors.As(err, &pe) && strings.Contains(strings.ToLower(pe.Detail), "no system default") {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	_, q, ok := strings.Cut(strings.TrimSpace(out), "system default destination: ")
	if !ok {
		return "", nil
	}
	return strings.TrimSpace(q), nil
}
