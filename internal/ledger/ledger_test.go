package ledger

import (
	"bytes"
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/backoffice"
)

func TestClaims(t *testing.T) {
	forEngines(t, func(t *testing.T, e engineCase) {
		ctx := context.Background()
		l := mustOpen(t, e.fresh(t))
		b := mustBlock(t, l)
		w50 := ticketsWith(t, l, b, 50, 2)
		w3 := ticketsWith(t, l, b, 3, 1)[0]
		loser := ticketsWith(t, l, b, 0, 1)[0]
		ann, bob := Identity{Desk: "D1", Operator: "ann"}, Identity{Desk: "D2", Operator: "bob"}
		start := lastEntry(t, l)

		c1, err := l.Claim(ctx, claimReq(serialOf(b, w50[0]), ann))
		if err != nil {
			t.Fatal(err)
		}
		if c1.Number != 1 || c1.Amount != 50 || c1.Desk != "D1" || c1.Operator != "ann" || c1.Method != MethodSerial ||
			c1.Position != w50[0] || len(c1.Hash) != 64 || c1.Request == "" {
			t.Errorf("claim %+v", c1)
		}
		_, err = l.Claim(ctx, claimReq(serialOf(b, w50[0]), bob))
		var r *Refusal
		if !errors.As(err, &r) || !errors.Is(err, ErrAlreadyClaimed) || r.First == nil {
			t.Fatalf("second claim: %v", err)
		}
		if r.First.Number != c1.Number || r.First.Desk != "D1" || r.First.Operator != "ann" || !r.First.At.Equal(c1.At) {
			t.Errorf("first claim %+v, want %+v", r.First, c1)
		}
		for _, s := range []string{"D1", "ann", c1.At.Local().Format("2006-01-02 15:04:05"), "n° 1"} {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("%q does not say %q", err, s)
			}
		}
		if _, err := l.Claim(ctx, claimReq(serialOf(b, loser), bob)); !errors.Is(err, ErrNotWinner) {
			t.Errorf("loser: %v", err)
		}
		s, _ := game.ParseSerial(serialOf(b, w50[1]))
		s.Secret = (s.Secret + 1) % game.SecretModulus
		if _, err := l.Claim(ctx, claimReq(s.String(), bob)); !errors.Is(err, ErrUnknownSerial) {
			t.Errorf("wrong secret: %v", err)
		}
		if _, err := l.Claim(ctx, claimReq(serialOf(b, w50[1]), Identity{Desk: "D2", Operator: " "})); err == nil {
			t.Error("a claim without an operator")
		}

		// Void keeps both entries; the ticket can then be claimed again.
		if _, err := l.Void(ctx, c1.Number, "", bob); err == nil {
			t.Error("void without a reason")
		}
		v, err := l.Void(ctx, c1.Number, "paid the wrong ticket", bob)
		if err != nil || !v.Voided || v.VoidedBy != "bob" || v.VoidDesk != "D2" {
			t.Fatalf("void %+v, %v", v, err)
		}
		if _, err := l.Void(ctx, c1.Number, "again", bob); err == nil || !strings.Contains(err.Error(), "already voided") {
			t.Errorf("voided twice: %v", err)
		}
		if _, err := l.Void(ctx, 9999, "x", bob); !errors.Is(err, ErrNotFound) {
			t.Errorf("void of no claim: %v", err)
		}
		tk, _ := l.Lookup(ctx, serialOf(b, w50[0]), ann, NoLimit)
		if tk.Status != StatusUnpaid || tk.Verdict != Payable {
			t.Errorf("after void: %v %v", tk.Status, tk.Verdict)
		}
		c2, err := l.Claim(ctx, ClaimRequest{Serial: serialOf(b, w50[0]), Method: MethodContents, Who: bob, Limit: NoLimit})
		if err != nil {
			t.Fatal(err)
		}
		c3, err := l.Claim(ctx, claimReq(serialOf(b, w3), ann))
		if err != nil {
			t.Fatal(err)
		}
		// Payment numbers have no gaps, whatever came between.
		if c2.Number != 2 || c3.Number != 3 {
			t.Errorf("payment numbers %d, %d; want 2, 3", c2.Number, c3.Number)
		}
		tk, _ = l.Lookup(ctx, serialOf(b, w50[0]), ann, NoLimit)
		if tk.Status != StatusPaid || tk.Claim == nil || tk.Claim.Number != c2.Number || tk.Verdict != AlreadyClaimed {
			t.Errorf("paid ticket: %+v", tk)
		}
		want := []string{"claim", "refusal/already-claimed", "refusal/not-winner", "refusal/unknown-serial",
			"void/paid the wrong ticket", "claim", "claim"}
		if got := journalKinds(t, l, start); !slices.Equal(got, want) {
			t.Errorf("journal %v, want %v", got, want)
		}
		for _, stmt := range []string{"UPDATE journal SET amount = 1", "DELETE FROM journal", "UPDATE packs SET prizes = codes", "DELETE FROM blocks"} {
			if _, err := wdb(l).Exec(stmt); err == nil {
				t.Errorf("%s: not refused", stmt)
			}
		}

		cs, err := l.Claims(ctx, ClaimFilter{Game: 531, Block: 1})
		if err != nil || len(cs) != 3 || !cs[0].Voided || cs[0].VoidReason != "paid the wrong ticket" || cs[1].Voided {
			t.Errorf("claims %+v, %v", cs, err)
		}
		if cs, _ := l.Claims(ctx, ClaimFilter{Desk: "D2"}); len(cs) != 1 {
			t.Errorf("desk D2: %d claims", len(cs))
		}
		if cs, _ := l.Claims(ctx, ClaimFilter{Since: c2.At}); len(cs) != 2 {
			t.Errorf("since: %d claims", len(cs))
		}
		got, err := l.ClaimByNumber(ctx, 2)
		if err != nil || got.Entry != c2.Entry {
			t.Errorf("payment 2: %+v, %v", got, err)
		}

		rep, err := l.Report(ctx, 531, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range rep.Tiers {
			want := TierLine{Prize: line.Prize, Table: line.Table, Generated: line.Table, Outstanding: line.Table, Liability: line.Table * line.Prize}
			switch line.Prize {
			case 50:
				want.Claimed, want.ClaimedSum, want.Outstanding, want.Liability = 1, 50, line.Table-1, (line.Table-1)*50
			case 3:
				want.Claimed, want.ClaimedSum, want.Outstanding, want.Liability = 1, 3, line.Table-1, (line.Table-1)*3
			}
			if line != want {
				t.Errorf("tier %d: %+v, want %+v", line.Prize, line, want)
			}
		}
		if rep.Total.Generated != game.Winners || rep.Total.ClaimedSum != 53 || rep.Total.Liability != game.Payout-53 || rep.Total.Prize != game.Payout {
			t.Errorf("total %+v", rep.Total)
		}
		dd, err := l.DailyReport(ctx, ClaimFilter{})
		if err != nil {
			t.Fatal(err)
		}
		sum := 0
		for _, d := range dd {
			sum += d.Sum
		}
		if sum != 53 || len(dd) != 2 {
			t.Errorf("daily %+v", dd)
		}
		vr, err := journalOnly(l)
		if err != nil || !vr.OK() || vr.Entries != 9 {
			t.Errorf("verify %+v, %v", vr, err)
		}
	})
}

// A block generated on each engine is the fixture's (ledgertest made it on
// SQLite, and copied it into PostgreSQL): the same digest and, with the
// same clock, the same journal head; and it verifies in full.
func TestGenerateAndVerify(t *testing.T) {
	ctx := context.Background()
	want, err := journalOnly(mustOpen(t, copyFixture(t)))
	if err != nil {
		t.Fatal(err)
	}
	forEngines(t, func(t *testing.T, e engineCase) {
		l := mustOpen(t, e.empty(t))
		b, err := l.Generate(ctx, 531, fixtureSeed, GenerateOptions{Activate: true, Who: Identity{Desk: "BO", Operator: "fixture"}})
		if err != nil {
			t.Fatal(err)
		}
		if fb := mustBlock(t, mustOpen(t, e.fresh(t))); b.Digest != fb.Digest {
			t.Errorf("digest %s, the fixture's %s", b.Digest, fb.Digest)
		}
		rep, err := l.Verify(ctx, 0, 0, nil)
		if err != nil || !rep.OK() || rep.Blocks != 1 || rep.Tickets != game.BlockSize || rep.Entries != 2 || rep.Head != want.Head {
			t.Errorf("verify %+v, %v; want head %s", rep, err, want.Head)
		}
	})
}

func TestGenerateCancel(t *testing.T) {
	forEngines(t, func(t *testing.T, e engineCase) {
		l := mustOpen(t, e.fresh(t))
		ctx, cancel := context.WithCancel(context.Background())
		_, err := l.Generate(ctx, 531, game.Seed{9}, GenerateOptions{Activate: true, Progress: func(done, total int) {
			cancel() // once the first batch is written
		}})
		if !errors.Is(err, context.Canceled) && !errors.Is(err, game.ErrCancelled) {
			t.Fatalf("err = %v", err)
		}
		var blocks, packs, finder, winners, entries, states int
		for q, dst := range map[string]*int{"SELECT count(*) FROM blocks": &blocks, "SELECT count(*) FROM packs": &packs,
			"SELECT count(*) FROM finder": &finder, "SELECT sum(length(entries)) / 7 FROM finder": &winners,
			"SELECT count(*) FROM journal": &entries, "SELECT count(*) FROM pack_states": &states} {
			if err := get(context.Background(), rdb(l), dst, q); err != nil {
				t.Fatal(err)
			}
		}
		if blocks != 1 || packs != game.Packs || winners != game.Winners || finder > game.Winners/backoffice.FinderChunk+1 || entries != 2 || states != game.Packs {
			t.Errorf("after cancel: %d blocks, %d packs, %d finder rows of %d winners, %d entries, %d pack states",
				blocks, packs, finder, winners, entries, states)
		}
		if _, err := l.Generate(context.Background(), 999, game.Seed{}, GenerateOptions{}); !errors.Is(err, ErrNotFound) {
			t.Errorf("unknown game: %v", err)
		}
	})
}

// A demonstration ledger lists, for each prize, its first unpaid winner
// (and a loser): a payment passes the sample on to the next, its void
// gives it back. Only a demonstration ledger lists them, and a ledger
// that is not one does not become one. (Package backoffice's TestTicketAt
// tests a ticket by its position.)
func TestDemoSamples(t *testing.T) {
	forEngines(t, func(t *testing.T, e engineCase) {
		ctx := context.Background()
		l := mustOpen(t, e.fresh(t))
		b := mustBlock(t, l)
		// Only a demonstration ledger lists its unpaid winners.
		if _, err := l.Samples(ctx, 531, 1); !errors.Is(err, ErrNotDemo) {
			t.Errorf("samples of a real ledger: %v, want ErrNotDemo", err)
		}
		demo := mustOpen(t, e.copyOf(t, "demo"))
		if !demo.Demo() {
			t.Fatal("the demonstration fixture is not a demonstration ledger")
		}
		samples, err := demo.Samples(ctx, 531, 1)
		if err != nil {
			t.Fatal(err)
		}
		var prizes []int
		for _, s := range samples {
			prizes = append(prizes, s.Prize)
			if first := ticketsWith(t, demo, b, s.Prize, 1)[0]; s.Position != first {
				t.Errorf("prize %d: position %d, the first is %d", s.Prize, s.Position, first)
			}
		}
		want := []int{0}
		for _, tier := range game.PrizeTable {
			want = append(want, tier.Prize)
		}
		if !slices.Equal(prizes, want) {
			t.Errorf("sample prizes %v, want %v", prizes, want)
		}
		// Once the 6 € sample is paid, the next unpaid 6 € ticket takes its place.
		six := samples[slices.Index(prizes, 6)]
		if _, err := demo.Claim(ctx, claimReq(six.Serial.String(), Identity{Desk: "D1", Operator: "ann"})); err != nil {
			t.Fatal(err)
		}
		again, err := demo.Samples(ctx, 531, 1)
		if err != nil {
			t.Fatal(err)
		}
		if next := ticketsWith(t, demo, b, 6, 2)[1]; again[slices.Index(prizes, 6)].Position != next {
			t.Errorf("after paying the 6 € sample: %d, want %d", again[slices.Index(prizes, 6)].Position, next)
		}
		// A void gives it back.
		if _, err := demo.Void(ctx, 1, "test", Identity{Desk: "D1", Operator: "ann"}); err != nil {
			t.Fatal(err)
		}
		if again, err := demo.Samples(ctx, 531, 1); err != nil || again[slices.Index(prizes, 6)].Position != six.Position {
			t.Errorf("after the void: %+v, %v; want the first 6 € ticket again", again, err)
		}
		// A ledger that is not a demonstration one does not become one.
		if _, err := CreateDemo(e.fresh(t)); !errors.Is(err, ErrNotDemo) {
			t.Errorf("CreateDemo of a real ledger: %v", err)
		}
	})
}

// An export whose reader goes away (export | head) stops reading the block
// and returns the write's error; its workers end. The race pass runs it.
func TestExportWriteError(t *testing.T) {
	forEngines(t, func(t *testing.T, e engineCase) {
		l := mustOpen(t, e.fresh(t))
		lines := 0
		failing := writerFunc(func(p []byte) (int, error) {
			if lines >= 1000 {
				return 0, io.ErrClosedPipe
			}
			lines += bytes.Count(p, []byte{'\n'})
			return len(p), nil
		})
		err := l.Export(context.Background(), 531, 1, failing, nil)
		if !errors.Is(err, io.ErrClosedPipe) || lines < 1000 {
			t.Errorf("export into a closed pipe: %v after %d lines", err, lines)
		}
	})
}

type writerFunc func(p []byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
