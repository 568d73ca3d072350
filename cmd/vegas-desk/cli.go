package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"os/user"
	"slices"
	"strconv"
	"strings"
	"time"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger"
)

const usage = `usage: vegas-desk [--db PATH] [COMMAND [ARGS]]

With no command, opens the desktop app (on the ledger of --db or VEGAS_DESK_DB,
else the one last chosen in the app's settings).

  generate [--seed HEX] [--game CODE] [--json]   generate the next block of a game
  blocks [--json]                                list the blocks
  lookup SERIAL [--json]                         a ticket by serial
  check [--json] FILE|-                          check one ticket in the interchange format
  claim SERIAL [--desk ID] [--operator NAME] [--method serial|contents] [--json]
  void CLAIM-ID --reason TEXT [--operator NAME]  void a claim
  claims [--block N] [--since DATE] [--until DATE] [--desk ID] [--csv|--json]
  daily [--since DATE] [--until DATE] [--desk ID] [--json]   claims per day and desk
  report --block N [--json]                      a block's prizes, claims and liability
  export --block N                               a block as JSON Lines on stdout
  verify [--block N] [--json]                    check every ticket, digest and the journal
  catalogue                                      the ways to win of a block
  render SERIAL -o FILE                          draw a ticket as PNG

--game CODE (default 531) picks the game where a block is named.
--db PATH (or VEGAS_DESK_DB) picks the ledger; commands default to $XDG_DATA_HOME/vegas-desk/ledger.db.
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
	ctx            context.Context
}

// run executes one command line and returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := &cli{stdin: stdin, stdout: stdout, stderr: stderr, db: os.Getenv("VEGAS_DESK_DB")}
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
		case "h", "help":
			fmt.Fprint(stdout, usage)
			return exitOK
		default:
			return c.fail(badInput("unknown option %s before the command\n%s", args[0], usage))
		}
		args = args[1:]
	}
	if len(args) == 0 {
		// Without --db or VEGAS_DESK_DB the app reopens the ledger last
		// chosen in its settings, or its own default.
		return c.fail(openApp(c.db))
	}
	cmds := map[string]func([]string) error{
		"generate": c.generate, "blocks": c.blocks, "lookup": c.lookup, "check": c.check,
		"claim": c.claim, "void": c.void, "claims": c.claims, "daily": c.daily, "report": c.report,
		"export": c.export, "verify": c.verify, "catalogue": c.catalogue, "render": c.render,
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
	fmt.Fprintln(c.stderr, "vegas-desk:", err)
	var ue usageError
	switch {
	case errors.As(err, &ue), errors.Is(err, game.ErrCheckDigit), errors.Is(err, game.ErrSerialFormat),
		errors.Is(err, ledger.ErrNotFound): // a typed block, game or claim that does not exist
		return exitUsage
	}
	return exitRefused
}

func (c *cli) dbPath() string {
	if c.db != "" {
		return c.db
	}
	return ledger.DefaultPath()
}

// open opens the ledger read-write, or read-only when the file cannot be
// written (a read-only ledger still answers lookups and checks).
func (c *cli) open(write bool) (*ledger.Ledger, error) {
	l, err := ledger.Open(c.dbPath())
	if err == nil || write || errors.Is(err, ledger.ErrNotLedger) || errors.Is(err, ledger.ErrTooNew) {
		return l, err
	}
	if _, serr := os.Stat(c.dbPath()); serr != nil {
		return nil, err
	}
	return ledger.OpenReadOnly(c.dbPath())
}

// sameContents compares two tickets as a check reads them: the duel's cards
// in any order.
func sameContents(a, b game.Ticket) bool {
	slices.Sort(a.Duel.Cards[:])
	slices.Sort(b.Duel.Cards[:])
	return a == b
}

// read opens the ledger for a command that only reads: read-only (a third
// of the cost of a read-write open and its close, and a read-only file
// still answers), or read-write when it must be migrated first. A missing
// file is an error: a mistyped --db must not answer from a new empty ledger.
func (c *cli) read() (*ledger.Ledger, error) {
	if _, err := os.Stat(c.dbPath()); err != nil {
		return nil, badInput("no ledger at %s: check --db (or VEGAS_DESK_DB), or make one with vegas-desk generate", c.dbPath())
	}
	l, err := ledger.OpenReadOnly(c.dbPath())
	if err != nil && !errors.Is(err, ledger.ErrNotLedger) && !errors.Is(err, ledger.ErrTooNew) {
		return c.open(false)
	}
	return l, err
}

// lookupSerial looks a serial up on l, opened by read. A refused lookup is
// recorded: it is made again on the ledger opened read-write, when it can be.
func (c *cli) lookupSerial(l *ledger.Ledger, serial string, who ledger.Identity) (ledger.Ticket, error) {
	t, err := l.Lookup(c.ctx, serial, who)
	if !errors.Is(err, ledger.ErrUnknownSerial) || !l.ReadOnly() {
		return t, err
	}
	w, werr := ledger.Open(c.dbPath())
	if werr != nil {
		return t, err // a read-only file: nothing can be recorded
	}
	defer w.Close()
	if t2, err2 := w.Lookup(c.ctx, serial, who); !errors.Is(err2, ledger.ErrUnknownSerial) {
		return t2, err2 // it became known in between
	}
	return t, err // recorded, or the file refused the write: the answer stands
}

// flags parses a command's flags wherever they are among its positional
// arguments and returns the positional ones. --db is accepted everywhere.
func (c *cli) flags(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	fs.StringVar(&c.db, "db", c.db, "ledger file")
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, badInput("%s: %v (see vegas-desk help)", fs.Name(), err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
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

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func defaultIdentity(desk, operator string) ledger.Identity {
	if desk == "" {
		desk, _ = os.Hostname()
	}
	if operator == "" {
		operator = os.Getenv("USER")
	}
	if operator == "" {
		if u, err := user.Current(); err == nil {
			operator = u.Username
		}
	}
	return ledger.Identity{Desk: desk, Operator: operator}
}

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

// ---- generate, blocks

func (c *cli) generate(args []string) error {
	fs := flag.NewFlagSet("generate", flag.ContinueOnError)
	seedHex := fs.String("seed", "", "64 hex digits (default: a random seed)")
	code := fs.Int("game", defaultGame, "game code")
	asJSON := fs.Bool("json", false, "JSON output")
	if _, err := c.positional(fs, args, 0, "no argument"); err != nil {
		return err
	}
	var seed game.Seed
	if *seedHex != "" {
		b, err := hex.DecodeString(*seedHex)
		if err != nil || len(b) != len(seed) {
			return badInput("--seed %q: want %d hex digits", *seedHex, 2*len(seed))
		}
		copy(seed[:], b)
	} else {
		var err error
		if seed, err = game.NewSeed(); err != nil {
			return err
		}
	}
	l, err := c.open(true)
	if err != nil {
		return err
	}
	defer l.Close()
	var progress func(done, total int)
	if f, ok := c.stderr.(*os.File); ok && isTerminal(f) {
		progress = func(done, total int) {
			if done%(50*game.ChunkSize) == 0 || done == total {
				fmt.Fprintf(c.stderr, "\rgenerating: %3d %%", done*100/total)
			}
			if done == total {
				fmt.Fprintln(c.stderr)
			}
		}
	}
	t0 := time.Now()
	b, err := l.Generate(c.ctx, *code, seed, progress)
	if err != nil {
		return err
	}
	secs := time.Since(t0).Seconds()
	if *asJSON {
		return c.json(map[string]any{"game": b.Game, "block": b.Number, "tickets": b.Tickets,
			"winners": b.Winners, "payout": b.Payout, "digest": b.Digest, "seconds": secs})
	}
	fmt.Fprintf(c.stdout, "block %s: %s tickets, %s winners, %s € of prizes\ndigest %s\n%.2f s\n",
		b.Name(), game.GroupDigits(b.Tickets), game.GroupDigits(b.Winners), game.GroupDigits(b.Payout), b.Digest, secs)
	return nil
}

func blockJSON(b ledger.Block) map[string]any {
	return map[string]any{"game": b.Game, "block": b.Number, "tickets": b.Tickets, "winners": b.Winners,
		"payout": b.Payout, "pack_size": b.PackSize, "digest": b.Digest, "created_at": b.CreatedAt}
}

func (c *cli) blocks(args []string) error {
	fs := flag.NewFlagSet("blocks", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "JSON output")
	if _, err := c.positional(fs, args, 0, "no argument"); err != nil {
		return err
	}
	l, err := c.read()
	if err != nil {
		return err
	}
	defer l.Close()
	bs, err := l.Blocks(c.ctx)
	if err != nil {
		return err
	}
	if *asJSON {
		out := []map[string]any{}
		for _, b := range bs {
			out = append(out, blockJSON(b))
		}
		return c.json(out)
	}
	for _, b := range bs {
		fmt.Fprintf(c.stdout, "%-9s %s tickets  %s winners  %s €  %s  %s\n", b.Name(), game.GroupDigits(b.Tickets),
			game.GroupDigits(b.Winners), game.GroupDigits(b.Payout), b.CreatedAt.Local().Format("2006-01-02 15:04"), b.Digest)
	}
	if len(bs) == 0 {
		fmt.Fprintln(c.stdout, "no blocks yet: vegas-desk generate")
	}
	return nil
}

// ---- lookup, check, claim, void, claims

func claimJSON(cl *ledger.Claim) any {
	if cl == nil {
		return nil
	}
	m := map[string]any{"id": cl.ID, "serial": cl.Serial, "game": cl.Game, "block": cl.Block, "position": cl.Position,
		"amount": cl.Amount, "desk": cl.Desk, "operator": cl.Operator, "method": cl.Method, "at": cl.At, "voided": cl.Voided}
	if cl.Voided {
		m["void_reason"], m["voided_by"], m["voided_at"] = cl.VoidReason, cl.VoidedBy, cl.VoidedAt
	}
	return m
}

func ticketJSON(t ledger.Ticket) map[string]any {
	return map[string]any{"serial": t.Serial.String(), "game": t.Block.Game, "block": t.Block.Number, "pack": t.Pack,
		"position": t.Position, "prize": t.Prize, "status": t.Status.String(), "ticket": game.NewDoc(&t.Ticket),
		"claim": claimJSON(t.Claim)}
}

func describeClaim(cl *ledger.Claim) string {
	return fmt.Sprintf("claim %d: %s € paid %s at desk %q by %q (%s)", cl.ID, game.GroupDigits(cl.Amount),
		cl.At.Local().Format("2006-01-02 15:04:05"), cl.Desk, cl.Operator, cl.Method)
}

func (c *cli) lookup(args []string) error {
	fs := flag.NewFlagSet("lookup", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "JSON output")
	desk := fs.String("desk", "", "desk (recorded with a refused lookup)")
	operator := fs.String("operator", "", "operator")
	pos, err := c.positional(fs, args, 1, "one SERIAL")
	if err != nil {
		return err
	}
	if _, err := game.ParseSerial(pos[0]); err != nil {
		return fmt.Errorf("serial %q: %w: type the 21 digits printed under the scratch layer", pos[0], err)
	}
	l, err := c.read()
	if err != nil {
		return err
	}
	defer l.Close()
	t, err := c.lookupSerial(l, pos[0], defaultIdentity(*desk, *operator))
	if err != nil {
		return err
	}
	if *asJSON {
		return c.json(ticketJSON(t))
	}
	fmt.Fprintf(c.stdout, "serial   %s\nblock    %s  pack %d  position %d\nprize    %s\nstatus   %s\n",
		t.Serial, t.Block.Name(), t.Pack, t.Position, game.FormatAmount(t.Prize), t.Status)
	if t.Claim != nil {
		fmt.Fprintln(c.stdout, describeClaim(t.Claim))
	}
	doc, _ := json.Marshal(game.NewDoc(&t.Ticket))
	fmt.Fprintf(c.stdout, "ticket   %s\n", doc)
	return nil
}

func (c *cli) check(args []string) error {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "JSON output")
	pos, err := c.positional(fs, args, 1, "one FILE, or - for standard input")
	if err != nil {
		return err
	}
	var data []byte
	if pos[0] == "-" {
		data, err = io.ReadAll(c.stdin)
	} else {
		data, err = os.ReadFile(pos[0])
	}
	if err != nil {
		return badInput("check: %v", err)
	}
	in, err := game.ParseDoc(data)
	if err != nil {
		var es game.Errors
		if errors.As(err, &es) {
			fmt.Fprintf(c.stderr, "vegas-desk: check: %d fault(s) in the ticket's contents:\n", len(es))
			for _, e := range es {
				fmt.Fprintln(c.stderr, e.Error())
			}
			return usageError{"check: fix the contents above and check again"}
		}
		return badInput("check: %v", err)
	}
	v := game.Check(&in.Ticket, in.Prize)
	// The ledger, when there is one, says which ticket shows these contents:
	// winning contents it does not hold, or a serial that is another
	// ticket's, are not a genuine ticket of this ledger.
	var found *ledger.Ticket
	if _, serr := os.Stat(c.dbPath()); serr == nil && (v.Genuine || in.Serial != "") {
		l, err := c.read()
		if err != nil {
			return err
		}
		defer l.Close()
		var t ledger.Ticket
		err = ledger.ErrNotFound
		if v.Prize > 0 && v.Genuine {
			t, err = l.FindByContents(c.ctx, &in.Ticket)
		}
		if errors.Is(err, ledger.ErrNotFound) && in.Serial != "" {
			t, err = c.lookupSerial(l, in.Serial, defaultIdentity("", ""))
			if err == nil && !sameContents(t.Ticket, in.Ticket) {
				v.Genuine = false
				v.Reasons = append(v.Reasons, fmt.Sprintf("the ledger's ticket %s shows other contents", t.Serial))
			}
		}
		switch {
		case err == nil:
			found = &t
			if s, perr := game.ParseSerial(in.Serial); in.Serial != "" && (perr != nil || s != t.Serial) {
				v.Genuine = false
				v.Reasons = append(v.Reasons, fmt.Sprintf("the given serial %s is not the serial of the ledger's ticket with these contents (%s)", in.Serial, t.Serial))
			}
		case errors.Is(err, ledger.ErrNotFound) || errors.Is(err, ledger.ErrUnknownSerial):
			if v.Prize > 0 || in.Serial != "" {
				v.Genuine = false
				v.Reasons = append(v.Reasons, "no ticket of the ledger shows these contents")
			}
		default:
			return err
		}
	}
	out := map[string]any{"prize": v.Prize, "genuine": v.Genuine, "reasons": v.Reasons}
	if v.Reasons == nil {
		out["reasons"] = []string{}
	}
	wins := []map[string]any{}
	for _, w := range v.Wins {
		wins = append(wins, map[string]any{"surface": w.Surface.String(), "zone": w.Zone(), "amount": w.Amount})
	}
	out["wins"] = wins
	if found != nil {
		out["serial"], out["status"] = found.Serial.String(), found.Status.String()
	}
	if *asJSON {
		return c.json(out)
	}
	fmt.Fprintf(c.stdout, "prize    %s\ngenuine  %v\n", game.FormatAmount(v.Prize), v.Genuine)
	for _, w := range v.Wins {
		fmt.Fprintf(c.stdout, "wins     %-8s %-18s %s\n", w.Surface, w.Zone(), game.FormatAmount(w.Amount))
	}
	if found != nil {
		fmt.Fprintf(c.stdout, "serial   %s\nstatus   %s\n", found.Serial, found.Status)
	}
	for _, r := range out["reasons"].([]string) {
		fmt.Fprintf(c.stdout, "reason   %s\n", r)
	}
	return nil
}

func (c *cli) claim(args []string) error {
	fs := flag.NewFlagSet("claim", flag.ContinueOnError)
	desk := fs.String("desk", "", "desk ID (default: the host name)")
	operator := fs.String("operator", "", "operator name (default: $USER)")
	method := fs.String("method", ledger.MethodSerial, "how the ticket was identified: serial or contents")
	asJSON := fs.Bool("json", false, "JSON output")
	pos, err := c.positional(fs, args, 1, "one SERIAL")
	if err != nil {
		return err
	}
	if _, err := game.ParseSerial(pos[0]); err != nil {
		return fmt.Errorf("serial %q: %w: type the 21 digits printed under the scratch layer", pos[0], err)
	}
	if *method != ledger.MethodSerial && *method != ledger.MethodContents {
		return badInput("--method %q: want serial or contents", *method)
	}
	l, err := c.open(true)
	if err != nil {
		return err
	}
	defer l.Close()
	cl, err := l.Claim(c.ctx, pos[0], *method, defaultIdentity(*desk, *operator))
	if err != nil {
		return err
	}
	if *asJSON {
		return c.json(claimJSON(&cl))
	}
	fmt.Fprintf(c.stdout, "PAY %s\n%s\n", game.FormatAmount(cl.Amount), describeClaim(&cl))
	return nil
}

func (c *cli) void(args []string) error {
	fs := flag.NewFlagSet("void", flag.ContinueOnError)
	reason := fs.String("reason", "", "why the claim is voided (required)")
	desk := fs.String("desk", "", "desk ID")
	operator := fs.String("operator", "", "operator name")
	asJSON := fs.Bool("json", false, "JSON output")
	pos, err := c.positional(fs, args, 1, "one CLAIM-ID")
	if err != nil {
		return err
	}
	id, err := strconv.ParseInt(pos[0], 10, 64)
	if err != nil || id <= 0 {
		return badInput("void: claim id %q: want the number the claims command shows", pos[0])
	}
	if strings.TrimSpace(*reason) == "" {
		return badInput("void: --reason is required: say why the claim is voided")
	}
	l, err := c.open(true)
	if err != nil {
		return err
	}
	defer l.Close()
	cl, err := l.Void(c.ctx, id, *reason, defaultIdentity(*desk, *operator))
	if err != nil {
		return err
	}
	if *asJSON {
		return c.json(claimJSON(&cl))
	}
	fmt.Fprintf(c.stdout, "claim %d voided: %s\n", cl.ID, cl.VoidReason)
	return nil
}

func (c *cli) claimFilter(fs *flag.FlagSet) func() (ledger.ClaimFilter, error) {
	code := fs.Int("game", 0, "game code (default: all)")
	block := fs.Int("block", 0, "block number (default: all)")
	since := fs.String("since", "", "from this date (local time)")
	until := fs.String("until", "", "before this date")
	desk := fs.String("desk", "", "this desk only")
	return func() (ledger.ClaimFilter, error) {
		f := ledger.ClaimFilter{Game: *code, Block: *block, Desk: *desk}
		if f.Block != 0 && f.Game == 0 {
			f.Game = defaultGame
		}
		var err error
		if f.Since, err = parseDate("since", *since); err != nil {
			return f, err
		}
		f.Until, err = parseDate("until", *until)
		return f, err
	}
}

func (c *cli) claims(args []string) error {
	fs := flag.NewFlagSet("claims", flag.ContinueOnError)
	filter := c.claimFilter(fs)
	asCSV := fs.Bool("csv", false, "CSV output")
	asJSON := fs.Bool("json", false, "JSON output")
	if _, err := c.positional(fs, args, 0, "no argument"); err != nil {
		return err
	}
	if *asCSV && *asJSON {
		return badInput("claims: choose --csv or --json")
	}
	f, err := filter()
	if err != nil {
		return err
	}
	l, err := c.read()
	if err != nil {
		return err
	}
	defer l.Close()
	cs, err := l.Claims(c.ctx, f)
	if err != nil {
		return err
	}
	switch {
	case *asJSON:
		out := []any{}
		for i := range cs {
			out = append(out, claimJSON(&cs[i]))
		}
		return c.json(out)
	case *asCSV:
		return ledger.WriteCSV(c.stdout, cs)
	}
	for _, cl := range cs {
		line := describeClaim(&cl) + "  " + cl.Serial
		if cl.Voided {
			line += fmt.Sprintf("  VOIDED by %q: %s", cl.VoidedBy, cl.VoidReason)
		}
		fmt.Fprintln(c.stdout, line)
	}
	return nil
}

func (c *cli) daily(args []string) error {
	fs := flag.NewFlagSet("daily", flag.ContinueOnError)
	filter := c.claimFilter(fs)
	asJSON := fs.Bool("json", false, "JSON output")
	if _, err := c.positional(fs, args, 0, "no argument"); err != nil {
		return err
	}
	f, err := filter()
	if err != nil {
		return err
	}
	l, err := c.read()
	if err != nil {
		return err
	}
	defer l.Close()
	ds, err := l.DailyReport(c.ctx, f)
	if err != nil {
		return err
	}
	if *asJSON {
		out := []any{}
		for _, d := range ds {
			out = append(out, map[string]any{"day": d.Day, "desk": d.Desk, "count": d.Count, "sum": d.Sum})
		}
		return c.json(out)
	}
	for _, d := range ds {
		fmt.Fprintf(c.stdout, "%s  %-16s %6d claims  %12s €\n", d.Day, d.Desk, d.Count, game.GroupDigits(d.Sum))
	}
	return nil
}

// ---- report, export, verify, catalogue, render

func blockFlags(fs *flag.FlagSet) (*int, *int) {
	return fs.Int("game", defaultGame, "game code"), fs.Int("block", 0, "block number")
}

func (c *cli) report(args []string) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	code, block := blockFlags(fs)
	asJSON := fs.Bool("json", false, "JSON output")
	if _, err := c.positional(fs, args, 0, "no argument"); err != nil {
		return err
	}
	if *block <= 0 {
		return badInput("report: --block N is required (see vegas-desk blocks)")
	}
	l, err := c.read()
	if err != nil {
		return err
	}
	defer l.Close()
	r, err := l.Report(c.ctx, *code, *block)
	if err != nil {
		return err
	}
	line := func(t ledger.TierLine) map[string]any {
		return map[string]any{"prize": t.Prize, "table": t.Table, "generated": t.Generated, "claimed": t.Claimed,
			"claimed_sum": t.ClaimedSum, "outstanding": t.Outstanding, "liability": t.Liability}
	}
	if *asJSON {
		tiers := []any{}
		for _, t := range r.Tiers {
			tiers = append(tiers, line(t))
		}
		return c.json(map[string]any{"block": blockJSON(r.Block), "tiers": tiers, "total": line(r.Total)})
	}
	fmt.Fprintf(c.stdout, "block %s  digest %s\n%10s %9s %10s %9s %12s %12s %14s\n", r.Block.Name(), r.Block.Digest,
		"prize €", "table", "generated", "claimed", "claimed €", "outstanding", "liability €")
	for _, t := range append(r.Tiers, r.Total) {
		p := game.GroupDigits(t.Prize)
		if t == r.Total {
			p = "total"
		}
		fmt.Fprintf(c.stdout, "%10s %9s %10s %9s %12s %12s %14s\n", p, game.GroupDigits(t.Table), game.GroupDigits(t.Generated),
			game.GroupDigits(t.Claimed), game.GroupDigits(t.ClaimedSum), game.GroupDigits(t.Outstanding), game.GroupDigits(t.Liability))
	}
	return nil
}

func (c *cli) export(args []string) error {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	code, block := blockFlags(fs)
	if _, err := c.positional(fs, args, 0, "no argument"); err != nil {
		return err
	}
	if *block <= 0 {
		return badInput("export: --block N is required (see vegas-desk blocks)")
	}
	l, err := c.read()
	if err != nil {
		return err
	}
	defer l.Close()
	return l.Export(c.ctx, *code, *block, c.stdout, nil)
}

func (c *cli) verify(args []string) error {
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	code, block := blockFlags(fs)
	asJSON := fs.Bool("json", false, "JSON output")
	if _, err := c.positional(fs, args, 0, "no argument"); err != nil {
		return err
	}
	l, err := c.read()
	if err != nil {
		return err
	}
	defer l.Close()
	g := *code
	if *block == 0 && !flagSet(fs, "game") {
		g = 0
	}
	r, err := l.Verify(c.ctx, g, *block, nil)
	if err != nil {
		return err
	}
	if *asJSON {
		probs := []any{}
		for _, p := range r.Problems {
			probs = append(probs, map[string]any{"where": p.Where, "what": p.What})
		}
		if err := c.json(map[string]any{"ok": r.OK(), "blocks": r.Blocks, "tickets": r.Tickets, "entries": r.Entries, "head": r.Head, "problems": probs}); err != nil {
			return err
		}
	} else {
		for _, p := range r.Problems {
			fmt.Fprintln(c.stdout, p)
		}
		status := "OK"
		if !r.OK() {
			status = fmt.Sprintf("%d PROBLEM(S)", len(r.Problems))
		}
		fmt.Fprintf(c.stdout, "%s: %d block(s), %s tickets, %d journal entries\n", status, r.Blocks, game.GroupDigits(r.Tickets), r.Entries)
		if r.Head != "" {
			fmt.Fprintf(c.stdout, "journal head %s (keep it outside the file: the next verify must show it or a later entry)\n", r.Head)
		}
	}
	if !r.OK() {
		fmt.Fprintf(c.stderr, "vegas-desk: verify: %d problem(s): the ledger does not match its records\n", len(r.Problems))
		return errRefused
	}
	return nil
}

func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

func (c *cli) catalogue(args []string) error {
	fs := flag.NewFlagSet("catalogue", flag.ContinueOnError)
	if _, err := c.positional(fs, args, 0, "no argument"); err != nil {
		return err
	}
	fmt.Fprint(c.stdout, game.CatalogueText())
	return nil
}

func (c *cli) render(args []string) error {
	fs := flag.NewFlagSet("render", flag.ContinueOnError)
	out := fs.String("o", "", "PNG file to write")
	pos, err := c.positional(fs, args, 1, "one SERIAL")
	if err != nil {
		return err
	}
	if *out == "" {
		return badInput("render: -o FILE is required")
	}
	l, err := c.read()
	if err != nil {
		return err
	}
	defer l.Close()
	t, err := c.lookupSerial(l, pos[0], defaultIdentity("", ""))
	if err != nil {
		return err
	}
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	if err := renderPNG(f, t); err != nil {
		f.Close()
		os.Remove(*out)
		return err
	}
	return f.Close()
}
