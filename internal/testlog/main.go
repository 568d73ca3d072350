// Command testlog is make test's reader of `go test -json`: it says, as
// the packages end, which passed and how long they took, prints the output
// of every test that failed (and of a package that did not build), keeps
// the whole stream in a file, and fails when anything did. Afterwards,
// `testlog -summary -start UNIX FILE...` prints the wall time since start
// and the ten slowest tests of those streams.
//
//	go test -json ./... | go run ./internal/testlog -o pass.json
//	go run ./internal/testlog -summary -start 1764590000 pass.json race.json
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
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
	os.Exit(follow(os.Stdin, keep, os.Stdout))
}

// follow reads a stream, copies it to keep, reports to w, and returns the
// exit code: 1 when a test or a package failed, or a line was not an event
// (a build error printed as text).
func follow(r io.Reader, keep, w io.Writer) int {
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
				fmt.Fprintf(w, "ok    %-40s %6.1fs\n", e.Package, e.Elapsed)
			}
		case "fail":
			code = 1
			if e.Test != "" {
				fmt.Fprintf(w, "--- FAIL: %s %s (%.2fs)\n%s", e.Package, e.Test, e.Elapsed, strings.Join(output[key], ""))
			} else {
				fmt.Fprintf(w, "FAIL  %-40s %6.1fs\n%s", e.Package, e.Elapsed, strings.Join(output[key], ""))
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
}

// summarize prints the wall time since start and the n slowest top-level
// tests of the streams in files.
func summarize(files []string, start time.Time, n int) int {
	var rs []result
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			fmt.Fprintln(os.Stderr, "testlog:", err)
			return 2
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			var e event
			if json.Unmarshal(sc.Bytes(), &e) == nil && e.Test != "" && !strings.Contains(e.Test, "/") &&
				(e.Action == "pass" || e.Action == "fail") {
				pkg := e.Package
				if strings.Contains(name, "race") {
					pkg += " (race)"
				}
				rs = append(rs, result{pkg, e.Test, e.Elapsed})
			}
		}
		f.Close()
	}
	slices.SortFunc(rs, func(a, b result) int {
		switch {
		case a.elapsed > b.elapsed:
			return -1
		case a.elapsed < b.elapsed:
			return 1
		}
		return strings.Compare(a.pkg+a.test, b.pkg+b.test)
	})
	fmt.Printf("\nmake test: %s wall time\nthe %d slowest tests:\n", time.Since(start).Round(time.Second), min(n, len(rs)))
	for _, r := range rs[:min(n, len(rs))] {
		fmt.Printf("  %6.1fs  %s %s\n", r.elapsed, r.test, r.pkg)
	}
	return 0
}
