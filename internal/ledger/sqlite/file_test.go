package sqlite_test

import (
	"testing"

	"vegas-desk/internal/ledger/counter"
	"vegas-desk/internal/ledger/sqlite"
)

// The digests a file's schema is checked against are those of the schemas
// the .sql files make.
func TestSchemaDigests(t *testing.T) {
	for _, k := range []struct {
		name   string
		schema *sqlite.Schema
		where  string
	}{
		{"back office", sqlite.LedgerSchema, "sqlite.SchemaDigest"},
		{"counter", counter.Schema, "counter.SchemaDigest"},
	} {
		got, err := k.schema.ExpectedDigest()
		if err != nil {
			t.Fatal(err)
		}
		if got != k.schema.Digest {
			t.Errorf("%s: the schema's sqlite_master has digest %s; set %s to it", k.name, got, k.where)
		}
	}
}
