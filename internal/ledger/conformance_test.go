package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/conformance"
	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/pgtest"
)

// The conformance table (internal/ledger/conformance/cases.txt) asked of
// every kind of ledger through the API: each answer and journal entry must
// be the table's, and the same on every kind.
func TestConformance(t *testing.T) {
	dir, world := conformanceWorld(t)
	cases := conformance.Cases()
	answers := conformance.Answers{}
	kinds := conformance.Kinds
	if ServedDesks != nil {
		kinds = append(slices.Clip(kinds), conformance.ServedKinds...)
	}
	for _, kind := range kinds {
		t.Run(kind, func(t *testing.T) {
			k := newKind(t, kind, dir)
			for _, c := range cases {
				if !c.On(kind) {
					continue
				}
				a := k.ask(t, c, world)
				if err := c.Check(a, true); err != nil {
					t.Errorf("%s (cases.txt:%d): %v\n\tanswer %s", c.Name, c.Line, err, a)
				}
				answers.Put(c, kind, a)
			}
		})
	}
	for _, d := range answers.Differences(cases) {
		t.Error(d)
	}
}

// conformanceWorld is the directory of the conformance table's world, and
// its tickets.
func conformanceWorld(t *testing.T) (string, conformance.World) {
	dir, err := FixtureDir(conformance.Fixture)
	if err != nil {
		t.Fatal(err)
	}
	world, err := conformance.ReadWorld(dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir, world
}

// conformanceKind is one kind of ledger of the world, as the cases ask it.
type conformanceKind struct {
	name     string
	desks    map[string]*Ledger // who asks, by desk
	office   *Ledger            // the back office (nil for sealed ledgers)
	phase    string
	payments map[string]int64 // by ticket
}

func newKind(t *testing.T, kind, dir string) *conformanceKind {
	k := &conformanceKind{name: kind, desks: map[string]*Ledger{}, phase: conformance.Open, payments: map[string]int64{}}
	open := func(location string) *Ledger {
		l, err := Open(location)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		return l
	}
	switch kind {
	case conformance.File, conformance.ServedFile:
		dst := filepath.Join(t.TempDir(), "ledger.db")
		if err := copyFile(filepath.Join(dir, "ledger.db"), dst); err != nil {
			t.Fatal(err)
		}
		k.office = open(dst)
	case conformance.Shared, conformance.ServedShared:
		// The desks were copied with the ledger (rows: no logins).
		k.office = open(pg.URL(pgtest.Owner, pg.NewDatabaseFrom(t, pgTemplate(t, conformance.Fixture))))
	case conformance.Sealed:
		for _, d := range conformance.Counters {
			dst := filepath.Join(t.TempDir(), d+".db")
			if err := copyFile(filepath.Join(dir, d+".db"), dst); err != nil {
				t.Fatal(err)
			}
			k.desks[d] = open(dst)
		}
	}
	if kind == conformance.ServedFile || kind == conformance.ServedShared {
		desk := ServedDesks(t, k.office)
		for _, d := range conformance.Counters {
			k.desks[d] = desk(d)
		}
	}
	for _, d := range conformance.Counters {
		if k.desks[d] == nil {
			k.desks[d] = k.office
		}
	}
	return k
}

// ServedDesks, set by the external test package (served_hooks_test.go:
// package server imports this one), starts a validation server in front
// of office for the test and opens a desk's ledger on it.
var ServedDesks func(tb testing.TB, office *Ledger) func(desk string) *Ledger

// setPhase puts the game in phase: by its dates, or by the clock of a
// sealed counter ledger, whose dates are sealed.
func (k *conformanceKind) setPhase(t *testing.T, phase string) {
	if k.phase == phase {
		return
	}
	k.phase = phase
	if k.office == nil {
		at := conformance.ClockAt(phase)
		for _, l := range k.desks {
			l.Now = func() time.Time { return at }
			if phase == conformance.Open {
				l.Now = nil
			}
		}
		return
	}
	if _, err := k.office.SetEmission(context.Background(), 531, conformance.EmissionAt(phase, time.Now()), Identity{Desk: "BO", Operator: "eve"}); err != nil {
		t.Fatal(err)
	}
}

// journalOf is the ledger whose journal records desk's questions.
func (k *conformanceKind) journalOf(desk string) *Ledger {
	if k.office != nil {
		return k.office
	}
	return k.desks[desk]
}

// ask asks case c and reads what it answered and appended to the journal.
func (k *conformanceKind) ask(t *testing.T, c conformance.Case, w conformance.World) conformance.Answer {
	ctx := context.Background()
	k.setPhase(t, c.When)
	j := k.journalOf(c.Desk)
	mark := lastEntry(t, j)
	l := k.desks[c.Desk]
	who := Identity{Desk: c.Desk, Operator: "ann"}
	var a conformance.Answer
	switch c.Op {
	case "lookup":
		tk, err := l.Lookup(ctx, w.Serial(c.Ticket), who, c.Asked)
		a = ticketAnswer(tk, err, c.Desk)
	case "find":
		tc := w.Ticket(c.Ticket)
		tk, err := l.FindByContents(ctx, &tc, who, c.Asked)
		a = ticketAnswer(tk, err, c.Desk)
	case "claim":
		req := ClaimRequest{Serial: w.Serial(c.Ticket), Method: MethodSerial, Who: who, Limit: c.Asked, Winner: c.Winner()}
		if c.Request != "" {
			req.Request = "conformance-" + c.Request
		}
		cl, err := l.Claim(ctx, req)
		a = claimAnswer(cl, err, c.Desk)
		if err == nil {
			k.payments[c.Ticket.Spec] = cl.Number
		}
	case "void":
		cl, err := k.office.Void(ctx, k.payments[c.Ticket.Spec], "conformance", Identity{Desk: "BO", Operator: "eve"})
		a = claimAnswer(cl, err, c.Desk)
		if err == nil {
			a.Verdict = string(core.Voided)
		}
	}
	a.Entry = appended(t, j, mark)
	if c.Op == "claim" && a.Verdict == string(core.Paid) && strings.HasPrefix(c.Identity, "id:") {
		keptIdentity(t, j, mark, c)
	}
	return a
}

// keptIdentity checks that the payment case c appended after entry mark
// hashed and kept the winner's identity in its normal form (issue 23: the
// same person typed with or without what prints nothing is the same).
func keptIdentity(t *testing.T, j *Ledger, mark int64, c conformance.Case) {
	t.Helper()
	n := c.Winner().Normal()
	var row struct {
		Detail string `db:"detail"`
		Name   string `db:"name"`
	}
	err := get(context.Background(), rdb(j), &row, `SELECT j.detail, i.name FROM journal j JOIN identities i ON i.claim = j.id
		WHERE j.id > ? AND j.kind = 'claim'`, mark)
	if err != nil {
		t.Errorf("%s (cases.txt:%d): the payment's identity: %v", c.Name, c.Line, err)
		return
	}
	if !strings.Contains(row.Detail, core.IdentityHash(n)) || row.Name != n.Name {
		t.Errorf("%s (cases.txt:%d): kept %q, detail %q; want %q hashed %s", c.Name, c.Line, row.Name, row.Detail, n.Name, core.IdentityHash(n))
	}
}

// ticketAnswer is a lookup's or a search's answer to desk.
func ticketAnswer(t Ticket, err error, desk string) conformance.Answer {
	if err != nil {
		return errAnswer(err, desk)
	}
	return conformance.Answer{Verdict: string(t.Verdict), Prize: t.Prize, Position: t.Position, PackState: t.PackState, First: conformance.FirstOf(t.Claim, desk)}
}

// claimAnswer is a claim's answer to desk.
func claimAnswer(c Claim, err error, desk string) conformance.Answer {
	if err != nil {
		return errAnswer(err, desk)
	}
	return conformance.Answer{Verdict: string(core.Paid), Prize: c.Amount, Position: c.Position}
}

func errAnswer(err error, desk string) conformance.Answer {
	var r *Refusal
	switch {
	case errors.As(err, &r):
		return conformance.Answer{Verdict: string(r.Verdict), Prize: r.Amount, First: conformance.FirstOf(r.First, desk)}
	case errors.Is(err, game.ErrCheckDigit), errors.Is(err, game.ErrSerialFormat):
		return conformance.Answer{Verdict: "bad-serial"}
	case errors.Is(err, ErrRequestReused):
		return conformance.Answer{Verdict: "request-reused"}
	case errors.Is(err, ErrNotWinner):
		return conformance.Answer{Verdict: string(NotWinner)}
	}
	return conformance.Answer{Verdict: "error: " + err.Error()}
}

// appended lists the entries l's journal holds after entry mark, as
// "kind[/reason][>ref]": the ref named by what it refers to (payment: the
// same ticket's claim, or the issue of a sealed counter ledger, which
// sealed the payments made before it).
func appended(t *testing.T, l *Ledger, mark int64) string {
	var es []entry
	if err := sel(context.Background(), rdb(l), &es, "SELECT "+entryCols+" FROM journal WHERE id > ? ORDER BY id", mark); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		s := e.Kind
		if e.Reason != "" && e.Kind != "void" { // a void's reason is the clerk's text
			s += "/" + e.Reason
		}
		if e.Ref.Valid {
			s += ">" + refName(t, l, e)
		}
		out = append(out, s)
	}
	return strings.Join(out, " ")
}

func refName(t *testing.T, l *Ledger, e entry) string {
	var r entry
	if err := get(context.Background(), rdb(l), &r, "SELECT "+entryCols+" FROM journal WHERE id = ?", e.Ref.Int64); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Sprintf("missing entry %d", e.Ref.Int64)
		}
		t.Fatal(err)
	}
	switch {
	case r.Kind == "claim" && r.Game == e.Game && r.Block == e.Block && r.Position == e.Position:
		return "payment"
	case r.Kind == "issue":
		return "payment"
	}
	return fmt.Sprintf("%s of position %d", r.Kind, r.Position)
}

// The bounds of what a person types are the same on every kind: an
// operator and a request id of 64 characters are recorded, of 65 refused
// before anything is (the error names the field); a winner's identity of
// spaces is no identity.
func TestConformanceTextBounds(t *testing.T) {
	dir, world := conformanceWorld(t)
	ctx := context.Background()
	serial := world.Tickets["3@on-sale"].Serial
	long, fits := strings.Repeat("é", 65), strings.Repeat("é", 64)
	for _, kind := range conformance.Kinds {
		t.Run(kind, func(t *testing.T) {
			k := newKind(t, kind, dir)
			l, j := k.desks["D1"], k.journalOf("D1")
			mark := lastEntry(t, j)
			for _, req := range []ClaimRequest{
				{Serial: serial, Method: MethodSerial, Who: Identity{Desk: "D1", Operator: long}, Limit: NoLimit},
				{Serial: serial, Method: MethodSerial, Who: Identity{Desk: "D1", Operator: "ann"}, Request: long, Limit: NoLimit},
			} {
				if _, err := l.Claim(ctx, req); err == nil || !strings.Contains(err.Error(), "at most 64 characters") {
					t.Errorf("operator %d, request %d characters: %v", len([]rune(req.Who.Operator)), len([]rune(req.Request)), err)
				}
			}
			if _, err := l.Lookup(ctx, serial, Identity{Desk: "D1", Operator: long}, NoLimit); err == nil || !strings.Contains(err.Error(), "at most 64 characters") {
				t.Errorf("a lookup by an operator of 65 characters: %v", err)
			}
			if got := appended(t, j, mark); got != "" {
				t.Errorf("refused questions appended [%s]", got)
			}
			cl, err := l.Claim(ctx, ClaimRequest{Serial: serial, Method: MethodSerial, Who: Identity{Desk: "D1", Operator: fits}, Request: fits, Limit: NoLimit})
			if err != nil || cl.Operator != fits {
				t.Errorf("operator and request of 64 characters: %+v %v", cl, err)
			}
		})
	}
}

// A winner's identity recorded blank (written into the table by whoever
// holds the database) is a problem verify reports, on both engines.
func TestVerifyBlankIdentity(t *testing.T) {
	ctx := context.Background()
	forEngines(t, func(t *testing.T, e engineCase) {
		l := mustOpen(t, e.fresh(t))
		b := mustBlock(t, l)
		cl, err := l.Claim(ctx, claimReq(serialOf(b, ticketsWith(t, l, b, 3, 1)[0]), Identity{Desk: "BO", Operator: "ann"}))
		if err != nil {
			t.Fatal(err)
		}
		if rep, err := journalOnly(l); err != nil || !rep.OK() {
			t.Fatalf("verify before: %v %v", rep.Problems, err)
		}
		if _, err := execute(ctx, wdb(l), "INSERT INTO identities (claim, name, doc_type, doc_number) VALUES (?, ?, ?, ?)", cl.Entry, " ", "\t", "\u00a0"); err != nil {
			t.Fatal(err)
		}
		rep, err := journalOnly(l)
		if err != nil || rep.OK() || !strings.Contains(fmt.Sprint(rep.Problems), "identity that is blank") {
			t.Errorf("verify after a blank identity was written: %v %v", rep.Problems, err)
		}
	})
}
