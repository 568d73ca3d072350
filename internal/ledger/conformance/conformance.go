// Package conformance is the table of questions that every kind of ledger
// must answer alike (cases.txt), read for the tests that ask them: the
// ledger's own, through its API, and the command line's. What a case
// needs of the world (its tickets, the payments made before) is built by
// ledgertest; what an answer is, for comparison, is Answer.
package conformance

import (
	"bufio"
	"bytes"
	_ "embed"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"vegas-desk/internal/ledger/core"
)

//go:embed cases.txt
var table []byte

// Fixture is the name of the world's fixture (ledgertest's Conformance).
const Fixture = "conformance"

// The kinds of ledger the table runs on, by the names its on column uses.
const (
	File   = "file"   // a SQLite back office, claims naming the desk
	Shared = "shared" // a PostgreSQL back office, claims naming the desk
	Sealed = "sealed" // a sealed counter ledger issued for the desk
)

// Kinds are the kinds of ledger, in the order they are asked.
var Kinds = []string{File, Shared, Sealed}

// A counter through the validation server (vegas-desk serve), in front of
// a SQLite back office or a PostgreSQL one: the ledger's own tests ask
// these too (their server is package server's, which the ledger's
// external tests start).
const (
	ServedFile   = "served-file"
	ServedShared = "served-shared"
)

// ServedKinds are the kinds through the server.
var ServedKinds = []string{ServedFile, ServedShared}

// The phases of the emission's dates a case is asked in.
const (
	Open          = "open"
	BeforeSale    = "before-sale"
	AfterDeadline = "after-deadline"
)

// Case is one line of the table.
type Case struct {
	Line     int
	Name     string
	Op       string // lookup, claim, find, void
	Ticket   Ticket
	Before   string // the desk that paid the ticket before, or ""
	Desk     string
	Asked    core.Limit // NoLimit when none is asked
	Identity string     // "", given, blank, partial, id:NAME (identities.txt)
	Request  string
	When     string
	Expect   string
	Entry    string // kind[/reason], or ""
	Ref      string // "payment", or ""
	NotOn    string // a kind the case is not asked of, or ""
}

// Ticket names a ticket of the world: Spec ("PRIZE@STATE#N") is the
// ticket; Mod how its serial or contents are given ("", secret, check,
// contents).
type Ticket struct {
	Spec  string
	Prize int
	State string
	Mod   string
}

// On reports whether the case is asked of kind.
func (c Case) On(kind string) bool { return c.NotOn != kind }

// Cases reads the table. A malformed line is a panic: the table is the
// tests' own source.
func Cases() []Case {
	cs, err := Parse(table)
	if err != nil {
		panic(err)
	}
	return cs
}

// Parse reads a table.
func Parse(data []byte) ([]Case, error) {
	var out []Case
	sc := bufio.NewScanner(bytes.NewReader(data))
	names := map[string]bool{}
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		c, err := parseLine(n, strings.Fields(line))
		if err != nil {
			return nil, fmt.Errorf("cases.txt:%d: %w", n, err)
		}
		if names[c.Name] {
			return nil, fmt.Errorf("cases.txt:%d: case %s twice", n, c.Name)
		}
		names[c.Name] = true
		out = append(out, c)
	}
	return out, sc.Err()
}

func parseLine(n int, f []string) (Case, error) {
	if len(f) != 13 {
		return Case{}, fmt.Errorf("%d columns, want 13", len(f))
	}
	opt := func(s string) string {
		if s == "-" {
			return ""
		}
		return s
	}
	c := Case{Line: n, Name: f[0], Op: f[1], Desk: f[4], Identity: opt(f[6]), Request: opt(f[7]), When: f[8],
		Expect: f[9], Entry: opt(f[10]), Ref: opt(f[11]), Asked: core.NoLimit}
	var err error
	if c.Ticket, err = parseTicket(f[2]); err != nil {
		return Case{}, err
	}
	if b := opt(f[3]); b != "" {
		desk, ok := strings.CutPrefix(b, "paid:")
		if !ok {
			return Case{}, fmt.Errorf("before %q: want paid:DESK", b)
		}
		c.Before = desk
	}
	if a := opt(f[5]); a != "" {
		euros, err := strconv.Atoi(a)
		if err != nil || euros < 0 {
			return Case{}, fmt.Errorf("asked %q: want euros", a)
		}
		c.Asked = core.LimitOf(euros)
	}
	switch f[12] {
	case "all":
	case "-sealed":
		c.NotOn = Sealed
	default:
		return Case{}, fmt.Errorf("on %q: want all or -sealed", f[12])
	}
	switch {
	case c.Op != "lookup" && c.Op != "claim" && c.Op != "find" && c.Op != "void":
		return Case{}, fmt.Errorf("op %q: want lookup, claim, find or void", c.Op)
	case c.Desk != "D1" && c.Desk != "D0":
		return Case{}, fmt.Errorf("desk %q: want D1 or D0", c.Desk)
	case c.When != Open && c.When != BeforeSale && c.When != AfterDeadline:
		return Case{}, fmt.Errorf("when %q: want open, before-sale or after-deadline", c.When)
	case c.Identity != "" && c.Identity != "given" && c.Identity != "blank" && c.Identity != "partial" && !knownIdentity(c.Identity):
		return Case{}, fmt.Errorf("identity %q: want given, blank, partial or id:NAME of identities.txt", c.Identity)
	case c.Ref != "" && c.Ref != "payment":
		return Case{}, fmt.Errorf("ref %q: want payment", c.Ref)
	}
	return c, nil
}

func parseTicket(s string) (Ticket, error) {
	spec, mod, _ := strings.Cut(s, "!")
	t := Ticket{Spec: spec, Mod: mod}
	prize, rest, ok := strings.Cut(spec, "@")
	t.State, _, _ = strings.Cut(rest, "#")
	var err error
	if t.Prize, err = strconv.Atoi(prize); !ok || err != nil || !strings.Contains(" stock delivered received on-sale settled returned stolen destroyed ", " "+t.State+" ") {
		return Ticket{}, fmt.Errorf("ticket %q: want PRIZE@STATE", s)
	}
	if mod != "" && mod != "secret" && mod != "check" && mod != "contents" {
		return Ticket{}, fmt.Errorf("ticket %q: want !secret, !check or !contents", s)
	}
	return t, nil
}

// Winner is the identity a case gives.
func (c Case) Winner() *core.Winner {
	switch c.Identity {
	case "given":
		return &core.Winner{Name: "Jean Dupont", DocType: "permis de conduire", DocNumber: "880692310285"}
	case "blank":
		return &core.Winner{Name: " ", DocType: "\t", DocNumber: "\u00a0"}
	case "partial":
		return &core.Winner{Name: "Jean Dupont"}
	}
	if name, ok := strings.CutPrefix(c.Identity, "id:"); ok {
		ic, _ := IdentityNamed(name)
		w := ic.Winner
		return &w
	}
	return nil
}

// knownIdentity reports whether s is id:NAME of the identities table.
func knownIdentity(s string) bool {
	name, ok := strings.CutPrefix(s, "id:")
	if ok {
		_, ok = IdentityNamed(name)
	}
	return ok
}

// Answer is what a kind of ledger answered, as the cases compare it.
type Answer struct {
	Verdict   string // the ticket's verdict, paid, or the refusal
	Prize     int
	Position  int
	PackState string
	First     string // the payment named (already claimed, voided): FirstOf
	Entry     string // the journal's entries appended, "kind[/reason][>ref]" each
}

func (a Answer) String() string {
	return fmt.Sprintf("%s prize=%d position=%d pack=%s first=%q journal=[%s]", a.Verdict, a.Prize, a.Position, a.PackState, a.First, a.Entry)
}

// Answers are the answers of the cases, by case name and kind.
type Answers map[string]map[string]Answer

// Put records kind's answer to c.
func (as Answers) Put(c Case, kind string, a Answer) {
	if as[c.Name] == nil {
		as[c.Name] = map[string]Answer{}
	}
	as[c.Name][kind] = a
}

// Differences lists, for each case, the kinds whose answer differs from
// the first kind's that answered it: every kind that answered, the served
// ones included (Kinds, ServedKinds, then any other in the order of their
// names).
func (as Answers) Differences(cases []Case) []string {
	var out []string
	for _, c := range cases {
		kinds := append(slices.Clip(Kinds), ServedKinds...)
		var others []string
		for kind := range as[c.Name] {
			if !slices.Contains(kinds, kind) {
				others = append(others, kind)
			}
		}
		slices.Sort(others)
		first := ""
		for _, kind := range append(kinds, others...) {
			a, ok := as[c.Name][kind]
			switch {
			case !ok:
			case first == "":
				first = kind
			case a != as[c.Name][first]:
				out = append(out, fmt.Sprintf("%s (cases.txt:%d): %s answers %s\n\t%s answers %s", c.Name, c.Line, kind, a, first, as[c.Name][first]))
			}
		}
	}
	return out
}

// FirstOf names a payment, as desk is shown it, as Answer.First does: its
// desk and amount when desk made it; another desk's payment is shown its
// date only (through the server), so it is named "another desk's".
func FirstOf(c *core.Claim, desk string) string {
	switch {
	case c == nil:
		return ""
	case c.Desk != desk:
		return "another desk's"
	}
	return fmt.Sprintf("%s %d", c.Desk, c.Amount)
}

// Check compares an answer with the case's expectations: its verdict,
// and the entry and ref appended (when journal is true: the kind's
// journal was read).
func (c Case) Check(a Answer, journal bool) error {
	if a.Verdict != c.Expect {
		return fmt.Errorf("answered %s, want %s", a.Verdict, c.Expect)
	}
	if !journal {
		return nil
	}
	want := c.Entry
	if c.Ref != "" {
		want += ">" + c.Ref
	}
	if a.Entry != want {
		return fmt.Errorf("journal [%s], want [%s]", a.Entry, want)
	}
	return nil
}
