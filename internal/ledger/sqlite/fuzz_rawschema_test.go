package sqlite

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"vegas-desk/internal/ledger/backoffice"
)

// FuzzRawSchema holds the byte read of a file's schema (rawschema.go) to
// SQLite's own: whatever page 1 holds, a file the bytes pass as a ledger
// is one SQLite's check (checkSchemaFile) passes too — the bytes may only
// skip that check, never let through a file it refuses — and no page
// makes the read panic. The fuzzer changes a real ledger's page 1; the
// rest of the file stays the ledger's.
func FuzzRawSchema(f *testing.F) {
	path := filepath.Join(f.TempDir(), "ledger.db")
	w, err := OpenLedger(path, false, backoffice.Creation{}, func() time.Time { return time.Time{} })
	if err != nil {
		f.Fatal(err)
	}
	w.Close()
	whole, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	const page = 16384
	if len(whole) < page {
		f.Fatalf("a new ledger of %d bytes", len(whole))
	}
	k := Kind{AppID: ApplicationID, Schema: LedgerSchema}
	f.Add(whole[:page])
	f.Add(whole[:100])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, first []byte) {
		if len(first) > page {
			first = first[:page]
		}
		file := append(append([]byte(nil), first...), whole[len(first):]...)
		p := filepath.Join(t.TempDir(), "f.db")
		if err := os.WriteFile(p, file, 0o600); err != nil {
			t.Fatal(err)
		}
		if !rawSchemaMatches(p, k) {
			return
		}
		if err := checkSchemaFile(p, k, false); err != nil {
			t.Fatalf("the bytes pass a file SQLite refuses: %v", err)
		}
	})
}
