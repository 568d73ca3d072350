package backoffice_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/ledger/core/coretest"
	"vegas-desk/internal/ledger/ledgertest"
)

// The back office's questions and packs, on both engines, asked as the
// ledger's user asks them (moved here from package ledger, issue 37).

// backOffice is a back office's store as package ledger's Ledger asks it: its
// questions prepared by core (core.Asker, on the store's Questions), its
// own methods, and one clock for both (Now, which tests set).
type backOffice struct {
	core.Asker
	store
}

// openOffice opens a new copy of ledgertest's fixture on engine e, at a
// clock that starts on 1 May 2025 at 10:00 UTC and advances a second a
// call (fixedClock).
func openOffice(t *testing.T, e engine, fixture string) *backOffice {
	t.Helper()
	o := &backOffice{}
	o.store = e.open(t, fixture, func() time.Time { return o.Clock() })
	o.Asker.Questions, o.Now = o.store.Questions(), fixedClock()
	return o
}

// forOffices runs f once per engine, as subtests.
func forOffices(t *testing.T, f func(t *testing.T, e engine)) {
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) { f(t, e) })
	}
}

// fixedClock starts on 1 May 2025 at 10:00 UTC and advances a second a call.
func fixedClock() func() time.Time {
	t0 := time.Date(2025, 5, 1, 10, 0, 0, 0, time.UTC)
	n := 0
	return func() time.Time { n++; return t0.Add(time.Duration(n) * time.Second) }
}

// MovePacks moves packs as the ledger does: the move prepared first
// (core.PrepareMove).
func (o *backOffice) MovePacks(ctx context.Context, m core.PackMove, who core.Identity) error {
	if err := core.PrepareMove(&m, &who); err != nil {
		return core.Invalid(err)
	}
	return o.store.MovePacks(ctx, m, who)
}

// pool is the store's connections for reading.
func (o *backOffice) pool() core.Querier { return o.Office().E.Pool() }

// exec runs a statement in its own write transaction, as a hand behind
// the ledger's back would.
func (o *backOffice) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	tx, err := o.Office().E.Write(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	res, err := core.Exec(ctx, tx, query, args...)
	if err != nil {
		return nil, err
	}
	return res, tx.Commit()
}

// appendJournal appends e in tx, as the ledger does, at o's time.
func (o *backOffice) appendJournal(ctx context.Context, tx *sqlx.Tx, e *core.Entry) error {
	if e.At.IsZero() {
		e.At = o.Now()
	}
	return o.Office().E.Append(ctx, tx, e)
}

// ticketsWith returns up to n positions of block b with prize p, in order.
func ticketsWith(tb testing.TB, l *backOffice, b core.Block, prize, n int) []int {
	tb.Helper()
	return coretest.TicketsWith(tb, l.pool(), b, prize, n)
}

func serialOf(b core.Block, pos int) string {
	return game.Serial{Game: b.Game, Block: b.Number, Position: pos, Secret: b.Key.Secret(pos)}.String()
}

// mustBlock returns block 531/1 of l.
func mustBlock(tb testing.TB, l *backOffice) core.Block {
	tb.Helper()
	b, err := l.Block(context.Background(), 531, 1)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// claimReq is a claim by serial.
func claimReq(serial string, who core.Identity) core.ClaimRequest {
	return core.ClaimRequest{Serial: serial, Method: core.MethodSerial, Who: who, Limit: core.NoLimit}
}

// asked is a test's limit: 0 asks none.
func asked(euros int) core.Limit {
	if euros == 0 {
		return core.NoLimit
	}
	return core.LimitOf(euros)
}

// journalKinds lists the kind and reason of the entries after entry after.
func journalKinds(tb testing.TB, l *backOffice, after int64) []string {
	tb.Helper()
	return coretest.JournalKinds(tb, l.pool(), after)
}

// lastEntry is the id of the journal's last entry.
func lastEntry(tb testing.TB, l *backOffice) int64 {
	tb.Helper()
	return coretest.LastEntry(tb, l.pool())
}

// journalOnly is verify without reading the blocks' tickets again
// (VerifyJournal).
func journalOnly(l *backOffice) (core.VerifyReport, error) {
	return l.VerifyJournal(context.Background())
}

func TestLookup(t *testing.T) {
	forOffices(t, func(t *testing.T, e engine) {
		ctx := context.Background()
		l := openOffice(t, e, ledgertest.Block)
		b := mustBlock(t, l)
		who := core.Identity{Desk: "D1", Operator: "ann"}
		for _, pos := range []int{0, 1, 199, 200, 1_999_999} {
			got, err := l.Lookup(ctx, serialOf(b, pos), who, core.NoLimit)
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
			want, verdict := core.StatusLoser, core.NotWinner
			if got.Prize > 0 {
				want, verdict = core.StatusUnpaid, core.Payable
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
				_, err := l.Lookup(ctx, serial, who, core.NoLimit)
				var r *core.Refusal
				if !errors.Is(err, core.ErrUnknownSerial) || !errors.As(err, &r) || r.Entry != last+1 {
					t.Fatalf("err = %v", err)
				}
				var e core.Entry
				if err := core.Get(ctx, l.pool(), &e, "SELECT "+core.EntryCols+" FROM journal WHERE id = ?", r.Entry); err != nil {
					t.Fatal(err)
				}
				if e.Kind != "refusal" || e.Reason != "unknown-serial" || e.Serial != serial || e.Desk != "D1" || e.Operator != "ann" || e.Method != "lookup" {
					t.Errorf("refusal %+v", e)
				}
			})
		}
		// The error of a wrong secret and of an unknown serial read alike.
		_, e1 := l.Lookup(ctx, wrongSecret.String(), who, core.NoLimit)
		_, e2 := l.Lookup(ctx, unknownBlock.String(), who, core.NoLimit)
		if strings.Replace(e1.Error(), wrongSecret.String(), "X", 1) != strings.Replace(e2.Error(), unknownBlock.String(), "X", 1) {
			t.Errorf("errors differ: %q, %q", e1, e2)
		}

		t.Run("check digit before the ledger", func(t *testing.T) {
			closed := openOffice(t, e, ledgertest.Block)
			closed.Close() // any database access would now fail differently
			bad := []byte(serialOf(b, 42))
			last := len(bad) - 1
			bad[last] = '0' + (bad[last]-'0'+1)%10
			if _, err := closed.Lookup(ctx, string(bad), who, core.NoLimit); !errors.Is(err, game.ErrCheckDigit) {
				t.Errorf("err = %v, want ErrCheckDigit", err)
			}
			if _, err := closed.Lookup(ctx, "hello", who, core.NoLimit); !errors.Is(err, game.ErrSerialFormat) {
				t.Errorf("err = %v, want ErrSerialFormat", err)
			}
		})
	})
}

func TestFindByContents(t *testing.T) {
	forOffices(t, func(t *testing.T, e engine) {
		ctx := context.Background()
		l := openOffice(t, e, ledgertest.Block)
		b := mustBlock(t, l)
		who := core.Identity{Desk: "D1", Operator: "ann"}
		for _, tier := range game.PrizeTable {
			for _, pos := range ticketsWith(t, l, b, tier.Prize, 2) {
				want, err := l.Lookup(ctx, serialOf(b, pos), who, core.NoLimit)
				if err != nil {
					t.Fatal(err)
				}
				got, err := l.FindByContents(ctx, &want.Ticket, who, core.NoLimit)
				verdict := core.Payable
				if tier.Prize >= core.DefaultIdentityThreshold {
					verdict = core.IdentityRequired // the counter then asks for the winner's identity
				}
				if err != nil || got.Serial != want.Serial || got.Prize != tier.Prize || got.Verdict != verdict {
					t.Fatalf("prize %d position %d: got %v %v, %v", tier.Prize, pos, got.Serial, got.Verdict, err)
				}
				// Cards typed in another order still find it.
				c := want.Ticket
				slices.Reverse(c.Duel.Cards[:])
				if got, err := l.FindByContents(ctx, &c, who, core.NoLimit); err != nil || got.Serial != want.Serial {
					t.Errorf("reversed cards: %v, %v", got.Serial, err)
				}
			}
		}
		loser := ticketsWith(t, l, b, 0, 1)[0]
		lt, _ := l.Lookup(ctx, serialOf(b, loser), who, core.NoLimit)
		if _, err := l.FindByContents(ctx, &lt.Ticket, who, core.NoLimit); !errors.Is(err, core.ErrNotWinner) {
			t.Errorf("loser: %v, want ErrNotWinner", err)
		}
		// A winning ticket that no block holds: change a losing zone's decoy.
		w := ticketsWith(t, l, b, 50, 1)[0]
		wt, _ := l.Lookup(ctx, serialOf(b, w), who, core.NoLimit)
		c := wt.Ticket
		c.Craps.Dice = [2]int{1, 1}
		if game.Prize(&c) != wt.Prize {
			c.Craps.Dice = [2]int{2, 2}
		}
		if game.Prize(&c) != wt.Prize || c == wt.Ticket {
			t.Fatalf("no losing craps to change on %+v", wt.Ticket)
		}
		last := lastEntry(t, l)
		if _, err := l.FindByContents(ctx, &c, who, core.NoLimit); !errors.Is(err, core.ErrUnknownContents) {
			t.Errorf("changed contents: %v, want ErrUnknownContents", err)
		}
		if got := journalKinds(t, l, last); !slices.Equal(got, []string{"refusal/unknown-contents"}) {
			t.Errorf("journal after a miss: %v", got)
		}
	})
}

// A request id answers a retry with the first answer: the same payment,
// never "already paid" to the desk that paid.
func TestClaimRequestID(t *testing.T) {
	forOffices(t, func(t *testing.T, e engine) {
		ctx := context.Background()
		l := openOffice(t, e, ledgertest.Block)
		b := mustBlock(t, l)
		w := ticketsWith(t, l, b, 9, 1)[0]
		req := claimReq(serialOf(b, w), core.Identity{Desk: "D1", Operator: "ann"})
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
		if _, err := l.Claim(ctx, other); !errors.Is(err, core.ErrAlreadyClaimed) {
			t.Errorf("the same request id at another desk: %v, want ErrAlreadyClaimed", err)
		}
		var n int
		if err := core.Get(ctx, l.pool(), &n, "SELECT count(*) FROM journal WHERE kind = 'claim'"); err != nil || n != 1 {
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
		want      core.Verdict
		recorded  string // the entry a claim appends
		threshold int
	}{
		{name: "payable", state: []string{"generate"}, prize: 50, want: core.Payable, recorded: "claim"},
		{name: "stock", prize: 50, want: core.NotActivated, recorded: "refusal/not-activated"},
		{name: "delivered", state: []string{"deliver"}, prize: 50, want: core.NotActivated, recorded: "refusal/not-activated"},
		{name: "received", state: []string{"deliver", "receive"}, prize: 50, want: core.NotActivated, recorded: "refusal/not-activated"},
		{name: "activated", state: []string{"deliver", "receive", "activate"}, prize: 50, want: core.Payable, recorded: "claim"},
		{name: "settled", state: []string{"deliver", "receive", "activate", "settle"}, prize: 50, want: core.Payable, recorded: "claim"},
		{name: "returned", state: []string{"deliver", "return"}, prize: 50, want: core.NotActivated, recorded: "refusal/not-activated"},
		{name: "stolen", state: []string{"deliver", "stolen"}, prize: 50, want: core.Stolen, recorded: "refusal/stolen"},
		{name: "stolen from sale", state: []string{"generate", "stolen"}, prize: 3, want: core.Stolen, recorded: "refusal/stolen"},
		{name: "destroyed", state: []string{"destroyed"}, prize: 50, want: core.NotActivated, recorded: "refusal/not-activated"},
		{name: "before sale", state: []string{"generate"}, onSale: day(2), prize: 50, want: core.NotYetOnSale, recorded: "refusal/not-yet-on-sale"},
		{name: "on the on-sale day", state: []string{"generate"}, onSale: day(1), prize: 50, want: core.Payable, recorded: "claim"},
		{name: "after the deadline", state: []string{"generate"}, onSale: day(1).AddDate(0, -3, 0), deadline: day(1).Add(-time.Nanosecond),
			prize: 50, want: core.Expired, recorded: "refusal/expired"},
		{name: "before the deadline", state: []string{"generate"}, deadline: day(2), prize: 50, want: core.Payable, recorded: "claim"},
		{name: "expired before stolen", state: []string{"generate", "stolen"}, deadline: day(1).Add(-time.Second), prize: 50, want: core.Expired, recorded: "refusal/expired"},
		{name: "loser", state: []string{"generate"}, prize: 0, want: core.NotWinner, recorded: "refusal/not-winner"},
		{name: "at the limit", state: []string{"generate"}, prize: 100, limit: 100, want: core.Payable, recorded: "claim"},
		{name: "above the limit", state: []string{"generate"}, prize: 1000, limit: 100, want: core.OverLimit, recorded: "referral"},
		{name: "identity required", state: []string{"generate"}, prize: 50000, want: core.IdentityRequired, recorded: "refusal/identity-required"},
		{name: "identity given", state: []string{"generate"}, prize: 50000, identity: true, want: core.Payable, recorded: "claim"},
		{name: "lower threshold", state: []string{"generate"}, prize: 50, threshold: 50, want: core.IdentityRequired, recorded: "refusal/identity-required"},
		{name: "above the limit first", state: []string{"generate"}, prize: 1000, limit: 100, threshold: 50, want: core.OverLimit, recorded: "referral"},
		{name: "at the deadline's last instant", state: []string{"generate"}, deadline: now, prize: 50, want: core.Payable, recorded: "claim"},
		{name: "a loser of a stolen pack", state: []string{"deliver", "receive", "activate", "stolen"}, prize: 0, want: core.Stolen, recorded: "refusal/stolen"},
		{name: "stolen before sale", state: []string{"stolen"}, onSale: day(2), prize: 50, want: core.NotYetOnSale, recorded: "refusal/not-yet-on-sale"},
		{name: "returned from sale", state: []string{"deliver", "receive", "activate", "return"}, prize: 50, want: core.NotActivated, recorded: "refusal/not-activated"},
		{name: "destroyed from sale", state: []string{"deliver", "receive", "activate", "destroyed"}, prize: 15, want: core.NotActivated, recorded: "refusal/not-activated"},
		{name: "settled above the limit", state: []string{"deliver", "receive", "activate", "settle"}, prize: 1000, limit: 100, want: core.OverLimit, recorded: "referral"},
		{name: "not on sale above the limit", state: []string{"deliver", "receive"}, prize: 1000, limit: 100, want: core.NotActivated, recorded: "refusal/not-activated"},
		{name: "identity required at a counter", state: []string{"generate"}, prize: 1000, limit: 1000, threshold: 1000, want: core.IdentityRequired, recorded: "refusal/identity-required"},
		{name: "a loser after the deadline", state: []string{"generate"}, deadline: day(1).Add(-time.Second), prize: 0, want: core.Expired, recorded: "refusal/expired"},
	}
	forOffices(t, func(t *testing.T, e engine) {
		ctx := context.Background()
		l := openOffice(t, e, ledgertest.Stock)
		who := core.Identity{Desk: "BO", Operator: "eve"}
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
							if err := l.MovePacks(ctx, core.PackMove{Game: 531, Block: 1, First: pack, Last: pack, Move: m, Desk: "D1"}, who); err != nil {
								t.Fatal(err)
							}
						}
						continue
					}
					if err := l.MovePacks(ctx, core.PackMove{Game: 531, Block: 1, First: pack, Last: pack, Move: mv, Desk: "D1"}, who); err != nil {
						t.Fatalf("%s: %v", mv, err)
					}
				}
				if _, err := l.SetEmission(ctx, 531, core.Emission{OnSale: tc.onSale, Deadline: tc.deadline}, who); err != nil {
					t.Fatal(err)
				}
				threshold := tc.threshold
				if threshold == 0 {
					threshold = core.DefaultIdentityThreshold
				}
				if err := l.SetSetting(ctx, core.SettingIdentityThreshold, threshold, who); err != nil {
					t.Fatal(err)
				}
				l.Now = func() time.Time { return now }
				defer func() { l.Now = fixedClock() }()
				serial := serialOf(b, pos)
				last := lastEntry(t, l)
				req := core.ClaimRequest{Serial: serial, Method: core.MethodSerial, Who: core.Identity{Desk: "D1", Operator: "ann"}, Limit: asked(tc.limit)}
				if tc.identity {
					req.Winner = &core.Winner{Name: "Jeanne Martin", DocType: "permis de conduire", DocNumber: "19AZ71864"}
				}
				c, err := l.Claim(ctx, req)
				var got core.Verdict = core.Payable
				var r *core.Refusal
				if errors.As(err, &r) {
					got = r.Verdict
				} else if err != nil {
					t.Fatal(err)
				}
				if got != tc.want {
					t.Errorf("claim: %s, want %s (%v)", got, tc.want, err)
				}
				if got == core.Payable && (c.Amount != tc.prize || c.Number == 0) {
					t.Errorf("claim %+v", c)
				}
				if kinds := journalKinds(t, l, last); len(kinds) != 1 || kinds[0] != tc.recorded {
					t.Errorf("journal: %v, want [%s]", kinds, tc.recorded)
				}
				if r != nil && tc.want == core.Expired && !r.Until.Equal(tc.deadline) {
					t.Errorf("deadline %v, want %v", r.Until, tc.deadline)
				}
				if r != nil && tc.want == core.OverLimit && r.Amount != tc.prize {
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
	forOffices(t, func(t *testing.T, e engine) {
		ctx := context.Background()
		l := openOffice(t, e, ledgertest.Stock)
		who := core.Identity{Desk: "BO", Operator: "eve"}
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
					err = l.MovePacks(ctx, core.PackMove{Game: 531, Block: 1, First: 2 * i, Last: 2*i + 1, Move: mv, Desk: "D1", Reason: "test"}, who)
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
				if err != nil && !errors.Is(err, core.ErrPackMove) {
					t.Errorf("err = %v, want ErrPackMove", err)
				}
			})
		}
		// A range moves whole or not at all.
		if err := l.MovePacks(ctx, core.PackMove{Game: 531, Block: 1, First: 0, Last: 100, Move: "deliver", Desk: "D2"}, who); !errors.Is(err, core.ErrPackMove) {
			t.Errorf("a range over moved packs: %v", err)
		}
		if err := l.MovePacks(ctx, core.PackMove{Game: 531, Block: 1, First: 9990, Last: 10000, Move: "deliver", Desk: "D2"}, who); err == nil {
			t.Error("packs past the block's")
		}
		// Receiving a pack delivered to another desk is refused.
		if err := l.MovePacks(ctx, core.PackMove{Game: 531, Block: 1, First: 500, Last: 509, Move: "deliver", Desk: "D2"}, who); err != nil {
			t.Fatal(err)
		}
		if err := l.MovePacks(ctx, core.PackMove{Game: 531, Block: 1, First: 500, Last: 509, Move: "receive", Desk: "D1"}, who); !errors.Is(err, core.ErrPackMove) {
			t.Errorf("received by another desk: %v", err)
		}
		// A move of packs of two counters at once is refused; each
		// counter's packs move on their own, and the entry names the counter.
		if err := l.MovePacks(ctx, core.PackMove{Game: 531, Block: 1, First: 510, Last: 519, Move: "deliver", Desk: "D3"}, who); err != nil {
			t.Fatal(err)
		}
		if err := l.MovePacks(ctx, core.PackMove{Game: 531, Block: 1, First: 505, Last: 514, Move: "receive"}, who); !errors.Is(err, core.ErrPackMove) ||
			!strings.Contains(err.Error(), "one counter at a time") {
			t.Errorf("received across two counters: %v", err)
		}
		if err := l.MovePacks(ctx, core.PackMove{Game: 531, Block: 1, First: 510, Last: 519, Move: "receive"}, who); err != nil {
			t.Fatal(err)
		}
		moves, err := l.PackEntries(ctx, core.PackEntryFilter{Desk: "D3", Moves: []string{"receive"}})
		if err != nil || len(moves) != 1 || moves[0].First != 510 || moves[0].Last != 519 || moves[0].Operator != "eve" {
			t.Errorf("D3's receipt of packs: %+v, %v", moves, err)
		}
		if err := l.MovePacks(ctx, core.PackMove{Game: 531, Block: 1, First: 0, Last: 0, Move: "receive"}, core.Identity{Desk: "BO", Operator: " "}); err == nil {
			t.Error("a move without an operator")
		}
		vr, err := journalOnly(l)
		if err != nil || !vr.OK() {
			t.Errorf("verify: %v, %v", vr.Problems, err)
		}
	})
}

// Entries written behind the app's back with a valid hash chain — a second
// payment of a paid ticket, a void that names another ticket, a second
// void — are each named by verify, and so are kept tables that disagree
// with the journal.
func TestVerifyJournalRules(t *testing.T) {
	forOffices(t, func(t *testing.T, e engine) {
		ctx := context.Background()
		l := openOffice(t, e, ledgertest.Block)
		b := mustBlock(t, l)
		pos := ticketsWith(t, l, b, 6, 2)
		who := core.Identity{Desk: "D1", Operator: "ann"}
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
		forge := func(e core.Entry) core.Entry {
			t.Helper()
			tx, err := l.Office().E.Write(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback()
			if err := l.appendJournal(ctx, tx, &e); err != nil {
				t.Fatal(err)
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			return e
		}
		claimEntry := core.Entry{Kind: "claim", Ticket: sql.NullInt64{Int64: b.First() + int64(pos[0]), Valid: true},
			Serial: first.Serial, Game: 531, Block: 1, Position: pos[0], Amount: 6, Desk: "X", Operator: "mallory", Method: core.MethodSerial}
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
		if _, err := l.exec(ctx, "DELETE FROM paid WHERE ticket = ?", b.First()+int64(pos[0])); err != nil {
			t.Fatal(err)
		}
		if _, err := l.exec(ctx, "UPDATE pack_states SET state = 'on-sale' WHERE pack = 0"); err != nil {
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
