package ledger

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/backoffice"
	"vegas-desk/internal/ledger/core"
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

// Two offline counters pay one ticket: the back office records both
// payments and flags the second as a double payment to recover.
// Importing a file again records nothing new.
func TestImportClaims(t *testing.T) {
	ctx := context.Background()
	bo, c1, c2 := openCounterCopies(t)
	b := mustBlock(t, bo)
	fifties := ticketsWith(t, bo, b, 50, 2)
	both, once := serialOf(b, fifties[0]), serialOf(b, fifties[1])
	for _, p := range []struct {
		l      *Ledger
		serial string
	}{{c1, both}, {c1, once}, {c2, both}} {
		if _, err := p.l.Claim(ctx, claimReq(p.serial, Identity{Desk: p.l.CounterDesk(), Operator: "ann"})); err != nil {
			t.Fatal(err)
		}
	}
	// An attempt at a wrong secret, recorded at the counter.
	s, _ := game.ParseSerial(once)
	s.Secret = (s.Secret + 7) % game.SecretModulus
	c1.Lookup(ctx, s.String(), Identity{}, NoLimit)

	who := Identity{Desk: "BO", Operator: "clerk"}
	rep, err := bo.ImportClaims(ctx, bytes.NewReader(exportOf(t, c1)), who)
	if err != nil || !rep.OK() || rep.Recorded != 2 || rep.Payments != 2 || rep.Refused != 1 || rep.Desk != "C1" {
		t.Fatalf("first import: %+v %v", rep, err)
	}
	claims, _ := bo.Claims(ctx, ClaimFilter{Desk: "C1"})
	if len(claims) != 2 || claims[0].Serial != both || claims[0].Amount != 50 || claims[0].Operator != "ann" {
		t.Fatalf("claims of C1 at the back office: %+v", claims)
	}
	if tk, err := bo.Lookup(ctx, both, who, NoLimit); err != nil || tk.Status != StatusPaid || tk.Claim.Desk != "C1" {
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
	if err != nil || rep.Rejected || len(rep.Flags) != 1 || rep.Flags[0].Kind != "double-payment" || rep.Recorded != 1 {
		t.Fatalf("import of the second counter: %+v %v", rep, err)
	}
	if !strings.Contains(rep.Flags[0].What, `desk "C1"`) || !strings.Contains(rep.Flags[0].What, `desk "C2"`) {
		t.Errorf("the flag does not name both desks: %s", rep.Flags[0])
	}
	if k := journalKinds(t, bo, lastEntry(t, bo)-2); len(k) != 2 || k[0] != "claim/double-payment" || k[1] != "import/head" {
		t.Errorf("recorded %v", k)
	}
	last = lastEntry(t, bo)
	if rep, err := bo.ImportClaims(ctx, bytes.NewReader(exportOf(t, c2)), who); err != nil || rep.Already != 1 || lastEntry(t, bo) != last {
		t.Errorf("second import of the second counter: %+v %v", rep, err)
	}
	if rep, err := journalOnly(bo); err != nil || !rep.OK() {
		t.Errorf("verify after the imports: %v %v", rep.Problems, err)
	}
	// A later export of the first counter: only its new payment.
	third := serialOf(b, ticketsWith(t, bo, b, 15, 1)[0])
	if _, err := c1.Claim(ctx, claimReq(third, Identity{Desk: "C1", Operator: "ann"})); err != nil {
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
	if s, err := game.ParseSerial(e.Serial); err == nil && e.Kind == "claim" && l.Kind() == "counter" {
		// As a counter ledger keeps a payment: the public part and the
		// serial's proof (core.SerialProof).
		e.Serial, e.Detail = game.PublicSerial(s.Game, s.Block, s.Position), core.ClaimDetail(core.SerialProof(s), e.Detail)
	}
	tx, err := begin(l, ctx)
	if err != nil {
		tb.Fatal(err)
	}
	defer tx.Rollback()
	if err := appendJournal(l, ctx, tx, &e); err != nil {
		tb.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		tb.Fatal(err)
	}
}

// A counter's file forged or rewritten: each is flagged at the import.
func TestImportForged(t *testing.T) {
	ctx := context.Background()
	who := Identity{Desk: "BO", Operator: "clerk"}
	t.Run("a payment with a forged serial", func(t *testing.T) {
		boPath, counters := counterCopies(t)
		bo, c1 := mustOpen(t, boPath), mustOpen(t, counters[0])
		b := mustBlock(t, bo)
		// The holder of the file knows the big winner's position (pick-out
		// by another way) but not its secret part: any secret will do.
		pos := ticketsWith(t, bo, b, 50000, 1)[0]
		forged := game.Serial{Game: 531, Block: 1, Position: pos, Secret: 1234567890123456}
		appendForged(t, c1, entry{Kind: "claim", Ticket: sql.NullInt64{Int64: b.First() + int64(pos), Valid: true}, Serial: forged.String(),
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
		appendForged(t, c1, entry{Kind: "claim", Ticket: sql.NullInt64{Int64: b.First() + int64(pos), Valid: true}, Serial: s.String(),
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
			c, err := c1.Claim(ctx, claimReq(serialOf(b, pos), Identity{Desk: "C1", Operator: "ann"}))
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
			if _, err := c1.Claim(ctx, claimReq(serialOf(b, pos), Identity{Desk: "C1", Operator: "ann"})); err != nil {
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

// The holder of counter ledger C1 (payout limit 100 €) raises the limit in
// its own file (the meta row, under a trigger dropped and made again with
// its text) and pays a 50,000 € ticket it could only refer. The import
// applies the limit the back office recorded at the issue: the payment is
// recorded as over-limit and the ticket is not paid, so its winner is paid
// at the back office.
func TestImportAppliesIssuedLimit(t *testing.T) {
	ctx := context.Background()
	boPath, counters := counterCopies(t)
	alterUnderTrigger(t, counters[0], "meta_no_update", "UPDATE meta SET value = '1000000' WHERE key = 'payout_limit'")
	bo, c1, _ := openCounters(t, boPath, counters)
	if c1.CounterLimit() != 1000000 {
		t.Fatalf("the altered file says limit %d", c1.CounterLimit())
	}
	b := mustBlock(t, bo)
	pos := ticketsWith(t, bo, b, 50000, 1)[0]
	req := claimReq(serialOf(b, pos), Identity{Desk: "C1", Operator: "mallory"})
	req.Winner = &Winner{Name: "Jean Dupont", DocType: "permis de conduire", DocNumber: "880692310285"}
	if _, err := c1.Claim(ctx, req); err != nil {
		t.Fatalf("the altered counter pays: %v", err)
	}
	last := lastEntry(t, bo)
	rep, err := bo.ImportClaims(ctx, bytes.NewReader(exportOf(t, c1)), Identity{Desk: "BO", Operator: "clerk"})
	if err != nil || rep.Rejected || rep.Recorded != 0 || fmt.Sprint(flagKinds(rep)) != "[over-limit]" {
		t.Fatalf("import: %+v %v", rep, err)
	}
	if k := journalKinds(t, bo, last); fmt.Sprint(k) != "[import/over-limit import/head]" {
		t.Errorf("recorded %v", k)
	}
	if tk, _ := bo.TicketAt(ctx, 531, 1, pos); tk.Status != StatusUnpaid {
		t.Errorf("the over-limit payment made the ticket paid: %v", tk.Status)
	}
}

// A counter's payment from the identity threshold on without the winner's
// identity is recorded (the money is gone) and flagged identity-missing, in
// the claim's reason too; the threshold is the one sealed at the issue, not
// the back office's setting since.
func TestImportFlagsMissingIdentity(t *testing.T) {
	ctx := context.Background()
	bo, _, c2 := openCounterCopies(t)
	b := mustBlock(t, bo)
	if err := bo.SetSetting(ctx, SettingIdentityThreshold, 100000, Identity{Desk: "BO", Operator: "boss"}); err != nil {
		t.Fatal(err)
	}
	ps := ticketsWith(t, bo, b, 50000, 2)
	appendForged(t, c2, entry{Kind: "claim", Ticket: sql.NullInt64{Int64: b.First() + int64(ps[0]), Valid: true}, Serial: serialOf(b, ps[0]),
		Game: 531, Block: 1, Position: ps[0], Amount: 50000, Desk: "C2", Operator: "mallory", Method: MethodSerial, Request: "r1"})
	req := claimReq(serialOf(b, ps[1]), Identity{Desk: "C2", Operator: "ann"})
	req.Winner = &Winner{Name: "Jean Dupont", DocType: "permis de conduire", DocNumber: "880692310285"}
	if _, err := c2.Claim(ctx, req); err != nil {
		t.Fatal(err)
	}
	rep, err := bo.ImportClaims(ctx, bytes.NewReader(exportOf(t, c2)), Identity{Desk: "BO", Operator: "clerk"})
	if err != nil || rep.Recorded != 2 || fmt.Sprint(flagKinds(rep)) != "[identity-missing]" || rep.Flags[0].Serial != serialOf(b, ps[0])[:16] {
		t.Fatalf("import: %+v %v", rep, err)
	}
	var reasons []string
	sel(ctx, rdb(bo), &reasons, "SELECT reason FROM journal WHERE kind = 'claim' AND desk = 'C2' ORDER BY id")
	if fmt.Sprint(reasons) != "[identity-missing ]" {
		t.Errorf("the claims' reasons: %q", reasons)
	}
	for _, p := range ps {
		if tk, _ := bo.TicketAt(ctx, 531, 1, p); tk.Status != StatusPaid {
			t.Errorf("ticket %d: %v", p, tk.Status)
		}
	}
}

// A payment of a block counter ledger C2 never held (generated after its
// issue) is recorded as not-sealed and not paid: the counter could not
// have found the ticket.
func TestImportRefusesUnsealedBlock(t *testing.T) {
	ctx := context.Background()
	bo, _, c2 := openCounterCopies(t)
	b2, err := bo.Generate(ctx, 531, game.Seed{9, 9, 9}, GenerateOptions{Activate: true, Who: Identity{Desk: "BO", Operator: "boss"}})
	if err != nil {
		t.Fatal(err)
	}
	pos := ticketsWith(t, bo, b2, 1000, 1)[0]
	serial := serialOf(b2, pos)
	if _, err := c2.Lookup(ctx, serial, Identity{Desk: "C2", Operator: "ann"}, NoLimit); !errors.Is(err, ErrUnknownSerial) {
		t.Fatalf("the counter finds a ticket of block %s: %v", b2.Name(), err)
	}
	appendForged(t, c2, entry{Kind: "claim", Ticket: sql.NullInt64{Int64: b2.First() + int64(pos), Valid: true}, Serial: serial,
		Game: 531, Block: b2.Number, Position: pos, Amount: 1000, Desk: "C2", Operator: "mallory", Method: MethodSerial, Request: "r2"})
	rep, err := bo.ImportClaims(ctx, bytes.NewReader(exportOf(t, c2)), Identity{Desk: "BO", Operator: "clerk"})
	if err != nil || rep.Recorded != 0 || fmt.Sprint(flagKinds(rep)) != "[not-sealed]" {
		t.Fatalf("import: %+v %v", rep, err)
	}
	if tk, _ := bo.TicketAt(ctx, 531, b2.Number, pos); tk.Status != StatusUnpaid {
		t.Errorf("the payment made the ticket paid: %v", tk.Status)
	}
}

// Payments dated before the counter ledger's issue, after the import, or
// before the counter's previous payment are recorded as bad-time and not
// paid; a forged time moves no bound, so the counter's next payment is
// recorded.
func TestImportBoundsPaymentTimes(t *testing.T) {
	ctx := context.Background()
	bo, _, c2 := openCounterCopies(t)
	b := mustBlock(t, bo)
	ps := ticketsWith(t, bo, b, 15, 5)
	if _, err := c2.Claim(ctx, claimReq(serialOf(b, ps[0]), Identity{Desk: "C2", Operator: "ann"})); err != nil {
		t.Fatal(err)
	}
	for i, at := range []time.Time{
		time.Date(2025, 5, 1, 9, 0, 0, 0, time.UTC),   // before the issue
		time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC),   // after the import
		time.Date(2025, 5, 2, 10, 30, 0, 0, time.UTC), // before the payment before it
	} {
		p := ps[i+1]
		appendForged(t, c2, entry{Kind: "claim", At: at, Ticket: sql.NullInt64{Int64: b.First() + int64(p), Valid: true}, Serial: serialOf(b, p),
			Game: 531, Block: 1, Position: p, Amount: 15, Desk: "C2", Operator: "mallory", Method: MethodSerial, Request: fmt.Sprint("t", i)})
	}
	if _, err := c2.Claim(ctx, claimReq(serialOf(b, ps[4]), Identity{Desk: "C2", Operator: "ann"})); err != nil {
		t.Fatal(err)
	}
	rep, err := bo.ImportClaims(ctx, bytes.NewReader(exportOf(t, c2)), Identity{Desk: "BO", Operator: "clerk"})
	if err != nil || rep.Recorded != 2 || fmt.Sprint(flagKinds(rep)) != "[bad-time bad-time bad-time]" {
		t.Fatalf("import: %+v %v", rep, err)
	}
	for i, p := range ps {
		want := StatusUnpaid
		if i == 0 || i == 4 {
			want = StatusPaid
		}
		if tk, _ := bo.TicketAt(ctx, 531, 1, p); tk.Status != want {
			t.Errorf("payment %d: ticket %v, want %v", i, tk.Status, want)
		}
	}
}

// An issue recorded before its checkpoint named the identity threshold and
// the sealed blocks: the import takes the threshold set then and the blocks
// generated before it, not what was set or generated since.
func TestIssuedCounterRecordedBefore(t *testing.T) {
	ctx := context.Background()
	bo := mustOpen(t, copyFixture(t))
	who := Identity{Desk: "BO", Operator: "boss"}
	if err := bo.SetSetting(ctx, SettingIdentityThreshold, 7000, who); err != nil {
		t.Fatal(err)
	}
	appendForged(t, bo, entry{Kind: "checkpoint", Desk: "C1", Operator: "issuer", Method: "counter-ledger", Amount: 100,
		Request: "old", Detail: "ledger=old\nseal=" + strings.Repeat("a", 64) + "\ngenesis=" + strings.Repeat("b", 64)})
	if err := bo.SetSetting(ctx, SettingIdentityThreshold, 9000, who); err != nil {
		t.Fatal(err)
	}
	b2, err := bo.Generate(ctx, 531, game.Seed{9, 9, 9}, GenerateOptions{Who: who})
	if err != nil {
		t.Fatal(err)
	}
	c, err := backoffice.ReadIssue(ctx, rdb(bo), "old")
	if err != nil || c == nil {
		t.Fatal(c, err)
	}
	b1 := mustBlock(t, bo)
	if c.Limit != 100 || c.Threshold != 7000 || !c.Blocks[b1.ID] || c.Blocks[b2.ID] || len(c.Blocks) != 1 {
		t.Errorf("the issue's record: limit %v, threshold %d, blocks %v", c.Limit, c.Threshold, c.Blocks)
	}
}

// Issue 29's sequence, on a SQLite and a PostgreSQL back office: counter
// C1 pays a 50 € ticket offline, the back office pays it too, the import
// records C1's payment all the same as an open case; the back office's
// payment voided and the file imported again, the ticket is still paid
// (C1's payment stands) and a claim is refused; a decision closes the
// case. C1's referral of a 1,000 € ticket reaches the back office.
func TestImportDoublePaymentStaysPaid(t *testing.T) {
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			ctx := context.Background()
			boPath, counters := counterCopies(t)
			if engine == "postgres" {
				boPath = pgCopyOf(t, "sealed")
			}
			bo, c1, _ := openCounters(t, boPath, counters)
			b := mustBlock(t, bo)
			serial := serialOf(b, ticketsWith(t, bo, b, 50, 1)[0])
			big := serialOf(b, ticketsWith(t, bo, b, 1000, 1)[0])
			ann, clerk := Identity{Desk: "C1", Operator: "ann"}, Identity{Desk: "BO", Operator: "clerk"}
			offline, err := c1.Claim(ctx, claimReq(serial, ann))
			if err != nil {
				t.Fatal(err)
			}
			var r *Refusal
			if _, err := c1.Claim(ctx, claimReq(big, ann)); !errors.As(err, &r) || r.Verdict != OverLimit {
				t.Fatalf("1,000 € at C1: %v", err)
			}
			here, err := bo.Claim(ctx, claimReq(serial, clerk))
			if err != nil {
				t.Fatal(err)
			}
			rep, err := bo.ImportClaims(ctx, bytes.NewReader(exportOf(t, c1)), clerk)
			if err != nil || rep.Rejected || rep.Recorded != 1 || rep.Referred != 1 || fmt.Sprint(flagKinds(rep)) != "[double-payment]" {
				t.Fatalf("import: %+v %v", rep, err)
			}
			cases, err := bo.Cases(ctx)
			if err != nil || len(cases) != 1 {
				t.Fatalf("cases: %+v %v", cases, err)
			}
			c := cases[0]
			if c.Closed || c.Amount != 50 || c.First.Number != here.Number || c.Second.Desk != "C1" || c.Second.Operator != "ann" ||
				!c.Second.At.Equal(offline.At) || c.Serial != serial {
				t.Errorf("the case: %+v", c)
			}
			// C1's payment is in its day and its settlement: the cash it paid out.
			day, err := bo.DayReport(ctx, "C1", offline.At)
			if err != nil || len(day.Payments) != 1 || len(day.Cases) != 1 || day.Cases[0].Number != c.Number {
				t.Errorf("C1's day: payments %+v, cases %+v, %v", day.Payments, day.Cases, err)
			}
			st, err := bo.Settlement(ctx, "C1", 531, offline.At, offline.At)
			if err != nil || st.PrizeSum != 50 || len(st.Cases) != 1 {
				t.Errorf("C1's settlement: %d € paid, cases %+v, %v", st.PrizeSum, st.Cases, err)
			}
			// The referral, at the back office, with the ticket's prize.
			refs, err := bo.Referrals(ctx)
			if err != nil || len(refs) != 1 || refs[0].Serial != big || refs[0].Amount != 1000 || refs[0].Desk != "C1" {
				t.Errorf("referrals: %+v %v", refs, err)
			}

			if _, err := bo.Void(ctx, here.Number, "paid twice: the counter paid it offline", clerk); err != nil {
				t.Fatal(err)
			}
			rep, err = bo.ImportClaims(ctx, bytes.NewReader(exportOf(t, c1)), clerk)
			if err != nil || !rep.OK() || rep.Recorded != 0 || rep.Referred != 0 || rep.Already != 1 {
				t.Errorf("import again: %+v %v", rep, err)
			}
			if tk, err := bo.Lookup(ctx, serial, clerk, NoLimit); err != nil || tk.Status != StatusPaid || tk.Claim.Number != c.Number {
				t.Errorf("after the void, lookup: %+v %v", tk, err)
			}
			if cl, err := bo.Claim(ctx, claimReq(serial, clerk)); !errors.Is(err, ErrAlreadyClaimed) {
				t.Fatalf("after the void, the ticket was paid again: %+v %v", cl, err)
			}
			if rep, err := journalOnly(bo); err != nil || !rep.OK() {
				t.Errorf("verify: %v %v", rep.Problems, err)
			}

			if _, err := bo.CloseCase(ctx, c.Number, "  ", clerk); err == nil {
				t.Error("a case closed without a decision")
			}
			if _, err := bo.CloseCase(ctx, here.Number, "recovered", clerk); !errors.Is(err, ErrNotFound) {
				t.Errorf("closed a payment that is no double payment: %v", err)
			}
			closed, err := bo.CloseCase(ctx, c.Number, "50 € recovered from the winner", clerk)
			if err != nil || !closed.Closed {
				t.Fatalf("close: %+v %v", closed, err)
			}
			if _, err := bo.CloseCase(ctx, c.Number, "again", clerk); err == nil || !strings.Contains(err.Error(), "already closed") {
				t.Errorf("closed twice: %v", err)
			}
			if cases, err := bo.Cases(ctx); err != nil || len(cases) != 1 || !cases[0].Closed || cases[0].Decision != "50 € recovered from the winner" || cases[0].ClosedBy != "clerk" {
				t.Errorf("cases after the decision: %+v %v", cases, err)
			}
			if k := journalKinds(t, bo, lastEntry(t, bo)-1); fmt.Sprint(k) != "[import/case-closed]" {
				t.Errorf("the decision recorded %v", k)
			}
			if tk, err := bo.Lookup(ctx, serial, clerk, NoLimit); err != nil || tk.Status != StatusPaid {
				t.Errorf("after the decision, lookup: %+v %v", tk, err)
			}
		})
	}
}
