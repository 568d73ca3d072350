// Command claimfiles counts the files of internal/ one claim enters (issue
// 37), by coverage: after a warm-up claim, the files whose counters rose
// for one more claim, in this process. It must be built with coverage
// (make claim-files does):
//
//	go build -cover -covermode=atomic -coverpkg=./cmd/...,./internal/... \
//	    -o bin/claimfiles ./internal/server/claimfiles && bin/claimfiles
//
// Three cases: served on PostgreSQL (the claim asked by hand with
// net/http, its TLS made before the warm-up, so that what rises is the
// server's alone), a SQLite file and a sealed counter ledger (the ledger's
// Claim, which the app and the command line ask). Goals: ≤ 15, ≤ 8, ≤ 10;
// -strict exits 1 above them.
//
// A test binary (go test -cover) cannot do this: it computes its coverage
// meta-data only at exit, so runtime/coverage's WriteMetaDir and
// WriteCounters refuse until then. The fixtures and the test server take
// a testing.TB: testing.Benchmark gives one to a program.
package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/coverage"
	"slices"
	"strconv"
	"strings"
	"testing"

	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/ledgertest"
	"vegas-desk/internal/ledger/protocol"
	"vegas-desk/internal/pgtest"
	"vegas-desk/internal/server"
	"vegas-desk/internal/server/servertest"
)

func main() {
	strict := flag.Bool("strict", false, "exit 1 when a case enters more files than its goal")
	flag.BoolVar(&verbose, "v", false, "print the lines of each file the claim entered")
	only := flag.String("case", "", "count this case only (served-postgres, sqlite-file, sealed-counter)")
	testing.Init()
	flag.Parse()
	if err := coverage.WriteCountersDir(os.TempDir()); err != nil {
		fmt.Fprintln(os.Stderr, "claimfiles: build it with -cover -covermode=atomic -coverpkg=./cmd/...,./internal/... (make claim-files):", err)
		os.Exit(2)
	}
	failed := false
	for _, c := range cases {
		if *only != "" && c.name != *only {
			continue
		}
		var files []string
		var err error
		res := testing.Benchmark(func(b *testing.B) {
			if files != nil || err != nil {
				return // testing.Benchmark asks again when the first run was short
			}
			files, err = count(b, c.ask)
		})
		_ = res
		if err == nil && files == nil {
			err = fmt.Errorf("the case failed before it counted")
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "claimfiles: %s: %v\n", c.name, err)
			os.Exit(1)
		}
		mark := "ok"
		if len(files) > c.goal {
			mark, failed = "ABOVE GOAL", failed || *strict
		}
		fmt.Printf("%s: %d files of internal/ (goal ≤ %d, %s)\n\t%s\n", c.name, len(files), c.goal, mark, strings.Join(files, "\n\t"))
	}
	if failed {
		os.Exit(1)
	}
}

var (
	winners []string
	verbose bool
)

// A case prepares a ledger and returns its warm-up claim and the claim
// counted.
var cases = []struct {
	name string
	goal int
	ask  func(b *testing.B) (warm, once func() error)
}{
	{"served-postgres", 15, func(b *testing.B) (func() error, func() error) {
		pg, err := pgtest.Start()
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(pg.Stop)
		tmpl, err := ledgertest.Postgres(pg, ledgertest.Block)
		if err != nil {
			b.Fatal(err)
		}
		l, err := ledger.Open(pg.URL(pgtest.Owner, pg.NewDatabaseFrom(b, tmpl)))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { l.Close() })
		if _, err := l.AddDesk(context.Background(), "D1", 1000, ledger.Identity{Desk: "BO", Operator: "eve"}); err != nil {
			b.Fatal(err)
		}
		s := servertest.Start(b, l, server.Config{})
		post := rawClaimer(b, s, "D1")
		return func() error { return post(winners[0]) }, func() error { return post(winners[1]) }
	}},
	{"sqlite-file", 8, func(b *testing.B) (func() error, func() error) {
		return claims(b, ledgertest.Copy(b, ledgertest.Block), "BO", 2)
	}},
	{"sealed-counter", 10, func(b *testing.B) (func() error, func() error) {
		return claims(b, ledgertest.Copy(b, ledgertest.Sealed, "C1.db"), "C1", 4)
	}},
}

// claims opens the ledger at path, and claims winners i and i+1 at desk.
func claims(b *testing.B, path, desk string, i int) (func() error, func() error) {
	l, err := ledger.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { l.Close() })
	claim := func(serial string) func() error {
		return func() error {
			req := ledger.ClaimRequest{Serial: serial, Method: ledger.MethodSerial, Who: ledger.Identity{Desk: desk, Operator: "op"}, Limit: ledger.NoLimit}
			_, err := l.Claim(context.Background(), req)
			return err
		}
	}
	return claim(winners[i]), claim(winners[i+1])
}

// count runs the case and lists the files whose counters the claim
// counted raised.
func count(b *testing.B, ask func(b *testing.B) (warm, once func() error)) ([]string, error) {
	winners = ledgertest.SerialsOf(b, ledgertest.Block).Winners[3]
	warm, once := ask(b)
	if err := warm(); err != nil {
		return nil, fmt.Errorf("warm-up claim: %w", err)
	}
	before, err := counters(b.TempDir())
	if err != nil {
		return nil, err
	}
	if err := once(); err != nil {
		return nil, fmt.Errorf("claim: %w", err)
	}
	after, err := counters(b.TempDir())
	if err != nil {
		return nil, err
	}
	files := rose(before, after)
	if len(files) == 0 {
		return nil, fmt.Errorf("no counter rose: is the build covered?")
	}
	return files, nil
}

// rawClaimer posts a claim of desk's to s by hand: the TLS client made
// from a desk file here, the body written with encoding/json.
func rawClaimer(b *testing.B, s *servertest.Served, desk string) func(serial string) error {
	d, err := protocol.ReadDeskFile(s.DeskFile(b, desk))
	if err != nil {
		b.Fatal(err)
	}
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{MinVersion: tls.VersionTLS13, RootCAs: d.Roots, Certificates: []tls.Certificate{d.Cert}}}}
	b.Cleanup(c.CloseIdleConnections)
	return func(serial string) error {
		body, _ := json.Marshal(map[string]string{"serial": serial, "operator": "op", "method": "serial"})
		resp, err := c.Post(s.URL+protocol.Claim, "application/json", bytes.NewReader(body))
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		answer, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("claim %s: %s %s", serial, resp.Status, answer)
		}
		return nil
	}
}

// counters is the process's coverage counters now, by block
// ("file:lines statements"), read back with go tool covdata.
func counters(dir string) (map[string]int64, error) {
	if err := coverage.WriteMetaDir(dir); err != nil {
		return nil, err
	}
	if err := coverage.WriteCountersDir(dir); err != nil {
		return nil, err
	}
	out := filepath.Join(dir, "profile.txt")
	if b, err := exec.Command("go", "tool", "covdata", "textfmt", "-i="+dir, "-o="+out).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go tool covdata: %v\n%s", err, b)
	}
	f, err := os.Open(out)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m := map[string]int64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		i := strings.LastIndexByte(line, ' ')
		if i < 0 || strings.HasPrefix(line, "mode:") {
			continue
		}
		n, err := strconv.ParseInt(line[i+1:], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("covdata line %q: %v", line, err)
		}
		m[line[:i]] += n
	}
	return m, sc.Err()
}

// rose lists the files of internal/ with a block counted more in after.
func rose(before, after map[string]int64) []string {
	seen := map[string][]string{}
	for k, n := range after {
		if n > before[k] {
			i := strings.LastIndexByte(k, ':')
			file := k[:i]
			if strings.HasPrefix(file, "vegas-desk/internal/") && !strings.HasSuffix(file, "/claimfiles/main.go") {
				f := strings.TrimPrefix(file, "vegas-desk/")
				line, _, _ := strings.Cut(k[i+1:], ".")
				seen[f] = append(seen[f], line)
			}
		}
	}
	var files []string
	for f, lines := range seen {
		if verbose {
			slices.SortFunc(lines, func(a, b string) int { x, _ := strconv.Atoi(a); y, _ := strconv.Atoi(b); return x - y })
			f += " " + strings.Join(slices.Compact(lines), ",")
		}
		files = append(files, f)
	}
	slices.Sort(files)
	return files
}
