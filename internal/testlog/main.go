// Command testlog is make test's reader of `go test -json`: it says, as
// the packages end, which passed and how long they took, prints the output
// of every test that failed (and of a package that did not build), keeps
// the whole stream in a file, and fails when anything did. Afterwards,
// `testlog -summary -start UNIX FILE...` prints the wall time since start,
// the CPU each package cost and the ten slowest tests of those streams.
// The CPU is measured when go test runs each test binary through testlog
// (-exec: the binary, every process it starts and the servers it leaves
// to init, per package and per top-level test).
//
//	go test -json -exec "$PWD/testlog -exec" ./... | testlog -o pass.json
//	testlog -summary -start 1764590000 pass.json race.json
package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// event is one line of go test -json (test2json).
type event struct {
	Time    time.Time
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "-exec" {
		os.Exit(runTest(os.Args[2:]))
	}
	out := flag.String("o", "", "keep the stream in this file")
	summary := flag.Bool("summary", false, "print the wall time since -start and the slowest tests of the files given")
	start := flag.Int64("start", 0, "when the run started (Unix seconds), for -summary")
	slowest := flag.Int("n", 10, "how many of the slowest tests -summary prints")
	flag.Parse()
	if *summary {
		os.Exit(summarize(flag.Args(), time.Unix(*start, 0), *slowest))
	}
	var keep io.Writer = io.Discard
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			fmt.Fprintln(os.Stderr, "testlog:", err)
			os.Exit(2)
		}
		defer f.Close()
		keep = f
	}
	label := ""
	if *out != "" {
		label = fileLabel(*out)
	}
	os.Exit(follow(os.Stdin, keep, os.Stdout, label))
}

// follow reads a stream, copies it to keep, reports to w, and returns the
// exit code: 1 when a test or a package failed, or a line was not an event
// (a build error printed as text). label follows each package's name
// (make test's runs print side by side: fileLabel of the file kept).
func follow(r io.Reader, keep, w io.Writer, label string) int {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	output := map[string][]string{} // by package and test, until it ends
	code := 0
	for sc.Scan() {
		line := sc.Bytes()
		keep.Write(append(line, '\n'))
		var e event
		if json.Unmarshal(line, &e) != nil || e.Action == "" {
			fmt.Fprintln(w, string(line)) // the go command's own words
			code = 1
			continue
		}
		key := e.Package + " " + e.Test
		switch e.Action {
		case "output", "build-output":
			output[key] = append(output[key], e.Output)
		case "pass", "skip":
			delete(output, key)
			if e.Test == "" && e.Action == "pass" {
				fmt.Fprintf(w, "ok    %-40s %6.1fs\n", e.Package+label, e.Elapsed)
			}
		case "fail":
			code = 1
			if e.Test != "" {
				fmt.Fprintf(w, "--- FAIL: %s %s (%.2fs)\n%s", e.Package+label, e.Test, e.Elapsed, strings.Join(output[key], ""))
			} else {
				fmt.Fprintf(w, "FAIL  %-40s %6.1fs\n%s", e.Package+label, e.Elapsed, strings.Join(output[key], ""))
			}
			delete(output, key)
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(w, "testlog:", err)
		return 1
	}
	return code
}

// result is one test's end.
type result struct {
	pkg, test string
	elapsed   float64
	cpu       float64 // seconds, -1 when not measured
}

// pkgResult is one package's end.
type pkgResult struct {
	pkg          string
	elapsed, cpu float64
}

// fileLabel is what follows a package's name in the summary of the stream
// in file name: nothing for pass.json (or any file named pass…), "(race)"
// for a file whose name says race, else "(name)" (make test runs a package
// in two processes, cmd.json and cmd-half.json: each its own line).
func fileLabel(name string) string {
	base := strings.TrimSuffix(filepath.Base(name), ".json")
	switch {
	case strings.Contains(base, "race"):
		return " (race)"
	case strings.HasPrefix(base, "pass"):
		return ""
	}
	return " (" + base + ")"
}

// summarize prints the wall time since start, each package's wall time and
// CPU (when measured), and the n slowest top-level tests of the streams in
// files, with their CPU.
func summarize(files []string, start time.Time, n int) int {
	var rs []result
	var ps []pkgResult
	cpu := map[string]float64{} // "pkg test" → seconds; "pkg " the package's
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			fmt.Fprintln(os.Stderr, "testlog:", err)
			return 2
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		label := fileLabel(name)
		for sc.Scan() {
			var e event
			if json.Unmarshal(sc.Bytes(), &e) != nil {
				continue
			}
			pkg := e.Package + label
			switch {
			case e.Action == "output" && strings.HasPrefix(e.Output, cpuMark):
				f := strings.Fields(strings.TrimPrefix(e.Output, cpuMark))
				if len(f) == 1 {
					f = []string{"", f[0]}
				}
				if len(f) == 2 {
					if s, err := strconv.ParseFloat(f[1], 64); err == nil {
						cpu[pkg+" "+f[0]] = s
					}
				}
			case e.Action != "pass" && e.Action != "fail":
			case e.Test == "":
				ps = append(ps, pkgResult{pkg, e.Elapsed, -1})
			case !strings.Contains(e.Test, "/"):
				rs = append(rs, result{pkg, e.Test, e.Elapsed, -1})
			}
		}
		f.Close()
	}
	for i := range rs {
		if s, ok := cpu[rs[i].pkg+" "+rs[i].test]; ok {
			rs[i].cpu = s
		}
	}
	var wall, total float64
	for i := range ps {
		if s, ok := cpu[ps[i].pkg+" "]; ok {
			ps[i].cpu = s
			total += s
		}
		wall += ps[i].elapsed
	}
	slices.SortFunc(ps, func(a, b pkgResult) int { return cmp.Compare(b.cpu+b.elapsed, a.cpu+a.elapsed) })
	slices.SortFunc(rs, func(a, b result) int {
		switch {
		case a.elapsed > b.elapsed:
			return -1
		case a.elapsed < b.elapsed:
			return 1
		}
		return strings.Compare(a.pkg+a.test, b.pkg+b.test)
	})
	fmt.Printf("\nmake test: %s wall time\n", time.Since(start).Round(time.Second))
	if total > 0 {
		fmt.Printf("the packages' tests: %.1fs of CPU (their processes and servers included) in %.1fs of their own wall time\n", total, wall)
		for _, p := range ps[:min(n, len(ps))] {
			if p.cpu >= 0 {
				fmt.Printf("  %6.1fs  %6.1fs CPU  %s\n", p.elapsed, p.cpu, p.pkg)
			} else {
				fmt.Printf("  %6.1fs  %s\n", p.elapsed, p.pkg)
			}
		}
	}
	fmt.Printf("the %d slowest tests:\n", min(n, len(rs)))
	for _, r := range rs[:min(n, len(rs))] {
		if r.cpu >= 0 {
			fmt.Printf("  %6.1fs  %6.1fs CPU  %s %s\n", r.elapsed, r.cpu, r.test, r.pkg)
		} else {
			fmt.Printf("  %6.1fs  %s %s\n", r.elapsed, r.test, r.pkg)
		}
	}
	return 0
}
