package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const stream = `{"Action":"start","Package":"p"}
{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Test":"TestA","Output":"fine\n"}
{"Action":"pass","Package":"p","Test":"TestA","Elapsed":2.5}
{"Action":"run","Package":"p","Test":"TestB"}
{"Action":"output","Package":"p","Test":"TestB","Output":"    b_test.go:9: got 1, want 2\n"}
{"Action":"fail","Package":"p","Test":"TestB","Elapsed":0.5}
{"Action":"fail","Package":"p","Elapsed":3.1}
{"Action":"pass","Package":"q","Elapsed":1.0}
`

// A failing test's output is shown, a passing one's is not; the stream is
// kept whole; the run fails.
func TestFollow(t *testing.T) {
	var keep, out bytes.Buffer
	if code := follow(strings.NewReader(stream), &keep, &out, " (race)"); code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if keep.String() != stream {
		t.Errorf("kept %q", keep.String())
	}
	got := out.String()
	for _, want := range []string{"--- FAIL: p (race) TestB", "got 1, want 2", "FAIL  p (race)", "ok    q (race)"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "fine") {
		t.Errorf("a passing test's output is shown:\n%s", got)
	}
	if code := follow(strings.NewReader("# p\n./x.go:1: syntax error\n"), &keep, &out, ""); code != 1 {
		t.Error("a build error's text passes")
	}
}

func TestSummary(t *testing.T) {
	f := filepath.Join(t.TempDir(), "race.json")
	os.WriteFile(f, []byte(stream), 0o600)
	old := os.Stdout
	r, w, _ := os.Pipe()
	os.Stdout = w
	summarize([]string{f}, time.Now().Add(-time.Minute), 1)
	w.Close()
	os.Stdout = old
	var b bytes.Buffer
	b.ReadFrom(r)
	if !strings.Contains(b.String(), "make test: 1m0s wall time") || !strings.Contains(b.String(), "2.5s  TestA p (race)") || strings.Contains(b.String(), "TestB") {
		t.Errorf("summary:\n%s", b.String())
	}
}
