// Package coretest holds what the tests of every storage read from a
// ledger's journal the same way.
package coretest

import (
	"context"
	"testing"

	"vegas-desk/internal/ledger/core"
)

// JournalKinds lists the kind and reason of the entries after entry after.
func JournalKinds(tb testing.TB, q core.Querier, after int64) []string {
	tb.Helper()
	var es []core.Entry
	if err := core.Select(context.Background(), q, &es, "SELECT "+core.EntryCols+" FROM journal WHERE id > ? ORDER BY id", after); err != nil {
		tb.Fatal(err)
	}
	var out []string
	for _, e := range es {
		s := e.Kind
		if e.Reason != "" {
			s += "/" + e.Reason
		}
		out = append(out, s)
	}
	return out
}

// LastEntry is the id of the journal's last entry.
func LastEntry(tb testing.TB, q core.Querier) int64 {
	tb.Helper()
	var id int64
	if err := core.Get(context.Background(), q, &id, "SELECT coalesce(max(id), 0) FROM journal"); err != nil {
		tb.Fatal(err)
	}
	return id
}
