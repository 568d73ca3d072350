package ledger

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/backoffice"
)

func TestLookup(t *testing.T) {
	forEngines(t, func(t *testing.T, e engineCase) {
		ctx := context.Background()
		l := mustOpen(t, e.fresh(t))
		b := mustBlock(t, l)
		who := Identity{Desk: "D1", Operator: "ann"}
		for _, pos := range []int{0, 1, 199, 200, 1_999_999} {
			got, err := l.Lookup(ctx, serialOf(b, pos), who, NoLimit)
			if err != nil {
				t.Fatalf("position %d: %v", pos, err)
			}
			if got.Position != pos || got.Pack != pos/200 || got.Block.Number != 1 || got.Serial.String() != serialOf(b, pos) ||
				got.Block.Digest != b.Digest || got.PackState != "on-sale" {
				t.Errorf("position %d: got %+v", pos, got)
			}
			if p := game.Prize(&got.Ticket); p != got.Prize {
				t.Errorf("position %d: prize %d, contents win %d", pos, got.Prize, p)
			}
			want, verdict := StatusLoser, NotWinner
			if got.Prize > 0 {
				want, verdict = StatusUnpaid, Payable
			}
			if got.Status != want || got.Verdict != verdict {
				t.Errorf("status %v verdict %v, want %v %v", got.Status, got.Verdict, want, verdict)
			}
		}

		s, _ := game.ParseSerial(serialOf(b, 42))
		wrongSecret := s
		wrongSecret.Secret = (s.Secret + 1) % game.SecretModulus
		unknownBlock := s
		unknownBlock.Block = 7
		for name, serial := range map[string]string{"wrong secret": wrongSecret.String(), "unknown block": unknownBlock.String()} {
			t.Run(name, func(t *testing.T) {
				last := lastEntry(t, l)
				_, err := l.Lookup(ctx, serial, who, NoLimit)
				var r *Refusal
				if !errors.Is(err, ErrUnknownSerial) || !errors.As(err, &r) || r.Entry != last+1 {
					t.Fatalf("err = %v", err)
				}
				var e entry
				if err := get(ctx, rdb(l), &e, "SELECT "+entryCols+" FROM journal WHERE id = ?", r.Entry); err != nil {
					t.Fatal(err)
				}
				if e.Kind != "refusal" || e.Reason != "unknown-serial" || e.Serial != serial || e.Desk != "D1" || e.Operator != "ann" || e.Method != "lookup" {
					t.Errorf("refusal %+v", e)
				}
			})
		}
		// The error of a wrong secret and of an unknown serial read alike.
		_, e1 := l.Lookup(ctx, wrongSecret.String(), who, NoLimit)
		_, e2 := l.Lookup(ctx, unknownBlock.String(), who, NoLimit)
		if strings.Replace(e1.Error(), wrongSecret.String(), "X", 1) != strings.Replace(e2.Error(), unknownBlock.String(), "X", 1) {
			t.Errorf("errors differ: %q, %q", e1, e2)
		}

		t.Run("check digit before the ledger", func(t *testing.T) {
			closed := mustOpen(t, e.fresh(t))
			closed.Close() // any database access would now fail differently
			bad := []byte(serialOf(b, 42))
			last := len(bad) - 1
			bad[last] = '0' + (bad[last]-'0'+1)%10
			if _, err := closed.Lookup(ctx, string(bad), who, NoLimit); !errors.Is(err, game.ErrCheckDigit) {
				t.Errorf("err = %v, want ErrCheckDigit", err)
			}
			if _, err := closed.Lookup(ctx, "hello", who, NoLimit); !errors.Is(err, game.ErrSerialFormat) {
				t.Errorf("err = %v, want ErrSerialFormat", err)
			}
		})
	})
}

func TestFindByContents(t *testing.T) {
	forEngines(t, func(t *testing.T, e engineCase) {
		ctx := context.Background()
		l := mustOpen(t, e.fresh(t))
		b := mustBlock(t, l)
		who := Identity{Desk: "D1", Operator: "ann"}
		for _, tier := range game.PrizeTable {
			for _, pos := range ticketsWith(t, l, b, tier.Prize, 2) {
				want, err := l.Lookup(ctx, serialOf(b, pos), who, NoLimit)
				if err != nil {
					t.Fatal(err)
				}
				got, err := l.FindByContents(ctx, &want.Ticket, who, NoLimit)
				verdict := Payable
				if tier.Prize >= defaultIdentityThreshold {
					verdict = IdentityRequired // the counter then asks for the winner's identity
				}
				if err != nil || got.Serial != want.Serial || got.Prize != tier.Prize || got.Verdict != verdict {
					t.Fatalf("prize %d position %d: got %v %v, %v", tier.Prize, pos, got.Serial, got.Verdict, err)
				}
				// Cards typed in another order still find it.
				c := want.Ticket
				slices.Reverse(c.Duel.Cards[:])
				if got, err := l.FindByContents(ctx, &c, who, NoLimit); err != nil || got.Serial != want.Serial {
					t.Errorf("reversed cards: %v, %v", got.Serial, err)
				}
			}
		}
		loser := ticketsWith(t, l, b, 0, 1)[0]
		lt, _ := l.Lookup(ctx, serialOf(b, loser), who, NoLimit)
		if _, err := l.FindByContents(ctx, &lt.Ticket, who, NoLimit); !errors.Is(err, ErrNotWinner) {
			t.Errorf("loser: %v, want ErrNotWinner", err)
		}
		// A winning ticket that no block holds: change a losing zone's decoy.
		w := ticketsWith(t, l, b, 50, 1)[0]
		wt, _ := l.Lookup(ctx, serialOf(b, w), who, NoLimit)
		c := wt.Ticket
		c.Craps.Dice = [2]int{1, 1}
		if game.Prize(&c) != wt.Prize {
			c.Craps.Dice = [2]int{2, 2}
		}
		if game.Prize(&c) != wt.Prize || c == wt.Ticket {
			t.Fatalf("no losing craps to change on %+v", wt.Ticket)
		}
		last := lastEntry(t, l)
		if _, err := l.FindByContents(ctx, &c, who, NoLimit); !errors.Is(err, ErrUnknownContents) {
			t.Errorf("changed contents: %v, want ErrUnknownContents", err)
		}
		if got := journalKinds(t, l, last); !slices.Equal(got, []string{"refusal/unknown-contents"}) {
			t.Errorf("journal after a miss: %v", got)
		}
	})
}

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

// A request id answers a retry with the first answer: the same payment,
// never "already paid" to the desk that paid.
func TestClaimRequestID(t *testing.T) {
	forEngines(t, func(t *testing.T, e engineCase) {
		ctx := context.Background()
		l := mustOpen(t, e.fresh(t))
		b := mustBlock(t, l)
		w := ticketsWith(t, l, b, 9, 1)[0]
		req := claimReq(serialOf(b, w), Identity{Desk: "D1", Operator: "ann"})
		req.Request = "req-42"
		first, err := l.Claim(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		again, err := l.Claim(ctx, req)
		if err != nil || again.Number != first.Number || again.Entry != first.Entry || again.Request != "req-42" {
			t.Errorf("retry: %+v, %v; want %+v", again, err, first)
		}
		other := req
		other.Who.Desk = "D2"
		if _, err := l.Claim(ctx, other); !errors.Is(err, ErrAlreadyClaimed) {
			t.Errorf("the same request id at another desk: %v, want ErrAlreadyClaimed", err)
		}
		var n int
		if err := get(ctx, rdb(l), &n, "SELECT count(*) FROM journal WHERE kind = 'claim'"); err != nil || n != 1 {
			t.Errorf("%d claims, %v", n, err)
		}
	})
}

// The verdict of every pack state, date and amount: what the counter says
// and what a claim does.
func TestVerdicts(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2025, 5, d, 0, 0, 0, 0, time.UTC) }
	now := day(1).Add(10 * time.Hour) // fixedClock's day
	cases := []struct {
		name      string
		state     []string // moves of the ticket's pack from stock
		onSale    time.Time
		deadline  time.Time
		prize     int
		limit     int
		identity  bool
		want      Verdict
		recorded  string // the entry a claim appends
		threshold int
	}{
		{name: "payable", state: []string{"generate"}, prize: 50, want: Payable, recorded: "claim"},
		{name: "stock", prize: 50, want: NotActivated, recorded: "refusal/not-activated"},
		{name: "delivered", state: []string{"deliver"}, prize: 50, want: NotActivated, recorded: "refusal/not-activated"},
		{name: "received", state: []string{"deliver", "receive"}, prize: 50, want: NotActivated, recorded: "refusal/not-activated"},
		{name: "activated", state: []string{"deliver", "receive", "activate"}, prize: 50, want: Payable, recorded: "claim"},
		{name: "settled", state: []string{"deliver", "receive", "activate", "settle"}, prize: 50, want: Payable, recorded: "claim"},
		{name: "returned", state: []string{"deliver", "return"}, prize: 50, want: NotActivated, recorded: "refusal/not-activated"},
		{name: "stolen", state: []string{"deliver", "stolen"}, prize: 50, want: Stolen, recorded: "refusal/stolen"},
		{name: "stolen from sale", state: []string{"generate", "stolen"}, prize: 3, want: Stolen, recorded: "refusal/stolen"},
		{name: "destroyed", state: []string{"destroyed"}, prize: 50, want: NotActivated, recorded: "refusal/not-activated"},
		{name: "before sale", state: []string{"generate"}, onSale: day(2), prize: 50, want: NotYetOnSale, recorded: "refusal/not-yet-on-sale"},
		{name: "on the on-sale day", state: []string{"generate"}, onSale: day(1), prize: 50, want: Payable, recorded: "claim"},
		{name: "after the deadline", state: []string{"generate"}, onSale: day(1).AddDate(0, -3, 0), deadline: day(1).Add(-time.Nanosecond),
			prize: 50, want: Expired, recorded: "refusal/expired"},
		{name: "before the deadline", state: []string{"generate"}, deadline: day(2), prize: 50, want: Payable, recorded: "claim"},
		{name: "expired before stolen", state: []string{"generate", "stolen"}, deadline: day(1).Add(-time.Second), prize: 50, want: Expired, recorded: "refusal/expired"},
		{name: "loser", state: []string{"generate"}, prize: 0, want: NotWinner, recorded: "refusal/not-winner"},
		{name: "at the limit", state: []string{"generate"}, prize: 100, limit: 100, want: Payable, recorded: "claim"},
		{name: "above the limit", state: []string{"generate"}, prize: 1000, limit: 100, want: OverLimit, recorded: "referral"},
		{name: "identity required", state: []string{"generate"}, prize: 50000, want: IdentityRequired, recorded: "refusal/identity-required"},
		{name: "identity given", state: []string{"generate"}, prize: 50000, identity: true, want: Payable, recorded: "claim"},
		{name: "lower threshold", state: []string{"generate"}, prize: 50, threshold: 50, want: IdentityRequired, recorded: "refusal/identity-required"},
		{name: "above the limit first", state: []string{"generate"}, prize: 1000, limit: 100, threshold: 50, want: OverLimit, recorded: "referral"},
		{name: "at the deadline's last instant", state: []string{"generate"}, deadline: now, prize: 50, want: Payable, recorded: "claim"},
		{name: "a loser of a stolen pack", state: []string{"deliver", "receive", "activate", "stolen"}, prize: 0, want: Stolen, recorded: "refusal/stolen"},
		{name: "stolen before sale", state: []string{"stolen"}, onSale: day(2), prize: 50, want: NotYetOnSale, recorded: "refusal/not-yet-on-sale"},
		{name: "returned from sale", state: []string{"deliver", "receive", "activate", "return"}, prize: 50, want: NotActivated, recorded: "refusal/not-activated"},
		{name: "destroyed from sale", state: []string{"deliver", "receive", "activate", "destroyed"}, prize: 15, want: NotActivated, recorded: "refusal/not-activated"},
		{name: "settled above the limit", state: []string{"deliver", "receive", "activate", "settle"}, prize: 1000, limit: 100, want: OverLimit, recorded: "referral"},
		{name: "not on sale above the limit", state: []string{"deliver", "receive"}, prize: 1000, limit: 100, want: NotActivated, recorded: "refusal/not-activated"},
		{name: "identity required at a counter", state: []string{"generate"}, prize: 1000, limit: 1000, threshold: 1000, want: IdentityRequired, recorded: "refusal/identity-required"},
		{name: "a loser after the deadline", state: []string{"generate"}, deadline: day(1).Add(-time.Second), prize: 0, want: Expired, recorded: "refusal/expired"},
	}
	forEngines(t, func(t *testing.T, e engineCase) {
		ctx := context.Background()
		l := mustOpen(t, e.stock(t))
		who := Identity{Desk: "BO", Operator: "eve"}
		b := mustBlock(t, l)
		// Packs go to listed desks only (on a shared ledger, always); D1's
		// own limit lowers no case's.
		if _, err := l.AddDesk(ctx, "D1", 1_000_000, who); err != nil {
			t.Fatal(err)
		}
		used := map[int]bool{}
		nextPack := map[int]int{}     // prize → the next pack to try
		candidates := map[int][]int{} // prize → its first tickets
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				// A pack of its own, holding a ticket of the prize.
				var pos int
				for {
					if _, ok := candidates[tc.prize]; !ok {
						candidates[tc.prize] = ticketsWith(t, l, b, tc.prize, 5000)
					}
					p := candidates[tc.prize][:min(nextPack[tc.prize]+1, len(candidates[tc.prize]))]
					if len(p) <= nextPack[tc.prize] {
						t.Fatalf("no more tickets of %d € in packs of their own", tc.prize)
					}
					pos = p[len(p)-1]
					nextPack[tc.prize]++
					if !used[pos/game.PackSize] {
						break
					}
				}
				pack := pos / game.PackSize
				used[pack] = true
				for _, mv := range tc.state {
					if mv == "generate" { // on sale straight from the stock, as generate --activate
						mv = "deliver"
						for _, m := range []string{"deliver", "receive", "activate"} {
							if err := l.MovePacks(ctx, PackMove{Game: 531, Block: 1, First: pack, Last: pack, Move: m, Desk: "D1"}, who); err != nil {
								t.Fatal(err)
							}
						}
						continue
					}
					if err := l.MovePacks(ctx, PackMove{Game: 531, Block: 1, First: pack, Last: pack, Move: mv, Desk: "D1"}, who); err != nil {
						t.Fatalf("%s: %v", mv, err)
					}
				}
				if _, err := l.SetEmission(ctx, 531, Emission{OnSale: tc.onSale, Deadline: tc.deadline}, who); err != nil {
					t.Fatal(err)
				}
				threshold := tc.threshold
				if threshold == 0 {
					threshold = defaultIdentityThreshold
				}
				if err := l.SetSetting(ctx, SettingIdentityThreshold, threshold, who); err != nil {
					t.Fatal(err)
				}
				l.Now = func() time.Time { return now }
				defer func() { l.Now = fixedClock() }()
				serial := serialOf(b, pos)
				last := lastEntry(t, l)
				req := ClaimRequest{Serial: serial, Method: MethodSerial, Who: Identity{Desk: "D1", Operator: "ann"}, Limit: asked(tc.limit)}
				if tc.identity {
					req.Winner = &Winner{Name: "Jeanne Martin", DocType: "permis de conduire", DocNumber: "19AZ71864"}
				}
				c, err := l.Claim(ctx, req)
				var got Verdict = Payable
				var r *Refusal
				if errors.As(err, &r) {
					got = r.Verdict
				} else if err != nil {
					t.Fatal(err)
				}
				if got != tc.want {
					t.Errorf("claim: %s, want %s (%v)", got, tc.want, err)
				}
				if got == Payable && (c.Amount != tc.prize || c.Number == 0) {
					t.Errorf("claim %+v", c)
				}
				if kinds := journalKinds(t, l, last); len(kinds) != 1 || kinds[0] != tc.recorded {
					t.Errorf("journal: %v, want [%s]", kinds, tc.recorded)
				}
				if r != nil && tc.want == Expired && !r.Until.Equal(tc.deadline) {
					t.Errorf("deadline %v, want %v", r.Until, tc.deadline)
				}
				if r != nil && tc.want == OverLimit && r.Amount != tc.prize {
					t.Errorf("referral of %d €, want %d", r.Amount, tc.prize)
				}
			})
		}
		vr, err := journalOnly(l)
		if err != nil || !vr.OK() {
			t.Errorf("verify: %v, %v", vr.Problems, err)
		}
	})
}

func TestPackMoves(t *testing.T) {
	cases := []struct {
		moves []string
		ok    bool
	}{
		{[]string{"deliver", "receive", "activate", "settle"}, true},
		{[]string{"deliver", "return"}, true},
		{[]string{"deliver", "receive", "return"}, true},
		{[]string{"deliver", "receive", "activate", "return"}, true},
		{[]string{"stolen"}, true},
		{[]string{"deliver", "receive", "activate", "stolen"}, true},
		{[]string{"destroyed"}, true},
		{[]string{"receive"}, false},
		{[]string{"activate"}, false},
		{[]string{"settle"}, false},
		{[]string{"deliver", "activate"}, false},
		{[]string{"deliver", "settle"}, false},
		{[]string{"deliver", "deliver"}, false},
		{[]string{"stolen", "activate"}, false},
		{[]string{"deliver", "stolen", "receive"}, false},
		{[]string{"deliver", "receive", "activate", "settle", "return"}, false},
		{[]string{"deliver", "return", "deliver"}, false},
		{[]string{"return"}, false},
		{[]string{"destroyed", "stolen"}, false},
		{[]string{"deliver", "receive", "settle"}, false},
		{[]string{"deliver", "receive", "receive"}, false},
		{[]string{"deliver", "receive", "activate", "activate"}, false},
		{[]string{"deliver", "receive", "activate", "settle", "settle"}, false},
		{[]string{"deliver", "receive", "activate", "settle", "stolen"}, false},
		{[]string{"deliver", "receive", "activate", "destroyed"}, true},
		{[]string{"deliver", "receive", "activate", "destroyed", "activate"}, false},
		{[]string{"destroyed", "deliver"}, false},
		{[]string{"stolen", "return"}, false},
		{[]string{"deliver", "receive", "activate", "return", "activate"}, false},
	}
	forEngines(t, func(t *testing.T, e engineCase) {
		ctx := context.Background()
		l := mustOpen(t, e.stock(t))
		who := Identity{Desk: "BO", Operator: "eve"}
		for _, d := range []string{"D1", "D2", "D3"} { // packs go to listed desks only
			if _, err := l.AddDesk(ctx, d, 100, who); err != nil {
				t.Fatal(err)
			}
		}
		for i, tc := range cases {
			t.Run(strings.Join(tc.moves, "→"), func(t *testing.T) {
				var err error
				for _, mv := range tc.moves {
					last := lastEntry(t, l)
					err = l.MovePacks(ctx, PackMove{Game: 531, Block: 1, First: 2 * i, Last: 2*i + 1, Move: mv, Desk: "D1", Reason: "test"}, who)
					if err != nil {
						if got := journalKinds(t, l, last); len(got) != 0 {
							t.Errorf("a refused move wrote %v", got)
						}
						break
					}
				}
				if (err == nil) != tc.ok {
					t.Errorf("err = %v, want ok %v", err, tc.ok)
				}
				if err != nil && !errors.Is(err, ErrPackMove) {
					t.Errorf("err = %v, want ErrPackMove", err)
				}
			})
		}
		// A range moves whole or not at all.
		if err := l.MovePacks(ctx, PackMove{Game: 531, Block: 1, First: 0, Last: 100, Move: "deliver", Desk: "D2"}, who); !errors.Is(err, ErrPackMove) {
			t.Errorf("a range over moved packs: %v", err)
		}
		if err := l.MovePacks(ctx, PackMove{Game: 531, Block: 1, First: 9990, Last: 10000, Move: "deliver", Desk: "D2"}, who); err == nil {
			t.Error("packs past the block's")
		}
		// Receiving a pack delivered to another desk is refused.
		if err := l.MovePacks(ctx, PackMove{Game: 531, Block: 1, First: 500, Last: 509, Move: "deliver", Desk: "D2"}, who); err != nil {
			t.Fatal(err)
		}
		if err := l.MovePacks(ctx, PackMove{Game: 531, Block: 1, First: 500, Last: 509, Move: "receive", Desk: "D1"}, who); !errors.Is(err, ErrPackMove) {
			t.Errorf("received by another desk: %v", err)
		}
		// A move of packs of two counters at once is refused; each
		// counter's packs move on their own, and the entry names the counter.
		if err := l.MovePacks(ctx, PackMove{Game: 531, Block: 1, First: 510, Last: 519, Move: "deliver", Desk: "D3"}, who); err != nil {
			t.Fatal(err)
		}
		if err := l.MovePacks(ctx, PackMove{Game: 531, Block: 1, First: 505, Last: 514, Move: "receive"}, who); !errors.Is(err, ErrPackMove) ||
			!strings.Contains(err.Error(), "one counter at a time") {
			t.Errorf("received across two counters: %v", err)
		}
		if err := l.MovePacks(ctx, PackMove{Game: 531, Block: 1, First: 510, Last: 519, Move: "receive"}, who); err != nil {
			t.Fatal(err)
		}
		moves, err := l.PackEntries(ctx, PackEntryFilter{Desk: "D3", Moves: []string{"receive"}})
		if err != nil || len(moves) != 1 || moves[0].First != 510 || moves[0].Last != 519 || moves[0].Operator != "eve" {
			t.Errorf("D3's receipt of packs: %+v, %v", moves, err)
		}
		if err := l.MovePacks(ctx, PackMove{Game: 531, Block: 1, First: 0, Last: 0, Move: "receive"}, Identity{Desk: "BO", Operator: " "}); err == nil {
			t.Error("a move without an operator")
		}
		vr, err := journalOnly(l)
		if err != nil || !vr.OK() {
			t.Errorf("verify: %v, %v", vr.Problems, err)
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

// Entries written behind the app's back with a valid hash chain — a second
// payment of a paid ticket, a void that names another ticket, a second
// void — are each named by verify, and so are kept tables that disagree
// with the journal.
func TestVerifyJournalRules(t *testing.T) {
	forEngines(t, func(t *testing.T, e engineCase) {
		ctx := context.Background()
		l := mustOpen(t, e.fresh(t))
		b := mustBlock(t, l)
		pos := ticketsWith(t, l, b, 6, 2)
		who := Identity{Desk: "D1", Operator: "ann"}
		first, err := l.Claim(ctx, claimReq(serialOf(b, pos[0]), who))
		if err != nil {
			t.Fatal(err)
		}
		other, err := l.Claim(ctx, claimReq(serialOf(b, pos[1]), who))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := l.Void(ctx, other.Number, "wrong ticket", who); err != nil {
			t.Fatal(err)
		}
		forge := func(e entry) entry {
			t.Helper()
			tx, err := begin(l, ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback()
			if err := appendJournal(l, ctx, tx, &e); err != nil {
				t.Fatal(err)
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			return e
		}
		claimEntry := entry{Kind: "claim", Ticket: sql.NullInt64{Int64: b.First() + int64(pos[0]), Valid: true},
			Serial: first.Serial, Game: 531, Block: 1, Position: pos[0], Amount: 6, Desk: "X", Operator: "mallory", Method: MethodSerial}
		second := forge(claimEntry)
		badVoid := claimEntry
		badVoid.Kind, badVoid.Ref, badVoid.Position = "void", sql.NullInt64{Int64: first.Entry, Valid: true}, pos[1]
		forged := forge(badVoid)
		again := claimEntry
		again.Kind, again.Ticket, again.Serial, again.Position = "void", sql.NullInt64{Int64: b.First() + int64(pos[1]), Valid: true}, other.Serial, pos[1]
		again.Ref = sql.NullInt64{Int64: other.Entry, Valid: true}
		twice := forge(again)

		rep, err := journalOnly(l)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{
			fmt.Sprintf("payment %d", second.Number):   fmt.Sprintf("already paid by payment %d", first.Number),
			fmt.Sprintf("journal entry %d", forged.ID): "names another ticket",
			fmt.Sprintf("journal entry %d", twice.ID):  "already voided by entry",
		}
		for where, what := range want {
			found := false
			for _, p := range rep.Problems {
				if p.Where == where && strings.Contains(p.What, what) {
					found = true
				}
			}
			if !found {
				t.Errorf("verify does not say %q of %s; problems: %v", what, where, rep.Problems)
			}
		}
		if len(rep.Problems) != len(want) {
			t.Errorf("%d problems, want %d: %v", len(rep.Problems), len(want), rep.Problems)
		}
		if len(rep.Head) != 64 {
			t.Errorf("head %q is not a SHA-256 in hex", rep.Head)
		}
		// A kept table changed behind the journal's back.
		if _, err := wdb(l).Exec(wdb(l).Rebind("DELETE FROM paid WHERE ticket = ?"), b.First()+int64(pos[0])); err != nil {
			t.Fatal(err)
		}
		if _, err := wdb(l).Exec("UPDATE pack_states SET state = 'on-sale' WHERE pack = 0"); err != nil {
			t.Fatal(err)
		}
		rep, err = journalOnly(l)
		if err != nil {
			t.Fatal(err)
		}
		var saw []string
		for _, p := range rep.Problems {
			if strings.Contains(p.What, "does not keep it paid") || strings.Contains(p.Where, "pack 0 of block") {
				saw = append(saw, p.Where)
			}
		}
		if len(saw) != 1 {
			t.Errorf("a kept table changed: %v in %v", saw, rep.Problems)
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
