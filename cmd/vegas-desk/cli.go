package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strconv"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/text/language"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/platform"
)

// exit codes
const (
	exitOK      = 0
	exitRefused = 1
	exitUsage   = 2
)

// usageError is bad input or usage: exit 2.
// Its format and arguments are kept: the message is translated as it is
// printed (cli.say).
type usageError struct {
	format string
	args   []any
}

func (e usageError) Error() string { return fmt.Sprintf(e.format, e.args...) }

func badInput(format string, args ...any) error { return usageError{format, args} }

// ownWords is an error in the command line's own words, as fmt.Errorf
// makes it (%w wraps), whose format and arguments are kept to be
// translated as it is printed (cli.say).
type ownWords struct {
	format string
	args   []any
	err    error
}

func (e *ownWords) Error() string { return e.err.Error() }
func (e *ownWords) Unwrap() error { return errors.Unwrap(e.err) }

// failf is fmt.Errorf, in the command line's language once printed.
func failf(format string, args ...any) error {
	return &ownWords{format, args, fmt.Errorf(format, args...)}
}

// cli holds one run's streams and global options.
type cli struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	db             string
	// server and deskCert: a validation server's URL and the desk file
	// to ask it with (--server, --desk-cert).
	server, deskCert string
	ctx              context.Context
	// lang: the command line's language.
	lang language.Tag
	// undefined: the commands whose flags are not defined yet, with what
	// defines them (runIn's tree: defineFor); nil: commands defines all.
	undefined map[*cobra.Command]func()
}

// run executes one command line and returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runIn(context.Background(), args, stdin, stdout, stderr)
}

// runIn is run until ctx ends, as Ctrl-C ends it (the tests stop a
// command so).
func runIn(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := &cli{stdin: stdin, stdout: &pipeOut{w: stdout}, stderr: stderr, db: os.Getenv("VEGAS_DESK_DB"),
		server: os.Getenv("VEGAS_DESK_SERVER"), deskCert: os.Getenv("VEGAS_DESK_CERT")}
	c.lang = cliLanguage()
	c.undefined = map[*cobra.Command]func(){}
	root := c.commands()
	c.defineFor(root, goFlags(args))
	if top := topCommand(root, goFlags(args)); top != nil && oneTicketCommand(top.Name()) {
		// Before the signal watcher starts its thread and goroutines.
		oneTicket()
	}
	c.ctx = ctx
	stop := func() {}
	defer func() { stop() }()
	c.translateHelp(root)
	c.cobraWords(root)
	root.SetArgs(goFlags(args))
	root.SetIn(stdin)
	root.SetOut(c.stdout)
	root.SetErr(stderr)
	ran := false
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		ran = true
		if err := checkDB(c.db); err != nil {
			return err
		}
		// Once the flags are read: whether the command waits on anything
		// Ctrl-C should end depends on --db and --server.
		watch := c.watchesCtrlC(cmd)
		if testWatched != nil {
			testWatched(watch)
		}
		if watch {
			c.ctx, stop = signal.NotifyContext(ctx, os.Interrupt)
		}
		return nil
	}
	err := root.ExecuteContext(ctx)
	if err != nil && !ran {
		// cobra's own: an unknown command or flag, a flag's bad value.
		var ue usageError
		if u := c.unknownCommand(root, err); u != nil {
			err = u
		} else if !errors.As(err, &ue) {
			err = badInput("%v (see vegas-desk %s--help)", err, helpPath(root, args))
		}
	}
	return c.fail(err)
}

// watchesCtrlC says whether cmd's run watches for Ctrl-C, which then ends
// its context (a statement interrupted, a transaction rolled back, a
// server's answer no longer awaited, the command's own message). A lookup
// on a ledger file does not: it reads in a millisecond, without its
// context (lookupSerial), and writes nothing but the record of a refused
// lookup, one SQLite transaction that an interrupted process leaves
// unwritten whole. The watcher is a goroutine and two threads more
// (os/signal's, and the one it locks) in a process of a few milliseconds
// (issue 38). TestCtrlCWatched.
func (c *cli) watchesCtrlC(cmd *cobra.Command) bool {
	return cmd.Name() != "lookup" || cmd.Parent() != cmd.Root() || c.server != "" || ledger.IsURL(c.db) || ledger.IsWebAddress(c.db)
}

// testWatched, set by the tests only, hears whether the command that runs
// watches for Ctrl-C.
var testWatched func(bool)

// goFlags rewrites the flags written as Go's flag package took them
// before cobra, -name, as --name: scripts written so go on working. A
// one-letter flag (-o) and "-" are kept; after "--", nothing is changed.
func goFlags(args []string) []string {
	out := slices.Clone(args)
	for i, a := range out {
		if a == "--" {
			break
		}
		if len(a) > 2 && a[0] == '-' && 'a' <= a[1] && a[1] <= 'z' {
			out[i] = "-" + a
		}
	}
	return out
}

// defaultGame is the game code of VEGAS in a new ledger.
const defaultGame = 531

// errRefused: the message is already printed; exit 1.
var errRefused = errors.New("refused")

// fail prints err and returns its exit status.
func (c *cli) fail(err error) int {
	if err == nil {
		return exitOK
	}
	if errors.Is(err, errRefused) {
		return exitRefused
	}
	if c.readerGone() {
		return exitOK // the reader of the output had what it wanted (pipe.go)
	}
	fmt.Fprintln(c.stderr, "vegas-desk:", termLines(c.say(err)))
	var ue usageError
	switch {
	case errors.As(err, &ue), errors.Is(err, game.ErrCheckDigit), errors.Is(err, game.ErrSerialFormat),
		errors.Is(err, ledger.ErrNotFound),      // a typed block, game or claim that does not exist
		errors.Is(err, ledger.ErrRequestReused): // a request id of another ticket: a script's mistake
		return exitUsage
	}
	return exitRefused
}

// checkDB refuses a --db (or VEGAS_DESK_DB) that is a validation server's
// address: a counter asks a server with --server and --desk-cert.
func checkDB(db string) error {
	if !ledger.IsWebAddress(db) {
		return nil
	}
	return badInput("--db %s is a validation server's address, not a ledger: give it as --server %s with --desk-cert FILE (the desk file of desks add --out); --db is a ledger's file or a postgres:// URL", db, db)
}

func (c *cli) dbPath() string {
	if c.db != "" {
		return c.db
	}
	return ledger.DefaultPath()
}

// open opens the ledger read-write, or read-only when the file cannot be
// written (a read-only ledger still answers lookups and checks). A missing
// or empty file is refused (read refuses it too): a mistyped --db must not
// become a new ledger; generate makes one (create).
func (c *cli) open(write bool) (*ledger.Ledger, error) {
	if c.server != "" {
		return c.openServer()
	}
	if st, err := os.Stat(c.dbPath()); !ledger.IsURL(c.dbPath()) && (err != nil || st.Mode().IsRegular() && st.Size() == 0) {
		if !write {
			return c.read()
		}
		return nil, badInput("no ledger at %s: check --db (or VEGAS_DESK_DB), or make one with vegas-desk --db %s generate", c.dbPath(), c.dbPath())
	}
	if unwritable(c.dbPath()) {
		if write {
			return nil, errReadOnlyFile(c.dbPath())
		}
		return clocked(ledger.OpenReadOnly(c.dbPath()))
	}
	l, err := clocked(ledger.Open(c.dbPath()))
	if err == nil || write || errors.Is(err, ledger.ErrNotLedger) || errors.Is(err, ledger.ErrTooNew) || errors.Is(err, ledger.ErrNeedsUpgrade) {
		return l, err
	}
	if _, serr := os.Stat(c.dbPath()); serr != nil {
		return nil, err
	}
	return clocked(ledger.OpenReadOnly(c.dbPath()))
}

// create opens the ledger, making it when there is none (generate's).
func (c *cli) create() (*ledger.Ledger, error) {
	if c.server != "" {
		return nil, badInput("--server: a counter's ledger on a server makes no block; generate on the back office's ledger")
	}
	if unwritable(c.dbPath()) {
		return nil, errReadOnlyFile(c.dbPath())
	}
	return clocked(ledger.Open(c.dbPath()))
}

// testClock, set by the tests only, is the clock of every ledger the
// commands open: the conformance table asks a sealed counter ledger, whose
// dates are sealed, at times of its choosing.
var testClock func() time.Time

func clocked(l *ledger.Ledger, err error) (*ledger.Ledger, error) {
	if l != nil && testClock != nil {
		l.Now = testClock
	}
	return l, err
}

// read opens the ledger for a command that only reads: read-only (a third
// of the cost of a read-write open and its close, and a read-only file
// still answers), or read-write when it must be migrated first. A missing
// or empty file is an error: a mistyped --db must not answer from a new
// empty ledger, and a command that reads makes no ledger (exit 2).
func (c *cli) read() (*ledger.Ledger, error) {
	if c.server != "" {
		return c.openServer()
	}
	if ledger.IsURL(c.dbPath()) {
		return clocked(ledger.OpenReadOnly(c.dbPath()))
	}
	if _, err := os.Stat(c.dbPath()); err != nil {
		return nil, badInput("no ledger at %s: check --db (or VEGAS_DESK_DB), or make one with vegas-desk generate", c.dbPath())
	}
	l, err := clocked(ledger.OpenReadOnly(c.dbPath()))
	switch {
	case errors.Is(err, ledger.ErrNoLedger):
		// An empty file: reading must not make it a ledger.
		return nil, badInput("%v", err)
	case err != nil && !errors.Is(err, ledger.ErrNotLedger) && !errors.Is(err, ledger.ErrTooNew) && !errors.Is(err, ledger.ErrTooOld) && !errors.Is(err, ledger.ErrNeedsUpgrade):
		return c.open(false)
	}
	return l, err
}

// ownProcess is set by main: the process is the command's alone. The tests
// run commands side by side in theirs, whose processors are not one
// command's to change.
var ownProcess bool

// oneTicketCommand says whether the command named name is of one ticket,
// which oneTicket runs on one processor.
func oneTicketCommand(name string) bool { return name == "lookup" || name == "claim" }

// oneTicket runs the rest of a one-ticket command's process (lookup,
// claim) on one processor, from the moment its command is known. Its work
// is one ticket's statements, each after the other; a second processor
// only made each goroutine it starts (the signal watcher's thread and
// goroutines, database/sql's for a transaction and each of its
// statements) wake a second thread and hand work over between the two
// (issue 38: a lookup process 9 % shorter, measured beside sqlite3).
// TestOneTicketOneProcessor.
func oneTicket() {
	if ownProcess {
		runtime.GOMAXPROCS(1)
	}
}

// lookupSerial looks a serial up on l, opened by read. A refused lookup is
// recorded: it is made again on the ledger opened read-write, when it can be.
func (c *cli) lookupSerial(l *ledger.Ledger, serial string, who ledger.Identity, limit ledger.Limit) (ledger.Ticket, error) {
	ctx := c.ctx
	if !l.Shared() {
		// A file answers in a millisecond: not worth watching for Ctrl-C,
		// which the SQLite driver does with a goroutine a statement.
		ctx = context.WithoutCancel(ctx)
	}
	t, err := l.Lookup(ctx, serial, who, limit)
	if !(errors.Is(err, ledger.ErrUnknownSerial) || err == nil && t.Verdict == ledger.Stolen) || !l.ReadOnly() || unwritable(c.dbPath()) {
		return t, err
	}
	w, werr := clocked(ledger.Open(c.dbPath()))
	if werr != nil {
		return t, err // a read-only file: nothing can be recorded
	}
	defer w.Close()
	return w.Lookup(c.ctx, serial, who, limit) // recorded now
}

// flags checks a command's flags, parsed by cobra, and returns its
// positional arguments. Every command names the file it writes -o, which
// checkOut checks here, before any work: no command can write a document
// over a ledger.
func (c *cli) flags(fs *pflag.FlagSet, args []string) ([]string, error) {
	if out := fs.Lookup("o"); out != nil {
		if err := c.checkOut(out.Value.String()); err != nil {
			return nil, failf("%s: %w", fs.Name(), err)
		}
		if serialOutputs[fs.Name()] {
			if err := checkPrivateOut("-o", out.Value.String()); err != nil {
				return nil, failf("%s: %w", fs.Name(), err)
			}
		}
	}
	return args, nil
}

// positional is flags, and wants n positional arguments (what).
func (c *cli) positional(fs *pflag.FlagSet, args []string, n int, what string) ([]string, error) {
	if len(args) != n {
		return nil, badInput("%s: want %s, got %d argument(s) (see vegas-desk %s --help)", fs.Name(), c.text(what), len(args), fs.Name())
	}
	return c.flags(fs, args)
}

func (c *cli) json(v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := c.stdout.Write(jsonSafe(b.Bytes())) // no control character raw (output.go)
	return err
}

// isTerminal reports whether f is a terminal (on Windows a console).
func isTerminal(f *os.File) bool { return platform.IsTerminal(f) }

// defaultIdentity is who acts: the given desk and operator, else
// core.DefaultIdentity's, the rule the app follows too.
func defaultIdentity(desk, operator string) ledger.Identity {
	return core.DefaultIdentity(desk, operator)
}

// who is who acts on l: the desk named, else a counter login's own desk,
// else the host name; the operator named, else $USER.
func (c *cli) who(l *ledger.Ledger, desk, operator string) ledger.Identity {
	if desk == "" {
		desk = l.CounterDesk()
	}
	return core.DefaultIdentity(desk, operator)
}

// timeLayout prints a time of the ledger, in local time.
const timeLayout = "2006-01-02 15:04:05"

func parseDate(field, s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	for _, layout := range []string{"2006-01-02", "2006-01-02T15:04", "2006-01-02T15:04:05", time.RFC3339} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t, nil
		}
	}
	return time.Time{}, badInput("--%s %q: not a date; write 2025-05-01 or 2025-05-01T14:30", field, s)
}

// limitFlag is --limit EUROS: a payout limit that may only lower a desk's
// stored one; not given, it asks nothing (ledger.NoLimit).
type limitFlag struct{ ledger.Limit }

func (f *limitFlag) String() string {
	if f.Limit == ledger.NoLimit {
		return ""
	}
	return strconv.Itoa(int(f.Limit))
}

func (f *limitFlag) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return errors.New(limitWords)
	}
	f.Limit = ledger.LimitOf(n)
	return nil
}

func (f *limitFlag) Type() string { return "EUROS" }

// limitWords say what --limit takes.
const limitWords = "give a payout limit of 0 or more euros (0 refers every winner to the back office)"

// addLimitFlag defines --limit on fs.
func addLimitFlag(fs *pflag.FlagSet, usage string) *limitFlag {
	f := &limitFlag{ledger.NoLimit}
	fs.Var(f, "limit", usage)
	return f
}
