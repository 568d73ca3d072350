package printer

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// What wine's spooler can show: the list of printers and the default one
// are asked without an error (wine without CUPS has none: an empty list, no
// default), and a job for a printer Windows does not know is refused as
// ErrNoQueue, saying so. A real printer's job is checked on a real Windows
// (README, Windows).
func TestSpooler(t *testing.T) {
	ctx := context.Background()
	qs, err := Queues(ctx)
	if err != nil {
		t.Fatalf("Queues: %v", err)
	}
	def, err := Default(ctx)
	if err != nil {
		t.Fatalf("Default: %v", err)
	}
	if def != "" && !slices.Contains(qs, def) {
		t.Errorf("the default printer %q is not among %q", def, qs)
	}
	t.Logf("printers %q, default %q", qs, def)
	f := filepath.Join(t.TempDir(), "reçu 1.pdf")
	os.WriteFile(f, []byte("%PDF-1.4\n"), 0o600)
	_, err = Print(ctx, "vegas-desk: aucune imprimante", "Reçu", f)
	var pe *Error
	if !errors.As(err, &pe) || !errors.Is(err, ErrNoQueue) || pe.Queue != "vegas-desk: aucune imprimante" {
		t.Errorf("a printer Windows does not know: %v", err)
	}
	if _, err := PrintDocument(ctx, "-o", "Reçu", "x.pdf", nil); !errors.Is(err, ErrNoQueue) {
		t.Errorf("an option for a printer: %v", err)
	}
}

// Windows names printers with spaces and backslashes (\\server\name).
func TestValidQueueWindows(t *testing.T) {
	for name, want := range map[string]bool{
		"HP LaserJet 4000": true, `\\caisse-2\Étiquettes`: true, "Microsoft Print to PDF": true,
		"": false, "-d": false, "a,b": false, "a\nb": false,
	} {
		if got := ValidQueue(name); got != want {
			t.Errorf("ValidQueue(%q) = %v, want %v", name, got, want)
		}
	}
}
