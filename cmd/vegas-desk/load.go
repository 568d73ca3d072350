package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/pflag"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/ledger/protocol"
	"vegas-desk/internal/server"
)

// load is a pilot's capacity test: N counters claim random tickets of an
// on-sale block at once, each through the validation server with a desk
// file of its own, as a counter's app does, for a while; it reports answers per second, their latency and how
// long the payments' entries waited to be chained. It pays real tickets,
// so it refuses a ledger that is not a demonstration ledger unless told,
// and then claims only tickets of stock packs it delivers to its own
// desks (stockFor).
func (c *cli) load(fs *pflag.FlagSet) work {
	counters := fs.Int("counters", 4, "how many counters claim at once (1–64)")
	seconds := fs.Float64("seconds", 10, "how long they claim (at most 3600)")
	asJSON := fs.Bool("json", false, "JSON output (the progress lines go to the standard error)")
	yes := fs.Bool("yes-this-is-a-test", false, "run on a ledger that is not a demonstration ledger: its tickets get paid")
	server := fs.String("server", "", "measure the validation server at this URL (vegas-desk serve of --db; several separated by commas), its counters with desk files")
	dir := fs.String("dir", defaultServeDir(), "(--server) the authority's directory, which signs the counters' desk files")
	pass := fs.String("passphrase-file", "", "(--server) the file holding the authority key's passphrase")
	desks := fs.String("desks", "", "claim through the desk files of this folder (desks add --count --out), each claim by the next desk in turn on a new connection, as a network of many counters does (a demonstration ledger's)")
	winners := fs.Bool("winners", false, "claim the unpaid winning tickets of the blocks on sale, each once, in a random order (a demonstration ledger's), rather than random tickets")
	claims := fs.Int("claims", 0, "stop after this many answers (0: when --seconds are over)")
	return work{check: func(args []string) error {
		if _, err := c.positional(fs, args, 0, "no argument"); err != nil {
			return err
		}
		if c.server != "" && *server == "" {
			*server = c.server
		}
		c.server = "" // --db is the back office's ledger, which knows the serials
		switch {
		case *server == "":
			return badInput("load: give --server https://HOST:PORT, the validation server (vegas-desk serve) of --db: a load test measures it, as counters ask it (they have no database login)")
		case *counters < 1 || *counters > 64:
			return badInput("load: --counters %d: give 1 to 64", *counters)
		case *seconds <= 0 || *seconds > 3600:
			return badInput("load: --seconds %g: give more than 0, at most 3600", *seconds)
		case *claims < 0:
			return badInput("load: --claims %d: give 0 (no limit) or more", *claims)
		}
		return nil
	}, run: func(bo *ledger.Ledger, _ []string) (err error) {
		if !bo.Demo() && !*yes {
			return badInput("load: %s is not a demonstration ledger, and a load test pays its tickets: run it on one (generate --demo), or give --yes-this-is-a-test", bo.Location())
		}
		if !bo.Demo() && (*desks != "" || *winners) {
			return badInput("load: --desks and --winners are for a demonstration ledger (generate --demo); %s is not one", bo.Location())
		}
		if *desks != "" || *winners {
			return c.loadNational(bo, *server, *desks, *dir, *pass, *counters, *winners, *claims, time.Duration(*seconds*float64(time.Second)), *asJSON)
		}
		var own *ownPacks
		if !bo.Demo() {
			if own, err = stockFor(c.ctx, bo, *counters); err != nil {
				return err
			}
			// A real ledger: only packs of its stock that load delivers to its
			// own desks, destroyed after (their tickets claimed), and its desks
			// disabled, even when the test fails or is interrupted.
			defer func() { err = errors.Join(err, own.leave(context.WithoutCancel(c.ctx), bo, c.stderr)) }()
		}
		logins, err := serverDesks(c, bo, *counters, *server, *dir, *pass)
		if err != nil {
			return err
		}
		defer func() {
			for _, l := range logins {
				l.Close()
			}
		}()
		var packs [][]int
		var b ledger.Block
		if bo.Demo() {
			var all []int
			if all, b, err = onSale(c.ctx, bo); err != nil {
				return err
			}
			for range logins {
				packs = append(packs, all)
			}
		} else {
			if err = own.deliver(c.ctx, bo); err != nil {
				return err
			}
			packs, b = own.packs, own.block
		}
		progress := c.stdout
		if *asJSON {
			progress = c.stderr
		}
		src := packsSource(logins, b, packs)
		src.claims = int64(*claims)
		r := runLoad(c.ctx, len(logins), src, time.Duration(*seconds*float64(time.Second)), progress)
		return c.loadReport(r, *counters, *asJSON)
	}}
}

// loadReport prints a load test's result.
func (c *cli) loadReport(r *loadResult, counters int, asJSON bool) error {
	if r.err != nil {
		return r.err
	}
	s := r.summary(counters)
	if asJSON {
		return c.json(s)
	}
	c.printf(c.stdout, "%s, %.1f s: %d answers (%d paid), %.0f answers/s; latency p50 %.2f ms, p99 %.2f ms, max %.2f ms; chain delay p99 %.2f ms, max %.2f ms\n",
		ours(c.count(counters, "counter", "counters")), s["seconds"], s["answers"], s["paid"], s["claims_per_s"], s["p50_ms"], s["p99_ms"], s["max_ms"], s["chain_delay_ms"], s["chain_delay_max_ms"])
	return nil
}

// onSale lists the packs on sale of the ledger's first block that has
// any.
func onSale(ctx context.Context, bo *ledger.Ledger) ([]int, ledger.Block, error) {
	blocks, err := bo.Blocks(ctx)
	if err != nil {
		return nil, ledger.Block{}, err
	}
	for _, b := range blocks {
		runs, err := bo.Packs(ctx, ledger.PackFilter{Game: b.Game, Block: b.Number, State: "on-sale"})
		if err != nil {
			return nil, ledger.Block{}, err
		}
		var packs []int
		for _, r := range runs {
			for p := r.First; p <= r.Last; p++ {
				packs = append(packs, p)
			}
		}
		if len(packs) > 0 {
			return packs, b, nil
		}
	}
	return nil, ledger.Block{}, failf("load: no pack of the ledger is on sale: a load test claims tickets on sale (generate --demo puts a block on sale)")
}

// serverDesks gives desks _load-1 … _load-n (added when missing) new desk
// files signed by the authority of dir, and opens them on the server at
// url.
func serverDesks(c *cli, bo *ledger.Ledger, n int, url, dir, passFile string) ([]*ledger.Ledger, error) {
	p, err := c.passphrase(passFile, false)
	if err != nil {
		return nil, err
	}
	a, err := server.OpenAuthority(dir, p)
	if err != nil {
		return nil, err
	}
	existing, err := bo.Desks(c.ctx)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "vegas-desk-load-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	var logins []*ledger.Ledger
	for i := 1; i <= n && err == nil; i++ {
		id := loadDesk(i)
		switch j := slices.IndexFunc(existing, func(d ledger.Desk) bool { return d.ID == id }); {
		case j < 0:
			_, err = bo.AddTestDesk(c.ctx, i, 1000, loadWho())
		case existing[j].Disabled: // by an earlier load on a real ledger
			err = bo.EnableDesk(c.ctx, id, loadWho())
		}
		var data []byte
		var epoch int
		if err == nil {
			epoch, _, err = bo.Epochs(c.ctx)
		}
		if err == nil {
			data, err = a.DeskCertificate(id, epoch, time.Now().Add(-time.Hour), time.Now().Add(24*time.Hour))
		}
		var d *protocol.Desk
		if err == nil {
			d, err = protocol.ParseDeskFile(data)
		}
		if err == nil { // the desk accepts this certificate alone: the earlier runs' files are gone
			_, err = bo.AcceptDeskCert(c.ctx, id, d.Cert.Leaf, false, defaultIdentity("", "load"))
		}
		file := filepath.Join(tmp, id+".desk")
		if err == nil {
			err = server.WriteDeskFile(file, data)
		}
		var l *ledger.Ledger
		if err == nil {
			l, err = ledger.OpenServer(url, file)
		}
		if err != nil {
			err = failf("load: desk %s: %w", id, err)
			break
		}
		logins = append(logins, l)
	}
	if err != nil {
		for _, l := range logins {
			l.Close()
		}
		return nil, err
	}
	c.printf(c.stderr, "load: desks _load-1 … _load-%d are this test's, through %s (payout limit 1,000 €; desk files for a day)\n", n, url)
	return logins, nil
}

// loadWho is who load acts as at the back office: asked when load needs
// it, not at every start (the host's name is a system call).
func loadWho() ledger.Identity { return defaultIdentity("", "load") }

// loadDesk is the id of load's i-th desk (from 1): _load-1 …, a name
// that no real desk can take (desks add refuses it), so that a load test
// never revokes nor disables a shop's desk (core.TestDesk).
func loadDesk(i int) string { return core.TestDesk(i) }

// PacksPerCounter is how many packs of a real ledger's stock load delivers
// to each of its desks (200 tickets each).
const PacksPerCounter = 5

// ownPacks are the packs load delivered to its desks on a real ledger.
type ownPacks struct {
	block ledger.Block
	packs [][]int // by desk: _load-1's first
	// first … last: the packs delivered so far (none: last < first).
	first, last int
}

// stockFor finds, without writing, the packs of a real ledger's stock a
// load test of n counters takes: PacksPerCounter (at least one) each, in
// the longest run of packs in stock of the first block that has n.
func stockFor(ctx context.Context, bo *ledger.Ledger, n int) (*ownPacks, error) {
	blocks, err := bo.Blocks(ctx)
	if err != nil {
		return nil, err
	}
	for _, b := range blocks {
		runs, err := bo.Packs(ctx, ledger.PackFilter{Game: b.Game, Block: b.Number, State: "stock"})
		if err != nil {
			return nil, err
		}
		var best *ledger.PackRun
		for i, r := range runs {
			if best == nil || r.Last-r.First > best.Last-best.First {
				best = &runs[i]
			}
		}
		if best == nil || best.Last-best.First+1 < n {
			continue
		}
		per := min(PacksPerCounter, (best.Last-best.First+1)/n)
		own := &ownPacks{block: b, first: best.First, last: best.First - 1}
		for i := range n {
			var ps []int
			for p := best.First + i*per; p < best.First+(i+1)*per; p++ {
				ps = append(ps, p)
			}
			own.packs = append(own.packs, ps)
		}
		return own, nil
	}
	return nil, badInput("load: %s is not a demonstration ledger, and no block has %d packs in stock in a row: on a real ledger a load test claims only tickets of stock packs it delivers to its own desks (and destroys after); generate a test block (generate, without --activate), or run it on a demonstration ledger (generate --demo)", bo.Location(), n)
}

// deliver delivers each desk's packs to it and puts them on sale there.
func (o *ownPacks) deliver(ctx context.Context, bo *ledger.Ledger) error {
	for i, ps := range o.packs {
		m := ledger.PackMove{Game: o.block.Game, Block: o.block.Number, First: ps[0], Last: ps[len(ps)-1], Desk: loadDesk(i + 1)}
		for _, move := range []string{"deliver", "receive", "activate"} {
			m.Move = move
			if err := bo.MovePacks(ctx, m, loadWho()); err != nil {
				return failf("load: packs %d–%d of block %d/%d to %s (%s): %w", m.First, m.Last, o.block.Game, o.block.Number, m.Desk, move, err)
			}
			o.last = m.Last
		}
	}
	return nil
}

// leave destroys load's packs (their tickets were claimed: never to be
// sold) and disables its desks, and says so to w.
func (o *ownPacks) leave(ctx context.Context, bo *ledger.Ledger, w io.Writer) error {
	n := len(o.packs)
	var errs []error
	for _, ps := range o.packs { // one desk's at a time
		if ps[0] <= o.last {
			m := ledger.PackMove{Game: o.block.Game, Block: o.block.Number, First: ps[0], Last: min(ps[len(ps)-1], o.last),
				Move: "destroyed", Reason: "vegas-desk load: a load test claimed its tickets"}
			errs = append(errs, bo.MovePacks(ctx, m, loadWho()))
		}
	}
	for i := 1; i <= n; i++ {
		// (A desk the test failed before adding has nothing to disable.)
		if err := bo.DisableDesk(ctx, loadDesk(i), loadWho()); !errors.Is(err, ledger.ErrNotFound) {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return failf("load: cleaning up (destroy packs %d–%d of block %d/%d, disable desks _load-1 … _load-%d): %w", o.first, o.last,
			o.block.Game, o.block.Number, n, err)
	}
	packs := "no pack (none was delivered)"
	if o.last >= o.first {
		packs = fmt.Sprintf("packs %d–%d of block %d/%d, delivered from the stock to desks _load-1 … _load-%d and claimed by the test, now destroyed (never to be sold)",
			o.first, o.last, o.block.Game, o.block.Number, n)
	}
	fmt.Fprintf(w, "load: left behind: %s; desks _load-1 … _load-%d disabled (the journal keeps them; the next load enables them)\n", packs, n)
	return nil
}

// loadResult is what a load test measured.
type loadResult struct {
	elapsed time.Duration
	latency []time.Duration // every answer's
	chained []time.Duration // every payment's wait to be chained
	paid    int
	err     error
}

// packsSource is counter i claiming, as logins[i], random tickets of
// block b's packs packs[i].
func packsSource(logins []*ledger.Ledger, b ledger.Block, packs [][]int) loadSource {
	return loadSource{
		desk: func(i, _ int) *ledger.Ledger { return logins[i] },
		ticket: func(i int, rng *mrand.Rand) (game.Serial, bool) {
			pos := packs[i][rng.IntN(len(packs[i]))]*game.PackSize + rng.IntN(game.PackSize)
			return game.Serial{Game: b.Game, Block: b.Number, Position: pos, Secret: b.Key.Secret(pos)}, true
		}}
}

// loadSource is what a load test's counters claim and through which
// desks: counter i's claim, the k-th of all (from 0), goes through desk(i,
// k), its ticket
// ticket(i, rng) (false: none left, the counter stops); claims > 0 stops
// them all after that many answers in all.
type loadSource struct {
	desk   func(i, k int) *ledger.Ledger
	ticket func(i int, rng *mrand.Rand) (game.Serial, bool)
	claims int64
	// fresh: each claim on a new connection (the desk's closed after it).
	fresh bool
}

// runLoad makes counters claim src's tickets until d is over (or src's
// claims are done, or its tickets), printing a line a second to progress.
func runLoad(ctx context.Context, counters int, src loadSource, d time.Duration, progress io.Writer) *loadResult {
	r := &loadResult{}
	var mu sync.Mutex
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	start := time.Now()
	var wg sync.WaitGroup
	var taken atomic.Int64
	for i := range counters {
		wg.Go(func() {
			rng := mrand.New(mrand.NewPCG(mrand.Uint64(), mrand.Uint64()))
			for ctx.Err() == nil {
				k := taken.Add(1) // the k-th claim of all the counters'
				if src.claims > 0 && k > src.claims {
					return
				}
				s, ok := src.ticket(i, rng)
				if !ok {
					return
				}
				l := src.desk(i, int(k-1))
				t0 := time.Now()
				cl, err := l.Claim(context.WithoutCancel(ctx), ledger.ClaimRequest{Serial: s.String(), Method: ledger.MethodSerial,
					Who: ledger.Identity{Operator: "load"}, Limit: ledger.NoLimit})
				took := time.Since(t0)
				if src.fresh {
					l.Close()
				}
				var ref *ledger.Refusal
				mu.Lock()
				switch {
				case err == nil:
					r.paid++
					r.chained = append(r.chained, cl.Chained)
				case !errors.As(err, &ref) && r.err == nil:
					r.err = failf("load: %w", err)
					cancel()
				}
				r.latency = append(r.latency, took)
				mu.Unlock()
			}
		})
	}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	// One progress line a second, labelled by its second, and one for a
	// last part second of a quarter or more, labelled to the tenth (10.5 s):
	// the answers that came in after the last tick of a whole-second run
	// (those in flight at the end) are in the summary only, not on a
	// second line "10 s" of their own.
	last, lastAt := 0, start
	report := func(label string) {
		mu.Lock()
		lat := slices.Clone(r.latency[last:])
		ch := slices.Clone(r.chained)
		last = len(r.latency)
		mu.Unlock()
		rate := float64(len(lat)) / time.Since(lastAt).Seconds()
		lastAt = time.Now()
		fmt.Fprintf(progress, "%s s  %6.0f answers/s  p50 %6.2f ms  p99 %6.2f ms  chain delay p99 %6.2f ms\n",
			label, rate, msAt(lat, 50), msAt(lat, 99), msAt(ch, 99))
	}
	for {
		select {
		case <-done:
			r.elapsed = time.Since(start)
			if len(r.latency) > last && time.Since(lastAt) >= time.Second/4 {
				report(fmt.Sprintf("%4.1f", r.elapsed.Seconds()))
			}
			return r
		case <-tick.C:
			report(fmt.Sprintf("%4.0f", time.Since(start).Seconds()))
		}
	}
}

// summary is the result as load --json prints it.
func (r *loadResult) summary(counters int) map[string]any {
	return map[string]any{"counters": counters, "seconds": r.elapsed.Seconds(), "answers": len(r.latency), "paid": r.paid,
		"claims_per_s": float64(len(r.latency)) / r.elapsed.Seconds(),
		"p50_ms":       msAt(r.latency, 50), "p99_ms": msAt(r.latency, 99), "max_ms": msAt(r.latency, 100),
		"chain_delay_ms": msAt(r.chained, 99), "chain_delay_max_ms": msAt(r.chained, 100)}
}

// msAt is the p-th percentile of ds in milliseconds (100: the largest; 0
// when there is none).
func msAt(ds []time.Duration, p int) float64 {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := min(len(s)-1, len(s)*p/100)
	return float64(s[i]) / float64(time.Millisecond)
}
