package counter

import (
	"context"
	"testing"
	"time"
	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/core"
)

// BenchmarkSealBlock seals a whole block for a counter ledger (2,000,000
// serial records, 524,722 contents records: about 104 million SHA-256
// evaluations of one 64-byte block each), beside its reference measured in
// the same run: generating the same block in memory (game.GenerateBlock).
// Target: at most 10 s a block on 2 cores.
func BenchmarkSealBlock(b *testing.B) {
	ctx := context.Background()
	spec := game.Spec{Game: 531, Block: 1, Seed: game.Seed{4, 2}}
	codes := make([]byte, 0, game.BlockSize*game.EncodedSize)
	prizes := make([]byte, 0, game.BlockSize)
	var gen, seal time.Duration
	var res game.Result
	for b.Loop() {
		codes, prizes = codes[:0], prizes[:0]
		t0 := time.Now()
		var err error
		res, err = game.GenerateBlock(ctx, spec, func(bt *game.Batch) error {
			for i := range bt.Tickets {
				codes = append(codes, bt.Tickets[i].Code[:]...)
				prizes = append(prizes, core.PrizeByte(bt.Tickets[i].Prize))
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		blk := core.Block{ID: 1, Game: 531, Number: 1, Tickets: game.BlockSize}
		if _, err := sealBlock(ctx, blk, &res.Key, codes, prizes, nil); err != nil {
			b.Fatal(err)
		}
		gen, seal = gen+t1.Sub(t0), seal+time.Since(t1)
	}
	n := float64(b.N)
	b.ReportMetric(seal.Seconds()/n, "s/seal")
	b.ReportMetric(gen.Seconds()/n, "s/generate(ref)")
	b.ReportMetric(seal.Seconds()/gen.Seconds(), "seal/generate")
}
