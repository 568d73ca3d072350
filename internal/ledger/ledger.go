// Package ledger is the vegas-desk ledger that the app and the command line
// use: blocks, tickets, payments, the packs' moves and every refused
// attempt, in a hash-chained journal. Behind this one API are four kinds of
// ledger, each a backend (core.Backend): a back office's SQLite file
// (package sqlite), a shared PostgreSQL database through the back office's
// login or a validation server's (package postgres), a counter through a
// validation server (package remote), and a sealed counter ledger (package
// counter). The rule they all apply, and the journal, are core's: a
// question is one read, core's decision, one write (core/question.go).
// It is the only part of vegas-desk that speaks SQL; every rule of the game
// comes from internal/game.
package ledger

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"vegas-desk/internal/ledger/backoffice"
	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/ledger/counter"
	"vegas-desk/internal/ledger/postgres"
	"vegas-desk/internal/ledger/sqlite"
	"vegas-desk/internal/platform"
	"vegas-desk/internal/signing"
)

// Ledger is an open ledger. Its methods are safe for concurrent use.
type Ledger struct {
	// Asker asks the questions (Lookup, Claim, FindByContents) of b's
	// Questions: the Ledger answers with core directly. Its Now gives the
	// time of the entries this process writes and of the verdicts it asks
	// (nil: the current time, on PostgreSQL the server's); tests set it.
	// Its Questions and Desk are the backend's, set by Open: not to be
	// changed.
	core.Asker

	b    core.Backend
	info core.Info
}

// now is the time, for what the ledger says itself (papers' times).
func (l *Ledger) now() time.Time {
	if l.Now == nil {
		return time.Now()
	}
	return l.Now()
}

// DefaultPath is the ledger of a desk that names none:
// $XDG_DATA_HOME/vegas-desk/ledger.db, or ~/.local/share/vegas-desk/ledger.db;
// on Windows %LOCALAPPDATA%\vegas-desk\ledger.db.
func DefaultPath() string { return platform.DefaultLedger() }

// IsURL reports whether location names a PostgreSQL database rather than a
// file.
func IsURL(location string) bool {
	return strings.HasPrefix(location, "postgres://") || strings.HasPrefix(location, "postgresql://")
}

// Open opens the ledger at location, a PostgreSQL URL (postgres:// or
// postgresql://) or a file path, and creates it when there is none: a new
// SQLite file (mode 0600, in a directory made 0700), or the schema in an
// empty PostgreSQL database (as its owner). A file that is not a vegas-desk
// ledger (ErrNotLedger) or comes from another version (ErrTooNew,
// ErrTooOld) is refused untouched; so is a file whose schema holds anything
// a ledger of its version does not (ErrNotLedger).
func Open(location string) (*Ledger, error) { return open(location, false, backoffice.Creation{}) }

// OpenReadOnly opens an existing ledger for lookups, checks, reports,
// exports and verification; every write answers ErrReadOnly and refused
// lookups are not recorded. A SQLite ledger may be a read-only file in a
// read-only directory.
func OpenReadOnly(location string) (*Ledger, error) {
	return open(location, true, backoffice.Creation{})
}

// CreateDemo opens the demonstration ledger at location, creating it
// marked as such. An existing ledger that is not one is refused: a
// demonstration ledger is a new one.
func CreateDemo(location string) (*Ledger, error) {
	l, err := open(location, false, backoffice.Creation{Demo: true})
	if err != nil {
		return nil, err
	}
	if !l.info.Demo {
		l.Close()
		return nil, fmt.Errorf("%s holds a ledger that is not a demonstration ledger; a demonstration needs a new file: %w", l.info.Location, ErrNotDemo)
	}
	return l, nil
}

// open opens the backend that location names: a PostgreSQL database, a
// sealed counter ledger (its file's header says so), or a back office's
// file.
func open(location string, readOnly bool, c backoffice.Creation) (*Ledger, error) {
	if location == "" {
		return nil, errors.New("open ledger: no file name or URL given")
	}
	if IsWebAddress(location) {
		return nil, core.Invalid(fmt.Errorf("%s is a web address, not a ledger's file or postgres:// URL: a validation server is opened as a counter's ledger (OpenServer, with a desk file)", location))
	}
	if !IsURL(location) {
		// Before anything opens it: a named pipe would wait for a writer.
		if err := CheckRegular(location); err != nil {
			return nil, fmt.Errorf("%w: %w; a ledger is a file: give its path", ErrNotLedger, err)
		}
	}
	l := &Ledger{}
	var err error
	switch app, herr := sqlite.Header(location); {
	case IsURL(location):
		l.b, err = postgres.Open(location, readOnly, c, l.Clock)
	case herr != nil:
		err = herr
	case app == counter.ApplicationID && c.Meta == nil:
		l.b, err = counter.Open(location, readOnly, l.Clock)
	default:
		l.b, err = sqlite.OpenLedger(location, readOnly, c, l.Clock)
	}
	if err != nil {
		return nil, err
	}
	l.info = l.b.Info()
	l.Questions, l.Desk = l.b.Questions(), l.info.Desk
	return l, nil
}

// CheckRegular refuses a path that names something other than a regular
// file (through symbolic links): a directory, a device, a named pipe or a
// socket, which no ledger or document can be. A path with nothing there
// passes.
func CheckRegular(path string) error {
	st, err := os.Stat(path)
	if err != nil || st.Mode().IsRegular() {
		return nil
	}
	kind := "a special file"
	switch m := st.Mode(); {
	case m.IsDir():
		kind = "a directory"
	case m&os.ModeNamedPipe != 0:
		kind = "a named pipe"
	case m&os.ModeSocket != 0:
		kind = "a socket"
	case m&os.ModeDevice != 0:
		kind = "a device"
	}
	return fmt.Errorf("%s is %s, not a regular file", path, kind)
}

// KeptFile says what the file at path is, from its first bytes, when no
// document may be written over it: a ledger, a counter ledger, another
// SQLite database, a write-ahead log or rollback journal, or a signing key
// file; "" for anything else (or nothing there).
func KeptFile(path string) string {
	if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
		return "" // nothing there, or nothing to read without waiting
	}
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	var head [100]byte
	n, _ := io.ReadFull(f, head[:])
	h := head[:n]
	switch {
	case bytes.HasPrefix(h, []byte("SQLite format 3\x00")) && n == len(head):
		switch binary.BigEndian.Uint32(h[68:]) {
		case sqlite.ApplicationID:
			return "a vegas-desk ledger"
		case counter.ApplicationID:
			return "a counter ledger, which may hold payments not yet brought home"
		}
		return "a SQLite database"
	case bytes.HasPrefix(h, []byte("SQLite format 3\x00")):
		return "a SQLite database"
	case bytes.HasPrefix(h, []byte{0x37, 0x7f, 0x06, 0x82}), bytes.HasPrefix(h, []byte{0x37, 0x7f, 0x06, 0x83}):
		return "a SQLite write-ahead log"
	case bytes.HasPrefix(h, []byte{0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7}):
		return "a SQLite rollback journal"
	case bytes.HasPrefix(h, []byte(signing.KeyFileMagic)):
		return "a signing key file, which is never replaced"
	}
	return ""
}

// office is the back office's store, or the backend's refusal of what.
func (l *Ledger) office(what string) (*backoffice.Store, error) {
	bo, err := l.backOffice(what)
	if err != nil {
		return nil, err
	}
	return bo.(interface{ Office() *backoffice.Store }).Office(), nil
}

// backOffice is the back office's backend, or the backend's refusal of
// what.
func (l *Ledger) backOffice(what string) (core.BackOffice, error) {
	if bo, ok := l.b.(core.BackOffice); ok {
		return bo, nil
	}
	return nil, l.b.Refuse(what)
}

// Close closes the ledger.
func (l *Ledger) Close() error { return l.b.Close() }

// Location returns the ledger's file path, or its URL without password.
func (l *Ledger) Location() string { return l.info.Location }

// Path is Location, for the screens that name a ledger file.
func (l *Ledger) Path() string { return l.info.Location }

// Shared reports whether the ledger is a PostgreSQL database that several
// counters use.
func (l *Ledger) Shared() bool { return l.info.Shared }

// ID returns the ledger's id, which its copies keep.
func (l *Ledger) ID() string { return l.info.ID }

// Demo reports whether this is a demonstration ledger (made by the app's
// first run or generate --demo), whose unpaid winners may be listed.
func (l *Ledger) Demo() bool { return l.info.Demo }

// Kind is "back-office" for the back office's ledger (a file or a shared
// database, a counter through a validation server too) and "counter" for a sealed
// counter ledger.
func (l *Ledger) Kind() string { return l.info.Kind }

// CounterDesk returns the desk of a counter on a validation server or
// of a sealed counter ledger, and "" for the back office.
func (l *Ledger) CounterDesk() string { return l.info.Desk }

// CounterLimit returns the payout limit of a counter on a validation
// server or of a sealed counter ledger, which it applies whatever it is
// asked (NoLimit for the back office).
func (l *Ledger) CounterLimit() Limit { return l.info.Limit }

// ReadOnly reports whether the ledger was opened with OpenReadOnly.
func (l *Ledger) ReadOnly() bool { return l.info.ReadOnly }

// Ping says whether the ledger answers: on a shared ledger, whether its
// server can be reached (ErrUnreachable otherwise).
func (l *Ledger) Ping(ctx context.Context) error { return l.b.Ping(ctx) }

// CounterSeal returns a sealed counter ledger's signed seal.
func (l *Ledger) CounterSeal() (string, bool) {
	if s, ok := l.b.(interface{ Seal() string }); ok {
		return s.Seal(), true
	}
	return "", false
}
