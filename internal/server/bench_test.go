package server_test

import (
	"context"
	"io"
	"slices"
	"testing"
	"time"

	"vegas-desk/internal/ledger"
	"vegas-desk/internal/server"
	"vegas-desk/internal/server/servertest"
)

// A counter's lookup through the server over loopback, the whole round
// trip (the request, the desk's row read again, the lookup, the answer):
// its median and 99th percentile (goal: a median of at most 2 ms).
func BenchmarkServerLookup(b *testing.B) { benchLookup(b, server.Config{}) }

// The same with every question's JSON log line written (to io.Discard):
// beside BenchmarkServerLookup in one run, what the log costs.
func BenchmarkServerLookupLogged(b *testing.B) {
	benchLookup(b, server.Config{Log: server.NewLogger(io.Discard, "json")})
}

func benchLookup(b *testing.B, cfg server.Config) {
	o, serials := office(b)
	s := servertest.Start(b, o, cfg)
	c1 := s.Open(b, "C1")
	ctx := context.Background()
	who := ledger.Identity{Operator: "bench"}
	serial := serials.Winners[50][5]
	for range 20 { // the connection made, the statements prepared
		if _, err := c1.Lookup(ctx, serial, who, ledger.NoLimit); err != nil {
			b.Fatal(err)
		}
	}
	times := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		if _, err := c1.Lookup(ctx, serial, who, ledger.NoLimit); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(times[len(times)*99/100].Microseconds())/1000, "p99-ms")
}
