package backoffice_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/backoffice"
	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/ledger/ledgertest"
	"vegas-desk/internal/ledger/postgres"
	"vegas-desk/internal/ledger/sqlite"
	"vegas-desk/internal/pgtest"
)

// The PostgreSQL server of this test binary, started (with the fixtures
// loaded: ledgertest.StartPostgres) when a test first needs it; tmpl are
// their databases, by fixture.
var pg struct {
	once sync.Once
	s    *pgtest.Server
	tmpl map[string]string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	pg.s.Stop()
	os.Exit(code)
}

// store is a back office's ledger of either engine, as the rule's storage
// answers it.
type store interface {
	core.BackOffice
	Block(ctx context.Context, gameCode, number int) (core.Block, error)
	VerifyJournal(ctx context.Context) (core.VerifyReport, error)
	Office() *backoffice.Store
}

// engine is one engine of a back office: open opens a new copy of
// ledgertest's fixture (Block, Stock) whose entries are written at clock.
type engine struct {
	name string
	open func(t *testing.T, fixture string, clock func() time.Time) store
}

// block is a new copy of the block fixture, at ledgertest's clock.
func (e engine) block(t *testing.T) store { return e.open(t, ledgertest.Block, ledgertest.Clock()) }

// engines are the two engines of a back office: a copy of a fixture in a
// SQLite file, and in a PostgreSQL database.
var engines = []engine{
	{"sqlite", func(t *testing.T, fixture string, clock func() time.Time) store {
		b, err := sqlite.OpenLedger(ledgertest.Copy(t, fixture), false, backoffice.Creation{}, clock)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { b.Close() })
		return b
	}},
	{"postgres", func(t *testing.T, fixture string, clock func() time.Time) store {
		pg.once.Do(func() {
			fixtures := []string{ledgertest.Block, ledgertest.Stock}
			if pg.s, pg.err = ledgertest.StartPostgres(fixtures...); pg.err != nil {
				return
			}
			pg.tmpl = map[string]string{}
			for _, f := range fixtures {
				if pg.tmpl[f], pg.err = ledgertest.Postgres(pg.s, f); pg.err != nil {
					return
				}
			}
		})
		if pg.err != nil {
			t.Fatal(pg.err)
		}
		l, err := postgres.Open(pg.s.URL(pgtest.Owner, pg.s.NewDatabaseFrom(t, pg.tmpl[fixture])), false, backoffice.Creation{}, clock)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		return l.(*postgres.Backend)
	}},
}

// forEngines runs f on a new copy of the block fixture of each engine, as
// subtests.
func forEngines(t *testing.T, f func(t *testing.T, b store)) {
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) { f(t, e.block(t)) })
	}
}

// The journal of b verifies.
func journalVerifies(t *testing.T, b store) {
	t.Helper()
	if rep, err := b.VerifyJournal(context.Background()); err != nil || !rep.OK() {
		t.Errorf("verify: %v, %v", rep.Problems, err)
	}
}

// A game's emission dates and the settings: their defaults, set in the
// journal, dates out of order and unknown names refused; the deadline's
// default follows the claim_days setting.
func TestEmissionAndSettings(t *testing.T) {
	forEngines(t, func(t *testing.T, l store) {
		ctx := context.Background()
		who := core.Identity{Desk: "BO", Operator: "eve"}
		em, err := l.Emission(ctx, 531)
		if err != nil || em.Name != "VEGAS" || em.Price != 3 || !em.OnSale.IsZero() || !em.Deadline.IsZero() {
			t.Fatalf("emission %+v, %v", em, err)
		}
		on := time.Date(2025, 1, 6, 0, 0, 0, 0, time.UTC)
		end := time.Date(2025, 6, 30, 22, 0, 0, 0, time.UTC)
		em, err = l.SetEmission(ctx, 531, core.Emission{OnSale: on, EndOfSale: end}, who)
		if err != nil || !em.OnSale.Equal(on) || !em.EndOfSale.Equal(end) || !em.Deadline.Equal(end.AddDate(0, 0, core.DefaultClaimDays)) {
			t.Errorf("set: %+v, %v", em, err)
		}
		if _, err := l.SetEmission(ctx, 531, core.Emission{OnSale: end, EndOfSale: on}, who); err == nil {
			t.Error("dates out of order")
		}
		if _, err := l.SetEmission(ctx, 999, core.Emission{}, who); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("unknown game: %v", err)
		}
		if v, err := l.Setting(ctx, core.SettingCommission); err != nil || v != 500 {
			t.Errorf("default commission %d, %v", v, err)
		}
		if err := l.SetSetting(ctx, core.SettingCommission, 625, who); err != nil {
			t.Fatal(err)
		}
		if v, _ := l.Setting(ctx, core.SettingCommission); v != 625 {
			t.Errorf("commission %d", v)
		}
		if err := l.SetSetting(ctx, "colour", 1, who); err == nil {
			t.Error("unknown setting")
		}
		if err := l.SetSetting(ctx, core.SettingClaimDays, 30, who); err != nil {
			t.Fatal(err)
		}
		if em, err := l.SetEmission(ctx, 531, core.Emission{OnSale: on, EndOfSale: end}, who); err != nil || !em.Deadline.Equal(end.AddDate(0, 0, 30)) {
			t.Errorf("deadline with 30 claim days: %v, %v", em.Deadline, err)
		}
		journalVerifies(t, l)
	})
}

// The desks: added once each, with an id of letters and digits; their
// limit set, disabled; an unknown desk is not found.
func TestDesks(t *testing.T) {
	forEngines(t, func(t *testing.T, l store) {
		ctx := context.Background()
		who := core.Identity{Desk: "BO", Operator: "eve"}
		d, err := l.AddDesk(ctx, "D1", 150, who)
		if err != nil {
			t.Fatal(err)
		}
		if d.ID != "D1" || d.Limit != 150 {
			t.Errorf("desk %+v", d)
		}
		if _, err := l.AddDesk(ctx, "D1", 150, who); err == nil {
			t.Error("a desk added twice")
		}
		for _, bad := range []string{"", "-x", "a b", strings.Repeat("x", 33), "é"} {
			if _, err := l.AddDesk(ctx, bad, 1, who); err == nil {
				t.Errorf("desk id %q accepted", bad)
			}
		}
		if err := l.SetDeskLimit(ctx, "D1", 300, who); err != nil {
			t.Fatal(err)
		}
		if err := l.DisableDesk(ctx, "D1", who); err != nil {
			t.Fatal(err)
		}
		if err := l.UnlockDesk(ctx, "nope", who); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("unknown desk: %v", err)
		}
		ds, err := l.Desks(ctx)
		if err != nil || len(ds) != 1 || ds[0].Limit != 300 || !ds[0].Disabled {
			t.Errorf("desks %+v, %v", ds, err)
		}
		journalVerifies(t, l)
	})
}

// A ticket by its position: the first, either side of a pack's end, the
// last; none before the first or past the last, none of a block that is
// not there.
func TestTicketAt(t *testing.T) {
	forEngines(t, func(t *testing.T, l store) {
		ctx := context.Background()
		b, err := l.Block(ctx, 531, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, pos := range []int{0, 199, 200, 1_999_999} {
			got, err := l.TicketAt(ctx, 531, 1, pos)
			serial := game.Serial{Game: 531, Block: 1, Position: pos, Secret: b.Key.Secret(pos)}
			if err != nil || got.Position != pos || got.Serial != serial || game.Prize(&got.Ticket) != got.Prize {
				t.Errorf("position %d: %+v, %v", pos, got, err)
			}
		}
		for _, pos := range []int{-1, game.BlockSize} {
			if _, err := l.TicketAt(ctx, 531, 1, pos); !errors.Is(err, core.ErrNotFound) {
				t.Errorf("position %d: %v, want ErrNotFound", pos, err)
			}
		}
		if _, err := l.TicketAt(ctx, 531, 2, 0); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("block 2: %v, want ErrNotFound", err)
		}
	})
}
