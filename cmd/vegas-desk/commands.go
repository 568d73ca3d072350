package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// The command tree (spf13/cobra): each command's ledger access (access.go),
// its help (what it does, an example; its flags, declared by its own
// function, with their defaults) and its function. A command's function
// declares its flags on a flag set named by its path ("desks add") and
// returns its work: what checks its arguments, and what runs it on the
// ledger the table opens for it.

// rootLong is vegas-desk help's text above the list of commands.
const rootLong = `vegas-desk is the VEGAS ledger. With no command, it opens the desktop app
(on the ledger of --db or VEGAS_DESK_DB, else the one last chosen in the
app's settings); with a command, it works without a window.

--db PATH|URL (or VEGAS_DESK_DB) picks the ledger: a file, or a shared PostgreSQL ledger
(postgres://user@host/db; the password from PGPASSWORD or ~/.pgpass); commands default to
$XDG_DATA_HOME/vegas-desk/ledger.db (Windows: %LOCALAPPDATA%\vegas-desk\ledger.db).
--server https://HOST:PORT --desk-cert FILE (or VEGAS_DESK_SERVER, VEGAS_DESK_CERT): a counter
asks the validation server (vegas-desk serve) as the desk of its desk file, instead of --db
(which refuses an http(s):// address).
--game CODE (default 531) picks the game where a block is named.
--printer QUEUE prints through CUPS (lp -d QUEUE); lpstat -e lists the queues. On Windows
through the spooler: QUEUE is a printer's name as Windows lists it.
Exit status: 0 ok, 1 refused (unknown serial, loser, already claimed, verify mismatch), 2 bad input.`

func init() { cobra.EnableCommandSorting = false } // the help lists them as commands does, by kind

// commands is the command line's tree, on c: each command with the ledger
// access it needs (access.go), its help (what it does, an example) and its
// function, which declares its flags and returns its work.
func (c *cli) commands() *cobra.Command {
	root := c.root()
	leaf := func(parent *cobra.Command, need access, use, short, example string, define func(*pflag.FlagSet) work) *cobra.Command {
		return c.leaf(root, parent, need, use, short, example, define)
	}
	group := func(use, short, example, want string) *cobra.Command { return c.group(root, use, short, example, want) }

	// Blocks and tickets.
	leaf(root, create, "generate", "generate the next block of a game (2,000,000 tickets)",
		"  vegas-desk --db shop.db generate --demo", c.generate)
	leaf(root, read, "blocks", "list the blocks", "  vegas-desk blocks --json", c.blocks)
	leaf(root, read, "lookup SERIAL", "a ticket by serial, and what a claim would answer",
		"  vegas-desk lookup 531-0001-0000042-1554-0477-0488-4562-2 --desk C1", c.lookup)
	leaf(root, record, "check FILE|-", "check one ticket in the interchange format (- for standard input)",
		"  vegas-desk check ticket.json --desk C1", c.check)
	leaf(root, write, "claim SERIAL", "pay a winning ticket (its verdict: PAID, or why not)",
		"  vegas-desk claim 531-0001-0000042-1554-0477-0488-4562-2 --desk C1 --operator anne\n"+
			"  vegas-desk claim SERIAL --winner-mrz - < mrz.txt\n"+
			"  vegas-desk claim SERIAL --winner-name \"Anne Martin\" --winner-doc permis --winner-doc-number 19AZ71864", c.claim)
	leaf(root, write, "void PAYMENT", "void a payment (its number, as claims shows it)",
		"  vegas-desk void 12 --reason \"paid twice by mistake\"", c.void)
	leaf(root, read, "claims", "the payments, filtered; as text, CSV, JSON or a counter's journal (--jsonl)",
		"  vegas-desk claims --since 2025-05-01 --desk C1 --csv > may.csv", c.claims)
	leaf(root, read, "daily", "claims per day and desk, or one counter's day report (--desk --day)",
		"  vegas-desk daily --desk C1 --day 2025-05-01 -o day.pdf", c.daily)
	leaf(root, read, "emission", "show or set the emission's dates",
		"  vegas-desk emission --on-sale 2025-05-01 --end-of-sale 2025-12-31", c.emission)
	leaf(root, read, "attempts", "refused attempts (stolen tickets flagged)", "  vegas-desk attempts --reason stolen", c.attempts)
	leaf(root, read, "referrals", "prizes above a counter's limit, to pay here", "  vegas-desk referrals --json", c.referrals)
	cases := leaf(root, read, "cases", "double payments: a counter's imported payment of a ticket paid already",
		"  vegas-desk cases --all", c.cases)
	leaf(cases, write, "close PAYMENT", "close a double payment by a recorded decision",
		"  vegas-desk cases close 12 --reason \"money recovered from the counter\"", c.closeCase)
	leaf(root, read, "receipt PAYMENT", "a payment's receipt, written or printed (DUPLICATA once printed before)",
		"  vegas-desk receipt 12 -o receipt.pdf", c.receipt)
	leaf(root, read, "settlement", "what a counter and the operator owe each other",
		"  vegas-desk settlement --desk C1 --since 2025-05-01 --until 2025-06-01 -o june.pdf", c.settlement)
	leaf(root, read, "settings", "show or set the back office's settings",
		"  vegas-desk settings --identity-threshold 1500", c.settings)
	leaf(root, record, "print", "demonstration sheets, 4 tickets an A4 page (a real ledger: packs in stock only)",
		"  vegas-desk print --block 1 --packs 0-1 -o sheets.pdf", c.print)
	leaf(root, read, "report", "a block's prizes, claims and liability", "  vegas-desk report --block 1", c.report)
	leaf(root, read, "export", "a block as JSON Lines on the standard output", "  vegas-desk export --block 1 > block1.jsonl", c.export)
	leaf(root, read, "verify", "check every ticket, digest and the journal",
		"  vegas-desk verify --block 1 --head 8f3a…", c.verify)
	leaf(root, none, "catalogue", "the ways to win of a block", "  vegas-desk catalogue", c.catalogue)
	leaf(root, read, "render SERIAL", "draw a ticket as PNG", "  vegas-desk render 531-0001-0000042-1554-0477-0488-4562-2 -o ticket.png", c.render)

	// Packs.
	packs := group("packs", "move packs between the stock and the counters, list them, print their labels",
		"  vegas-desk packs deliver --block 1 --packs 0-9 --desk C1\n  vegas-desk packs list --desk C1",
		"want deliver, receive, activate, settle, return, stolen, destroyed, list or labels")
	packs.Long = packs.Short + `.

PACK is a pack number (0–9999, with --block), a range A-B, or a scanned pack
code GGG-BBBB-PPPP-C (which names its game and block). States: stock,
delivered, received, on-sale, settled, returned, stolen, destroyed.`
	leaf(packs, write, "deliver", "send packs to a counter", "  vegas-desk packs deliver --block 1 --packs 0-9 --desk C1", c.packsMove)
	for _, m := range []struct{ move, short string }{
		{"receive", "a counter received its packs"}, {"activate", "put packs on sale"},
		{"settle", "packs sold out and paid for"}, {"return", "packs back to the stock (--reason)"},
		{"stolen", "packs reported stolen: their tickets are refused"}, {"destroyed", "packs reported destroyed"},
	} {
		leaf(packs, write, m.move+" PACK...", m.short, "  vegas-desk packs "+m.move+" --block 1 3-5 7", c.packsMove)
	}
	leaf(packs, read, "list", "where the packs are", "  vegas-desk packs list --desk C1 --state on-sale", c.packsList)
	leaf(packs, read, "labels", "a label per pack, with its code and barcode (A4 sheets of 3 × 8, or --roll 62 × 29 mm)",
		"  vegas-desk packs labels --block 1 --packs 0-23 -o labels.pdf", c.packsLabels)

	// Desks and ledgers.
	desks := group("desks", "the counters: add, list, disable, enable, unlock, limit; their desk files (cert, revoke)",
		"  vegas-desk desks add C1 --limit 150\n  vegas-desk desks list",
		"want add, cert, revoke, list, disable, enable, unlock or limit")
	leaf(desks, write, "add ID", "add a counter (with serve: --out writes its desk file)",
		"  vegas-desk desks add C1 --limit 150\n  vegas-desk desks add C2 --out C2.desk --dir ./ca\n  vegas-desk desks add --count 30000 --prefix S --out desks --dir ./ca", c.deskCommand((*cli).deskAdd))
	leaf(desks, read, "list", "the counters, their state and certificates (serial, expiry)", "  vegas-desk desks list", c.deskCommand((*cli).deskList))
	leaf(desks, write, "disable ID", "refuse a counter's claims", "  vegas-desk desks disable C1", c.deskCommand((*cli).deskChange))
	leaf(desks, write, "enable ID", "accept a disabled counter's claims again", "  vegas-desk desks enable C1", c.deskCommand((*cli).deskChange))
	leaf(desks, write, "unlock ID", "end a counter's lock-out (after refused attempts)", "  vegas-desk desks unlock C1", c.deskCommand((*cli).deskChange))
	leaf(desks, write, "limit ID EUROS", "set a counter's payout limit", "  vegas-desk desks limit C1 300", c.deskCommand((*cli).deskLimit))
	leaf(desks, write, "cert ID", "a new desk file; its earlier ones revoked unless --keep-old",
		"  vegas-desk desks cert C1 --out C1.desk", c.desksCert)
	leaf(desks, write, "revoke ID", "refuse one of a desk's certificates (a desk file stolen)",
		"  vegas-desk desks revoke C1 --cert C1-old.desk", c.desksRevoke)
	leaf(root, none, "copy FROM TO", "copy a whole ledger (file or postgres:// URL): a new ledger, or with --restore one that replaces the original",
		"  vegas-desk copy shop.db postgres://vegas@db/vegas\n  vegas-desk copy --restore backup/ledger-2025-05-01.db shop.db", c.copyLedger)
	leaf(root, write, "backup", "a verified backup of the ledger, while it serves", "  vegas-desk backup --dir /var/backups/vegas --keep 7", c.backup)
	leaf(root, none, "upgrade", "upgrade a ledger of an earlier vegas-desk in place", "  vegas-desk upgrade --backup-dir /var/backups/vegas", c.upgrade)
	leaf(root, write, "load", "a ledger's capacity test, through vegas-desk serve of --db",
		"  vegas-desk --db demo.db load --server https://localhost:8443 --counters 8 --seconds 30", c.load)

	// The validation server.
	leaf(root, write, "serve", "the validation server counters ask (mTLS); --init makes its authority, --check checks, --install-unit prints a systemd unit",
		"  vegas-desk serve --init --host shop.example,192.168.1.10\n  vegas-desk serve --listen 0.0.0.0:8443 --metrics 127.0.0.1:9100", c.serve)
	root.AddCommand(c.serviceCommand())

	// Counter ledgers, certificates, signatures.
	leaf(root, none, "keygen", "make the back office's signing key (asks a passphrase)", "  vegas-desk keygen -o backoffice.key", c.keygen)
	leaf(root, write, "counter-ledger", "seal blocks into a ledger for one offline counter",
		"  vegas-desk counter-ledger --desk C3 --limit 150 --key-file backoffice.key -o C3.db", c.counterLedger)
	leaf(root, write, "import-claims FILE|-", "record a counter's payments at the back office (its claims --jsonl)",
		"  vegas-desk import-claims C3-journal.jsonl", c.importClaims)
	seed := group("seed", "a block no single party chose: each party's secret and commitment, recorded before the generation",
		"  vegas-desk seed commit --role auditor -o auditor.secret --public auditor.commitment\n  vegas-desk seed record auditor.commitment --key-file backoffice.key",
		"want commit or record")
	leaf(seed, none, "commit", "draw a party's secret (a file kept to yourself) and print its commitment (the file handed over)",
		"  vegas-desk seed commit --role operator -o operator.secret > operator.commitment", c.seedCommit)
	leaf(seed, create, "record FILE", "record a commitment file in the journal, signed, before the generation it draws",
		"  vegas-desk seed record auditor.commitment --key-file backoffice.key", c.seedRecord)
	leaf(root, read, "certificate", "sign a block's certificate", "  vegas-desk certificate --block 1 --key-file backoffice.key -o block1.pdf", c.certificate)
	leaf(root, none, "verify-certificate FILE...", "check certificates, checkpoints or counter ledgers (a drawn block's seed with --reveal)",
		"  vegas-desk verify-certificate block1.pdf --key PUBKEY\n  vegas-desk verify-certificate block2.pdf --key PUBKEY --reveal operator.secret,auditor.secret", c.verifyCertificate)
	leaf(root, write, "checkpoint", "sign the journal head, to keep outside the ledger",
		"  vegas-desk checkpoint --key-file backoffice.key -o head.txt", c.checkpoint)
	return root
}

// root is the command line's root, with the global flags: with no
// command it opens the app.
func (c *cli) root() *cobra.Command {
	root := &cobra.Command{
		Use:           programName(),
		Short:         "the VEGAS ledger: the desktop app, or a command",
		Long:          rootLong,
		Example:       "  vegas-desk --db shop.db claim 531-0001-0000042-1554-0477-0488-4562-2\n  vegas-desk claim --help",
		SilenceErrors: true,
		SilenceUsage:  true,
		RunE: func(*cobra.Command, []string) error {
			if c.server != "" {
				// The app asks the server with the desk file of --desk-cert.
				os.Setenv("VEGAS_DESK_CERT", c.deskCert)
				return openApp(c.server)
			}
			// Without --db or VEGAS_DESK_DB the app reopens the ledger last
			// chosen in its settings, or its own default.
			return openApp(c.db)
		},
	}
	g := root.PersistentFlags()
	g.StringVar(&c.db, "db", c.db, "the ledger: a file or a postgres:// URL (env VEGAS_DESK_DB)")
	g.StringVar(&c.server, "server", c.server, "a validation server's https:// URL, asked instead of --db; several separated by commas: the next when one does not answer (env VEGAS_DESK_SERVER)")
	g.StringVar(&c.deskCert, "desk-cert", c.deskCert, "(--server) the desk file it is asked with (env VEGAS_DESK_CERT)")
	for name, v := range map[string]string{"db": "PATH|URL", "server": "URL", "desk-cert": "FILE"} {
		f := g.Lookup(name)
		f.Value = named{f.Value, v}
	}
	return root
}

// leaf adds to parent (root, or a group of root's) the command use, of
// access need: its function, define, declares its flags on a flag set
// named by its path ("desks add") and returns its work, which perform runs
// on the ledger need opens.
func (c *cli) leaf(root, parent *cobra.Command, need access, use, short, example string, define func(*pflag.FlagSet) work) *cobra.Command {
	cmd := &cobra.Command{Use: use, Short: short, Example: example, Annotations: map[string]string{"access": need.String()}}
	name := cmd.Name()
	if parent != root {
		name = parent.Name() + " " + name
	}
	var w work
	flags := func() {
		fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
		// Visited in the order defined, not sorted (twice a command, at
		// every start): cmd's own set sorts them for the help.
		fs.SortFlags = false
		w = define(fs)
		fs.VisitAll(func(f *pflag.Flag) {
			if f.Name == "o" { // -o FILE, as every command names the file it writes
				f.Name, f.Shorthand = "output", "o"
			}
			if v, ok := valueNames[f.Name]; ok && f.Value.Type() != "bool" {
				f.Value = named{f.Value, v}
			}
		})
		cmd.Flags().AddFlagSet(fs)
		c.completeValues(cmd, name)
	}
	if c.undefined != nil {
		c.undefined[cmd] = flags // defineFor's
	} else {
		flags()
	}
	cmd.RunE = func(_ *cobra.Command, args []string) error { return c.perform(need, w, args) }
	parent.AddCommand(cmd)
	return cmd
}

// group adds to root a command of subcommands only; want says which.
func (c *cli) group(root *cobra.Command, use, short, example, want string) *cobra.Command {
	cmd := &cobra.Command{Use: use, Short: short, Example: example, Args: cobra.ArbitraryArgs,
		// packs sell --block 1: the unknown word is the mistake to name.
		FParseErrWhitelist: cobra.FParseErrWhitelist{UnknownFlags: true},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 && args[0] == "help" {
				return cmd.Help()
			}
			if len(args) == 0 {
				return badInput("%s: %s (see vegas-desk %s --help)", cmd.Name(), c.text(want), cmd.Name())
			}
			return badInput("%s %q: %s (see vegas-desk %s --help)", cmd.Name(), args[0], c.text(want), cmd.Name())
		}}
	root.AddCommand(cmd)
	return cmd
}

// serviceCommand is service (Windows), whose flags are serve's: it parses
// them itself.
func (c *cli) serviceCommand() *cobra.Command {
	return &cobra.Command{Use: "service install [serve's flags] | remove | start | stop",
		Short:   "(Windows) serve as a Windows service",
		Hidden:  !windowsService, // listed only where it can work
		Example: "  vegas-desk --db C:\\vegas\\ledger.db service install --listen 0.0.0.0:8443\n  vegas-desk service start",
		// serve's flags pass through to serve.
		DisableFlagParsing: true,
		Annotations:        map[string]string{"access": none.String()},
		RunE: func(cmd *cobra.Command, args []string) error {
			// The global flags before the command (--db) are not parsed for it.
			gs := pflag.NewFlagSet("vegas-desk", pflag.ContinueOnError)
			gs.AddFlagSet(cmd.InheritedFlags())
			gs.SetInterspersed(false)
			help := gs.BoolP("help", "h", false, "")
			if err := gs.Parse(args); err != nil {
				return badInput("service: %v", err)
			}
			if args = gs.Args(); *help || len(args) > 0 && (args[0] == "--help" || args[0] == "-h") {
				return cmd.Help()
			}
			return c.service(args)
		}}
}

// valueNames name the values of the flags in the help (--desk ID, not
// --desk string), by flag.
var valueNames = map[string]string{
	"operator": "NAME", "desk": "ID", "output": "FILE", "game": "CODE", "passphrase-file": "FILE", "dir": "DIR",
	"reason": "TEXT", "printer": "QUEUE", "block": "N", "since": "DATE", "until": "DATE", "day": "DATE", "packs": "A-B",
	"key": "FILE", "out": "FILE", "cert": "FILE", "backup-dir": "DIR", "winner-name": "NAME", "winner-doc": "TYPE",
	"winner-doc-number": "NUMBER", "winner-mrz": "ZONE", "unit-user": "NAME", "state": "STATE", "server": "URL", "seed": "HEX", "seconds": "S",
	"request": "ID", "receipt": "FILE", "role": "ROLE", "public": "FILE", "commitments": "C1,C2", "reveal": "FILE1,FILE2", "pgpass": "FILE", "on-sale": "DATE", "end-of-sale": "DATE", "deadline": "DATE",
	"metrics": "HOST:PORT", "listen": "HOST:PORT", "method": "serial|contents", "max-conns": "N", "log-format": "text|json",
	"key-file": "FILE", "keep": "N", "identity-threshold": "EUROS", "host": "H,H", "head": "HEX", "counters": "N",
	"commission": "PERCENT", "claim-days": "N", "count": "N", "prefix": "P", "desks": "DIR", "claims": "N", "backup-keep": "N", "backup-every": "DURATION", "limit": "EUROS",
}

// named is a flag's value under the name of valueNames.
type named struct {
	pflag.Value
	name string
}

func (n named) Type() string { return n.name }

// programName is the command's name in its help and its completion
// scripts: vegas-desk, or on Windows vegas-desk-cli for the console build
// (a PowerShell completer is registered by the command's name).
func programName() string {
	if name := strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe"); name == "vegas-desk-cli" {
		return name
	}
	return "vegas-desk"
}

// defineFor defines the flags of the command args name, those of
// c.undefined (runIn's tree): its top command's and those under it. A
// process runs one command, and defining every command's flags at every
// start was a tenth of a lookup's instructions. The root's own (its help,
// an unknown command), help's, completion's, and any asking for help
// (whose flag, which translateHelp adds, changes how Find reads the
// words after it) define them all. It runs before anything merges the
// global flags into a command's (translateHelp does, cobra's Find does):
// a command's own flag of a global flag's name (load's --server) would
// be lost.
func (c *cli) defineFor(root *cobra.Command, args []string) {
	n := 0
	var walk func(*cobra.Command)
	walk = func(x *cobra.Command) {
		if flags, ok := c.undefined[x]; ok {
			flags()
			delete(c.undefined, x)
			n++
		}
		for _, sub := range x.Commands() {
			walk(sub)
		}
	}
	help := slices.ContainsFunc(args, func(a string) bool {
		return a == "-h" || a == "--help" || strings.HasPrefix(a, "-h=") || strings.HasPrefix(a, "--help=")
	})
	if top := topCommand(root, args); top != nil && !help {
		walk(top)
	}
	if n == 0 {
		walk(root)
	}
}

// topCommand is the command of root's that args name first, as cobra's
// Find reads them at the root (its stripFlags: a flag not known to take no
// value takes the next argument), but without Find's side effect: it
// merges the global flags into the command it finds (defineFor). Nil:
// none.
func topCommand(root *cobra.Command, args []string) *cobra.Command {
	noValue := func(f *pflag.Flag) bool { return f != nil && f.NoOptDefVal != "" }
	long := func(name string) *pflag.Flag {
		if f := root.Flags().Lookup(name); f != nil {
			return f
		}
		return root.PersistentFlags().Lookup(name)
	}
	short := func(name string) *pflag.Flag {
		if f := root.Flags().ShorthandLookup(name[:1]); f != nil {
			return f
		}
		return root.PersistentFlags().ShorthandLookup(name[:1])
	}
	for len(args) > 0 {
		s := args[0]
		args = args[1:]
		switch {
		case s == "--":
			return nil
		case strings.HasPrefix(s, "--") && !strings.Contains(s, "=") && !noValue(long(s[2:])):
			fallthrough
		case strings.HasPrefix(s, "-") && !strings.Contains(s, "=") && len(s) == 2 && !noValue(short(s[1:])):
			if len(args) <= 1 {
				return nil
			}
			args = args[1:]
		case s != "" && !strings.HasPrefix(s, "-"):
			for _, cmd := range root.Commands() {
				if cmd.Name() == s || cmd.HasAlias(s) {
					return cmd
				}
			}
			return nil
		}
	}
	return nil
}

// helpPath is the command args name, as its help is asked ("desks add "),
// or "" for the root's.
func helpPath(root *cobra.Command, args []string) string {
	cmd, _, err := root.Find(args)
	if err != nil || cmd == root {
		return ""
	}
	return strings.TrimPrefix(cmd.CommandPath(), root.Name()+" ") + " "
}
