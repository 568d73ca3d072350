package paper

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden text files in testdata")

// paris is a fixed zone, so the tests do not depend on the machine's.
var paris = time.FixedZone("CEST", 2*60*60)

func at(day, h, m, s int) time.Time { return time.Date(2025, 5, day, h, m, s, 0, paris) }

// pdfText returns the text of a PDF as pdftotext -layout extracts it, one
// form feed after each page. pdftotext comes with poppler-utils, which
// make test installs: without it these tests fail rather than skip.
func pdfText(t *testing.T, pdf []byte) string {
	t.Helper()
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Fatal("pdftotext not found: install poppler-utils (make deps-test does)")
	}
	f := filepath.Join(t.TempDir(), "doc.pdf")
	if err := os.WriteFile(f, pdf, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("pdftotext", "-layout", "-enc", "UTF-8", f, "-").Output()
	if err != nil {
		t.Fatalf("pdftotext: %v", err)
	}
	return string(out)
}

// pages counts the pages of extracted text.
func pages(text string) int { return strings.Count(text, "\f") }

// write runs a Write function twice, checks that it gives the same bytes
// both times, and returns them.
func write(t *testing.T, fn func(w *bytes.Buffer) error) []byte {
	t.Helper()
	var a, b bytes.Buffer
	if err := fn(&a); err != nil {
		t.Fatal(err)
	}
	if err := fn(&b); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("the same input gave different bytes")
	}
	if os.Getenv("PAPER_KEEP") != "" { // to look at a document: PAPER_KEEP=/tmp/dir
		name := strings.ReplaceAll(t.Name(), "/", "-") + ".pdf"
		if err := os.WriteFile(filepath.Join(os.Getenv("PAPER_KEEP"), name), a.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return a.Bytes()
}

// golden compares text with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if got != string(want) {
		t.Errorf("text of the PDF differs from %s (go test -update rewrites it):\n%s", path, diff(string(want), got))
	}
}

// diff shows the first lines where want and got differ.
func diff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < max(len(w), len(g)) && shown < 10; i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "line %d:\n  want %q\n  got  %q\n", i+1, wl, gl)
			shown++
		}
	}
	return b.String()
}
