package backoffice

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"runtime"
	"sync"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/core"
)

// Report is a block's report: for each prize of the table, highest first,
// the table's count, the tickets generated, the active claims (count and
// sum) and the outstanding tickets with their liability.
func (o *Store) Report(ctx context.Context, gameCode, number int) (core.Report, error) {
	tx, err := o.E.Read(ctx)
	if err != nil {
		return core.Report{}, err
	}
	defer tx.Rollback()
	b, err := GetBlock(ctx, tx, gameCode, number)
	if err != nil {
		return core.Report{}, fmt.Errorf("report: %w", err)
	}
	var counts [256]int // tickets by prize byte
	if err := ScanPrizes(ctx, tx, b, func(_ int, prizes []byte) bool {
		for _, pb := range prizes {
			counts[pb]++
		}
		return true
	}); err != nil {
		return core.Report{}, fmt.Errorf("report: %w", err)
	}
	generated := map[int]int{}
	for pb, n := range counts {
		if p, ok := core.PrizeOf(byte(pb)); ok && p > 0 {
			generated[p] = n
		}
	}
	type agg struct{ N, Sum int }
	claimed := map[int]agg{}
	rows, err := core.Query(ctx, tx, `SELECT c.amount, count(*), sum(c.amount) FROM `+o.E.Paid()+` p JOIN journal c ON c.id = p.claim
		WHERE c.game = ? AND c.block = ? GROUP BY c.amount`, gameCode, number)
	if err != nil {
		return core.Report{}, fmt.Errorf("report: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var p, n, s int
		if err := rows.Scan(&p, &n, &s); err != nil {
			return core.Report{}, fmt.Errorf("report: %w", err)
		}
		claimed[p] = agg{n, s}
	}
	if err := rows.Err(); err != nil {
		return core.Report{}, fmt.Errorf("report: %w", err)
	}
	r := core.Report{Block: b}
	for _, tier := range game.PrizeTable {
		c := claimed[tier.Prize]
		line := core.TierLine{Prize: tier.Prize, Table: tier.Count, Generated: generated[tier.Prize],
			Claimed: c.N, ClaimedSum: c.Sum}
		line.Outstanding = line.Generated - line.Claimed
		line.Liability = line.Outstanding * line.Prize
		r.Tiers = append(r.Tiers, line)
		r.Total.Table += line.Table
		r.Total.Generated += line.Generated
		r.Total.Claimed += line.Claimed
		r.Total.ClaimedSum += line.ClaimedSum
		r.Total.Outstanding += line.Outstanding
		r.Total.Liability += line.Liability
		r.Total.Prize += line.Prize * line.Table
	}
	return r, nil
}

// Export writes block number of game gameCode as JSON Lines in block
// order: one game.Doc per ticket with Serial, Prize, Game, Block, Pack and
// Position set. It streams; progress may be nil. The lines of exportPacks
// packs at a time are made on every core and written in order.
func (o *Store) Export(ctx context.Context, gameCode, number int, w io.Writer, progress func(done, total int)) error {
	tx, err := o.E.Read(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	b, err := GetBlock(ctx, tx, gameCode, number)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	rows, err := core.Query(ctx, tx, "SELECT id, prizes, codes FROM packs WHERE id >= ? AND id < ? ORDER BY id",
		b.FirstPack, b.FirstPack+int64(b.Tickets/game.PackSize))
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	defer rows.Close()
	// Each chunk of packs read goes to a worker, and its lines to the
	// writer, in the order read (done: the chunk's lines, or its error).
	type chunk struct {
		first         int // its first ticket's position
		prizes, codes []byte
		done          chan error
		out           bytes.Buffer
	}
	ctx, stop := context.WithCancel(ctx) // a failed write stops the reading
	defer stop()
	work := make(chan *chunk)
	order := make(chan *chunk, 2*runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for c := range work {
				c.done <- exportLines(&c.out, b, c.first, c.prizes, c.codes)
			}
		})
	}
	readErr := make(chan error, 1)
	go func() {
		defer func() { close(work); close(order) }()
		readErr <- func() error {
			var id int64
			var prizes, codes sql.RawBytes
			next := 0
			for {
				c := &chunk{first: next, done: make(chan error, 1)}
				for len(c.prizes) < exportPacks*game.PackSize && rows.Next() {
					if err := rows.Scan(&id, &prizes, &codes); err != nil {
						return err
					}
					if int(id-b.FirstPack)*game.PackSize != next || len(prizes) != game.PackSize || len(codes) != core.PackCodesSize {
						return fmt.Errorf("block %s pack %d: missing or damaged (run verify)", b.Name(), next/game.PackSize)
					}
					c.prizes, c.codes = append(c.prizes, prizes...), append(c.codes, codes...)
					next += game.PackSize
				}
				if len(c.prizes) == 0 {
					return rows.Err()
				}
				select {
				case order <- c:
				case <-ctx.Done():
					return ctx.Err()
				}
				work <- c
			}
		}()
	}()
	defer wg.Wait()
	done := 0
	var werr error
	for c := range order {
		err := <-c.done
		if werr == nil && err == nil {
			_, err = w.Write(c.out.Bytes())
		}
		if werr == nil && err != nil {
			werr = err // what was read is drained, not written
			stop()
		}
		done += len(c.prizes)
		if werr == nil && progress != nil {
			progress(done, b.Tickets)
		}
	}
	if rerr := <-readErr; werr == nil && rerr != nil {
		werr = rerr
	}
	if err := werr; err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if done != b.Tickets {
		return fmt.Errorf("export: block %s has %d tickets, want %d (run verify)", b.Name(), done, b.Tickets)
	}
	return nil
}

// exportPacks is the number of packs of one chunk of an export.
const exportPacks = 50

// exportLines writes the JSON lines of the tickets of block b from position
// first, of these prize bytes and codes, to out.
func exportLines(out *bytes.Buffer, b core.Block, first int, prizes, codes []byte) error {
	var line []byte
	for i := range prizes {
		pos, pack := first+i, (first+i)/game.PackSize
		t, err := game.Decode(codes[i*game.EncodedSize : (i+1)*game.EncodedSize])
		if err != nil {
			return fmt.Errorf("block %s ticket %d: %w (run verify)", b.Name(), pos, err)
		}
		prize, ok := core.PrizeOf(prizes[i])
		if !ok {
			return fmt.Errorf("block %s ticket %d: prize byte %d is not a tier (run verify)", b.Name(), pos, prizes[i])
		}
		d := game.NewDoc(&t)
		d.Serial = game.Serial{Game: b.Game, Block: b.Number, Position: pos, Secret: b.Key.Secret(pos)}.String()
		d.Game, d.Block, d.Pack, d.Position, d.Prize = b.Game, b.Number, &pack, &pos, &prize
		line = append(d.AppendJSON(line[:0]), '\n')
		out.Write(line)
	}
	return nil
}
