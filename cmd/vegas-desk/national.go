package main

import (
	"context"
	"errors"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/core"
)

// A network's load test (issue 38): load --desks DIR claims through many
// desks, each claim by the next desk in turn on a new connection, as
// thousands of points of sale each paying a ticket now and then do (a
// desk's connection is long closed by its next claim); load --winners
// claims each unpaid winner of the blocks on sale once, so every claim
// pays a ticket of its own.

// loadNational is load with --desks or --winners, on a demonstration
// ledger bo.
func (c *cli) loadNational(bo *ledger.Ledger, url, desksDir, dir, pass string, counters int, winners bool, claims int, d time.Duration, asJSON bool) error {
	var logins []*ledger.Ledger
	var err error
	defer func() {
		for _, l := range logins {
			if l != nil {
				l.Close()
			}
		}
	}()
	if desksDir != "" {
		if logins, err = c.openDesks(url, desksDir, counters); err != nil {
			return err
		}
	} else if logins, err = serverDesks(c, bo, counters, url, dir, pass); err != nil {
		return err
	}
	src := loadSource{claims: int64(claims), fresh: desksDir != ""}
	if desksDir != "" {
		n := len(logins)
		src.desk = func(_, k int) *ledger.Ledger { return logins[k%n] }
	} else {
		src.desk = func(i, _ int) *ledger.Ledger { return logins[i] }
	}
	if winners {
		list, err := winnersOnSale(c.ctx, bo)
		if err != nil {
			return err
		}
		mrand.Shuffle(len(list), func(i, j int) { list[i], list[j] = list[j], list[i] })
		var next atomic.Int64
		src.ticket = func(int, *mrand.Rand) (game.Serial, bool) {
			j := next.Add(1) - 1
			if j >= int64(len(list)) {
				return game.Serial{}, false
			}
			return list[j], true
		}
		c.printf(c.stderr, "load: %d unpaid winners on sale, each claimed once, in a random order\n", len(list))
		if claims > len(list) {
			c.printf(c.stderr, "load: --claims %d is more than the %d winners: the test stops when they are all claimed\n", claims, len(list))
		}
	} else {
		packs, b, err := onSale(c.ctx, bo)
		if err != nil {
			return err
		}
		src.ticket = func(_ int, rng *mrand.Rand) (game.Serial, bool) {
			pos := packs[rng.IntN(len(packs))]*game.PackSize + rng.IntN(game.PackSize)
			return game.Serial{Game: b.Game, Block: b.Number, Position: pos, Secret: b.Key.Secret(pos)}, true
		}
	}
	progress := c.stdout
	if asJSON {
		progress = c.stderr
	}
	return c.loadReport(runLoad(c.ctx, counters, src, d, progress), counters, asJSON)
}

// openDesks opens the server at url as each desk of the desk files of dir
// (*.desk), counters at a time, and closes their connections: each claim
// then makes its own.
func (c *cli) openDesks(url, dir string, counters int) ([]*ledger.Ledger, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, badInput("load: --desks %s: %v", dir, err)
	}
	var files []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".desk") && e.Type().IsRegular() {
			files = append(files, filepath.Join(dir, e.Name()))
		}
	}
	if len(files) == 0 {
		return nil, badInput("load: --desks %s holds no desk file (ID.desk, as desks add --count N --prefix P --out DIR writes them)", dir)
	}
	slices.SortFunc(files, core.NaturalCompare)
	start := time.Now()
	logins := make([]*ledger.Ledger, len(files))
	var next atomic.Int64
	var mu sync.Mutex
	var errs []error
	var wg sync.WaitGroup
	for range counters {
		wg.Go(func() {
			for c.ctx.Err() == nil {
				j := int(next.Add(1) - 1)
				if j >= len(files) {
					return
				}
				l, err := ledger.OpenServer(url, files[j])
				if err != nil {
					mu.Lock()
					errs = append(errs, failf("load: desk file %s: %w", files[j], err))
					mu.Unlock()
					return
				}
				l.Close() // its connection: each claim makes its own
				logins[j] = l
			}
		})
	}
	wg.Wait()
	if err := errors.Join(append(errs, c.ctx.Err())...); err != nil {
		for _, l := range logins {
			if l != nil {
				l.Close()
			}
		}
		return nil, err
	}
	c.printf(c.stderr, "load: %d desks of %s opened on %s in %.1f s; each claim by the next desk, on a new connection\n",
		len(files), dir, url, time.Since(start).Seconds())
	return logins, nil
}

// winnersOnSale are the serials of the unpaid winners of the ledger's
// packs on sale, every block's.
func winnersOnSale(ctx context.Context, bo *ledger.Ledger) ([]game.Serial, error) {
	blocks, err := bo.Blocks(ctx)
	if err != nil {
		return nil, err
	}
	var out []game.Serial
	for _, b := range blocks {
		runs, err := bo.Packs(ctx, ledger.PackFilter{Game: b.Game, Block: b.Number, State: "on-sale"})
		if err != nil {
			return nil, err
		}
		if len(runs) == 0 {
			continue
		}
		onSale := make([]bool, b.Tickets/game.PackSize)
		for _, r := range runs {
			for p := r.First; p <= r.Last; p++ {
				onSale[p] = true
			}
		}
		positions, _, err := bo.UnpaidWinners(ctx, b.Game, b.Number)
		if err != nil {
			return nil, err
		}
		for _, pos := range positions {
			if onSale[pos/game.PackSize] {
				out = append(out, game.Serial{Game: b.Game, Block: b.Number, Position: pos, Secret: b.Key.Secret(pos)})
			}
		}
	}
	if len(out) == 0 {
		return nil, failf("load: no unpaid winner on sale: --winners claims each once (generate --demo puts a block on sale)")
	}
	return out, nil
}
