package benchref

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"io"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vegas-desk/internal/pgtest"
)

// The reference server is a real one: a winner's claim pays its prize
// once, the second claim and an unknown serial are refused (409), a body
// that is not the question is a 400, a client without a certificate of
// the authority is refused at the handshake; on a SQLite file and on
// PostgreSQL, and its load client counts what it was answered.
func TestBareServer(t *testing.T) {
	srv, err := pgtest.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	rows := Tickets(func(emit func(Ticket) error) error {
		for _, r := range []Ticket{{"531-001-0000001-11", 50}, {"531-001-0000002-22", 0}, {"531-001-0000003-33", 1000}} {
			if err := emit(r); err != nil {
				return err
			}
		}
		return nil
	})
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "tickets.db")
	if err := CreateFile(ctx, file, rows); err != nil {
		t.Fatal(err)
	}
	pgURL := srv.URL(pgtest.Owner, srv.NewDatabase(t))
	if err := CreatePostgres(ctx, pgURL, rows); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, db string }{{"SQLite", file}, {"PostgreSQL", pgURL}} {
		t.Run(c.name, func(t *testing.T) {
			if n, w, err := Count(ctx, FileTickets(ctx, file)); err != nil || n != 3 || w != 2 {
				t.Fatalf("Count: %d tickets, %d winners, %v; want 3, 2", n, w, err)
			}
			dir := t.TempDir()
			p, err := MakePKI(dir, 2)
			if err != nil {
				t.Fatal(err)
			}
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			sctx, stop := context.WithCancel(ctx)
			done := make(chan error, 1)
			go func() { done <- Serve(sctx, ln, dir, c.db) }()
			defer func() {
				stop()
				if err := <-done; err != nil {
					t.Error(err)
				}
			}()
			url := "https://" + ln.Addr().String()
			client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: p.Roots, Certificates: p.Counters[:1]}}}
			ask := func(body string) (int, string) {
				t.Helper()
				resp, err := client.Post(url+"/claim", "application/json", strings.NewReader(body))
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				data, _ := io.ReadAll(resp.Body)
				return resp.StatusCode, string(data)
			}
			for _, q := range []struct {
				body, want string
				code       int
			}{
				{`{"serial":"531-001-0000003-33"}`, `{"prize":1000}`, 200},
				{`{"serial":"531-001-0000003-33"}`, `already paid`, 409},
				{`{"serial":"531-001-0000009-99"}`, `unknown serial`, 409},
				{`{"serial":"531-001-0000002-22"}`, `{"prize":0}`, 200},
				{`{"serial":`, `give {\"serial\"`, 400},
				{`{}`, `give {\"serial\"`, 400},
			} {
				if code, got := ask(q.body); code != q.code || !strings.Contains(got, q.want) {
					t.Errorf("claim %s: %d %s; want %d %s", q.body, code, got, q.code, q.want)
				}
			}
			anon := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: p.Roots}}}
			if resp, err := anon.Post(url+"/claim", "application/json", strings.NewReader(`{"serial":"531-001-0000001-11"}`)); err == nil {
				resp.Body.Close()
				t.Fatalf("a client without a certificate: %s; want refused at the handshake", resp.Status)
			}
			other, err := MakePKI(t.TempDir(), 1) // another authority's counter
			if err != nil {
				t.Fatal(err)
			}
			stranger := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: p.Roots, Certificates: other.Counters}}}
			if resp, err := stranger.Post(url+"/claim", "application/json", bytes.NewReader([]byte(`{"serial":"531-001-0000001-11"}`))); err == nil {
				resp.Body.Close()
				t.Fatalf("another authority's client: %s; want refused at the handshake", resp.Status)
			}
			// The load: one ticket left to pay, then refusals, each counted.
			r, err := Load(ctx, url, p, func(rng *mrand.Rand) string { return "531-001-000000" + string('1'+rune(rng.IntN(3))) + "-00" }, 300*time.Millisecond)
			if err != nil || r.Answers() == 0 || r.Paid != 0 {
				t.Fatalf("load of unknown serials: %d answers, %d paid, %v", r.Answers(), r.Paid, err)
			}
			r, err = Load(ctx, url, p, func(*mrand.Rand) string { return "531-001-0000001-11" }, 300*time.Millisecond)
			if err != nil || r.Answers() < 2 || r.Paid != 1 {
				t.Fatalf("load of one winner: %d answers, %d paid (want 1), %v", r.Answers(), r.Paid, err)
			}
			// An answer that is neither paid nor refused fails the load.
			if _, err := Load(ctx, url, p, func(*mrand.Rand) string { return "" }, 300*time.Millisecond); err == nil || !strings.Contains(err.Error(), "400") {
				t.Fatalf("load of empty serials: %v; want the server's 400", err)
			}
		})
	}
	if _, err := Open(ctx, filepath.Join(t.TempDir(), "missing.db")); err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Open of a missing file: %v", err)
	}
}
