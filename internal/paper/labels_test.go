package paper

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"vegas-desk/internal/game"
)

// scanPages renders each page of a PDF at 300 dpi, as a scanner would see
// it printed, and reads its Code 128 barcodes with zbarimg (zbar-tools):
// the contents read, page by page, each page's sorted.
func scanPages(t *testing.T, pdf []byte) [][]string {
	t.Helper()
	for _, tool := range []string{"pdftoppm", "zbarimg"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s not found: install poppler-utils and zbar-tools (make deps-test does)", tool)
		}
	}
	dir := t.TempDir()
	f := filepath.Join(dir, "labels.pdf")
	if err := os.WriteFile(f, pdf, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("pdftoppm", "-r", "300", "-gray", "-png", f, filepath.Join(dir, "page")).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm: %v %s", err, out)
	}
	pngs, _ := filepath.Glob(filepath.Join(dir, "page-*.png"))
	slices.Sort(pngs) // page-01 … page-99: pdftoppm pads to the page count's width
	var out [][]string
	for _, png := range pngs {
		cmd := exec.Command("zbarimg", "--quiet", "--raw", "-Sdisable", "-Scode128.enable", png)
		got, err := cmd.Output()
		if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 4 {
			err = nil // no barcode found on this page
		}
		if err != nil {
			t.Fatalf("zbarimg %s: %v", png, err)
		}
		codes := strings.Fields(string(got))
		slices.Sort(codes)
		out = append(out, codes)
	}
	return out
}

// Every label reads back, at 300 dpi, as its pack's code: on A4 sheets of
// 3 × 8 and on a roll, one label a page.
func TestLabelsScan(t *testing.T) {
	var packs []Pack
	for p := 9990; p <= 9999; p++ { // the last packs of a block: four-digit numbers
		packs = append(packs, Pack{531, 1, p})
	}
	for p := 120; p < 140; p++ {
		packs = append(packs, Pack{531, 2, p})
	}
	packs = append(packs, Pack{999, 9999, 0})
	compact := func(ps []Pack) []string {
		var out []string
		for _, p := range ps {
			out = append(out, game.PackCode{Game: p.Game, Block: p.Block, Pack: p.Pack}.Compact())
		}
		slices.Sort(out)
		return out
	}
	cases := []struct {
		name string
		roll bool
		want [][]Pack // the packs of each page
	}{
		{"A4 sheets", false, [][]Pack{packs[:24], packs[24:]}},
		{"a roll", true, func() [][]Pack {
			var pages [][]Pack
			for i := range packs {
				pages = append(pages, packs[i:i+1])
			}
			return pages
		}()},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pdf := write(t, func(w *bytes.Buffer) error {
				return WriteLabels(w, Labels{GameName: "VEGAS", Packs: packs, Roll: tc.roll, PrintedAt: at(1, 9, 0, 0)})
			})
			got := scanPages(t, pdf)
			if len(got) != len(tc.want) {
				t.Fatalf("%d pages, want %d", len(got), len(tc.want))
			}
			for i, want := range tc.want {
				if !slices.Equal(got[i], compact(want)) {
					t.Errorf("page %d reads %v, want %v", i+1, got[i], compact(want))
				}
			}
		})
	}
}

// A label says in words what its barcode holds: the code with its check
// digit, the game, the block and the tickets.
func TestLabelsText(t *testing.T) {
	pdf := write(t, func(w *bytes.Buffer) error {
		return WriteLabels(w, Labels{GameName: "VEGAS", Packs: []Pack{{531, 1, 120}}, Roll: true, PrintedAt: at(1, 9, 0, 0)})
	})
	text := strings.ReplaceAll(pdfText(t, pdf), nbsp, " ")
	for _, want := range []string{"531-0001-0120-7", "VEGAS — jeu 531 — bloc 0001", "Tickets 0024000 à 0024199 (200)"} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q on the label:\n%s", want, text)
		}
	}
	if err := WriteLabels(&bytes.Buffer{}, Labels{}); err == nil {
		t.Error("labels of no pack")
	}
}
