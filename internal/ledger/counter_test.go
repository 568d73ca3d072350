package ledger

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vegas-desk/internal/game"
	"vegas-desk/internal/signing"
	"vegas-desk/internal/testcache"
)

// testKey is the back office's signing key in the tests.
var testKey = signing.KeyFromSeed(bytes.Repeat([]byte{7}, 32))

// The counter fixture (ledgertest's "sealed"): a copy of the SQLite
// fixture that issued two counter ledgers of its block, C1 (payout limit
// 100 €) and C2 (50,000 €), made once per run; each test copies it.
func copyFile(src, dst string) error { return testcache.CopyFile(src, dst) }

// counterCopies returns fresh copies of the back office that issued the
// counter ledgers and of the two counter ledgers.
func counterCopies(tb testing.TB) (bo string, counters [2]string) {
	tb.Helper()
	src, err := FixtureDir("sealed")
	if err != nil {
		tb.Fatal("counter fixture:", err)
	}
	dir := tb.TempDir()
	bo = filepath.Join(dir, "bo.db")
	if err := copyFile(filepath.Join(src, "ledger.db"), bo); err != nil {
		tb.Fatal(err)
	}
	for i, desk := range []string{"C1", "C2"} {
		counters[i] = filepath.Join(dir, desk+".db")
		if err := copyFile(filepath.Join(src, desk+".db"), counters[i]); err != nil {
			tb.Fatal(err)
		}
	}
	return bo, counters
}

// clockFrom is a test clock that starts a second after t0 and ticks a
// second a call.
func clockFrom(t0 time.Time) func() time.Time {
	n := 0
	return func() time.Time { n++; return t0.Add(time.Duration(n) * time.Second) }
}

// openCounterCopies opens fresh copies of the back office and of counter
// ledgers C1 and C2 with clocks as they run: the fixture issued them on 1
// May 2025 from 10:00, the counters pay on 2 May, the back office imports
// on 3 May.
func openCounterCopies(tb testing.TB) (bo, c1, c2 *Ledger) {
	tb.Helper()
	boPath, counters := counterCopies(tb)
	return openCounters(tb, boPath, counters)
}

// openCounters opens copies made by counterCopies, with openCounterCopies'
// clocks.
func openCounters(tb testing.TB, boPath string, counters [2]string) (bo, c1, c2 *Ledger) {
	tb.Helper()
	bo, c1, c2 = mustOpen(tb, boPath), mustOpen(tb, counters[0]), mustOpen(tb, counters[1])
	c1.Now = clockFrom(time.Date(2025, 5, 2, 10, 0, 0, 0, time.UTC))
	c2.Now = clockFrom(time.Date(2025, 5, 2, 11, 0, 0, 0, time.UTC))
	bo.Now = clockFrom(time.Date(2025, 5, 3, 10, 0, 0, 0, time.UTC))
	return bo, c1, c2
}

func TestCounterLedger(t *testing.T) {
	ctx := context.Background()
	boPath, counters := counterCopies(t)
	bo := mustOpen(t, boPath)
	c := mustOpen(t, counters[0])
	if c.Kind() != "counter" || c.CounterDesk() != "C1" || c.CounterLimit() != 100 || bo.Kind() != "back-office" {
		t.Fatalf("kind %q desk %q limit %d", c.Kind(), c.CounterDesk(), c.CounterLimit())
	}
	sealed, _ := FixtureDir("sealed")
	if st, err := os.Stat(filepath.Join(sealed, "C1.db")); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("the counter ledger's mode: %v %v", st.Mode(), err)
	}
	b := mustBlock(t, bo)
	if cb := mustBlock(t, c); cb.Digest != b.Digest || cb.Tickets != b.Tickets || cb.Winners != b.Winners {
		t.Fatalf("counter block %+v, back office %+v", cb, b)
	}
	who := Identity{Desk: "C1", Operator: "ann"}

	// Every tier, a loser and a few of each: the same ticket and verdict on
	// both ledgers.
	var positions []int
	for _, tier := range append([]game.Tier{{Prize: 0}}, game.PrizeTable[:]...) {
		positions = append(positions, ticketsWith(t, bo, b, tier.Prize, 2)...)
	}
	for _, pos := range positions {
		s := serialOf(b, pos)
		want, err := bo.Lookup(ctx, s, who, 100)
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.Lookup(ctx, s, who, NoLimit)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if got.Serial != want.Serial || got.Ticket != want.Ticket || got.Prize != want.Prize || got.Verdict != want.Verdict ||
			got.Status != want.Status || got.PackState != want.PackState {
			t.Errorf("%s: counter says %+v\nback office says %+v", s, got, want)
		}
		if got.Prize > 0 {
			found, err := c.FindByContents(ctx, &got.Ticket, who, NoLimit)
			if err != nil || found.Serial != want.Serial {
				t.Errorf("%s by contents: %v %v", s, found.Serial, err)
			}
		}
	}

	// A wrong secret answers like an unknown serial, and is recorded
	// without the secret part.
	s, _ := game.ParseSerial(serialOf(b, positions[2]))
	s.Secret = (s.Secret + 1) % game.SecretModulus
	before := lastEntry(t, c)
	_, err := c.Lookup(ctx, s.String(), who, NoLimit)
	if !errors.Is(err, ErrUnknownSerial) {
		t.Fatalf("wrong secret: %v", err)
	}
	var e entry
	get(ctx, rdb(c), &e, "SELECT "+entryCols+" FROM journal WHERE id = ?", before+1)
	if e.Kind != "refusal" || e.Reason != string(UnknownSerial) || e.Serial != fmt.Sprintf("%03d-%04d-%07d", s.Game, s.Block, s.Position) || e.Desk != "C1" {
		t.Errorf("recorded %+v", e)
	}

	// Claims: paid once, the limit from the file, refusals recorded.
	small := ticketsWith(t, bo, b, 15, 1)[0]
	cl, err := c.Claim(ctx, claimReq(serialOf(b, small), who))
	if err != nil || cl.Amount != 15 || cl.Desk != "C1" || cl.Number != 1 {
		t.Fatalf("claim: %+v %v", cl, err)
	}
	if _, err := c.Claim(ctx, claimReq(serialOf(b, small), who)); !errors.Is(err, ErrAlreadyClaimed) {
		t.Errorf("second claim: %v", err)
	}
	big := ticketsWith(t, bo, b, 1000, 1)[0]
	req := claimReq(serialOf(b, big), who)
	req.Limit = NoLimit // asks no limit: the file's applies
	if _, err := c.Claim(ctx, req); !errors.Is(err, ErrOverLimit) {
		t.Errorf("1000 € at a 100 € counter: %v", err)
	}
	if _, err := c.Claim(ctx, claimReq(serialOf(b, small), Identity{Desk: "C9", Operator: "bob"})); !errors.Is(err, ErrDeskMismatch) {
		t.Errorf("another desk: %v", err)
	}
	loser := ticketsWith(t, bo, b, 0, 1)[0]
	if _, err := c.Claim(ctx, claimReq(serialOf(b, loser), who)); !errors.Is(err, ErrNotWinner) {
		t.Errorf("loser: %v", err)
	}
	kinds := journalKinds(t, c, 0)
	want := []string{"issue", "refusal/unknown-serial", "claim", "refusal/already-claimed", "referral", "refusal/not-winner"}
	if len(kinds) != len(want) {
		t.Fatalf("journal %v, want %v", kinds, want)
	}
	for i := range want {
		if kinds[i] != want[i] {
			t.Errorf("journal %v, want %v", kinds, want)
			break
		}
	}
	var serials []string
	sel(ctx, rdb(c), &serials, "SELECT serial FROM journal WHERE kind IN ('refusal', 'referral')")
	for _, s := range serials {
		if len(s) > len("531-0001-0000000") {
			t.Errorf("a refusal records the whole serial %s", s)
		}
	}

	// Back-office work is refused.
	for name, f := range map[string]func() error{
		"generate": func() error { _, err := c.Generate(ctx, 531, game.Seed{9}, GenerateOptions{}); return err },
		"export":   func() error { return c.Export(ctx, 531, 1, io.Discard, nil) },
		"report":   func() error { _, err := c.Report(ctx, 531, 1); return err },
		"ticket":   func() error { _, err := c.TicketAt(ctx, 531, 1, 0); return err },
		"samples":  func() error { _, err := c.Samples(ctx, 531, 1); return err },
		"void":     func() error { _, err := c.Void(ctx, 1, "x", who); return err },
		"issue": func() error {
			_, err := c.IssueCounter(ctx, filepath.Join(t.TempDir(), "x.db"), CounterSpec{Desk: "C3", Limit: 1, Key: testKey})
			return err
		},
	} {
		if err := f(); err == nil || (name != "samples" && !errors.Is(err, ErrCounterOnly)) {
			t.Errorf("%s on a counter ledger: %v", name, err)
		}
	}

	rep, err := c.Verify(ctx, 0, 0, nil)
	if err != nil || !rep.OK() || rep.Key != testKey.Public().String() || rep.Entries != len(want) {
		t.Errorf("verify: %+v %v", rep, err)
	}
}

// A counter ledger issued from a shared PostgreSQL back office answers as
// it does, and its payments come home to it.
func TestCounterFromPostgres(t *testing.T) {
	ctx := context.Background()
	bo := mustOpen(t, pgCopy(t))
	path := filepath.Join(t.TempDir(), "c.db")
	is, err := bo.IssueCounter(ctx, path, CounterSpec{Desk: "P1", Limit: 50000, Key: testKey, Who: Identity{Desk: "BO", Operator: "issuer"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(is.Blocks) != 1 || is.Limit != 50000 {
		t.Errorf("issued %+v", is)
	}
	c := mustOpen(t, path)
	b := mustBlock(t, bo)
	who := Identity{Desk: "P1", Operator: "ann"}
	for _, prize := range []int{0, 3, 100, 50000} {
		s := serialOf(b, ticketsWith(t, bo, b, prize, 1)[0])
		want, err := bo.Lookup(ctx, s, who, NoLimit)
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.Lookup(ctx, s, who, NoLimit)
		if err != nil || got.Prize != want.Prize || got.Ticket != want.Ticket || got.Verdict != want.Verdict {
			t.Errorf("%s: counter %+v %v, back office %+v", s, got, err, want)
		}
	}
	s := serialOf(b, ticketsWith(t, bo, b, 9, 1)[0])
	if _, err := c.Claim(ctx, claimReq(s, who)); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := c.ExportJournal(ctx, &buf); err != nil {
		t.Fatal(err)
	}
	rep, err := bo.ImportClaims(ctx, bytes.NewReader(buf.Bytes()), Identity{Desk: "BO", Operator: "clerk"})
	if err != nil || !rep.OK() || rep.Recorded != 1 {
		t.Fatalf("import into PostgreSQL: %+v %v", rep, err)
	}
	if rep, err := bo.ImportClaims(ctx, bytes.NewReader(buf.Bytes()), Identity{Desk: "BO", Operator: "clerk"}); err != nil || rep.Already != 1 || rep.Recorded != 0 {
		t.Errorf("again: %+v %v", rep, err)
	}
	if tk, err := bo.Lookup(ctx, s, who, NoLimit); err != nil || tk.Status != StatusPaid || tk.Claim.Desk != "P1" {
		t.Errorf("the back office does not keep it paid: %+v %v", tk.Claim, err)
	}
	if rep, err := journalOnly(bo); err != nil || !rep.OK() {
		t.Errorf("verify: %v %v", rep.Problems, err)
	}
}

// The retail papers and lists on a sealed counter ledger: its packs as they
// were sealed (their moves refused, nothing written), a payment's receipt
// and the counter's day report.
func TestCounterRetail(t *testing.T) {
	ctx := context.Background()
	boPath, counters := counterCopies(t)
	bo := mustOpen(t, boPath)
	c := mustOpen(t, counters[0])
	b := mustBlock(t, bo)

	count := func(runs []PackRun) map[string]int {
		m := map[string]int{}
		for _, r := range runs {
			m[r.State] += r.Count()
		}
		return m
	}
	want, err := bo.Packs(ctx, PackFilter{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.Packs(ctx, PackFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 || fmt.Sprint(count(got)) != fmt.Sprint(count(want)) || got[0].Move != "issue" {
		t.Errorf("the counter's packs %v (%d runs), the back office's %v", count(got), len(got), count(want))
	}
	if stock, err := c.Packs(ctx, PackFilter{State: "stock"}); err != nil || len(stock) != 0 {
		t.Errorf("the stock on a counter ledger: %d runs, %v", len(stock), err)
	}
	head, err := c.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	err = c.MovePacks(ctx, PackMove{Game: b.Game, Block: b.Number, First: 0, Last: 0, Move: "activate"}, Identity{Desk: "C1", Operator: "ann"})
	if !errors.Is(err, ErrCounterOnly) || !strings.Contains(err.Error(), "issue a new counter ledger") {
		t.Errorf("a pack move on a counter ledger: %v", err)
	}
	if h, _ := c.Head(ctx); h != head {
		t.Error("a refused pack move wrote to the journal")
	}

	pos := ticketsWith(t, bo, b, 6, 1)[0]
	cl, err := c.Claim(ctx, ClaimRequest{Serial: serialOf(b, pos), Method: MethodSerial, Who: Identity{Desk: "C1", Operator: "ann"}, Limit: NoLimit})
	if err != nil {
		t.Fatal(err)
	}
	rc, err := c.Receipt(ctx, cl.Number)
	if err != nil || rc.Claim.Serial != cl.Serial || rc.Claim.Amount != 6 || rc.GameName != "VEGAS" || rc.Head == "" {
		t.Errorf("receipt: %+v %v", rc, err)
	}
	if _, err := c.Receipt(ctx, cl.Number+1); !errors.Is(err, ErrNotFound) {
		t.Errorf("the receipt of a payment the counter did not make: %v", err)
	}
	day, err := c.DayReport(ctx, "", cl.At)
	if err != nil || day.Desk != "C1" || len(day.Payments) != 1 || day.Head != rc.Head {
		t.Errorf("day report: %+v %v", day, err)
	}
	if _, err := c.DayReport(ctx, "C2", cl.At); !errors.Is(err, ErrDeskMismatch) {
		t.Errorf("another desk's day on C1's ledger: %v", err)
	}
}

// A counter ledger's referral and refusals keep neither the unpaid winner's
// ticket number nor its prize (nor the serial's secret part): a lost file
// gives away no unpaid winner. The counter's answer still says the prize.
func TestCounterReferralKeepsNoWinner(t *testing.T) {
	ctx := context.Background()
	bo, c1, _ := openCounterCopies(t)
	b := mustBlock(t, bo)
	big := serialOf(b, ticketsWith(t, bo, b, 50000, 1)[0])
	var r *Refusal
	_, err := c1.Claim(ctx, claimReq(big, Identity{Desk: "C1", Operator: "ann"}))
	if !errors.As(err, &r) || r.Verdict != OverLimit || r.Amount != 50000 {
		t.Fatalf("50,000 € at a 100 € counter: %v", err)
	}
	small := serialOf(b, ticketsWith(t, bo, b, 15, 1)[0])
	if _, err := c1.Claim(ctx, claimReq(small, Identity{Desk: "C1", Operator: "ann"})); err != nil {
		t.Fatal(err)
	}
	if _, err := c1.Claim(ctx, claimReq(small, Identity{Desk: "C1", Operator: "ann"})); !errors.Is(err, ErrAlreadyClaimed) {
		t.Fatalf("paid twice: %v", err)
	}
	var es []entry
	if err := sel(ctx, rdb(c1), &es, "SELECT "+entryCols+" FROM journal WHERE kind IN ('referral', 'refusal') ORDER BY id"); err != nil {
		t.Fatal(err)
	}
	if len(es) != 2 || es[0].Kind != "referral" {
		t.Fatalf("recorded %v", journalKinds(t, c1, 1))
	}
	for _, e := range es {
		if e.Ticket.Valid || e.Amount != 0 || len(e.Serial) != len("531-0001-0000000") {
			t.Errorf("the counter's %s keeps ticket %v, amount %d, serial %s", e.Kind, e.Ticket, e.Amount, e.Serial)
		}
	}
	// Its day report lists the referral, without the prize it does not keep.
	day, err := c1.DayReport(ctx, "", time.Date(2025, 5, 2, 12, 0, 0, 0, time.UTC))
	if err != nil || len(day.Referrals) != 1 || day.Referrals[0].Amount != 0 || day.Referrals[0].Serial != big[:16] {
		t.Errorf("the day's referrals %+v, %v", day.Referrals, err)
	}
	if rep, err := c1.Verify(ctx, 0, 0, nil); err != nil || !rep.OK() {
		t.Errorf("verify: %v %v", rep.Problems, err)
	}
	rep, err := bo.ImportClaims(ctx, bytes.NewReader(exportOf(t, c1)), Identity{Desk: "BO", Operator: "clerk"})
	if err != nil || !rep.OK() || rep.Recorded != 1 {
		t.Errorf("import: %+v %v", rep, err)
	}
}

// verify checks a counter ledger's winners' identities against the
// payments that hashed them: one changed, one kept for a refusal, or one
// removed, each outside the app, is reported.
func TestCounterVerifyIdentities(t *testing.T) {
	ctx := context.Background()
	boPath, counters := counterCopies(t)
	bo, _, c2 := openCounters(t, boPath, counters)
	b := mustBlock(t, bo)
	req := claimReq(serialOf(b, ticketsWith(t, bo, b, 50000, 1)[0]), Identity{Desk: "C2", Operator: "ann"})
	req.Winner = &Winner{Name: "Jean Dupont", DocType: "permis de conduire", DocNumber: "880692310285"}
	paid, err := c2.Claim(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c2.Claim(ctx, req); !errors.Is(err, ErrAlreadyClaimed) {
		t.Fatalf("paid twice: %v", err)
	}
	if rep, err := c2.Verify(ctx, 0, 0, nil); err != nil || !rep.OK() {
		t.Fatalf("verify: %v %v", rep.Problems, err)
	}
	refusal := lastEntry(t, c2)
	c2.Close()
	for _, tc := range []struct {
		name, trigger, stmt string
		entry               int64
		want                string
	}{
		{"another winner", "identities_no_update", "UPDATE identities SET name = 'Mallory'", paid.Entry, "other than the one the payment recorded"},
		{"an identity for a refusal", "identities_no_update",
			fmt.Sprintf("INSERT INTO identities VALUES (%d, 'Mallory', 'CNI', '1')", refusal), refusal, "it is no payment"},
		{"no identity", "identities_no_delete", "DELETE FROM identities", paid.Entry, "whose identity the ledger does not keep"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "C2.db")
			if err := copyFile(counters[1], path); err != nil {
				t.Fatal(err)
			}
			alterUnderTrigger(t, path, tc.trigger, tc.stmt)
			rep, err := mustOpen(t, path).Verify(ctx, 0, 0, nil)
			if err != nil || len(rep.Problems) != 1 || rep.Problems[0].Where != fmt.Sprintf("journal entry %d", tc.entry) ||
				!strings.Contains(rep.Problems[0].What, tc.want) {
				t.Errorf("verify: %v %v", rep.Problems, err)
			}
		})
	}
}
