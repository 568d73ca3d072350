package ledger

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"vegas-desk/internal/game"
)

func fileSum(tb testing.TB, path string) [32]byte {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return sha256.Sum256(b)
}

func TestOpenRefuses(t *testing.T) {
	dir := t.TempDir()
	notSQLite := filepath.Join(dir, "notes.txt")
	os.WriteFile(notSQLite, []byte("shopping list: eggs, milk\n"), 0o644)

	other := filepath.Join(dir, "other.db")
	db, err := sql.Open("sqlite", other)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE contacts (name TEXT); INSERT INTO contacts VALUES ('ann')"); err != nil {
		t.Fatal(err)
	}
	db.Close()

	otherApp := filepath.Join(dir, "otherapp.db")
	db, _ = sql.Open("sqlite", otherApp)
	if _, err := db.Exec("PRAGMA application_id = 1234; PRAGMA user_version = 1; CREATE TABLE x (y)"); err != nil {
		t.Fatal(err)
	}
	db.Close()

	newer := filepath.Join(dir, "newer.db")
	l, err := Open(newer)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.w.Exec("PRAGMA user_version = 99"); err != nil {
		t.Fatal(err)
	}
	l.Close()

	for _, tc := range []struct {
		name, path string
		want       error
	}{
		{"not SQLite", notSQLite, ErrNotLedger},
		{"another application's SQLite file", other, ErrNotLedger},
		{"another application_id", otherApp, ErrNotLedger},
		{"newer user_version", newer, ErrTooNew},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := fileSum(t, tc.path)
			for _, open := range []func(string) (*Ledger, error){Open, OpenReadOnly} {
				l, err := open(tc.path)
				if err == nil {
					l.Close()
					t.Fatal("opened")
				}
				if !errors.Is(err, tc.want) {
					t.Fatalf("err = %v, want %v", err, tc.want)
				}
				if !strings.Contains(err.Error(), tc.path) {
					t.Errorf("error %q does not name the file", err)
				}
			}
			if fileSum(t, tc.path) != before {
				t.Error("file changed")
			}
		})
	}
}

func TestOpenNew(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "dir", "l.db")
	l := mustOpen(t, path)
	var app uint32
	var v int
	l.r.Get(&app, "PRAGMA application_id")
	l.r.Get(&v, "PRAGMA user_version")
	if app != ApplicationID || v != SchemaVersion {
		t.Errorf("application_id %#x user_version %d", app, v)
	}
	games, err := l.Games(context.Background())
	if err != nil || games[531] != "VEGAS" {
		t.Errorf("games = %v, %v", games, err)
	}
	var mode string
	l.w.Get(&mode, "PRAGMA journal_mode")
	if mode != "wal" {
		t.Errorf("journal_mode %q", mode)
	}
	l.Close()
	// Reopening a current ledger migrates nothing.
	l2 := mustOpen(t, path)
	if bs, err := l2.Blocks(context.Background()); err != nil || len(bs) != 0 {
		t.Errorf("blocks = %v, %v", bs, err)
	}
}

func TestLookup(t *testing.T) {
	ctx := context.Background()
	l := mustOpen(t, copyFixture(t))
	b, err := l.Block(ctx, 531, 1)
	if err != nil {
		t.Fatal(err)
	}
	who := Identity{"D1", "ann"}
	for _, pos := range []int{0, 1, 199, 200, 1_999_999} {
		got, err := l.Lookup(ctx, serialOf(b, pos), who)
		if err != nil {
			t.Fatalf("position %d: %v", pos, err)
		}
		if got.Position != pos || got.Pack != pos/200 || got.Block.Number != 1 || got.Serial.String() != serialOf(b, pos) {
			t.Errorf("position %d: got %+v", pos, got)
		}
		if p := game.Prize(&got.Ticket); p != got.Prize {
			t.Errorf("position %d: prize %d, contents win %d", pos, got.Prize, p)
		}
		want := StatusLoser
		if got.Prize > 0 {
			want = StatusUnpaid
		}
		if got.Status != want {
			t.Errorf("status %v, want %v", got.Status, want)
		}
	}

	s, _ := game.ParseSerial(serialOf(b, 42))
	wrongSecret := s
	wrongSecret.Secret = (s.Secret + 1) % 1_000_000
	unknownBlock := s
	unknownBlock.Block = 7
	for name, serial := range map[string]string{"wrong secret": wrongSecret.String(), "unknown block": unknownBlock.String()} {
		t.Run(name, func(t *testing.T) {
			before, _ := l.Refusals(ctx, time.Time{})
			_, err := l.Lookup(ctx, serial, who)
			if !errors.Is(err, ErrUnknownSerial) {
				t.Fatalf("err = %v", err)
			}
			after, _ := l.Refusals(ctx, time.Time{})
			if len(after) != len(before)+1 {
				t.Fatalf("refusals %d → %d", len(before), len(after))
			}
			r := after[len(after)-1]
			if r.Reason != "unknown-serial" || r.Serial != serial || r.Desk != "D1" || r.Operator != "ann" {
				t.Errorf("refusal %+v", r)
			}
		})
	}
	// The error of a wrong secret and of an unknown serial read alike.
	_, e1 := l.Lookup(ctx, wrongSecret.String(), who)
	_, e2 := l.Lookup(ctx, unknownBlock.String(), who)
	if strings.Replace(e1.Error(), wrongSecret.String(), "X", 1) != strings.Replace(e2.Error(), unknownBlock.String(), "X", 1) {
		t.Errorf("errors differ: %q, %q", e1, e2)
	}

	t.Run("check digit before the ledger", func(t *testing.T) {
		closed := mustOpen(t, copyFixture(t))
		closed.Close() // any database access would now fail differently
		bad := []byte(serialOf(b, 42))
		last := len(bad) - 1
		bad[last] = '0' + (bad[last]-'0'+1)%10
		_, err := closed.Lookup(ctx, string(bad), who)
		if !errors.Is(err, game.ErrCheckDigit) {
			t.Errorf("err = %v, want ErrCheckDigit", err)
		}
		_, err = closed.Lookup(ctx, "hello", who)
		if !errors.Is(err, game.ErrSerialFormat) {
			t.Errorf("err = %v, want ErrSerialFormat", err)
		}
	})
}

func TestReadOnly(t *testing.T) {
	ctx := context.Background()
	path := copyFixture(t)
	os.Chmod(path, 0o444)
	os.Chmod(filepath.Dir(path), 0o555)
	t.Cleanup(func() { os.Chmod(filepath.Dir(path), 0o755) })
	l, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	b, err := l.Block(ctx, 531, 1)
	if err != nil {
		t.Fatal(err)
	}
	w := ticketsWith(t, l, b, 100, 1)[0]
	got, err := l.Lookup(ctx, serialOf(b, w), Identity{})
	if err != nil || got.Prize != 100 {
		t.Fatalf("lookup: %+v, %v", got, err)
	}
	if _, err := l.FindByContents(ctx, &got.Ticket); err != nil {
		t.Errorf("find: %v", err)
	}
	wrong := game.Serial{Game: 531, Block: 1, Position: 1, Secret: 0}
	if wrong.Secret == b.key.Secret(1) {
		wrong.Secret++
	}
	if _, err := l.Lookup(ctx, wrong.String(), Identity{"D1", "ann"}); !errors.Is(err, ErrUnknownSerial) {
		t.Errorf("wrong secret on a read-only ledger: %v, want ErrUnknownSerial", err)
	}
	if rs, err := l.Refusals(ctx, time.Time{}); err != nil || len(rs) != 0 {
		t.Errorf("a read-only ledger recorded refusals: %v, %v", rs, err)
	}
	if _, err := l.Claim(ctx, serialOf(b, w), MethodSerial, Identity{"D1", "ann"}); !errors.Is(err, ErrReadOnly) {
		t.Errorf("claim: %v, want ErrReadOnly", err)
	}
	if _, err := l.Generate(ctx, 531, game.Seed{}, nil); !errors.Is(err, ErrReadOnly) {
		t.Errorf("generate: %v, want ErrReadOnly", err)
	}
}

func TestFindByContents(t *testing.T) {
	ctx := context.Background()
	l := mustOpen(t, copyFixture(t))
	b, _ := l.Block(ctx, 531, 1)
	for _, tier := range game.PrizeTable {
		for _, pos := range ticketsWith(t, l, b, tier.Prize, 3) {
			want, err := l.Lookup(ctx, serialOf(b, pos), Identity{})
			if err != nil {
				t.Fatal(err)
			}
			// Its speed is BenchmarkFindByContents' (make bench).
			got, err := l.FindByContents(ctx, &want.Ticket)
			if err != nil || got.Serial != want.Serial {
				t.Fatalf("prize %d position %d: got %v, %v", tier.Prize, pos, got.Serial, err)
			}
			// Cards typed in another order still find it.
			c := want.Ticket
			slices.Reverse(c.Duel.Cards[:])
			if got, err := l.FindByContents(ctx, &c); err != nil || got.Serial != want.Serial {
				t.Errorf("reversed cards: %v, %v", got.Serial, err)
			}
		}
	}
	loser := ticketsWith(t, l, b, 0, 1)[0]
	lt, _ := l.Lookup(ctx, serialOf(b, loser), Identity{})
	if _, err := l.FindByContents(ctx, &lt.Ticket); !errors.Is(err, ErrNotWinner) {
		t.Errorf("loser: %v, want ErrNotWinner", err)
	}
	// A winning ticket that no block holds: change a losing zone's decoy.
	w := ticketsWith(t, l, b, 50, 1)[0]
	wt, _ := l.Lookup(ctx, serialOf(b, w), Identity{})
	c := wt.Ticket
	for i, ln := range c.Jackpot {
		if ln.Symbols[0] != ln.Symbols[1] || ln.Symbols[1] != ln.Symbols[2] {
			c.Jackpot[i].Symbols[0] = (ln.Symbols[0] + 1) % game.NumSymbols
			if game.Prize(&c) == wt.Prize {
				break
			}
			c = wt.Ticket
		}
	}
	if c == wt.Ticket {
		t.Skip("no losing jackpot line to change")
	}
	if _, err := l.FindByContents(ctx, &c); !errors.Is(err, ErrNotFound) {
		t.Errorf("changed contents: %v, want ErrNotFound", err)
	}
}

func TestClaims(t *testing.T) {
	ctx := context.Background()
	l := mustOpen(t, copyFixture(t))
	b, _ := l.Block(ctx, 531, 1)
	w50 := ticketsWith(t, l, b, 50, 2)
	w3 := ticketsWith(t, l, b, 3, 1)[0]
	loser := ticketsWith(t, l, b, 0, 1)[0]
	ann, bob := Identity{"D1", "ann"}, Identity{"D2", "bob"}

	c1, err := l.Claim(ctx, serialOf(b, w50[0]), MethodSerial, ann)
	if err != nil {
		t.Fatal(err)
	}
	if c1.Amount != 50 || c1.Desk != "D1" || c1.Operator != "ann" || c1.Method != MethodSerial || c1.Position != w50[0] {
		t.Errorf("claim %+v", c1)
	}
	_, err = l.Claim(ctx, serialOf(b, w50[0]), MethodSerial, bob)
	var ac *AlreadyClaimedError
	if !errors.As(err, &ac) || !errors.Is(err, ErrAlreadyClaimed) {
		t.Fatalf("second claim: %v", err)
	}
	if ac.First.ID != c1.ID || ac.First.Desk != "D1" || ac.First.Operator != "ann" || !ac.First.At.Equal(c1.At) {
		t.Errorf("first claim %+v, want %+v", ac.First, c1)
	}
	for _, s := range []string{"D1", "ann", c1.At.Local().Format("2006-01-02 15:04:05")} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("%q does not say %q", err, s)
		}
	}
	if _, err := l.Claim(ctx, serialOf(b, loser), MethodSerial, bob); !errors.Is(err, ErrNotWinner) {
		t.Errorf("loser: %v", err)
	}
	s, _ := game.ParseSerial(serialOf(b, w50[1]))
	s.Secret = (s.Secret + 1) % 1_000_000
	if _, err := l.Claim(ctx, s.String(), MethodSerial, bob); !errors.Is(err, ErrUnknownSerial) {
		t.Errorf("wrong secret: %v", err)
	}
	refs, _ := l.Refusals(ctx, time.Time{})
	var reasons []string
	for _, r := range refs {
		reasons = append(reasons, r.Reason+"/"+r.Operator)
	}
	if want := []string{"already-claimed/bob", "not-winner/bob", "unknown-serial/bob"}; !slices.Equal(reasons, want) {
		t.Errorf("refusals %v, want %v", reasons, want)
	}

	// Void keeps both entries; the ticket can then be claimed again.
	if _, err := l.Void(ctx, c1.ID, "", bob); err == nil {
		t.Error("void without a reason")
	}
	v, err := l.Void(ctx, c1.ID, "paid the wrong ticket", bob)
	if err != nil || !v.Voided || v.VoidedBy != "bob" {
		t.Fatalf("void %+v, %v", v, err)
	}
	if _, err := l.Void(ctx, c1.ID, "again", bob); err == nil {
		t.Error("voided twice")
	}
	if _, err := l.Void(ctx, 9999, "x", bob); !errors.Is(err, ErrNotFound) {
		t.Errorf("void of no claim: %v", err)
	}
	tk, _ := l.Lookup(ctx, serialOf(b, w50[0]), ann)
	if tk.Status != StatusUnpaid {
		t.Errorf("after void: %v", tk.Status)
	}
	c2, err := l.Claim(ctx, serialOf(b, w50[0]), MethodContents, bob)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Claim(ctx, serialOf(b, w3), MethodSerial, ann); err != nil {
		t.Fatal(err)
	}
	tk, _ = l.Lookup(ctx, serialOf(b, w50[0]), ann)
	if tk.Status != StatusPaid || tk.Claim == nil || tk.Claim.ID != c2.ID {
		t.Errorf("paid ticket: %+v", tk)
	}
	var entries int
	l.r.Get(&entries, "SELECT count(*) FROM journal")
	if entries != 5 { // block, claim, void, claim, claim
		t.Errorf("journal has %d entries, want 5", entries)
	}
	if _, err := l.w.Exec("UPDATE journal SET amount = 1"); err == nil {
		t.Error("journal updated in place")
	}
	if _, err := l.w.Exec("DELETE FROM journal"); err == nil {
		t.Error("journal deleted")
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

	r, err := l.Report(ctx, 531, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range r.Tiers {
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
	if r.Total.Generated != game.Winners || r.Total.ClaimedSum != 53 || r.Total.Liability != game.Payout-53 || r.Total.Prize != game.Payout {
		t.Errorf("total %+v", r.Total)
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
	rep, err := l.Verify(ctx, 531, 1, nil)
	if err != nil || !rep.OK() || rep.Entries != 5 {
		t.Errorf("verify %+v, %v", rep, err)
	}
}

func TestExportRoundTrip(t *testing.T) {
	ctx := context.Background()
	l, err := OpenReadOnly(fixture)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	b, _ := l.Block(ctx, 531, 1)
	var out strings.Builder
	calls := 0
	if err := l.Export(ctx, 531, 1, &out, func(done, total int) { calls++ }); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != game.BlockSize || calls == 0 {
		t.Fatalf("%d lines, %d progress calls", len(lines), calls)
	}
	for pos := 0; pos < len(lines); pos += 997 {
		in, err := game.ParseDoc([]byte(lines[pos]))
		if err != nil {
			t.Fatalf("line %d: %v", pos, err)
		}
		if in.Serial != serialOf(b, pos) || in.Prize == nil || *in.Prize != game.Prize(&in.Ticket) {
			t.Fatalf("line %d: serial %s prize %v", pos, in.Serial, in.Prize)
		}
		for _, key := range []string{`"game":531`, `"block":1`, `"position":`, `"pack":`} {
			if !strings.Contains(lines[pos], key) {
				t.Errorf("line %d lacks %s", pos, key)
			}
		}
	}
}

func TestVerifyFixture(t *testing.T) {
	l, err := OpenReadOnly(fixture)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	rep, err := l.Verify(context.Background(), 0, 0, nil)
	if err != nil || !rep.OK() || rep.Blocks != 1 || rep.Tickets != game.BlockSize || rep.Entries != 1 {
		t.Errorf("verify %+v, %v", rep, err)
	}
}

func TestGenerateCancel(t *testing.T) {
	l := mustOpen(t, copyFixture(t))
	ctx, cancel := context.WithCancel(context.Background())
	_, err := l.Generate(ctx, 531, game.Seed{9}, func(done, total int) {
		if done >= total/3 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) && !errors.Is(err, game.ErrCancelled) {
		t.Fatalf("err = %v", err)
	}
	var blocks, packs, finder, winners, entries int
	l.r.Get(&blocks, "SELECT count(*) FROM blocks")
	l.r.Get(&packs, "SELECT count(*) FROM packs")
	l.r.Get(&finder, "SELECT count(*) FROM finder")
	l.r.Get(&winners, "SELECT sum(length(entries)) / 7 FROM finder")
	l.r.Get(&entries, "SELECT count(*) FROM journal")
	if blocks != 1 || packs != game.Packs || winners != game.Winners || finder > game.Winners/finderChunk+1 || entries != 1 {
		t.Errorf("after cancel: %d blocks, %d packs, %d finder rows of %d winners, %d entries", blocks, packs, finder, winners, entries)
	}
	if _, err := l.Generate(context.Background(), 999, game.Seed{}, nil); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown game: %v", err)
	}
}

func TestTicketAtAndSamples(t *testing.T) {
	ctx := context.Background()
	l, err := OpenReadOnly(fixture)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	b, _ := l.Block(ctx, 531, 1)
	for _, pos := range []int{0, 199, 200, 1_999_999} {
		got, err := l.TicketAt(ctx, 531, 1, pos)
		if err != nil || got.Position != pos || got.Serial.String() != serialOf(b, pos) || game.Prize(&got.Ticket) != got.Prize {
			t.Errorf("position %d: %+v, %v", pos, got, err)
		}
	}
	for _, pos := range []int{-1, game.BlockSize} {
		if _, err := l.TicketAt(ctx, 531, 1, pos); !errors.Is(err, ErrNotFound) {
			t.Errorf("position %d: %v, want ErrNotFound", pos, err)
		}
	}
	if _, err := l.TicketAt(ctx, 531, 2, 0); !errors.Is(err, ErrNotFound) {
		t.Errorf("block 2: %v, want ErrNotFound", err)
	}
	samples, err := l.Samples(ctx, 531, 1)
	if err != nil {
		t.Fatal(err)
	}
	var prizes []int
	for _, s := range samples {
		prizes = append(prizes, s.Prize)
		if first := ticketsWith(t, l, b, s.Prize, 1)[0]; s.Position != first {
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
}

// Entries written behind the app's back with a valid hash chain — a second
// payment of a paid ticket, a void that names another ticket, a second
// void — are each named by verify.
func TestVerifyJournalRules(t *testing.T) {
	ctx := context.Background()
	l := mustOpen(t, copyFixture(t))
	defer l.Close()
	b, err := l.Block(ctx, 531, 1)
	if err != nil {
		t.Fatal(err)
	}
	pos := ticketsWith(t, l, b, 6, 2)
	who := Identity{"D1", "ann"}
	first, err := l.Claim(ctx, serialOf(b, pos[0]), MethodSerial, who)
	if err != nil {
		t.Fatal(err)
	}
	other, err := l.Claim(ctx, serialOf(b, pos[1]), MethodSerial, who)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Void(ctx, other.ID, "wrong ticket", who); err != nil {
		t.Fatal(err)
	}
	forge := func(e entry) int64 {
		t.Helper()
		tx, err := l.begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		e.At = l.now()
		id, err := appendJournal(ctx, tx, &e)
		if err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		return id
	}
	claimEntry := entry{Kind: "claim", Ticket: sql.NullInt64{Int64: b.first + int64(pos[0]), Valid: true},
		Serial: first.Serial, Game: 531, Block: 1, Position: pos[0], Amount: 6, Desk: "X", Operator: "mallory", Method: MethodSerial}
	second := forge(claimEntry)
	badVoid := claimEntry
	badVoid.Kind, badVoid.Claim, badVoid.Position = "void", sql.NullInt64{Int64: first.ID, Valid: true}, pos[1]
	forged := forge(badVoid)
	again := claimEntry
	again.Kind, again.Ticket, again.Serial, again.Position = "void", sql.NullInt64{Int64: b.first + int64(pos[1]), Valid: true}, other.Serial, pos[1]
	again.Claim = sql.NullInt64{Int64: other.ID, Valid: true}
	twice := forge(again)

	rep, err := l.Verify(ctx, 0, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		fmt.Sprintf("claim %d", second):         fmt.Sprintf("already paid by claim %d", first.ID),
		fmt.Sprintf("journal entry %d", forged): "names another ticket",
		fmt.Sprintf("journal entry %d", twice):  fmt.Sprintf("already voided by entry %d", other.ID+1),
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
}

// Once the listed ticket of a tier is paid, Samples lists the tier's next
// unpaid ticket; a void gives the first one back.
func TestSamplesSkipPaid(t *testing.T) {
	ctx := context.Background()
	l := mustOpen(t, copyFixture(t))
	b, err := l.Block(ctx, 531, 1)
	if err != nil {
		t.Fatal(err)
	}
	sixes := ticketsWith(t, l, b, 6, 2)
	sampleOf := func(prize int) Ticket {
		t.Helper()
		ts, err := l.Samples(ctx, 531, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(ts) != len(game.PrizeTable)+1 {
			t.Fatalf("%d samples, want one loser and one ticket per tier", len(ts))
		}
		for _, s := range ts {
			if s.Prize == prize {
				return s
			}
		}
		t.Fatalf("no sample of %d €", prize)
		return Ticket{}
	}
	if s := sampleOf(6); s.Position != sixes[0] || s.Status != StatusUnpaid {
		t.Fatalf("6 € sample at %d (%v), want the first, %d", s.Position, s.Status, sixes[0])
	}
	cl, err := l.Claim(ctx, serialOf(b, sixes[0]), MethodSerial, Identity{"D1", "ann"})
	if err != nil {
		t.Fatal(err)
	}
	if s := sampleOf(6); s.Position != sixes[1] || s.Status != StatusUnpaid {
		t.Errorf("after paying it: 6 € sample at %d (%v), want the next, %d", s.Position, s.Status, sixes[1])
	}
	if _, err := l.Void(ctx, cl.ID, "test", Identity{"D1", "ann"}); err != nil {
		t.Fatal(err)
	}
	if s := sampleOf(6); s.Position != sixes[0] {
		t.Errorf("after the void: 6 € sample at %d, want the first again, %d", s.Position, sixes[0])
	}
}

// The command line and the app take who acts from one rule: $USER, else
// the account's name; the host name for the desk.
func TestDefaultIdentity(t *testing.T) {
	host, _ := os.Hostname()
	t.Setenv("USER", "ann")
	if got := DefaultIdentity(); got != (Identity{host, "ann"}) {
		t.Errorf("with USER=ann: %+v", got)
	}
	t.Setenv("USER", "")
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	if got := DefaultIdentity(); got != (Identity{host, u.Username}) {
		t.Errorf("without USER: %+v, want %q", got, u.Username)
	}
}
