package platform

import (
	"os"
	"path/filepath"
	"testing"
)

func TestLanguageOf(t *testing.T) {
	for in, want := range map[string]string{
		"fr-FR": "fr", "fr-BE": "fr", "fr-CA": "fr", "fr": "fr", "fr_FR.UTF-8": "fr", "FR-fr": "fr",
		"en-US": "en", "en-GB": "en", "de-DE": "en", "C": "en", "frr-DE": "en", "": "",
	} {
		if got := languageOf(in); got != want {
			t.Errorf("languageOf(%q) = %q, want %q", in, got, want)
		}
	}
}

// The folders MkdirAllOwnerOnly makes are owner-only; the one that was
// there keeps what it had.
func TestMkdirAllOwnerOnly(t *testing.T) {
	top := t.TempDir()
	dir := filepath.Join(top, "été 2026", "vegas-desk")
	if err := MkdirAllOwnerOnly(dir); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{dir, filepath.Dir(dir)} {
		st, err := os.Stat(d)
		if err != nil || !st.IsDir() {
			t.Fatalf("%s: %v", d, err)
		}
		ownerOnly(t, d, true)
	}
	ownerOnly(t, top, false)
	if err := MkdirAllOwnerOnly(dir); err != nil {
		t.Fatalf("again: %v", err)
	}
}

func TestDefaultLedger(t *testing.T) {
	if got, want := DefaultLedger(), filepath.Join(DataDir(), "vegas-desk", "ledger.db"); got != want {
		t.Errorf("DefaultLedger() = %s, want %s", got, want)
	}
}
