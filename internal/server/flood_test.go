package server_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"vegas-desk/internal/ledger"
	"vegas-desk/internal/server"
	"vegas-desk/internal/server/servertest"
)

// openFiles is the number of this process's open files.
func openFiles(t *testing.T) int {
	t.Helper()
	es, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatalf("this test counts open files in /proc/self/fd (Linux): %v", err)
	}
	return len(es)
}

// The monitor's port flooded (issue 44 item 4a): 600 connections each ask
// GET /healthz and stay open (keep-alive), 100 more send nothing. serve
// holds at most its bound of them (the others are closed at once), closes
// an idle one after its idle timeout and a silent one after its header
// timeout, and the desks' port answers a desk meanwhile, in time.
func TestMonitorFlood(t *testing.T) {
	const (
		maxConns = 16
		idle     = 500 * time.Millisecond
		header   = time.Second
		asking   = 600
		silent   = 100
	)
	ctx := context.Background()
	o, serials := office(t)
	s := servertest.Start(t, o, server.Config{MonitorMaxConns: maxConns, MonitorIdleTimeout: idle, ReadHeaderTimeout: header})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go s.Server.ServeMonitor(ln)
	addr := ln.Addr().String()
	desk := s.DeskFile(t, "C1")
	before := openFiles(t)

	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	refused, nasking := 0, 0
	for i := range asking + silent {
		c, err := net.Dial("tcp", addr)
		if err != nil && strings.Contains(err.Error(), "reset by peer") {
			refused++ // closed over the bound before the dial returned
			continue
		}
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		conns = append(conns, c)
		if i < asking {
			io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: monitor\r\n\r\n")
			nasking++
		}
	}
	// Each asking connection is answered, or closed at once when the
	// bound is reached.
	answered := 0
	readers := make([]*bufio.Reader, len(conns))
	for i, c := range conns[:nasking] {
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		readers[i] = bufio.NewReader(c)
		resp, err := http.ReadResponse(readers[i], nil)
		switch {
		case err == nil:
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			answered++
		case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), strings.Contains(err.Error(), "reset by peer"):
		default:
			t.Fatalf("connection %d: %v (neither answered nor closed in 5 s)", i, err)
		}
	}
	// The client holds its len(conns) files; serve, at most its bound.
	held := openFiles(t) - before - len(conns)
	t.Logf("%d connections: %d answered, %d reset at the dial, serve holds %d files more", len(conns)+refused, answered, refused, held)
	if held > maxConns+4 {
		t.Errorf("serve holds %d files for %d connections to the monitor; its bound is %d", held, len(conns), maxConns)
	}
	if answered == 0 {
		t.Error("no health check answered")
	}
	// The desks' port answers a new desk meanwhile.
	start := time.Now()
	c1, err := ledger.OpenServer(s.URL, desk)
	if err != nil {
		t.Fatalf("a desk during the flood: %v", err)
	}
	defer c1.Close()
	if _, err := c1.Lookup(ctx, serials.Winners[3][0], ledger.Identity{Operator: "ann"}, ledger.NoLimit); err != nil {
		t.Errorf("a desk's lookup during the flood: %v", err)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("a desk waited %v during the flood", took)
	}
	// Idle connections closed after the idle timeout, silent ones after
	// the header timeout: every connection is closed by serve in time.
	deadline := time.Now().Add(header + idle + 2*time.Second)
	for i, c := range conns {
		c.SetReadDeadline(deadline)
		var err error
		if readers[i] != nil {
			_, err = readers[i].ReadByte()
		} else {
			_, err = c.Read(make([]byte, 1))
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("connection %d (asking %v) still open %v after the flood", i, i < nasking, header+idle+2*time.Second)
			break
		}
	}
	// Once the flood is over, the monitor answers again.
	for _, c := range conns {
		c.Close()
	}
	conns = nil
	if st, body := get(t, "http://"+addr+"/healthz"); st != http.StatusOK {
		t.Errorf("the monitor after the flood: %d %s", st, body)
	}
}

// Health checks asked at once share one read of the ledger (issue 44 item
// 4a): 32 clients ask GET /healthz 20 times each, at once; PostgreSQL's
// own log of every statement counts the reads of the journal's head, at
// most half of the 640 checks (one a check before).
func TestMonitorChecksShareARead(t *testing.T) {
	pg, o := ownOffice(t, startWithBlock)
	for _, stmt := range []string{"ALTER SYSTEM SET log_statement = 'all'", "SELECT pg_reload_conf()"} {
		if err := pg.Exec("postgres", stmt); err != nil {
			t.Fatal(err)
		}
	}
	s := servertest.Start(t, o, server.Config{})
	mon := monitor(t, s.Server)
	if st, body := get(t, mon+"/healthz"); st != http.StatusOK {
		t.Fatalf("healthz: %d %s", st, body)
	}
	log := filepath.Join(pg.Dir, "server.log")
	before, err := os.Stat(log)
	if err != nil {
		t.Fatal(err)
	}
	const clients, each = 32, 20
	var wg sync.WaitGroup
	var failed atomic.Int64
	for range clients {
		wg.Go(func() {
			c := &http.Client{Timeout: 10 * time.Second}
			for range each {
				resp, err := c.Get(mon + "/healthz")
				if err != nil {
					failed.Add(1)
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					failed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if n := failed.Load(); n > 0 {
		t.Errorf("%d of %d health checks failed", n, clients*each)
	}
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	reads := strings.Count(string(data[before.Size():]), "SELECT hash FROM journal ORDER BY id DESC LIMIT 1")
	t.Logf("%d health checks at once: %d reads of the ledger", clients*each, reads)
	if reads > clients*each/2 {
		t.Errorf("%d health checks at once read the ledger %d times", clients*each, reads)
	}
}
