package ledger

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/conformance"
	"vegas-desk/internal/ledger/core/coretest"
	"vegas-desk/internal/pgtest"
)

// The fixtures hold one generated block (game 531, block 1, seed
// fixtureSeed, every pack on sale): a SQLite file, made once per run and
// shared by every package's tests (ledgertest, through internal/testcache;
// tests copy it), and a PostgreSQL database loaded from it that tests copy
// (CREATE DATABASE … TEMPLATE).
var (
	fixture   string
	pg        *pgtest.Server
	pgFixture string
)

var fixtureSeed = game.Seed{1, 2, 3}

// The fixtures' builders (internal/ledger/ledgertest), which
// fixture_hooks_test.go, of the external test package, sets before
// TestMain runs: this package's internal tests cannot import a package that
// imports it.
var (
	FixtureDir      func(name string) (string, error)
	FixturePostgres func(s *pgtest.Server, name string) (string, error)
	// StartPostgres starts the tests' server with fixtures loaded
	// (ledgertest.StartPostgres).
	StartPostgres func(names ...string) (*pgtest.Server, error)
)

// pgFixtures are the fixtures this package's tests copy in PostgreSQL: its
// server starts with them loaded.
var pgFixtures = []string{"block", "stock", "demo", "sealed", conformance.Fixture}

func TestMain(m *testing.M) {
	if child := os.Getenv("VEGAS_LEDGER_CHILD"); child != "" {
		os.Exit(runChild(child))
	}
	code, err := setup(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, "ledger tests:", err)
		os.Exit(1)
	}
	os.Exit(code)
}

func setup(m *testing.M) (int, error) {
	dir, err := FixtureDir("block")
	if err != nil {
		return 0, err
	}
	fixture = filepath.Join(dir, "ledger.db")
	if fuzzing() {
		return m.Run(), nil // the fuzz targets need no PostgreSQL
	}
	pg, err = StartPostgres(pgFixtures...)
	if err != nil {
		return 0, err
	}
	defer pg.Stop()
	if pgFixture, err = FixturePostgres(pg, "block"); err != nil {
		return 0, err
	}
	return m.Run(), nil
}

// fuzzing reports whether this process fuzzes (go test -fuzz, or one of
// its workers): each worker runs TestMain again, so it starts no server.
func fuzzing() bool {
	flag.Parse()
	for _, name := range []string{"test.fuzz", "test.fuzzworker"} {
		if f := flag.Lookup(name); f != nil && f.Value.String() != "" && f.Value.String() != "false" {
			return true
		}
	}
	return false
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// fixedClock starts on 1 May 2025 at 10:00 UTC and advances a second a call.
func fixedClock() func() time.Time {
	t0 := time.Date(2025, 5, 1, 10, 0, 0, 0, time.UTC)
	n := 0
	return func() time.Time { n++; return t0.Add(time.Duration(n) * time.Second) }
}

// engineCase is one engine the ledger tests run on.
type engineCase struct {
	name string
	// copyOf returns the location of a new copy of ledgertest's fixture
	// name ("block", "stock" or "demo").
	copyOf func(tb testing.TB, name string) string
	// empty returns the location of a new empty ledger (not yet created).
	empty func(tb testing.TB) string
}

// fresh returns the location of a new copy of the fixture.
func (e engineCase) fresh(tb testing.TB) string { return e.copyOf(tb, "block") }

// stock returns the location of a new ledger of the fixture's block whose
// packs are all in stock.
func (e engineCase) stock(tb testing.TB) string { return e.copyOf(tb, "stock") }

var engines = []engineCase{
	{"sqlite", sqliteCopy, func(tb testing.TB) string { return filepath.Join(tb.TempDir(), "l.db") }},
	{"postgres", pgCopyOf, func(tb testing.TB) string { return pg.URL(pgtest.Owner, pg.NewDatabase(tb)) }},
}

// forEngines runs f once per engine, as subtests.
func forEngines(t *testing.T, f func(t *testing.T, e engineCase)) {
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) { f(t, e) })
	}
}

// copyFixture copies the SQLite fixture into a fresh temp dir.
func copyFixture(tb testing.TB) string { return sqliteCopy(tb, "block") }

// sqliteCopy copies ledgertest's fixture name into a fresh temp dir.
func sqliteCopy(tb testing.TB, name string) string {
	tb.Helper()
	src, err := FixtureDir(name)
	if err != nil {
		tb.Fatal(err)
	}
	dst := filepath.Join(tb.TempDir(), "ledger.db")
	if err := copyFile(filepath.Join(src, "ledger.db"), dst); err != nil {
		tb.Fatal(err)
	}
	return dst
}

// pgCopy makes a new database from the PostgreSQL fixture and returns the
// owner's URL of it.
func pgCopy(tb testing.TB) string { return pgCopyOf(tb, "block") }

// pgTemplates are the fixtures loaded into the tests' server, by name,
// each when a test first asks for it.
var pgTemplates sync.Map // name → func() (string, error)

// pgCopyOf makes a new database from ledgertest's fixture name, loaded
// into the tests' server once, and returns the owner's URL of it.
func pgCopyOf(tb testing.TB, name string) string {
	tb.Helper()
	return pg.URL(pgtest.Owner, pg.NewDatabaseFrom(tb, pgTemplate(tb, name)))
}

// pgTemplate is the database of the tests' server that holds ledgertest's
// fixture name, loaded when first asked for.
func pgTemplate(tb testing.TB, name string) string {
	tb.Helper()
	load, _ := pgTemplates.LoadOrStore(name, sync.OnceValues(func() (string, error) {
		if name == "block" {
			return pgFixture, nil
		}
		return FixturePostgres(pg, name)
	}))
	template, err := load.(func() (string, error))()
	if err != nil {
		tb.Fatal(err)
	}
	return template
}

// mustOpen opens location with a fixed clock that advances a second per
// call.
func mustOpen(tb testing.TB, location string) *Ledger {
	tb.Helper()
	l, err := Open(location)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { l.Close() })
	l.Now = fixedClock()
	return l
}

// ticketsWith returns up to n positions of block b with prize p, in order.
func ticketsWith(tb testing.TB, l *Ledger, b Block, prize, n int) []int {
	tb.Helper()
	return coretest.TicketsWith(tb, rdb(l), b, prize, n)
}

func serialOf(b Block, pos int) string {
	return game.Serial{Game: b.Game, Block: b.Number, Position: pos, Secret: b.Key.Secret(pos)}.String()
}

// mustBlock returns block 531/1 of l.
func mustBlock(tb testing.TB, l *Ledger) Block {
	tb.Helper()
	b, err := l.Block(context.Background(), 531, 1)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// claimReq is a claim by serial.
func claimReq(serial string, who Identity) ClaimRequest {
	return ClaimRequest{Serial: serial, Method: MethodSerial, Who: who, Limit: NoLimit}
}

// asked is a test's limit: 0 asks none.
func asked(euros int) Limit {
	if euros == 0 {
		return NoLimit
	}
	return LimitOf(euros)
}

// journalKinds lists the kind and reason of the entries after entry after.
func journalKinds(tb testing.TB, l *Ledger, after int64) []string {
	tb.Helper()
	return coretest.JournalKinds(tb, rdb(l), after)
}

// lastEntry is the id of the journal's last entry.
func lastEntry(tb testing.TB, l *Ledger) int64 {
	tb.Helper()
	return coretest.LastEntry(tb, rdb(l))
}

// journalOnly is Verify without reading the blocks' tickets again: the
// journal's chain, each entry against what it names, the state it leads to
// against the kept tables, and the storage classes. The tests of the
// journal use it; TestGenerateAndVerify, TestTamper, one kill point and the
// copy test verify the tickets too.
func journalOnly(l *Ledger) (VerifyReport, error) {
	if l.Kind() == "counter" {
		return l.Verify(context.Background(), 0, 0, nil)
	}
	return storeOf(l).VerifyJournal(context.Background())
}
