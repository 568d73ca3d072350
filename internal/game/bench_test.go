package game

import (
	"context"
	"testing"
)

// BenchmarkGenerateBlock generates whole 2,000,000-ticket blocks with every
// core, discarding the tickets.
func BenchmarkGenerateBlock(b *testing.B) {
	for i := 0; i < b.N; i++ {
		seed := testSeed
		seed[0] = byte(i)
		if _, err := GenerateBlock(context.Background(), Spec{531, 1, seed}, func(*Batch) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)*BlockSize/b.Elapsed().Seconds(), "tickets/s")
}

// sample returns n tickets drawn from the catalogue's ways in turn.
func sample(n int) []Ticket {
	rng := NewRand([32]byte{3, 4})
	out := make([]Ticket, n)
	for i := range out {
		Build(rng, &Catalogue[i%len(Catalogue)], &out[i])
	}
	return out
}

func BenchmarkEvaluate(b *testing.B) {
	ts := sample(4096)
	b.ResetTimer()
	sum := 0
	for i := 0; i < b.N; i++ {
		sum += Prize(&ts[i%len(ts)])
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "tickets/s")
	_ = sum
}

func BenchmarkEncode(b *testing.B) {
	ts := sample(4096)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = Encode(&ts[i%len(ts)])
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "tickets/s")
}

func BenchmarkDecodeValidateEvaluate(b *testing.B) {
	ts := sample(4096)
	codes := make([][EncodedSize]byte, len(ts))
	for i := range ts {
		codes[i] = Encode(&ts[i])
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t, err := Decode(codes[i%len(codes)][:])
		if err != nil || Validate(&t) != nil {
			b.Fatal("bad ticket")
		}
		_ = Prize(&t)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "tickets/s")
}

func BenchmarkParseDoc(b *testing.B) {
	data := []byte(rulesExample)
	for i := 0; i < b.N; i++ {
		if _, err := ParseDoc(data); err != nil {
			b.Fatal(err)
		}
	}
}
