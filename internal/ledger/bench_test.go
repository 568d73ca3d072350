package ledger

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"vegas-desk/internal/game"
)

// BenchmarkGenerate loads whole blocks (generate, encode, insert, finder,
// commit, checkpoint) into a fresh ledger.
func BenchmarkGenerate(b *testing.B) {
	path := filepath.Join(b.TempDir(), "l.db")
	l, err := Open(path)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := l.Generate(context.Background(), 531, game.Seed{byte(i), 1}, GenerateOptions{Activate: true}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	l.Close()
	st, _ := os.Stat(path)
	b.ReportMetric(float64(b.N*game.BlockSize)/b.Elapsed().Seconds(), "tickets/s")
	b.ReportMetric(float64(st.Size())/float64(b.N*game.BlockSize), "bytes/ticket")
}

// fiveBlocks returns a ledger of 5 blocks, made once per run under dir.
func fiveBlocks(b *testing.B) *Ledger {
	path := os.Getenv("VEGAS_BENCH_LEDGER5")
	if path == "" {
		// Named after the layout: a file of the per-ticket layout (same
		// schema version, never released) would not read.
		path = filepath.Join(os.TempDir(), "vegas-bench-5-v2.db")
	}
	l, err := Open(path)
	if err != nil {
		b.Fatal(err)
	}
	bs, _ := l.Blocks(context.Background())
	for i := len(bs); i < 5; i++ {
		if _, err := l.Generate(context.Background(), 531, game.Seed{byte(i), 5}, GenerateOptions{Activate: true}); err != nil {
			b.Fatal(err)
		}
	}
	return l
}

func BenchmarkLookup(b *testing.B) {
	l := fiveBlocks(b)
	defer l.Close()
	blk, _ := l.Block(context.Background(), 531, 3)
	serial := serialOf(blk, 1_234_567)
	for b.Loop() {
		if _, err := l.Lookup(context.Background(), serial, Identity{}, NoLimit); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFindByContents(b *testing.B) {
	l := fiveBlocks(b)
	defer l.Close()
	blk, _ := l.Block(context.Background(), 531, 4)
	var tickets []game.Ticket
	for _, tier := range game.PrizeTable {
		for _, pos := range ticketsWith(b, l, blk, tier.Prize, 2) {
			t, _ := l.Lookup(context.Background(), serialOf(blk, pos), Identity{}, NoLimit)
			tickets = append(tickets, t.Ticket)
		}
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := l.FindByContents(context.Background(), &tickets[i%len(tickets)], Identity{}, NoLimit); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()*1000/float64(b.N), "ms/op")
}

func BenchmarkVerify(b *testing.B) {
	l, err := OpenReadOnly(fixture)
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	for b.Loop() {
		start := time.Now()
		rep, err := l.Verify(context.Background(), 531, 1, nil)
		if err != nil || !rep.OK() {
			b.Fatal(rep, err)
		}
		b.ReportMetric(time.Since(start).Seconds(), "s/block")
	}
}

// BenchmarkCounterLookup looks a serial up in a sealed counter ledger of
// one block (the row of its index, a binary search, the record opened).
func BenchmarkCounterLookup(b *testing.B) {
	_, counters := counterCopies(b)
	l, err := OpenReadOnly(counters[0])
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	bo, _ := OpenReadOnly(fixture)
	blk, _ := bo.Block(context.Background(), 531, 1)
	bo.Close()
	serial := serialOf(blk, 1_234_567)
	for b.Loop() {
		if _, err := l.Lookup(context.Background(), serial, Identity{Desk: "C1", Operator: "bench"}, NoLimit); err != nil {
			b.Fatal(err)
		}
	}
	st, _ := os.Stat(counters[0])
	b.ReportMetric(float64(st.Size())/game.BlockSize, "file-bytes/ticket")
}

// BenchmarkCounterFindByContents finds a winner by its contents in a
// sealed counter ledger (ContentsIterations SHA-256 a block).
func BenchmarkCounterFindByContents(b *testing.B) {
	_, counters := counterCopies(b)
	l, err := OpenReadOnly(counters[0])
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	bo, _ := OpenReadOnly(fixture)
	blk, _ := bo.Block(context.Background(), 531, 1)
	t, err := bo.Lookup(context.Background(), serialOf(blk, ticketsWith(b, bo, blk, 15, 1)[0]), Identity{}, NoLimit)
	bo.Close()
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := l.FindByContents(context.Background(), &t.Ticket, Identity{Desk: "C1", Operator: "bench"}, NoLimit); err != nil {
			b.Fatal(err)
		}
	}
}
