package ledger

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"vegas-desk/internal/game"
)

// fixture is a ledger holding one generated block (game 531, block 1, seed
// fixtureSeed), written once by TestMain and copied by tests that change it.
var fixture string

var fixtureSeed = game.Seed{1, 2, 3}

func TestMain(m *testing.M) {
	if child := os.Getenv("VEGAS_LEDGER_CHILD"); child != "" {
		os.Exit(runChild(child))
	}
	dir, err := os.MkdirTemp("", "ledger-fixture-")
	if err != nil {
		panic(err)
	}
	fixture = filepath.Join(dir, "fixture.db")
	l, err := Open(fixture)
	if err == nil {
		_, err = l.Generate(context.Background(), 531, fixtureSeed, nil)
		err = firstErr(err, l.Close())
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "fixture:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// copyFixture copies the fixture ledger into a fresh temp dir.
func copyFixture(tb testing.TB) string {
	tb.Helper()
	dst := filepath.Join(tb.TempDir(), "ledger.db")
	in, err := os.Open(fixture)
	if err != nil {
		tb.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		tb.Fatal(err)
	}
	if err := out.Close(); err != nil {
		tb.Fatal(err)
	}
	return dst
}

// mustOpen opens path with a fixed clock that advances a second per call.
func mustOpen(tb testing.TB, path string) *Ledger {
	tb.Helper()
	l, err := Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { l.Close() })
	t0 := time.Date(2025, 5, 1, 10, 0, 0, 0, time.UTC)
	n := 0
	l.Now = func() time.Time { n++; return t0.Add(time.Duration(n) * time.Second) }
	return l
}

// ticketsWith returns up to n positions of block b with prize p, in order.
func ticketsWith(tb testing.TB, l *Ledger, b Block, prize, n int) []int {
	tb.Helper()
	var out []int
	want := prizeByte(prize)
	err := scanPrizes(context.Background(), l.r, b, func(start int, prizes []byte) bool {
		for i, pb := range prizes {
			if pb == want && len(out) < n {
				out = append(out, start+i)
			}
		}
		return len(out) < n
	})
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

func serialOf(b Block, pos int) string {
	return game.Serial{Game: b.Game, Block: b.Number, Position: pos, Secret: b.key.Secret(pos)}.String()
}
