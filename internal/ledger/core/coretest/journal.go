// Package coretest holds what the tests of every storage read from a
// ledger the same way: its journal, its tickets of a prize.
package coretest

import (
	"context"
	"testing"

	"vegas-desk/internal/ledger/backoffice"
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

// TicketsWith returns up to n positions of block b with prize prize, in
// order.
func TicketsWith(tb testing.TB, q core.Querier, b core.Block, prize, n int) []int {
	tb.Helper()
	var out []int
	want := core.PrizeByte(prize)
	err := backoffice.ScanPrizes(context.Background(), q, b, func(start int, prizes []byte) bool {
		for i, pb := range prizes {
			if pb == want && len(out) < n {
				out = append(out, start+i)
			}
		}
		return len(out) < n
	})
	if err != nil {
		tb.Fatal(err)
	}
	return out
}
