// Package ledgertest gives the tests of every package the same ledger
// fixtures, made once per run through internal/testcache: real SQLite
// ledgers holding a whole 2,000,000-ticket block, a sealed counter ledger
// issued from one, and the serials of their tickets by prize. A test
// copies what it writes to (Copy); the cached files are shared.
//
// The ledger package's own tests use the same fixtures: its external test
// package hands them these builders (see internal/ledger's
// fixture_hooks_test.go), since a package's internal tests cannot import a
// package that imports it.
package ledgertest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger"
	"vegas-desk/internal/pgtest"
	"vegas-desk/internal/signing"
	"vegas-desk/internal/testcache"
)

// The fixtures, by name. Each is a directory holding ledger.db (the
// ledger) and serials.json (Serials). Every block is game 531's block 1,
// generated from Seed with the times of Clock.
const (
	// Block: a back office's ledger whose packs are all on sale.
	Block = "block"
	// Stock: a back office's ledger whose packs are all in stock.
	Stock = "stock"
	// Demo: a demonstration ledger (ledger.CreateDemo), packs on sale.
	Demo = "demo"
	// Sealed: Block's ledger after it issued two sealed counter ledgers of
	// its block, C1.db (desk C1, payout limit 100 €) and C2.db (desk C2,
	// 50,000 €), signed by Key, whose passphrase-protected file is key (the
	// passphrase is Passphrase, also in the file passphrase).
	Sealed = "sealed"
)

// Seed is the fixtures' block seed.
var Seed = game.Seed{1, 2, 3}

// Key is the back office's signing key of the Sealed fixture.
var Key = signing.KeyFromSeed(bytes.Repeat([]byte{7}, 32))

// Passphrase protects the Sealed fixture's key file.
const Passphrase = "correct horse battery staple"

// T0 is when the fixtures' clocks start: 1 May 2025, 10:00 UTC.
var T0 = time.Date(2025, 5, 1, 10, 0, 0, 0, time.UTC)

// Clock starts a second after T0 and advances a second a call.
func Clock() func() time.Time { return ClockFrom(T0) }

// ClockFrom starts a second after t0 and advances a second a call.
func ClockFrom(t0 time.Time) func() time.Time {
	n := 0
	return func() time.Time { n++; return t0.Add(time.Duration(n) * time.Second) }
}

// Dir returns the directory of fixture name, built once (testcache.Get).
func Dir(name string) (string, error) {
	switch name {
	case Block, Stock, Demo:
		return testcache.Get(name, func(dir string) error { return buildBlock(dir, name) })
	case Sealed:
		return testcache.Get(name, buildSealed)
	case Conformance:
		return testcache.Get(name, buildConformance)
	}
	return "", fmt.Errorf("ledgertest: no fixture %q", name)
}

// MustDir is Dir for a test.
func MustDir(tb testing.TB, name string) string {
	tb.Helper()
	dir, err := Dir(name)
	if err != nil {
		tb.Fatal(err)
	}
	return dir
}

// Copy copies file of fixture name (ledger.db by default) into a new
// temporary directory of tb and returns its path there.
func Copy(tb testing.TB, name string, file ...string) string {
	tb.Helper()
	f := "ledger.db"
	if len(file) > 0 {
		f = file[0]
	}
	dst := filepath.Join(tb.TempDir(), f)
	if err := testcache.CopyFile(filepath.Join(MustDir(tb, name), f), dst); err != nil {
		tb.Fatal(err)
	}
	return dst
}

// Postgres copies fixture name's ledger into a new database of server s,
// owned by pgtest.Owner, and returns the database's name: a template that
// tests copy (pgtest's NewDatabaseFrom) rather than generate a block again.
func Postgres(s *pgtest.Server, name string) (string, error) {
	dir, err := Dir(name)
	if err != nil {
		return "", err
	}
	db := "fixture_" + name
	var loaded bool
	if err := s.Query("postgres", "SELECT EXISTS (SELECT FROM pg_database WHERE datname = $1)", []any{db}, &loaded); err != nil {
		return "", err
	}
	if loaded { // by StartPostgres
		return db, nil
	}
	if err := s.Exec("postgres", fmt.Sprintf("CREATE DATABASE %s OWNER %s ENCODING 'UTF8' TEMPLATE template0", db, pgtest.Owner)); err != nil {
		return "", err
	}
	src, err := ledger.OpenReadOnly(filepath.Join(dir, "ledger.db"))
	if err != nil {
		return "", err
	}
	defer src.Close()
	dst, err := ledger.Duplicate(context.Background(), src, s.URL(pgtest.Owner, db), nil) // the same ledger: its counter ledgers import
	if err != nil {
		return "", fmt.Errorf("copy fixture %s into PostgreSQL: %w", name, err)
	}
	return db, dst.Close()
}

// StartPostgres starts a PostgreSQL server (pgtest) that holds fixtures
// names loaded already, each in the database Postgres names: a copy of a
// server's data directory saved once per state of the sources (testcache,
// pgtest's Save), so that a test binary's server costs a copy, not initdb
// and a load of 2,000,000-ticket blocks. The caller must Stop it.
func StartPostgres(names ...string) (*pgtest.Server, error) {
	dir, err := savedPostgres(names)
	if err != nil {
		return nil, err
	}
	return pgtest.StartSaved(dir)
}

// SavePostgres saves, once per state of the sources, the server that
// StartPostgres(names...) starts a copy of (make test's fixtures command,
// before its runs).
func SavePostgres(names ...string) error {
	_, err := savedPostgres(names)
	return err
}

// StartDurablePostgres is StartPostgres for a server with PostgreSQL's
// durable defaults and more settings (pgtest.StartDurableWith).
func StartDurablePostgres(settings []string, names ...string) (*pgtest.Server, error) {
	dir, err := savedPostgres(names)
	if err != nil {
		return nil, err
	}
	return pgtest.StartSavedDurableWith(dir, settings...)
}

// savedPostgres is the directory of the saved server that holds fixtures
// names.
func savedPostgres(names []string) (string, error) {
	v, err := pgtest.InstalledVersion()
	if err != nil {
		return "", err
	}
	return testcache.Get(fmt.Sprintf("postgres%d-%s", v, strings.Join(names, "-")), func(dir string) error {
		s, err := pgtest.Start()
		if err != nil {
			return err
		}
		defer s.Stop()
		for _, name := range names {
			if _, err := Postgres(s, name); err != nil {
				return err
			}
		}
		return s.Save(dir)
	})
}

// Serials lists tickets of a fixture's block: the first losers, and the
// first winners of each prize, in block order.
type Serials struct {
	Losers  []string         `json:"losers"`
	Winners map[int][]string `json:"winners"` // by prize
}

// SerialsOf reads fixture name's serials.
func SerialsOf(tb testing.TB, name string) Serials {
	tb.Helper()
	s, err := readSerials(name)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

func readSerials(name string) (Serials, error) {
	var s Serials
	dir, err := Dir(name)
	if err != nil {
		return s, err
	}
	data, err := os.ReadFile(filepath.Join(dir, "serials.json"))
	if err == nil {
		err = json.Unmarshal(data, &s)
	}
	return s, err
}

// serialsPerPrize is how many serials Serials keeps of each prize (every
// one of the rare prizes).
const serialsPerPrize = 40

func buildBlock(dir, name string) error {
	path := filepath.Join(dir, "ledger.db")
	var l *ledger.Ledger
	var err error
	if name == Demo {
		l, err = ledger.CreateDemo(path)
	} else {
		l, err = ledger.Open(path)
	}
	if err != nil {
		return err
	}
	l.Now = Clock()
	_, err = l.Generate(context.Background(), 531, Seed, ledger.GenerateOptions{Activate: name != Stock, Who: ledger.Identity{Desk: "BO", Operator: "fixture"}})
	if err = errors.Join(err, l.Close()); err != nil {
		return err
	}
	return writeSerials(dir)
}

// writeSerials writes serials.json from the block generated again in
// memory (the ledger has no cheaper way to list winners by prize).
func writeSerials(dir string) error {
	s := Serials{Winners: map[int][]string{}}
	key := Seed.SerialKey()
	_, err := game.GenerateBlock(context.Background(), game.Spec{Game: 531, Block: 1, Seed: Seed}, func(b *game.Batch) error {
		for i := range b.Tickets {
			g := &b.Tickets[i]
			serial := game.Serial{Game: 531, Block: 1, Position: g.Position, Secret: key.Secret(g.Position)}.String()
			switch {
			case g.Prize == 0 && len(s.Losers) < serialsPerPrize:
				s.Losers = append(s.Losers, serial)
			case g.Prize > 0 && len(s.Winners[g.Prize]) < serialsPerPrize:
				s.Winners[g.Prize] = append(s.Winners[g.Prize], serial)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	data, err := json.MarshalIndent(s, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "serials.json"), data, 0o600)
}

// The Sealed fixture's counter ledgers.
var sealedCounters = []struct {
	Desk  string
	Limit ledger.Limit
}{{"C1", 100}, {"C2", 50000}}

func buildSealed(dir string) error {
	src, err := Dir(Block)
	if err != nil {
		return err
	}
	for _, f := range []string{"ledger.db", "serials.json"} {
		if err := testcache.CopyFile(filepath.Join(src, f), filepath.Join(dir, f)); err != nil {
			return err
		}
	}
	if err := signing.WriteKeyFile(filepath.Join(dir, "key"), Key, []byte(Passphrase)); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "passphrase"), []byte(Passphrase+"\n"), 0o600); err != nil {
		return err
	}
	l, err := ledger.Open(filepath.Join(dir, "ledger.db"))
	if err != nil {
		return err
	}
	defer l.Close()
	l.Now = Clock()
	for _, c := range sealedCounters {
		spec := ledger.CounterSpec{Desk: c.Desk, Limit: c.Limit, Key: Key, Who: ledger.Identity{Desk: "BO", Operator: "issuer"}}
		if _, err := l.IssueCounter(context.Background(), filepath.Join(dir, c.Desk+".db"), spec); err != nil {
			return fmt.Errorf("issue %s: %w", c.Desk, err)
		}
	}
	return l.Close()
}

// String names the serials kept, for a failing test's message.
func (s Serials) String() string {
	out := strconv.Itoa(len(s.Losers)) + " losers"
	for p, ws := range s.Winners {
		out += fmt.Sprintf(", %d of %d €", len(ws), p)
	}
	return out
}
