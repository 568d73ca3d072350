package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/conformance"
	"vegas-desk/internal/ledger/ledgertest"
	"vegas-desk/internal/pgtest"
	"vegas-desk/internal/server"
	"vegas-desk/internal/server/servertest"
	"vegas-desk/internal/testcache"
)

// The conformance table (internal/ledger/conformance/cases.txt) asked of
// every kind of ledger on the command line: lookup --json, claim --json,
// check --json (by contents) and void, each answer and exit status the
// table's, and the same on every kind. (The ledger's own test compares
// the journal's entries too.)
func TestConformanceCLI(t *testing.T) {
	dir := ledgertest.MustDir(t, ledgertest.Conformance)
	world, err := conformance.ReadWorld(dir)
	if err != nil {
		t.Fatal(err)
	}
	cases := conformance.Cases()
	answers := conformance.Answers{}
	for _, kind := range append(slices.Clip(conformance.Kinds), conformance.ServedKinds...) {
		t.Run(kind, func(t *testing.T) {
			k := newCLIKind(t, kind, dir)
			for _, c := range cases {
				if !c.On(kind) {
					continue
				}
				a, code, out := k.ask(t, c, world)
				if err := c.Check(a, false); err != nil {
					t.Errorf("%s (cases.txt:%d): %v\n\t%s", c.Name, c.Line, err, out)
				}
				if want := exitOf(c); code != want {
					t.Errorf("%s (cases.txt:%d): exit %d, want %d\n\t%s", c.Name, c.Line, code, want, out)
				}
				answers.Put(c, kind, a)
			}
		})
	}
	for _, d := range answers.Differences(cases) {
		t.Error(d)
	}
}

// exitOf is the exit status of a case's command: 2 for what the command
// refuses before the ledger answers, 1 for a refusal, else 0 (a lookup's or
// a check's verdict is its answer).
func exitOf(c conformance.Case) int {
	switch {
	case c.Expect == "bad-serial" || c.Expect == "request-reused":
		return exitUsage
	case c.Op == "claim" && c.Expect != "paid", c.Op == "lookup" && c.Expect == "unknown-serial":
		return exitRefused
	}
	return exitOK
}

// cliKind is one kind of ledger of the world, asked on the command line.
type cliKind struct {
	name     string
	office   string              // the back office's --db ("" for a sealed ledger)
	desks    map[string]string   // who asks: its --db, by desk
	served   map[string][]string // and, through the validation server, its --server and --desk-cert
	named    bool                // questions name the desk (--desk)
	phase    string
	payments map[string]int64 // by ticket
}

func newCLIKind(t *testing.T, kind, dir string) *cliKind {
	k := &cliKind{name: kind, desks: map[string]string{}, served: map[string][]string{}, phase: conformance.Open, payments: map[string]int64{}}
	copyOf := func(name string) string {
		dst := filepath.Join(t.TempDir(), name)
		if err := testcache.CopyFile(filepath.Join(dir, name), dst); err != nil {
			t.Fatal(err)
		}
		return dst
	}
	switch kind {
	case conformance.File, conformance.ServedFile:
		k.office, k.named = copyOf("ledger.db"), kind == conformance.File
	case conformance.Shared, conformance.ServedShared:
		// The desks were copied with the ledger (rows: no logins).
		k.office, k.named = pg.URL(pgtest.Owner, pg.NewDatabaseFrom(t, pgFixture(t, ledgertest.Conformance))), kind == conformance.Shared
	case conformance.Sealed:
		for _, d := range conformance.Counters {
			k.desks[d] = copyOf(d + ".db")
		}
	}
	if kind == conformance.ServedFile || kind == conformance.ServedShared {
		l, err := ledger.Open(k.office)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		s := servertest.Start(t, l, server.Config{})
		for _, d := range conformance.Counters {
			k.served[d] = []string{"--server", s.URL, "--desk-cert", s.DeskFile(t, d)}
		}
	}
	for _, d := range conformance.Counters {
		if k.desks[d] == "" {
			k.desks[d] = k.office
		}
	}
	t.Cleanup(func() { testClock = nil })
	return k
}

// setPhase puts the game in phase: by its dates (emission), or by the
// clock of a sealed counter ledger, whose dates are sealed.
func (k *cliKind) setPhase(t *testing.T, phase string) {
	if k.phase == phase {
		return
	}
	k.phase = phase
	if k.office == "" {
		at := conformance.ClockAt(phase)
		testClock = func() time.Time { return at }
		if phase == conformance.Open {
			testClock = nil
		}
		return
	}
	em := conformance.EmissionAt(phase, time.Now())
	day := func(t time.Time) string { return t.Local().Format(time.DateOnly) }
	if out, errs, code := vd(t, k.office, "", "emission", "--game", "531", "--on-sale", day(em.OnSale), "--end-of-sale", day(em.EndOfSale),
		"--deadline", day(em.Deadline)); code != 0 {
		t.Fatalf("emission: exit %d\n%s%s", code, out, errs)
	}
}

// ask runs case c's command and reads its answer and exit status.
func (k *cliKind) ask(t *testing.T, c conformance.Case, w conformance.World) (conformance.Answer, int, string) {
	k.setPhase(t, c.When)
	var args []string
	if k.named {
		args = append(args, "--desk", c.Desk)
	}
	if n, ok := c.Asked.Euros(); ok {
		args = append(args, "--limit", strconv.Itoa(n))
	}
	db, served, stdin := k.desks[c.Desk], k.served[c.Desk], ""
	switch c.Op {
	case "lookup":
		args = append([]string{"lookup", w.Serial(c.Ticket), "--json"}, args...)
	case "find":
		doc, err := json.Marshal(w.Contents(c.Ticket))
		if err != nil {
			t.Fatal(err)
		}
		args, stdin = append([]string{"check", "-", "--json"}, args...), string(doc)
	case "claim":
		args = append([]string{"claim", w.Serial(c.Ticket), "--json", "--operator", "ann"}, args...)
		if c.Request != "" {
			args = append(args, "--request", "conformance-"+c.Request)
		}
		if win := c.Winner(); win != nil {
			args = append(args, "--winner-name", win.Name, "--winner-doc", win.DocType, "--winner-doc-number", win.DocNumber)
			if win.MRZ != "" {
				args = append(args, "--winner-mrz", win.MRZ)
			}
		}
	case "void":
		db, served, args = k.office, nil, []string{"void", strconv.FormatInt(k.payments[c.Ticket.Spec], 10), "--reason", "conformance", "--json"}
	}
	out, errs, code := vd(t, db, stdin, append(slices.Clip(served), args...)...)
	var j struct {
		Verdict   string
		Prize     int
		Amount    int
		Position  int
		PackState string `json:"pack_state"`
		Serial    string
		Number    int64
		Voided    bool
		Claim     *struct {
			Desk   string
			Amount int
		}
	}
	a := conformance.Answer{}
	if out != "" {
		if err := json.Unmarshal([]byte(out), &j); err != nil {
			t.Fatalf("%s: %v\n%s", c.Name, err, out)
		}
	}
	switch {
	case code == exitUsage && (c.Expect == "bad-serial" || c.Expect == "request-reused"):
		a.Verdict = c.Expect // said on the standard error
	case c.Op == "claim" && code == 0 || c.Op == "void":
		a = conformance.Answer{Verdict: "paid", Prize: j.Amount, Position: j.Position}
		if j.Voided {
			a.Verdict = "voided"
		}
		k.payments[c.Ticket.Spec] = j.Number
	default:
		a = conformance.Answer{Verdict: j.Verdict, Prize: j.Prize, Position: j.Position, PackState: j.PackState}
		if c.Op == "find" && j.Serial != "" {
			s, _ := game.ParseSerial(j.Serial)
			a.Position = s.Position
		}
		if j.Claim != nil {
			a.First = conformance.FirstOf(&ledger.Claim{Desk: j.Claim.Desk, Amount: j.Claim.Amount}, c.Desk)
		}
	}
	return a, code, out + errs
}
