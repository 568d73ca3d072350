package ledger

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/postgres"
	"vegas-desk/internal/pgtest"
)

// pgWithDesks is a copy of the fixture with counters D1 and D2 (limit 100
// and 1,000 €); it returns the back office's ledger and the database name.
func pgWithDesks(t *testing.T) (*Ledger, string) { return pgWithDesksOn(t, pg, pgFixture) }

// pgWithDesksOn is pgWithDesks on server s, from its database template.
func pgWithDesksOn(t *testing.T, s *pgtest.Server, template string) (*Ledger, string) {
	t.Helper()
	name := s.NewDatabaseFrom(t, template)
	bo := mustOpen(t, s.URL(pgtest.Owner, name))
	bo.Now = nil // one clock, the server's, for the back office and the counters
	for id, limit := range map[string]int{"D1": 100, "D2": 1000} {
		if _, err := bo.AddDesk(context.Background(), id, limit, Identity{Desk: "BO", Operator: "eve"}); err != nil {
			t.Fatal(err)
		}
	}
	return bo, name
}

// A ledger copied from a file to PostgreSQL and back verifies alike: the
// same block digests, the same journal head, the same payments.
func TestCopyBothWays(t *testing.T) {
	ctx := context.Background()
	src := mustOpen(t, copyFixture(t))
	b := mustBlock(t, src)
	who := Identity{Desk: "BO", Operator: "eve"}
	pos := ticketsWith(t, src, b, 15, 3)
	for _, p := range pos {
		if _, err := src.Claim(ctx, claimReq(serialOf(b, p), Identity{Desk: "D1", Operator: "ann"})); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := src.Void(ctx, 2, "wrong ticket", who); err != nil {
		t.Fatal(err)
	}
	if _, err := src.AddDesk(ctx, "D1", 150, who); err != nil {
		t.Fatal(err)
	}
	if err := src.SetSetting(ctx, SettingCommission, 450, who); err != nil {
		t.Fatal(err)
	}
	w := ticketsWith(t, src, b, 50000, 1)[0]
	if _, err := src.Claim(ctx, ClaimRequest{Serial: serialOf(b, w), Method: MethodSerial, Who: who, Limit: NoLimit,
		Winner: &Winner{Name: "Jeanne Martin", DocType: "permis de conduire", DocNumber: "19AZ71864"}}); err != nil {
		t.Fatal(err)
	}
	src.Lookup(ctx, game.Serial{Game: 531, Block: 1, Position: 5}.String(), Identity{Desk: "D1", Operator: "ann"}, NoLimit) // a refusal
	want, err := src.Verify(ctx, 0, 0, nil)
	if err != nil || !want.OK() {
		t.Fatalf("source: %v, %v", want.Problems, err)
	}
	dst := pg.URL(pgtest.Owner, pg.NewDatabase(t))
	calls := 0
	toPG, err := Copy(ctx, src, dst, func(done, total int) { calls++ })
	if err != nil {
		t.Fatal(err)
	}
	defer toPG.Close()
	back := filepath.Join(t.TempDir(), "back.db")
	toFile, err := Copy(ctx, toPG, back, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer toFile.Close()
	for name, l := range map[string]*Ledger{"postgres": toPG, "file again": toFile} {
		got, err := l.Verify(ctx, 0, 0, nil)
		if err != nil || !got.OK() || got.Head != want.Head || got.Entries != want.Entries || got.Tickets != want.Tickets {
			t.Errorf("%s: %+v, %v; want head %s", name, got, err, want.Head)
		}
		bs, _ := l.Blocks(ctx)
		if len(bs) != 1 || bs[0].Digest != b.Digest {
			t.Errorf("%s: blocks %+v", name, bs)
		}
		cs, _ := l.Claims(ctx, ClaimFilter{})
		if len(cs) != 4 || !cs[1].Voided {
			t.Errorf("%s: claims %+v", name, cs)
		}
		if l.ID() == src.ID() || l.ID() == toPG.ID() && name != "postgres" {
			t.Errorf("%s: id %s, a copy's own wanted (the source's %s)", name, l.ID(), src.ID())
		}
		if v, _ := l.Setting(ctx, SettingCommission); v != 450 {
			t.Errorf("%s: commission %d", name, v)
		}
	}
	if calls == 0 {
		t.Error("no progress")
	}
	// Issue 29: a copy is a new ledger; a restore of it replaces the
	// ledger it copies — its id again — and marks it replaced, since it
	// answers; a restore whose original is gone says so.
	restored, r, err := Restore(ctx, toPG, filepath.Join(t.TempDir(), "restored.db"), nil)
	if err != nil || restored.ID() != src.ID() || r.Original != src.Location() || !r.Replaced {
		t.Fatalf("restore of the copy: %+v %v", r, err)
	}
	defer restored.Close()
	if err := CheckServable(ctx, src); !errors.Is(err, ErrReplaced) || !strings.Contains(err.Error(), restored.Location()) {
		t.Errorf("the original after the restore: %v", err)
	}
	if err := CheckServable(ctx, restored); err != nil {
		t.Errorf("the restore: %v", err)
	}
	if got, err := restored.Verify(ctx, 0, 0, nil); err != nil || !got.OK() || got.Head != want.Head {
		t.Errorf("the restore verifies: %+v %v", got.Problems, err)
	}
	backup, err := Copy(ctx, restored, filepath.Join(t.TempDir(), "backup.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer backup.Close()
	os.Remove(restored.Location())
	again, r, err := Restore(ctx, backup, filepath.Join(t.TempDir(), "again.db"), nil)
	if err == nil {
		defer again.Close()
	}
	if err != nil || again.ID() != src.ID() || r.Replaced || r.Why != "no ledger file there" {
		t.Errorf("restore of a copy whose original is gone: %+v %v", r, err)
	}
	if _, err := os.Stat(restored.Location()); err == nil {
		t.Error("the restore made a file where the original was")
	}
	// Only into a new file or an empty database.
	if _, err := Copy(ctx, src, back, nil); err == nil || !strings.Contains(err.Error(), "new file") {
		t.Errorf("copy onto a ledger: %v", err)
	}
	if _, err := Copy(ctx, src, dst, nil); err == nil || !strings.Contains(err.Error(), "empty database") {
		t.Errorf("copy onto a ledger: %v", err)
	}
}

// A shared ledger made by an earlier vegas-desk holds that version's
// counters' functions, which this one's protections are not in: one of
// version 4 is refused, with how to copy it into a new one; one of the
// previous version, with how to upgrade it in place (TestUpgradePostgresV5).
func TestOlderSharedLedgerRefused(t *testing.T) {
	for v, want := range map[int]string{4: "copy it to a file with that earlier vegas-desk", postgres.SchemaVersion - 1: "upgrades it in place: vegas-desk --db URL upgrade"} {
		name := pg.NewDatabaseFrom(t, pgFixture)
		for _, stmt := range []string{"ALTER TABLE vegas.meta DISABLE TRIGGER meta_no_change",
			fmt.Sprintf("UPDATE vegas.meta SET value = '%d' WHERE key = 'schema'", v)} {
			if err := pg.Exec(name, stmt); err != nil {
				t.Fatal(err)
			}
		}
		l, err := Open(pg.URL(pgtest.Owner, name))
		if err == nil {
			l.Close()
			t.Fatal("opened")
		}
		if !errors.Is(err, ErrTooOld) && !errors.Is(err, ErrNeedsUpgrade) || !strings.Contains(err.Error(), want) {
			t.Errorf("version %d: %v", v, err)
		}
	}
}
