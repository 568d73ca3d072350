package ledger

import (
	"bytes"
	"context"
	"database/sql"
	"strings"
	"testing"

	"vegas-desk/internal/game"
)

func exportOf(tb testing.TB, l *Ledger) []byte {
	tb.Helper()
	var buf bytes.Buffer
	if err := l.ExportJournal(context.Background(), &buf); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

func flagKinds(r ImportReport) []string {
	var out []string
	for _, f := range r.Flags {
		out = append(out, f.Kind)
	}
	return out
}

// Two offline counters pay one ticket: the back office records the first
// payment it imports and flags the second as a double payment to recover.
// Importing a file again records nothing new.
func TestImportClaims(t *testing.T) {
	ctx := context.Background()
	boPath, counters := counterCopies(t)
	bo := mustOpen(t, boPath)
	c1, c2 := mustOpen(t, counters[0]), mustOpen(t, counters[1])
	b := mustBlock(t, bo)
	fifties := ticketsWith(t, bo, b, 50, 2)
	both, once := serialOf(b, fifties[0]), serialOf(b, fifties[1])
	for _, p := range []struct {
		l      *Ledger
		serial string
	}{{c1, both}, {c1, once}, {c2, both}} {
		if _, err := p.l.Claim(ctx, claimReq(p.serial, Identity{p.l.CounterDesk(), "ann"})); err != nil {
			t.Fatal(err)
		}
	}
	// An attempt at a wrong secret, recorded at the counter.
	s, _ := game.ParseSerial(once)
	s.Secret = (s.Secret + 7) % game.SecretModulus
	c1.Lookup(ctx, s.String(), Identity{}, 0)

	who := Identity{"BO", "clerk"}
	rep, err := bo.ImportClaims(ctx, bytes.NewReader(exportOf(t, c1)), who)
	if err != nil || !rep.OK() || rep.Recorded != 2 || rep.Payments != 2 || rep.Refused != 1 || rep.Desk != "C1" {
		t.Fatalf("first import: %+v %v", rep, err)
	}
	claims, _ := bo.Claims(ctx, ClaimFilter{Desk: "C1"})
	if len(claims) != 2 || claims[0].Serial != both || claims[0].Amount != 50 || claims[0].Operator != "ann" {
		t.Fatalf("claims of C1 at the back office: %+v", claims)
	}
	if tk, err := bo.Lookup(ctx, both, who, 0); err != nil || tk.Status != StatusPaid || tk.Claim.Desk != "C1" {
		t.Errorf("the back office does not keep the ticket paid: %+v %v", tk.Claim, err)
	}

	last := lastEntry(t, bo)
	rep, err = bo.ImportClaims(ctx, bytes.NewReader(exportOf(t, c1)), who)
	if err != nil || !rep.OK() || rep.Recorded != 0 || rep.Already != 2 {
		t.Errorf("second import of the same file: %+v %v", rep, err)
	}
	if got := lastEntry(t, bo); got != last {
		t.Errorf("the second import recorded %d entries", got-last)
	}

	rep, err = bo.ImportClaims(ctx, bytes.NewReader(exportOf(t, c2)), who)
	if err != nil || rep.Rejected || len(rep.Flags) != 1 || rep.Flags[0].Kind != "double-payment" || rep.Recorded != 0 {
		t.Fatalf("import of the second counter: %+v %v", rep, err)
	}
	if !strings.Contains(rep.Flags[0].What, `desk "C1"`) || !strings.Contains(rep.Flags[0].What, `desk "C2"`) {
		t.Errorf("the flag does not name both desks: %s", rep.Flags[0])
	}
	if k := journalKinds(t, bo, lastEntry(t, bo)-2); len(k) != 2 || k[0] != "import/double-payment" || k[1] != "import/head" {
		t.Errorf("recorded %v", k)
	}
	last = lastEntry(t, bo)
	if rep, err := bo.ImportClaims(ctx, bytes.NewReader(exportOf(t, c2)), who); err != nil || rep.Already != 1 || lastEntry(t, bo) != last {
		t.Errorf("second import of the second counter: %+v %v", rep, err)
	}
	if rep, err := bo.Verify(ctx, 0, 0, nil); err != nil || !rep.OK() {
		t.Errorf("verify after the imports: %v %v", rep.Problems, err)
	}
	// A later export of the first counter: only its new payment.
	third := serialOf(b, ticketsWith(t, bo, b, 15, 1)[0])
	if _, err := c1.Claim(ctx, claimReq(third, Identity{"C1", "ann"})); err != nil {
		t.Fatal(err)
	}
	if rep, err := bo.ImportClaims(ctx, bytes.NewReader(exportOf(t, c1)), who); err != nil || !rep.OK() || rep.Recorded != 1 || rep.Already != 2 {
		t.Errorf("later import: %+v %v", rep, err)
	}
}

// appendForged appends a claim entry to a counter ledger with a correct
// hash, as the holder of the file can: no trigger refuses an insert.
func appendForged(tb testing.TB, l *Ledger, e entry) {
	tb.Helper()
	ctx := context.Background()
	tx, err := l.begin(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	defer tx.Rollback()
	if err := l.appendJournal(ctx, tx, &e); err != nil {
		tb.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		tb.Fatal(err)
	}
}

// A counter's file forged or rewritten: each is flagged at the import.
func TestImportForged(t *testing.T) {
	ctx := context.Background()
	who := Identity{"BO", "clerk"}
	t.Run("a payment with a forged serial", func(t *testing.T) {
		boPath, counters := counterCopies(t)
		bo, c1 := mustOpen(t, boPath), mustOpen(t, counters[0])
		b := mustBlock(t, bo)
		// The holder of the file knows the big winner's position (pick-out
		// by another way) but not its secret part: any secret will do.
		pos := ticketsWith(t, bo, b, 50000, 1)[0]
		forged := game.Serial{Game: 531, Block: 1, Position: pos, Secret: 1234567890123456}
		appendForged(t, c1, entry{Kind: "claim", Ticket: sql.NullInt64{Int64: b.first + int64(pos), Valid: true}, Serial: forged.String(),
			Game: 531, Block: 1, Position: pos, Amount: 50000, Desk: "C1", Operator: "mallory", Method: MethodSerial, Request: "x"})
		rep, err := bo.ImportClaims(ctx, bytes.NewReader(exportOf(t, c1)), who)
		if err != nil || len(rep.Flags) != 1 || rep.Flags[0].Kind != "serial-mismatch" || rep.Recorded != 0 {
			t.Fatalf("%+v %v", rep, err)
		}
		if tk, _ := bo.TicketAt(ctx, 531, 1, pos); tk.Status != StatusUnpaid {
			t.Error("the forged payment made the ticket paid")
		}
	})
	t.Run("a payment in another desk's name", func(t *testing.T) {
		boPath, counters := counterCopies(t)
		bo, c1 := mustOpen(t, boPath), mustOpen(t, counters[0])
		b := mustBlock(t, bo)
		pos := ticketsWith(t, bo, b, 15, 1)[0]
		s, _ := game.ParseSerial(serialOf(b, pos))
		appendForged(t, c1, entry{Kind: "claim", Ticket: sql.NullInt64{Int64: b.first + int64(pos), Valid: true}, Serial: s.String(),
			Game: 531, Block: 1, Position: pos, Amount: 15, Desk: "C2", Operator: "mallory", Method: MethodSerial, Request: "y"})
		rep, err := bo.ImportClaims(ctx, bytes.NewReader(exportOf(t, c1)), who)
		if err != nil || !rep.Rejected || rep.Flags[0].Kind != "broken-chain" {
			t.Fatalf("%+v %v", rep, err)
		}
	})
	t.Run("a rewritten counter journal", func(t *testing.T) {
		boPath, counters := counterCopies(t)
		bo, c1 := mustOpen(t, boPath), mustOpen(t, counters[0])
		b := mustBlock(t, bo)
		var claims []Claim
		for _, pos := range ticketsWith(t, bo, b, 50, 3) {
			c, err := c1.Claim(ctx, claimReq(serialOf(b, pos), Identity{"C1", "ann"}))
			if err != nil {
				t.Fatal(err)
			}
			claims = append(claims, c)
		}
		if rep, err := bo.ImportClaims(ctx, bytes.NewReader(exportOf(t, c1)), who); err != nil || !rep.OK() {
			t.Fatalf("first import: %+v %v", rep, err)
		}
		// The counter removes a payment already brought home, and rebuilds
		// its chain: consistent in itself.
		rewriteJournal(t, c1, claims[1].Entry)
		if rep, err := c1.Verify(ctx, 0, 0, nil); err != nil || !rep.OK() {
			t.Fatalf("the rewritten counter ledger should verify on its own: %v %v", rep.Problems, err)
		}
		last := lastEntry(t, bo)
		rep, err := bo.ImportClaims(ctx, bytes.NewReader(exportOf(t, c1)), who)
		if err != nil || !rep.Rejected || flagKinds(rep)[0] != "rewritten" || lastEntry(t, bo) != last {
			t.Fatalf("%+v %v", rep, err)
		}
	})
	t.Run("an export changed by hand", func(t *testing.T) {
		boPath, counters := counterCopies(t)
		bo, c1 := mustOpen(t, boPath), mustOpen(t, counters[0])
		b := mustBlock(t, bo)
		for _, pos := range ticketsWith(t, bo, b, 15, 2) {
			if _, err := c1.Claim(ctx, claimReq(serialOf(b, pos), Identity{"C1", "ann"})); err != nil {
				t.Fatal(err)
			}
		}
		data := exportOf(t, c1)
		for name, change := range map[string]func([]byte) []byte{
			"an amount": func(d []byte) []byte { return bytes.Replace(d, []byte(`"amount":15`), []byte(`"amount":50`), 1) },
			"an operator": func(d []byte) []byte {
				return bytes.Replace(d, []byte(`"operator":"ann"`), []byte(`"operator":"bob"`), 1)
			},
			"a payment removed": func(d []byte) []byte {
				lines := bytes.Split(d, []byte("\n"))
				return bytes.Join(append(lines[:2:2], lines[3:]...), []byte("\n"))
			},
			"another ledger": func(d []byte) []byte {
				return bytes.Replace(d, []byte(c1.ID()), []byte(strings.Repeat("0", 32)), 1)
			},
		} {
			last := lastEntry(t, bo)
			rep, err := bo.ImportClaims(ctx, bytes.NewReader(change(data)), who)
			if err != nil || !rep.Rejected || lastEntry(t, bo) != last {
				t.Errorf("%s: %+v %v", name, rep, err)
			}
		}
	})
}
