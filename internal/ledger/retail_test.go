package ledger

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/paper"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// paris is a fixed zone, so that the papers do not depend on the machine's.
var paris = time.FixedZone("CEST", 2*60*60)

// ticketInNewPack returns the position of the first ticket of prize whose
// pack is not in taken, and marks its pack taken.
func ticketInNewPack(tb testing.TB, l *Ledger, b Block, prize int, taken map[int]bool) int {
	tb.Helper()
	for n := 1; ; n++ {
		ps := ticketsWith(tb, l, b, prize, n)
		if len(ps) < n {
			tb.Fatalf("no ticket of %d € in a pack of its own", prize)
		}
		if p := ps[n-1]; !taken[p/game.PackSize] {
			taken[p/game.PackSize] = true
			return p
		}
	}
}

// at sets l's clock to t, then a second later each call.
func clockAt(l *Ledger, t time.Time) {
	n := 0
	l.Now = func() time.Time { n++; return t.Add(time.Duration(n) * time.Second) }
}

// A small retail period worked out by hand, from the ledger's own data:
// packs delivered, received and activated, payments and a void, at two
// counters over three days.
func TestSettlementByHand(t *testing.T) {
	day := func(d, h int) time.Time { return time.Date(2025, 5, d, h, 0, 0, 0, time.UTC) }
	forEngines(t, func(t *testing.T, e engineCase) {
		ctx := context.Background()
		l := mustOpen(t, e.stock(t))
		bo := Identity{Desk: "BO", Operator: "eve"}
		b := mustBlock(t, l)
		taken := map[int]bool{}
		w50 := ticketInNewPack(t, l, b, 50, taken)
		w15 := ticketInNewPack(t, l, b, 15, taken)
		w3 := ticketInNewPack(t, l, b, 3, taken)
		w6 := ticketInNewPack(t, l, b, 6, taken)       // activated on day 3: the next period's
		w9 := ticketInNewPack(t, l, b, 9, taken)       // desk D2's
		w1000 := ticketInNewPack(t, l, b, 1000, taken) // on sale at D2, referred by D1
		w100 := ticketInNewPack(t, l, b, 100, taken)
		pack := func(pos int) int { return pos / game.PackSize }
		move := func(mv string, pos int, desk string) {
			t.Helper()
			if err := l.MovePacks(ctx, PackMove{Game: 531, Block: 1, First: pack(pos), Last: pack(pos), Move: mv, Desk: desk},
				Identity{Desk: "BO", Operator: "eve"}); err != nil {
				t.Fatalf("%s pack %d: %v", mv, pack(pos), err)
			}
		}
		claim := func(pos int, desk string) Claim {
			t.Helper()
			c, err := l.Claim(ctx, claimReq(serialOf(b, pos), Identity{Desk: desk, Operator: "ann"}))
			if err != nil {
				t.Fatal(err)
			}
			return c
		}

		// Day 1: D1 gets four packs and puts three on sale; D2 one. Packs
		// go to listed desks only (on a shared ledger, always).
		clockAt(l, day(1, 7))
		for _, d := range []string{"D1", "D2"} {
			if _, err := l.AddDesk(ctx, d, 1000, bo); err != nil {
				t.Fatal(err)
			}
		}
		clockAt(l, day(1, 8))
		for _, p := range []int{w50, w15, w3, w6} {
			move("deliver", p, "D1")
			move("receive", p, "D1")
		}
		for _, p := range []int{w50, w15, w3} {
			move("activate", p, "D1")
		}
		for _, p := range []int{w9, w1000, w100} {
			move("deliver", p, "D2")
			move("receive", p, "D2")
			move("activate", p, "D2")
		}
		clockAt(l, day(1, 14))
		claim(w50, "D1")
		claim(w15, "D1")
		c3 := claim(w3, "D1")
		claim(w9, "D2")
		// Prizes above the limit, sent to the back office: D1 twice the
		// same ticket, then another; D2 one.
		refer := func(pos int, desk string) {
			t.Helper()
			req := claimReq(serialOf(b, pos), Identity{Desk: desk, Operator: "ann"})
			req.Limit = 50
			if _, err := l.Claim(ctx, req); !errors.Is(err, ErrOverLimit) {
				t.Fatalf("a claim above the limit: %v", err)
			}
		}
		refer(w1000, "D1")
		refer(w1000, "D1")
		refer(w100, "D1")
		refer(w100, "D2")
		clockAt(l, day(1, 16))
		if _, err := l.Void(ctx, c3.Number, "wrong ticket", bo); err != nil {
			t.Fatal(err)
		}
		// Day 3, after the period: D1 activates its fourth pack and pays.
		clockAt(l, day(3, 9))
		move("activate", w6, "D1")
		claim(w6, "D1")
		if err := l.SetSetting(ctx, SettingCommission, 600, bo); err != nil {
			t.Fatal(err)
		}

		s, err := l.Settlement(ctx, "D1", 531, day(1, 0), day(2, 0))
		if err != nil {
			t.Fatal(err)
		}
		wantPacks := []game.PackCode{{Game: 531, Block: 1, Pack: pack(w50)}, {Game: 531, Block: 1, Pack: pack(w15)}, {Game: 531, Block: 1, Pack: pack(w3)}}
		slices.SortFunc(wantPacks, func(a, b game.PackCode) int { return a.Pack - b.Pack })
		if !slices.Equal(s.Packs, wantPacks) || s.PrizeCount != 2 || s.PrizeSum != 65 || s.Rate != 600 || s.Price != 3 || s.PackSize != 200 {
			t.Errorf("settlement %+v", s)
		}
		// By hand: 3 packs × 200 tickets × 3 € = 1 800 €; prizes 50 + 15 =
		// 65 € (the 3 € payment was voided; the 9 € is D2's, the 6 € on
		// day 3); 6 % of 1 800 € = 108 €; 1 800 − 65 − 108 = 1 627 €,
		// which the retailer owes.
		f := paper.SettlementOf(s, paris).Figures()
		if f.Sales != 180000 || f.Prizes != 6500 || f.Commission != 10800 || f.Balance != 162700 {
			t.Errorf("figures %+v", f)
		}
		if got := strings.ReplaceAll(f.Owed(), "\u00a0", " "); got != "Le détaillant doit 1 627,00 € à l’opérateur." {
			t.Errorf("owed: %q", got)
		}
		// The next period holds the fourth pack and its 6 € prize: 600 −
		// 6 − 36 = 558 €.
		next, err := l.Settlement(ctx, "D1", 531, day(3, 0), day(3, 0))
		if err != nil {
			t.Fatal(err)
		}
		if f := paper.SettlementOf(next, paris).Figures(); f.Packs != 1 || f.Prizes != 600 || f.Balance != 55800 {
			t.Errorf("next period %+v", f)
		}

		// D1's day 1: four payments? three, one voided; four packs received,
		// three activated.
		d, err := l.DayReport(ctx, "D1", day(1, 12))
		if err != nil {
			t.Fatal(err)
		}
		if len(d.Payments) != 3 || len(d.Voids) != 1 || d.Voids[0].Number != c3.Number || len(d.Received) != 4 ||
			!slices.Equal(d.Activated, wantPacks) || len(d.Head) != 64 {
			t.Errorf("day report %+v", d)
		}
		// The packs put on sale, 600 € each, and the referrals, one per
		// ticket with its tries, D2's left out.
		var wantSales []core.Sale
		for _, p := range wantPacks {
			wantSales = append(wantSales, core.Sale{Pack: p, Tickets: 200, Value: 600})
		}
		if !slices.Equal(d.Sales, wantSales) {
			t.Errorf("sales %+v, want %+v", d.Sales, wantSales)
		}
		type ref struct {
			serial        string
			amount, tries int
		}
		var refs []ref
		for _, r := range d.Referrals {
			refs = append(refs, ref{r.Serial, r.Amount, r.Tries})
			if r.Desk != "D1" || r.Operator != "ann" || r.At.IsZero() {
				t.Errorf("referral %+v", r)
			}
		}
		if want := []ref{{serialOf(b, w1000), 1000, 2}, {serialOf(b, w100), 100, 1}}; !slices.Equal(refs, want) {
			t.Errorf("referrals %+v, want %+v", refs, want)
		}
		if d2, err := l.DayReport(ctx, "D1", day(2, 12)); err != nil || len(d2.Payments)+len(d2.Voids)+len(d2.Received)+len(d2.Activated)+
			len(d2.Sales)+len(d2.Referrals) != 0 {
			t.Errorf("an empty day: %+v, %v", d2, err)
		}
		// Where the packs are.
		runs, err := l.Packs(ctx, PackFilter{Desk: "D1"})
		if err != nil {
			t.Fatal(err)
		}
		states := map[string]int{}
		for _, r := range runs {
			states[r.State] += r.Count()
			if r.Desk != "D1" || r.Operator != "eve" || r.Entry == 0 {
				t.Errorf("run %+v", r)
			}
		}
		if states["on-sale"] != 4 || len(states) != 1 {
			t.Errorf("D1's packs: %v", states)
		}
		stock, err := l.Packs(ctx, PackFilter{State: "stock"})
		n := 0
		for _, r := range stock {
			n += r.Count()
		}
		if err != nil || n != game.Packs-7 {
			t.Errorf("%d packs in stock, %v; want %d", n, err, game.Packs-7)
		}
		vr, err := journalOnly(l)
		if err != nil || !vr.OK() {
			t.Errorf("verify: %v, %v", vr.Problems, err)
		}
	})
}

// pdfText is the text of a PDF as pdftotext -layout gives it.
func pdfText(t *testing.T, pdf []byte) string {
	t.Helper()
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Fatal("pdftotext not found: install poppler-utils (make deps-test does)")
	}
	f := filepath.Join(t.TempDir(), "doc.pdf")
	if err := os.WriteFile(f, pdf, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("pdftotext", "-layout", "-enc", "UTF-8", f, "-").Output()
	if err != nil {
		t.Fatalf("pdftotext: %v", err)
	}
	return string(out)
}

// golden compares got with testdata/name, or writes it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// The receipt of a real claim, and of its void: the same text on both
// engines, since the same entries at the same times make the same hashes.
func TestReceiptGolden(t *testing.T) {
	forEngines(t, func(t *testing.T, e engineCase) {
		ctx := context.Background()
		l := mustOpen(t, e.fresh(t))
		b := mustBlock(t, l)
		pos := ticketsWith(t, l, b, 1000, 1)[0]
		req := claimReq(serialOf(b, pos), Identity{Desk: "D1", Operator: "Anaïs"})
		req.Request = "receipt-1" // a random one would change the entry's hash
		c, err := l.Claim(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		for _, step := range []string{"receipt-claim.txt", "receipt-void.txt"} {
			if step == "receipt-void.txt" {
				if _, err := l.Void(ctx, c.Number, "payé sur le mauvais ticket", Identity{Desk: "BO", Operator: "Benoît"}); err != nil {
					t.Fatal(err)
				}
			}
			r, err := l.Receipt(ctx, c.Number)
			if err != nil {
				t.Fatal(err)
			}
			var pdf bytes.Buffer
			if err := paper.WriteReceipt(&pdf, paper.ReceiptOf(r, paris)); err != nil {
				t.Fatal(err)
			}
			text := pdfText(t, pdf.Bytes())
			golden(t, step, text)
			masked := core.MaskSerial(c.Serial)
			if strings.Contains(text, c.Serial) || !strings.Contains(text, masked[:17]) || !strings.Contains(text, masked[len(masked)-6:]) {
				t.Errorf("the receipt shows the serial unmasked, or not at all:\n%s", text)
			}
		}
		if _, err := l.Receipt(ctx, 99); !errors.Is(err, ErrNotFound) {
			t.Errorf("no such payment: %v", err)
		}
	})
}

// Open referrals, one per ticket, until the back office pays; identities
// only for the back office.
func TestReferralsAndIdentities(t *testing.T) {
	forEngines(t, func(t *testing.T, e engineCase) {
		ctx := context.Background()
		l := mustOpen(t, e.fresh(t))
		b := mustBlock(t, l)
		w1000 := ticketsWith(t, l, b, 1000, 2)
		w50000 := ticketsWith(t, l, b, 50000, 1)[0]
		over := func(pos int, desk string) {
			t.Helper()
			req := claimReq(serialOf(b, pos), Identity{Desk: desk, Operator: "ann"})
			req.Limit = 100
			if _, err := l.Claim(ctx, req); !errors.Is(err, ErrOverLimit) {
				t.Fatalf("claim above the limit: %v", err)
			}
		}
		over(w1000[0], "D1")
		over(w1000[1], "D1")
		over(w1000[0], "D2") // the same ticket at another counter
		rs, err := l.Referrals(ctx)
		if err != nil || len(rs) != 2 || rs[0].Tries != 2 || rs[0].Desk != "D1" || rs[0].Amount != 1000 || rs[1].Tries != 1 ||
			rs[0].Serial != serialOf(b, w1000[0]) {
			t.Fatalf("referrals %+v, %v", rs, err)
		}
		// The back office pays the first: it is no longer open.
		if _, err := l.Claim(ctx, claimReq(serialOf(b, w1000[0]), Identity{Desk: "BO", Operator: "eve"})); err != nil {
			t.Fatal(err)
		}
		if rs, err := l.Referrals(ctx); err != nil || len(rs) != 1 || rs[0].Position != w1000[1] {
			t.Errorf("after paying: %+v, %v", rs, err)
		}
		req := claimReq(serialOf(b, w50000), Identity{Desk: "BO", Operator: "eve"})
		req.Winner = &Winner{Name: "Jeanne Martin", DocType: "permis de conduire", DocNumber: "19AZ71864"}
		big, err := l.Claim(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		ids, err := l.Identities(ctx)
		kept := *req.Winner
		kept.Skeleton = core.NameSkeleton(kept.Name) // kept beside it
		if err != nil || len(ids) != 1 || ids[big.Entry] != kept {
			t.Errorf("identities %+v, %v", ids, err)
		}
		cs, err := l.Claims(ctx, ClaimFilter{})
		if err != nil {
			t.Fatal(err)
		}
		var plain, with bytes.Buffer
		if err := core.WriteCSV(&plain, cs); err != nil {
			t.Fatal(err)
		}
		if err := core.WriteCSVWithIdentity(&with, cs, ids); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(plain.String(), "Jeanne") || strings.Contains(plain.String(), "winner_name") {
			t.Errorf("the plain CSV holds an identity:\n%s", plain.String())
		}
		if !strings.Contains(with.String(), ",winner_name,winner_doc,winner_doc_number,winner_skeleton\n") || !strings.Contains(with.String(), ",Jeanne Martin,permis de conduire,19AZ71864,jeanne rnartln\n") {
			t.Errorf("the CSV with identities:\n%s", with.String())
		}
	})
}

// A counter through the validation server (on PostgreSQL) receives and
// activates its own delivered packs, and does nothing else to packs: the
// server says no, whatever the client.
func TestCounterPacks(t *testing.T) {
	ctx := context.Background()
	// The block in stock: packs 0–5 go to D1, 6 to D2, 8 to D1 and are
	// reported stolen; 7 stays in stock.
	bo, _ := pgWithDesksOn(t, pg, pgTemplate(t, "stock"))
	eve := Identity{Desk: "BO", Operator: "eve"}
	for _, m := range []PackMove{
		{First: 0, Last: 5, Move: "deliver", Desk: "D1"},
		{First: 6, Last: 6, Move: "deliver", Desk: "D2"},
		{First: 8, Last: 8, Move: "deliver", Desk: "D1"},
		{First: 8, Last: 8, Move: "stolen"},
	} {
		m.Game, m.Block = 531, 1
		if err := bo.MovePacks(ctx, m, eve); err != nil {
			t.Fatal(err)
		}
	}
	served := ServedDesks(t, bo)
	c := served("D1")
	ann := Identity{Operator: "ann"}
	cases := []struct {
		name        string
		move        string
		first, last int
		want        error // nil: allowed
	}{
		{"receive its delivered packs", "receive", 0, 3, nil},
		{"receive them again", "receive", 0, 0, ErrPackMove},
		{"activate received packs", "activate", 0, 1, nil},
		{"activate them again", "activate", 1, 1, ErrPackMove},
		{"activate a pack never received", "activate", 4, 4, ErrPackMove},
		{"receive another counter's pack", "receive", 6, 6, ErrPackMove},
		{"a range into another counter's packs", "receive", 4, 6, ErrPackMove},
		{"receive a pack in stock", "receive", 7, 7, ErrPackMove},
		{"activate a stolen pack", "activate", 8, 8, ErrPackMove},
		{"packs past the block", "receive", 9999, 10000, ErrPackMove},
		{"settle", "settle", 0, 0, ErrCounterOnly},
		{"return", "return", 2, 2, ErrCounterOnly},
		{"report stolen", "stolen", 3, 3, ErrCounterOnly},
		{"report destroyed", "destroyed", 3, 3, ErrCounterOnly},
		{"deliver to itself", "deliver", 7, 7, ErrCounterOnly},
		{"receive the rest", "receive", 4, 5, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			last := lastEntry(t, bo)
			err := c.MovePacks(ctx, PackMove{Game: 531, Block: 1, First: tc.first, Last: tc.last, Move: tc.move, Desk: "D1"}, ann)
			if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			kinds := journalKinds(t, bo, last)
			if (tc.want == nil) != (len(kinds) == 1) {
				t.Errorf("journal after it: %v", kinds)
			}
		})
	}
	// Around the Go client, the server's JSON itself refuses the back
	// office's moves: TestDeskAsksOnlyAsItself (package server).

	// What the counter's moves recorded: its desk, its operator.
	moves, err := bo.PackEntries(ctx, PackEntryFilter{Desk: "D1", Moves: []string{"receive", "activate"}})
	if err != nil || len(moves) != 3 {
		t.Fatalf("moves %+v, %v", moves, err)
	}
	for _, m := range moves {
		if m.Operator != "ann" || m.Block != 1 {
			t.Errorf("move %+v", m)
		}
	}
	// The counter sees its own packs and moves, and only those.
	runs, err := c.Packs(ctx, PackFilter{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, r := range runs {
		if r.Desk != "D1" {
			t.Errorf("D1 sees %+v", r)
		}
		got[r.State] += r.Count()
	}
	if want := map[string]int{"on-sale": 2, "received": 4, "stolen": 1}; !maps.Equal(got, want) {
		t.Errorf("D1's packs %v, want %v", got, want)
	}
	if cm, err := c.PackEntries(ctx, PackEntryFilter{}); err != nil || len(cm) != len(moves)+3 {
		t.Errorf("D1's moves: %d, %v; want %d (its deliveries too)", len(cm), err, len(moves)+3)
	}
	// Its day report and its receipts.
	b := mustBlock(t, bo)
	c2 := served("D2")
	pos := ticketsWith(t, bo, b, 50, 1)[0]
	cl, err := c.Claim(ctx, claimReq(serialOf(b, pos), ann))
	if err != nil {
		t.Fatal(err)
	}
	// A 1,000 € ticket, its pack put on sale at D2.
	w1000 := ticketsWith(t, bo, b, 1000, 1)[0]
	if p := w1000 / game.PackSize; p <= 8 {
		t.Fatalf("the 1,000 € ticket is in pack %d, which the test moved already", p)
	} else if err := bo.MovePacks(ctx, PackMove{Game: 531, Block: 1, First: p, Last: p, Move: "deliver", Desk: "D2"}, eve); err != nil {
		t.Fatal(err)
	} else {
		for _, mv := range []string{"receive", "activate"} {
			if err := c2.MovePacks(ctx, PackMove{Game: 531, Block: 1, First: p, Last: p, Move: mv}, ann); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := c.Claim(ctx, claimReq(serialOf(b, w1000), ann)); !errors.Is(err, ErrOverLimit) {
		t.Fatalf("1,000 € at a 100 € counter: %v", err)
	}
	if _, err := c2.Claim(ctx, claimReq(serialOf(b, w1000), ann)); err != nil {
		t.Fatalf("1,000 € at a 1,000 € counter: %v", err)
	}
	d, err := c.DayReport(ctx, "", time.Now())
	if err != nil || d.Desk != "D1" || len(d.Payments) != 1 || len(d.Received) != 6 || len(d.Activated) != 2 || len(d.Sales) != 2 ||
		d.Sales[0].Value != 600 || len(d.Head) != 64 {
		t.Errorf("D1's day %+v, %v", d, err)
	}
	// Its referral, by the part of the serial printed outside the ticket.
	if len(d.Referrals) != 1 || d.Referrals[0].Amount != 1000 || d.Referrals[0].Serial != serialOf(b, w1000)[:16] {
		t.Errorf("D1's referrals %+v", d.Referrals)
	}
	if _, err := c.DayReport(ctx, "D2", time.Now()); !errors.Is(err, ErrDeskMismatch) {
		t.Errorf("D2's day asked by D1: %v", err)
	}
	r, err := c.Receipt(ctx, cl.Number)
	if err != nil || r.GameName != "VEGAS" || r.Claim.Hash != cl.Hash || len(r.Head) != 64 {
		t.Errorf("receipt %+v, %v", r, err)
	}
	if _, err := c2.Receipt(ctx, cl.Number); !errors.Is(err, ErrNotFound) {
		t.Errorf("D1's receipt printed by D2: %v", err)
	}
	for name, f := range map[string]func() error{
		"settlement": func() error { _, err := c.Settlement(ctx, "D1", 531, time.Now(), time.Now()); return err },
		"referrals":  func() error { _, err := c.Referrals(ctx); return err },
		"identities": func() error { _, err := c.Identities(ctx); return err },
	} {
		if err := f(); !errors.Is(err, ErrCounterOnly) {
			t.Errorf("%s by a counter: %v", name, err)
		}
	}
	vr, err := journalOnly(bo)
	if err != nil || !vr.OK() {
		t.Errorf("verify: %v, %v", vr.Problems, err)
	}
}

// A packs entry written behind the ledger's back that names another
// counter than the packs' is named by verify.
func TestVerifyPackDesk(t *testing.T) {
	forEngines(t, func(t *testing.T, e engineCase) {
		ctx := context.Background()
		l := mustOpen(t, e.fresh(t)) // every pack on sale, at no counter
		tx, err := begin(l, ctx)
		if err != nil {
			t.Fatal(err)
		}
		forged := entry{Kind: "packs", Game: 531, Block: 1, PackFirst: 0, PackLast: 9, State: "settled", Method: "settle", Desk: "D2", Operator: "mallory"}
		if err := appendJournal(l, ctx, tx, &forged); err != nil {
			t.Fatal(err)
		}
		if _, err := execute(ctx, tx, "UPDATE pack_states SET state = 'settled', entry = ? WHERE pack BETWEEN 0 AND 9", forged.ID); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		rep, err := journalOnly(l)
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0].What, `names desk "D2" for pack 0`) {
			t.Errorf("problems %v", rep.Problems)
		}
	})
}

// Delivering packs to a desk the ledger does not list (a mistyped name,
// shop-99 where the pilot has shop-12) is refused, and moves nothing: on a
// shared ledger always, each counter being a login; on a file once it
// lists desks (a file that lists none serves one shop, by any desk name).
func TestDeliverToAListedDesk(t *testing.T) {
	forEngines(t, func(t *testing.T, e engineCase) {
		ctx := context.Background()
		l := mustOpen(t, e.stock(t))
		eve := Identity{Desk: "BO", Operator: "eve"}
		deliver := func(first int, desk string) error {
			return l.MovePacks(ctx, PackMove{Game: 531, Block: 1, First: first, Last: first + 1, Move: "deliver", Desk: desk}, eve)
		}
		err := deliver(0, "shop-99")
		switch {
		case e.name == "postgres" && !errors.Is(err, ErrNotFound):
			t.Fatalf("deliver to a desk no shared ledger lists: %v, want ErrNotFound", err)
		case e.name == "sqlite" && err != nil:
			t.Fatalf("deliver on a file that lists no desk: %v", err)
		}
		if _, err := l.AddDesk(ctx, "shop-12", 100, eve); err != nil {
			t.Fatal(err)
		}
		last := lastEntry(t, l)
		err = deliver(2, "shop-99")
		if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "desks add shop-99") {
			t.Errorf("deliver to a desk the ledger does not list: %v", err)
		}
		if got := journalKinds(t, l, last); len(got) != 0 {
			t.Errorf("a refused delivery wrote %v", got)
		}
		runs, err := l.Packs(ctx, PackFilter{Game: 531, Block: 1, Desk: "shop-99"})
		if err != nil || len(runs) != map[string]int{"sqlite": 1, "postgres": 0}[e.name] {
			t.Errorf("shop-99's packs: %+v, %v", runs, err)
		}
		if err := deliver(2, "shop-12"); err != nil {
			t.Errorf("deliver to a listed desk: %v", err)
		}
	})
}
