package main

import (
	"errors"
	"io/fs"
	"os"
	"syscall"

	"vegas-desk/internal/ledger"
)

// access is what a command needs of the ledger of --db (or of --server):
// the command table (commands.go) declares it for each command, opens the
// ledger once the command's arguments are checked, hands it to the command
// and closes it after. With --server, a command that reads or writes gets
// the validation server's ledger, as the desk of --desk-cert.
type access int

const (
	// none: no ledger of --db; the command opens nothing, or the ledgers
	// its arguments name (copy, upgrade, verify-certificate).
	none access = iota
	// read: read-only (cli.read): a read-only file answers, and no write
	// lock is taken.
	read
	// write: read-write (cli.open(true)); a missing ledger, or one that
	// cannot be written, is refused with what to do.
	write
	// record: read-write when the ledger can be written, else read-only
	// (cli.open(false)): what the command records (a refused check, the
	// packs a print destroys) is recorded when it can be.
	record
	// create: read-write, the ledger made when there is none (generate,
	// seed record).
	create
	// newDemo: the demonstration ledger, made new (generate --demo).
	newDemo
)

var accessNames = [...]string{none: "none", read: "read", write: "write", record: "record", create: "create", newDemo: "demo"}

func (a access) String() string { return accessNames[a] }

// work is a command as its function declares it. check reads its
// arguments and flags before any ledger is opened: bad input is said
// first, and opens nothing (nor asks a server). run does the work on the
// ledger the table opened for it (nil for access none). needs, when set,
// is the access the command's flags ask for in place of the table's
// (emission and settings write only when they set something).
type work struct {
	check func(args []string) error
	needs func() access
	run   func(l *ledger.Ledger, args []string) error
}

// perform runs w with args: its check, then its run on the ledger of
// access need (or of w.needs), which it closes after.
func (c *cli) perform(need access, w work, args []string) error {
	if w.check != nil {
		if err := w.check(args); err != nil {
			return err
		}
	}
	if w.needs != nil {
		need = w.needs()
	}
	if testOpened != nil {
		testOpened(need)
	}
	if need == none {
		return w.run(nil, args)
	}
	l, err := c.ledgerFor(need)
	if err != nil {
		return err
	}
	defer c.release(l)
	return w.run(l, args)
}

// release closes l after a command's run, but for a ledger file opened
// read-only in a process of the command's own, which ends once the run
// returns: closing it wrote nothing (a read-only connection neither
// checkpoints its WAL nor removes its -wal and -shm files) and the end of
// the process releases its locks, mappings and descriptors the same, while
// SQLite's close and database/sql's cost a lookup process about 3 % of its
// time (issue 38). A server's or PostgreSQL's connection is closed:
// ended by the process, it would be a lost client there. TestReadOnlyLeftOpen.
func (c *cli) release(l *ledger.Ledger) {
	closed := !ownProcess || !l.ReadOnly() || l.Shared()
	if testReleased != nil {
		testReleased(l, closed)
	}
	if closed {
		l.Close()
	}
}

// testReleased, set by the tests only, hears whether release closed the
// ledger (the tests close one left open: their process goes on).
var testReleased func(l *ledger.Ledger, closed bool)

// testOpened, set by the tests only, hears the access of each ledger the
// table opens.
var testOpened func(access)

// ledgerFor opens the ledger as need says.
func (c *cli) ledgerFor(need access) (*ledger.Ledger, error) {
	switch need {
	case read:
		return c.read()
	case write:
		return c.open(true)
	case record:
		return c.open(false)
	case create:
		return c.create()
	case newDemo:
		return ledger.CreateDemo(c.dbPath())
	}
	panic("ledgerFor: access " + need.String())
}

// unwritable reports whether the ledger file at path exists and cannot be
// written: SQLite opens such a file read-only without a word, and its
// first write fails ("attempt to write a readonly database") once the
// command has half run.
func unwritable(path string) bool {
	if ledger.IsURL(path) {
		return false
	}
	if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
		return false // nothing there, or not a file: ledger.Open says which
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err == nil {
		f.Close()
	}
	return errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS)
}

// errReadOnlyFile refuses, for a command that writes, a ledger file that
// cannot be written.
func errReadOnlyFile(path string) error {
	return failf("ledger %s cannot be written here (a read-only file or file system): this command writes to it; run it with the account that may write the file", path)
}
