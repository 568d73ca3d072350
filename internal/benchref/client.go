package benchref

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"
)

// Result is what a load measured.
type Result struct {
	Elapsed time.Duration
	Latency []time.Duration // every answer's
	Paid    int
}

// Answers is how many answers came.
func (r *Result) Answers() int { return len(r.Latency) }

// PerSecond is the answers a second.
func (r *Result) PerSecond() float64 { return float64(len(r.Latency)) / r.Elapsed.Seconds() }

// Ms is the p-th percentile of the latency in milliseconds (100: the
// largest).
func (r *Result) Ms(p int) float64 {
	if len(r.Latency) == 0 {
		return 0
	}
	s := slices.Clone(r.Latency)
	slices.Sort(s)
	return float64(s[min(len(s)-1, len(s)*p/100)]) / float64(time.Millisecond)
}

// Load is the bare server's load client, of the same shape as vegas-desk
// load --server: one counter a certificate of p, each its own HTTP client
// (keep-alive: one TLS connection), claiming serial(rng) one after the
// other for d. An answer that is neither 200 nor 409 fails the load.
func Load(ctx context.Context, url string, p *PKI, serial func(*mrand.Rand) string, d time.Duration) (*Result, error) {
	r := &Result{}
	var mu sync.Mutex
	var first error
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	clients := make([]*http.Client, len(p.Counters))
	for i, cert := range p.Counters {
		clients[i] = &http.Client{Timeout: 15 * time.Second, Transport: &http.Transport{
			TLSClientConfig:     &tls.Config{MinVersion: tls.VersionTLS13, RootCAs: p.Roots, Certificates: []tls.Certificate{cert}},
			DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
			MaxIdleConnsPerHost: 2, IdleConnTimeout: 50 * time.Second,
		}}
		defer clients[i].CloseIdleConnections()
	}
	start := time.Now()
	var wg sync.WaitGroup
	for _, c := range clients {
		wg.Go(func() {
			rng := mrand.New(mrand.NewPCG(mrand.Uint64(), mrand.Uint64()))
			for ctx.Err() == nil {
				body, _ := json.Marshal(struct {
					Serial string `json:"serial"`
				}{serial(rng)})
				t0 := time.Now()
				paid, err := claim(context.WithoutCancel(ctx), c, url, body)
				took := time.Since(t0)
				mu.Lock()
				if err != nil {
					if first == nil {
						first = err
					}
					cancel()
				} else {
					r.Latency = append(r.Latency, took)
					if paid {
						r.Paid++
					}
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	r.Elapsed = time.Since(start)
	return r, first
}

// claim asks once: paid (200), or refused (409).
func claim(ctx context.Context, c *http.Client, url string, body []byte) (bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+"/claim", bytes.NewReader(body))
	if err != nil {
		return false, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	if err != nil {
		return false, err
	}
	switch resp.StatusCode {
	case http.StatusOK:
		var a struct{ Prize *int }
		if err := json.Unmarshal(data, &a); err != nil || a.Prize == nil {
			return false, fmt.Errorf("benchref: answer %s without a prize: %q", resp.Status, data)
		}
		return true, nil
	case http.StatusConflict:
		return false, nil
	}
	return false, fmt.Errorf("benchref: the server answered %s: %s", resp.Status, data)
}
