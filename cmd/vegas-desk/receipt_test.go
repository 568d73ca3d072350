package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"vegas-desk/internal/ledger/ledgertest"
)

// The receipt claim --receipt writes as it pays is the original; every
// receipt the receipt command writes afterwards says DUPLICATA, as the
// app's reprints do.
func TestReceiptDuplicata(t *testing.T) {
	db := ledgertest.Copy(t, ledgertest.Block)
	ss := serials(t)
	dir := privateDir(t)
	serial := ss.Winners[15][2]
	end := serial[len(serial)-6:] // the receipt hides the serial's secret groups
	text := func(file string) string {
		t.Helper()
		out, err := exec.Command("pdftotext", "-layout", "-enc", "UTF-8", filepath.Join(dir, file), "-").Output()
		if err != nil {
			t.Fatalf("pdftotext %s: %v", file, err)
		}
		return string(out)
	}
	if out, errs, code := vd(t, db, "", "claim", serial, "--desk", "C1", "--receipt", filepath.Join(dir, "original.pdf")); code != 0 || !strings.HasPrefix(out, "PAY ") {
		t.Fatalf("claim --receipt: exit %d\n%s%s", code, out, errs)
	}
	if got := text("original.pdf"); strings.Contains(got, "DUPLICATA") || !strings.Contains(got, end) {
		t.Errorf("the original receipt:\n%s", got)
	}
	if out, errs, code := vd(t, db, "", "receipt", "1", "-o", filepath.Join(dir, "again.pdf")); code != 0 {
		t.Fatalf("receipt: exit %d\n%s%s", code, out, errs)
	}
	if got := text("again.pdf"); !strings.Contains(got, "DUPLICATA") || !strings.Contains(got, end) {
		t.Errorf("the receipt printed again:\n%s", got)
	}
	// claim --receipt never writes over a ledger, and refuses before paying.
	if _, errs, code := vd(t, db, "", "claim", ss.Winners[15][3], "--receipt", db); code != 2 || !strings.Contains(errs, "give another file name") {
		t.Errorf("claim --receipt LEDGER: exit %d %s", code, errs)
	}
	if out, _, _ := vd(t, db, "", "lookup", ss.Winners[15][3]); !strings.Contains(out, "unpaid") {
		t.Errorf("a claim refused for its --receipt paid:\n%s", out)
	}
}
