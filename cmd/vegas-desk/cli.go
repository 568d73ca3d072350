package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"time"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger"
	"vegas-desk/internal/platform"
)

const usage = `usage: vegas-desk [--db PATH] [COMMAND [ARGS]]

With no command, opens the desktop app (on the ledger of --db or VEGAS_DESK_DB,
else the one last chosen in the app's settings).

  generate [--seed HEX] [--game CODE] [--activate] [--demo] [--json]   generate the next block of a game
  blocks [--json]                                list the blocks
  lookup SERIAL [--desk ID] [--limit EUROS] [--json]   a ticket by serial, and what a claim would answer
  check [--desk ID] [--limit EUROS] [--json] FILE|-    check one ticket in the interchange format
  claim SERIAL [--desk ID] [--operator NAME] [--method serial|contents] [--request ID] [--limit EUROS]
        [--winner-name NAME --winner-doc CNI|passeport|"titre de séjour"|"permis de conduire" --winner-doc-number N] [--json]
  void PAYMENT --reason TEXT [--desk ID] [--operator NAME]   void a payment (its number)
  claims [--block N] [--since DATE] [--until DATE] [--desk ID] [--csv|--json|--jsonl] [--with-identity]
  daily [--since DATE] [--until DATE] [--desk ID] [--json]   claims per day and desk
  daily --desk ID --day DATE [-o FILE.pdf|--csv|--json] [--printer QUEUE]   a counter's day report
  emission [--game CODE] [--on-sale DAY] [--end-of-sale DAY] [--deadline DAY] [--json]
                                                 show or set the emission's dates
  packs deliver --block N --packs A-B --desk ID  send packs to a counter
  packs receive|activate|settle|return|stolen|destroyed [--block N] PACK...
                                                 move packs (numbers, ranges A-B or pack codes)
  packs list [--block N] [--desk ID] [--state S] [--json]    where the packs are
  packs labels --block N --packs A-B (-o FILE.pdf|--printer QUEUE) [--roll]   a label per pack, with its barcode
  attempts [--reason R] [--since DATE] [--desk ID] [--json]  refused attempts (stolen: flagged)
  referrals [--json]                             prizes above a counter's limit, to pay here
  cases [--all] [--json]                         double payments (a counter's imported payment of a ticket paid already)
  cases close PAYMENT --reason TEXT [--desk ID] [--operator NAME]   close one by a recorded decision
  receipt PAYMENT (-o FILE.pdf|--printer QUEUE) [--json]   a payment's receipt, written or printed
  settlement --desk ID --since DAY --until DAY [-o FILE.pdf|--csv|--json]
                                                 what a counter and the operator owe each other
  settings [--identity-threshold EUROS] [--commission PERCENT] [--claim-days N] [--json]
  print --block N --packs A-B -o FILE.pdf [--operator NAME]   demonstration sheets, 4 tickets an A4 page
                                                 (a real ledger: packs in stock only, serials covered, packs destroyed)
  report --block N [--json]                      a block's prizes, claims and liability
  export --block N                               a block as JSON Lines on stdout
  verify [--block N] [--head HEX] [--key PUBKEY] [--json]   check every ticket, digest and the journal
  catalogue                                      the ways to win of a block
  render SERIAL -o FILE                          draw a ticket as PNG
  desks add ID [--limit EUROS] [--json]          add a counter (a row; its desk file: --out, below)
  desks list [--json]                            the counters, their state and certificates (serial, expiry)
  desks disable|enable|unlock ID | desks limit ID EUROS
  copy FROM TO [--json]                          copy a whole ledger (file or postgres:// URL): a new ledger, an id of its own
  copy --restore FROM TO [--json]                a copy that replaces the original (its id, desk files; the original serves no more)
  backup --dir DIR [--keep N] [--json]           a verified backup of the ledger, while it serves
  upgrade [--backup-dir DIR] [--dry-run] [--json]   upgrade a ledger of an earlier vegas-desk in place
  load --server URL [--dir DIR] [--counters N] [--seconds S] [--json] [--yes-this-is-a-test]
                                                 a ledger's capacity test, through vegas-desk serve of --db
  serve --init [--dir DIR] [--host H,H] [--cert F --key F]   make the ledger's certificate authority
  serve [--listen HOST:PORT] [--dir DIR] [--cert F --key F] [--log-format text|json] [--metrics HOST:PORT]
                                                 the validation server counters ask (mTLS); its log on
                                                 the standard error, /metrics and /healthz on --metrics
        [--backup-dir DIR --backup-every 1h --backup-keep N]   with a verified backup on a schedule
  serve --check [serve's flags]                  check the settings (ledger, authority, key, addresses), exit
  serve --install-unit [--unit-user NAME] [--pgpass FILE] [serve's flags]   print a systemd unit of serve
  service install [serve's flags] | service remove|start|stop    (Windows) serve as a Windows service
  desks add ID --out ID.desk [--dir DIR] [--limit EUROS]     (with serve) the counter's desk file
  desks cert ID --out ID.desk [--dir DIR] [--keep-old]       a new desk file; its earlier ones revoked unless --keep-old
  desks revoke ID --cert SERIAL|FILE                         refuse one of a desk's certificates (a desk file stolen)

  keygen -o FILE                                 make the back office's signing key (asks a passphrase)
  counter-ledger --desk ID [--block N ...] [--limit EUROS] --key-file F -o FILE
                                                 seal blocks into a ledger for one offline counter
  claims --jsonl                                 (on a counter ledger) its journal, for import-claims
  import-claims FILE [--json]                    record a counter's payments at the back office
  certificate --block N --key-file F [-o FILE.pdf] [--json]   sign a block's certificate
  verify-certificate FILE --key PUBKEY           check a certificate, checkpoint or counter ledger
  checkpoint --key-file F [-o FILE]              sign the journal head, to keep outside the ledger

--game CODE (default 531) picks the game where a block is named.
--db PATH|URL (or VEGAS_DESK_DB) picks the ledger: a file, or a shared PostgreSQL ledger
(postgres://user@host/db; the password from PGPASSWORD or ~/.pgpass); commands default to
$XDG_DATA_HOME/vegas-desk/ledger.db (Windows: %LOCALAPPDATA%\vegas-desk\ledger.db).
--server https://HOST:PORT --desk-cert FILE (or VEGAS_DESK_SERVER, VEGAS_DESK_CERT): a counter
asks the validation server (vegas-desk serve) as the desk of its desk file, instead of --db
(which refuses an http(s):// address).
--printer QUEUE prints through CUPS (lp -d QUEUE); lpstat -e lists the queues. On Windows
through the spooler: QUEUE is a printer's name as Windows lists it.
Exit status: 0 ok, 1 refused (unknown serial, loser, already claimed, verify mismatch), 2 bad input.
`

// exit codes
const (
	exitOK      = 0
	exitRefused = 1
	exitUsage   = 2
)

// usageError is bad input or usage: exit 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func badInput(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// cli holds one run's streams and global options.
type cli struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	db             string
	// server and deskCert: a validation server's URL and the desk file
	// to ask it with (--server, --desk-cert).
	server, deskCert string
	ctx              context.Context
}

// run executes one command line and returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := &cli{stdin: stdin, stdout: &pipeOut{w: stdout}, stderr: stderr, db: os.Getenv("VEGAS_DESK_DB"),
		server: os.Getenv("VEGAS_DESK_SERVER"), deskCert: os.Getenv("VEGAS_DESK_CERT")}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	c.ctx = ctx
	// Global flags come before the command.
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		name, val, has := strings.Cut(strings.TrimLeft(args[0], "-"), "=")
		switch name {
		case "db":
			if !has {
				if len(args) < 2 {
					return c.fail(badInput("--db needs a file name"))
				}
				val, args = args[1], args[1:]
			}
			c.db = val
		case "server", "desk-cert":
			if !has {
				if len(args) < 2 {
					return c.fail(badInput("--%s needs a value", name))
				}
				val, args = args[1], args[1:]
			}
			if name == "server" {
				c.server = val
			} else {
				c.deskCert = val
			}
		case "h", "help":
			fmt.Fprint(stdout, usage)
			return exitOK
		default:
			return c.fail(badInput("unknown option %s before the command\n%s", args[0], usage))
		}
		args = args[1:]
	}
	if err := checkDB(c.db); err != nil {
		return c.fail(err)
	}
	if len(args) == 0 {
		if c.server != "" {
			// The app asks the server with the desk file of --desk-cert.
			os.Setenv("VEGAS_DESK_CERT", c.deskCert)
			return c.fail(openApp(c.server))
		}
		// Without --db or VEGAS_DESK_DB the app reopens the ledger last
		// chosen in its settings, or its own default.
		return c.fail(openApp(c.db))
	}
	cmds := map[string]func([]string) error{
		"generate": c.generate, "blocks": c.blocks, "lookup": c.lookup, "check": c.check,
		"claim": c.claim, "void": c.void, "claims": c.claims, "daily": c.daily, "report": c.report,
		"export": c.export, "verify": c.verify, "catalogue": c.catalogue, "render": c.render,
		"desks": c.desks, "copy": c.copyLedger,
		"emission": c.emission, "packs": c.packs, "attempts": c.attempts, "referrals": c.referrals, "cases": c.cases,
		"receipt": c.receipt, "settlement": c.settlement, "settings": c.settings, "print": c.print,
		"keygen": c.keygen, "counter-ledger": c.counterLedger, "import-claims": c.importClaims,
		"certificate": c.certificate, "verify-certificate": c.verifyCertificate, "checkpoint": c.checkpoint,
		"load": c.load, "serve": c.serve, "service": c.service, "upgrade": c.upgrade, "backup": c.backup,
	}
	if args[0] == "help" {
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	f, ok := cmds[args[0]]
	if !ok {
		return c.fail(badInput("unknown command %q\n%s", args[0], usage))
	}
	return c.fail(f(args[1:]))
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
	fmt.Fprintln(c.stderr, "vegas-desk:", termLines(err.Error()))
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
func (c *cli) create(bool) (*ledger.Ledger, error) {
	if c.server != "" {
		return nil, badInput("--server: a counter's ledger on a server makes no block; generate on the back office's ledger")
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
	if !(errors.Is(err, ledger.ErrUnknownSerial) || err == nil && t.Verdict == ledger.Stolen) || !l.ReadOnly() {
		return t, err
	}
	w, werr := clocked(ledger.Open(c.dbPath()))
	if werr != nil {
		return t, err // a read-only file: nothing can be recorded
	}
	defer w.Close()
	return w.Lookup(c.ctx, serial, who, limit) // recorded now
}

// flags parses a command's flags wherever they are among its positional
// arguments and returns the positional ones. --db is accepted everywhere.
// Every command names the file it writes -o, which checkOut checks here,
// before any work: no command can write a document over a ledger.
func (c *cli) flags(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	fs.StringVar(&c.db, "db", c.db, "ledger file")
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, badInput("%s: %v (see vegas-desk help)", fs.Name(), err)
		}
		args = fs.Args()
		if len(args) == 0 || args[0] == "--" {
			if len(args) > 0 {
				pos = append(pos, args[1:]...)
			}
			if err := checkDB(c.db); err != nil {
				return nil, err
			}
			if out := fs.Lookup("o"); out != nil {
				if err := c.checkOut(out.Value.String()); err != nil {
					return nil, fmt.Errorf("%s: %w", fs.Name(), err)
				}
			}
			return pos, nil
		}
		pos, args = append(pos, args[0]), args[1:]
	}
}

func (c *cli) positional(fs *flag.FlagSet, args []string, n int, what string) ([]string, error) {
	pos, err := c.flags(fs, args)
	if err != nil {
		return nil, err
	}
	if len(pos) != n {
		return nil, badInput("%s: want %s, got %d argument(s) (see vegas-desk help)", fs.Name(), what, len(pos))
	}
	return pos, nil
}

func (c *cli) json(v any) error {
	enc := json.NewEncoder(c.stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// isTerminal reports whether f is a terminal (on Windows a console).
func isTerminal(f *os.File) bool { return platform.IsTerminal(f) }

// defaultIdentity is who acts: the given desk and operator, else
// ledger.DefaultIdentity's, the rule the app follows too.
func defaultIdentity(desk, operator string) ledger.Identity {
	return ledger.DefaultIdentity(desk, operator)
}

// who is who acts on l: the desk named, else a counter login's own desk,
// else the host name; the operator named, else $USER.
func (c *cli) who(l *ledger.Ledger, desk, operator string) ledger.Identity {
	if desk == "" {
		desk = l.CounterDesk()
	}
	return ledger.DefaultIdentity(desk, operator)
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
		return errors.New("give a payout limit of 0 or more euros (0 refers every winner to the back office)")
	}
	f.Limit = ledger.LimitOf(n)
	return nil
}

// addLimitFlag defines --limit on fs.
func addLimitFlag(fs *flag.FlagSet, usage string) *limitFlag {
	f := &limitFlag{ledger.NoLimit}
	fs.Var(f, "limit", usage)
	return f
}
