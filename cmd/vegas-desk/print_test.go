package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/ledgertest"
	"vegas-desk/internal/paper"
	"vegas-desk/internal/printer/printertest"
	"vegas-desk/internal/testcache"
)

// scanSheets prints pages first … last of PDF file at 300 dpi, as a
// scanner sees them printed, and reads every barcode zbarimg finds there
// (zbar-tools, every symbology it reads by default), sorted.
func scanSheets(t *testing.T, file string, first, last int) []string {
	t.Helper()
	for _, tool := range []string{"pdftoppm", "zbarimg"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s not found: install poppler-utils and zbar-tools (make deps-test does)", tool)
		}
	}
	dir := t.TempDir()
	if out, err := exec.Command("pdftoppm", "-r", "300", "-png", "-f", strconv.Itoa(first), "-l", strconv.Itoa(last), file,
		filepath.Join(dir, "page")).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm: %v %s", err, out)
	}
	pngs, _ := filepath.Glob(filepath.Join(dir, "page-*.png"))
	if len(pngs) != last-first+1 {
		t.Fatalf("pdftoppm printed %d pages, want %d", len(pngs), last-first+1)
	}
	var codes []string
	for _, png := range pngs {
		got, err := exec.Command("zbarimg", "--quiet", "--raw", png).Output()
		if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 4 {
			err = nil // no barcode on this page
		}
		if err != nil {
			t.Fatalf("zbarimg %s: %v", png, err)
		}
		codes = append(codes, strings.Fields(string(got))...)
	}
	slices.Sort(codes)
	return codes
}

// demoSheets is pack 0 of a copy of the demonstration fixture printed
// (print -o) under umask 022 into a folder of mode 0700 that holds
// nothing else, once for the tests that read it (drawing 200 tickets at
// 300 dpi is seconds of CPU): the ledger, the folder and the PDF. Removed
// when the tests end (TestMain).
var demoSheets = sync.OnceValues(func() (demoPrint, error) {
	dir, err := os.MkdirTemp("", "vegas-desk-demo-sheets-")
	if err != nil {
		return demoPrint{}, err
	}
	builtMu.Lock()
	builtDirs = append(builtDirs, dir)
	builtMu.Unlock()
	d := demoPrint{db: filepath.Join(dir, "ledger.db"), dir: filepath.Join(dir, "out")}
	d.pdf = filepath.Join(d.dir, "demo.pdf")
	if err := os.Mkdir(d.dir, 0o700); err != nil {
		return demoPrint{}, err
	}
	src, err := ledgertest.Dir(ledgertest.Demo)
	if err != nil {
		return demoPrint{}, err
	}
	if err := testcache.CopyFile(filepath.Join(src, "ledger.db"), d.db); err != nil {
		return demoPrint{}, err
	}
	defer syscall.Umask(syscall.Umask(0o022))
	var out, errs bytes.Buffer
	if code := run([]string{"--db", d.db, "print", "--block", "1", "--packs", "0", "-o", d.pdf}, strings.NewReader(""), &out, &errs); code != 0 || errs.Len() > 0 {
		return demoPrint{}, fmt.Errorf("print on the demonstration ledger: exit %d, %s%s", code, out.String(), errs.String())
	}
	return d, nil
})

type demoPrint struct{ db, dir, pdf string }

// demoSheetsOf is demoSheets for a test.
func demoSheetsOf(t *testing.T) demoPrint {
	t.Helper()
	d, err := demoSheets()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// serialsAt are the serials of the tickets at positions of block 531/1 of
// ledger db.
func serialsAt(t *testing.T, db string, positions ...int) []game.Serial {
	t.Helper()
	l, err := ledger.OpenReadOnly(db)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var out []game.Serial
	for _, p := range positions {
		tk, err := l.TicketAt(context.Background(), 531, 1, p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tk.Serial)
	}
	return out
}

// The attack of issue 15 (item 3): demonstration sheets printed from a
// real ledger, of a pack on sale, and a barcode reader run on page 1,
// which gave payable serials. Now print refuses a pack on sale; a pack in
// stock prints with its serials and barcodes under the scratch panel, and
// is destroyed in the same step: nothing on the sheet reads as a serial,
// and the serials are not payable. A demonstration ledger's sheets keep
// their serials and barcodes in view, which the barcode reader reads:
// the proof that it would read them on the real ledger's too. (The one
// print of a real ledger's pack of the command line's tests: its sheets'
// pictures and pages are checked here too.)
func TestPrintSheetsNotPayable(t *testing.T) {
	db := ledgertest.Copy(t, ledgertest.Stock)
	dir := privateDir(t)
	for _, args := range [][]string{
		{"packs", "deliver", "--block", "1", "--packs", "0", "--desk", "D1"},
		{"packs", "receive", "--block", "1", "0"},
		{"packs", "activate", "--block", "1", "0"},
	} {
		if _, errs, code := vd(t, db, "", args...); code != 0 {
			t.Fatalf("%v: %s", args, errs)
		}
	}
	onSale := filepath.Join(dir, "on-sale.pdf")
	_, errs, code := vd(t, db, "", "print", "--block", "1", "--packs", "0", "-o", onSale)
	if code != 1 || !strings.Contains(errs, "pack 531-0001-0000-9 is on-sale at desk D1; a ledger that is not a demonstration ledger prints only packs in stock") ||
		!strings.Contains(errs, "choose packs in stock") {
		t.Errorf("print a pack on sale: exit %d, %s", code, errs)
	}
	if _, err := os.Stat(onSale); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("print a pack on sale wrote %s (%v)", onSale, err)
	}
	// Sheets that cannot be written destroy nothing.
	if _, errs, code := vd(t, db, "", "print", "--block", "1", "--packs", "5", "-o", filepath.Join(dir, "none", "x.pdf")); code != 1 {
		t.Errorf("print into no directory: exit %d, %s", code, errs)
	}
	printed := serialsAt(t, db, 1000, 1001, 1002, 1003, 1004, 1005, 1006, 1007) // pack 5's first two pages
	if out, _, _ := vd(t, db, "", "lookup", printed[0].String(), "--json"); !strings.Contains(out, `"pack_state": "stock"`) {
		t.Errorf("pack 5 after a failed print: %s", out)
	}

	sheets := filepath.Join(dir, "sheets.pdf")
	_, errs, code = vd(t, db, "", "print", "--block", "1", "--packs", "5", "-o", sheets, "--operator", "eve")
	if code != 0 || !strings.Contains(errs, "destroyed 1 pack (printed for demonstration): 531-0001-0005-1") {
		t.Fatalf("print a pack in stock: exit %d, %s", code, errs)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*.pdf.*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
	if codes := scanSheets(t, sheets, 1, 2); len(codes) > 0 {
		t.Errorf("the sheets' barcodes read: %v", codes)
	}
	text, err := exec.Command("pdftotext", "-f", "1", "-l", "2", sheets, "-").Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(text), "Spécimens non payables — jeu 531, bloc 0001 — carnet détruit 531-0001-0005-1") {
		t.Errorf("the sheets do not say their tickets are not payable:\n%s", text)
	}
	// The sheets hold the pack's 200 tickets, each its card (embedded
	// once) and its five surfaces and serial, at 300 dpi: a few megabytes
	// (23 MB when each ticket was a picture of its own); 50 pages, each
	// saying its positions.
	list, err := exec.Command("pdfimages", "-list", sheets).Output()
	cards, parts, cardObjects := 0, 0, map[string]bool{}
	cardWidth := strconv.Itoa(int(math.Ceil(paper.DemoTicketWidth / 25.4 * 300)))
	for _, line := range strings.Split(string(list), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) < 14 || f[2] != "image":
		case f[12] != "300" || f[13] != "300":
			t.Errorf("a picture printed at %s × %s dpi: %s", f[12], f[13], line)
		case f[3] == cardWidth:
			cards++
			cardObjects[f[10]] = true
		default:
			parts++
		}
	}
	if err != nil || cards != game.PackSize || len(cardObjects) != 1 || parts != 6*game.PackSize {
		t.Errorf("pdfimages: %v, %d cards (%d embedded), %d parts; want %d tickets of 6 parts over one card", err, cards, len(cardObjects), parts, game.PackSize)
	}
	if fi, err := os.Stat(sheets); err != nil || fi.Size() > 12<<20 {
		t.Errorf("a pack's demonstration sheets: %v, %d bytes", err, fi.Size())
	}
	all, err := exec.Command("pdftotext", "-layout", "-enc", "UTF-8", sheets, "-").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"Spécimens non payables — jeu 531, bloc 0001 — carnet détruit 531-0001-0005-1 — positions 0001000 à 0001003",
		"feuille 50/50", "positions 0001196 à 0001199"} {
		if !strings.Contains(strings.ReplaceAll(string(all), "\u00a0", " "), w) {
			t.Errorf("the sheets lack %q:\n%s", w, all)
		}
	}
	for _, s := range printed {
		for _, form := range []string{s.String(), s.Compact(), s.String()[17:]} {
			if strings.Contains(string(text), form) {
				t.Errorf("the sheets' text shows %s", form)
			}
		}
		out, _, _ := vd(t, db, "", "lookup", s.String(), "--json")
		if !strings.Contains(out, `"pack_state": "destroyed"`) || !strings.Contains(out, `"verdict": "not-activated"`) {
			t.Errorf("lookup %s: %s", s, out)
		}
	}
	if _, errs, code := vd(t, db, "", "claim", printed[0].String(), "--desk", "D1", "--operator", "ann"); code != 1 || !strings.Contains(errs, "not on sale: do not pay") {
		t.Errorf("claim a printed ticket: exit %d, %s", code, errs)
	}
	l, err := ledger.OpenReadOnly(db)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	es, err := l.PackEntries(context.Background(), ledger.PackEntryFilter{Moves: []string{"destroyed"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 1 || es[0].First != 5 || es[0].Last != 5 || es[0].Reason != "printed for demonstration" || es[0].Operator != "eve" {
		t.Errorf("the journal's destructions: %+v", es)
	}

	// The demonstration ledger: a pack on sale, its serials in view.
	demo := demoSheetsOf(t)
	var want []string
	for _, s := range serialsAt(t, demo.db, 0, 1, 2, 3) {
		want = append(want, s.Compact())
	}
	if got := scanSheets(t, demo.pdf, 1, 1); !slices.Equal(got, want) {
		t.Errorf("the demonstration sheet's barcodes read %v, want %v", got, want)
	}
	if out, _, _ := vd(t, demo.db, "", "lookup", serialsAt(t, demo.db, 0)[0].String(), "--json"); !strings.Contains(out, `"pack_state": "on-sale"`) {
		t.Errorf("the demonstration ledger's pack after print: %s", out)
	}
}

// Issue 39 item 3: a print job's title (lp -t, what the queue lists) says
// what the paper is, in the user's language, not a temporary file's name.
func TestPrintJobTitles(t *testing.T) {
	cups := printertest.Install(t, "Recus")
	db := ledgertest.Copy(t, ledgertest.Block)
	if _, errs, code := vd(t, db, "", "claim", serials(t).Winners[15][0], "--desk", "C1"); code != 0 {
		t.Fatalf("claim: %s", errs)
	}
	today := time.Now().Format(time.DateOnly)
	for _, tc := range []struct {
		lang, want string
		args       []string
	}{
		{"C", "Receipt of payment 1", []string{"receipt", "1"}},
		{"fr_FR.UTF-8", "Reçu du paiement 1", []string{"receipt", "1"}},
		{"fr_FR.UTF-8", "Étiquettes de 2 carnets", []string{"packs", "labels", "--block", "1", "--packs", "0-1"}},
		{"fr_FR.UTF-8", "Rapport du jour du guichet C1, " + time.Now().Format("02/01/2006"), []string{"daily", "--desk", "C1", "--day", today}},
	} {
		t.Setenv("LANG", tc.lang)
		n := len(cups.Jobs(t))
		if _, errs, code := vd(t, db, "", append(tc.args, "--printer", "Recus")...); code != 0 {
			t.Fatalf("%v: exit %d %s", tc.args, code, errs)
		}
		jobs := cups.Jobs(t)
		if len(jobs) != n+1 || len(jobs[n].Args) != 5 || jobs[n].Args[2] != "-t" || jobs[n].Args[3] != tc.want {
			t.Errorf("%s %v: lp was given %q, want the title %q", tc.lang, tc.args, jobs[n:], tc.want)
		}
	}
}
