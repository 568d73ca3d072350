package main

import (
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"golang.org/x/text/message/catalog"

	"vegas-desk/internal/ledger/ledgertest"
)

// text writes what golang.org/x/text/message's printer wrote from a
// catalogue of the French (the command line's before its catalogue was
// made on first use, without the printer): every text of the catalogue and
// of the command tree, in both languages.
func TestTextAsPrinter(t *testing.T) {
	b := catalog.NewBuilder()
	for en, fr := range frenchMessages() {
		if err := b.SetString(language.French, en, fr); err != nil {
			t.Fatalf("%q: %v", en, err)
		}
	}
	texts := map[string]bool{"": true, "not in the catalogue, 100 %": true}
	for key := range frenchMessages() {
		if !strings.Contains(strings.ReplaceAll(key, "%%", ""), "%") {
			texts[strings.ReplaceAll(key, "%%", "%")] = true
		}
	}
	root := (&cli{}).commands()
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	for _, cmd := range append(root.Commands(), root) {
		texts[cmd.Short], texts[cmd.Long] = true, true
		for _, sub := range cmd.Commands() {
			texts[sub.Short], texts[sub.Long] = true, true
		}
	}
	n, percent := 0, false
	for _, tag := range []language.Tag{language.English, language.French} {
		p := message.NewPrinter(tag, message.Catalog(b))
		c := &cli{lang: tag}
		for s := range texts {
			want := s
			if s != "" {
				want = p.Sprintf(strings.ReplaceAll(s, "%", "%%"))
			}
			if got := c.text(s); got != want {
				t.Errorf("%v: text(%q) = %q, the printer wrote %q", tag, s, got, want)
			}
			if tag == language.French && want != s {
				n++
				percent = percent || strings.Contains(want, "%")
			}
		}
	}
	if n < 250 || !percent {
		t.Errorf("%d texts translated (a %% among them: %v), want the catalogue's hundreds and a %%", n, percent)
	}
}

// Every rewrite of another's message compiles (they are compiled when a
// French process first needs one).
func TestRewritesCompile(t *testing.T) {
	var all []*lazyRegexp
	for _, rs := range [][]rewrite{cobraErrors, serialErrors, flagWords, reasonWords, packCodeWords, ledgerWords} {
		for _, r := range rs {
			all = append(all, r.re)
		}
	}
	for _, x := range packMoveWords {
		all = append(all, x.re)
	}
	if len(all) < 56 {
		t.Errorf("%d rewrites, want the 56 of issue 38 at least", len(all))
	}
	for _, r := range all {
		func() {
			defer func() {
				if err := recover(); err != nil {
					t.Errorf("%q: %v", r.src, err)
				}
			}()
			r.get()
		}()
	}
}

// What a command's process does before main: each package's
// initialisation as GODEBUG=inittrace=1 reports it for lookup --help of
// the command-line build (make cli), whatever the command (init runs
// before it is read). Its allocations and bytes are the measure, the same
// at every run where its times are not: a package whose init allocates
// more than initAllocs or initBytes is work done for every ticket looked
// up (the French catalogue was 11,065 allocations, confusables' table
// 218 KB), to be done when first needed (sync.OnceValue) or in the command
// that needs it. The exceptions are libraries' own, unavoidable once
// linked, each bounded. vegas-desk's own packages are held tighter
// (ownAllocs, ownBytes): a regular expression compiled, a map of the
// French made or the host's name asked at init was a few dozen
// allocations each, below the libraries' bound, in every process
// (main's maps and regexp, the server's log patterns, the printer's: 200
// allocations and 60 KB before main, issue 38).
func TestStartupInits(t *testing.T) {
	const initAllocs, initBytes, totalAllocs = 150, 64 << 10, 1500
	const ownAllocs, ownBytes = 30, 8 << 10
	exceptions := map[string]struct{ allocs, bytes int }{
		// go-pdf/fpdf's templates: the standard library's gob registers its
		// types at init.
		"encoding/gob": {400, 32 << 10},
		// The game's catalogue of ways to win (game.Catalogue), the ticket's
		// own definition, which a lookup reads.
		"vegas-desk/internal/game": {120, 8 << 10},
	}
	// What only serve needed and initialised in every process: Prometheus's
	// Go client (its default registry's collectors, procfs's regular
	// expressions, protobuf's descriptors; 1,650 allocations, a fifth of a
	// lookup's instructions). serve writes its metrics itself
	// (internal/server/exposition.go).
	banned := []string{"github.com/prometheus/", "google.golang.org/protobuf/"}
	bin := build(t, "0", "nogui")
	cmd := exec.Command(bin, "lookup", "--help")
	cmd.Env = append(withoutLocale(os.Environ()), "LANG=fr_FR.UTF-8", "GODEBUG=inittrace=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if out, err := cmd.Output(); err != nil || !strings.Contains(string(out), "lookup") {
		t.Fatalf("lookup --help: %v\n%s%s", err, out, stderr.String())
	}
	lines := regexp.MustCompile(`(?m)^init (\S+) @\S+ ms, \S+ ms clock, (\d+) bytes, (\d+) allocs$`).FindAllStringSubmatch(stderr.String(), -1)
	if len(lines) < 50 {
		t.Fatalf("%d packages' inits traced, want them all:\n%s", len(lines), stderr.String())
	}
	total := 0
	for _, l := range lines {
		pkg := l[1]
		bytes, _ := strconv.Atoi(l[2])
		allocs, _ := strconv.Atoi(l[3])
		total += allocs
		for _, b := range banned {
			if strings.HasPrefix(pkg, b) {
				t.Errorf("init %s: linked into every command (%d allocations at start)", pkg, allocs)
			}
		}
		maxAllocs, maxBytes := initAllocs, initBytes
		if pkg == "main" || strings.HasPrefix(pkg, "vegas-desk/") {
			maxAllocs, maxBytes = ownAllocs, ownBytes
		}
		if e, ok := exceptions[pkg]; ok {
			maxAllocs, maxBytes = e.allocs, e.bytes
		}
		if allocs > maxAllocs || bytes > maxBytes {
			t.Errorf("init %s: %d allocations, %d bytes (at most %d, %d): every command pays for it before main; make it when first needed (sync.OnceValue), or in the command that needs it",
				pkg, allocs, bytes, maxAllocs, maxBytes)
		}
	}
	if total > totalAllocs {
		t.Errorf("the inits allocate %d times before main, at most %d", total, totalAllocs)
	}
	t.Logf("%d packages initialised, %d allocations", len(lines), total)
}

// A command's process defines its command's flags (and those of the
// commands under it) and no other's; help, completion and the root's
// define them all; a command's own flag of a global flag's name stays its
// own (load --server measures a server, --server of the others asks one).
func TestOneCommandsFlags(t *testing.T) {
	all := len(func() map[*cobra.Command]func() {
		c := &cli{undefined: map[*cobra.Command]func(){}}
		c.commands()
		return c.undefined
	}())
	for _, tc := range []struct {
		args    []string
		command string // the command found, its flags defined
		flag    string
		left    int // commands left undefined
	}{
		{[]string{"--db", "x.db", "lookup", "531-0001-0000000-0368-7420-6776-3886-1"}, "lookup", "desk", all - 1},
		{[]string{"--db=x.db", "claim", "--desk", "C1", "S"}, "claim", "operator", all - 1},
		{[]string{"load", "--server", "https://localhost:8443"}, "load", "counters", all - 1},
		{[]string{"desks", "add", "C1"}, "desks add", "limit", all - 8},
		{[]string{"cases", "--all", "close", "12"}, "cases", "all", all - 2},
		{[]string{"--help", "lookup"}, "lookup", "desk", 0},
		{[]string{"lookup", "-h"}, "lookup", "desk", 0},
		{[]string{"help", "claim"}, "claim", "operator", 0},
		{[]string{"__complete", "claim", "--"}, "claim", "operator", 0},
		{[]string{"--db", "lookup"}, "lookup", "desk", 0},
		{[]string{"bogus"}, "lookup", "desk", 0},
		{nil, "lookup", "desk", 0},
	} {
		c := &cli{undefined: map[*cobra.Command]func(){}}
		root := c.commands()
		c.defineFor(root, tc.args)
		cmd, _, err := root.Find(strings.Fields(tc.command))
		if err != nil {
			t.Fatal(err)
		}
		if cmd.Flags().Lookup(tc.flag) == nil || len(c.undefined) != tc.left {
			t.Errorf("%q: %s --%s defined: %v; %d commands left undefined, want %d", tc.args, tc.command, tc.flag,
				cmd.Flags().Lookup(tc.flag) != nil, len(c.undefined), tc.left)
		}
	}
	c := &cli{undefined: map[*cobra.Command]func(){}}
	root := c.commands()
	c.defineFor(root, []string{"load", "--server", "https://localhost:8443"})
	c.translateHelp(root)
	load, _, _ := root.Find([]string{"load", "--server", "https://localhost:8443"})
	if f := load.Flags().Lookup("server"); f == nil || !strings.HasPrefix(f.Usage, "measure the validation server") {
		t.Errorf("load --server is not load's own: %+v", f)
	}
}

// A one-ticket command's process (lookup, claim) runs on one processor
// once its command is known, before the signal watcher starts
// (oneTicket); another command's keeps the
// machine's (generate, export, verify, serve work on every core); a
// test's process, which runs commands side by side, is never changed.
// The test sets two processors first, so that it means something on a
// one-core machine too; it runs alone (not parallel), and puts them back.
func TestOneTicketOneProcessor(t *testing.T) {
	db := ledgertest.Copy(t, ledgertest.Block)
	ss := serials(t)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	defer func() { ownProcess = false }()
	for _, tc := range []struct {
		own   bool
		args  []string
		procs int
	}{
		{false, []string{"lookup", ss.Losers[0]}, 2},
		{true, []string{"blocks"}, 2},
		{true, []string{"--help"}, 2},
		{true, []string{"lookup", "531-0001-0000000"}, 1}, // a bad serial: still one ticket's command
		{true, []string{"lookup", ss.Losers[0]}, 1},
		{true, []string{"claim", "--desk", "C1", ss.Losers[1]}, 1},
	} {
		runtime.GOMAXPROCS(2)
		ownProcess = tc.own
		out, errs, code := vd(t, db, "", tc.args...)
		if got := runtime.GOMAXPROCS(0); got != tc.procs {
			t.Errorf("%v (own process %v): %d processors after it, want %d (exit %d)\n%s%s", tc.args, tc.own, got, tc.procs, code, out, errs)
		}
	}
}
