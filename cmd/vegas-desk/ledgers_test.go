package main

import (
	"context"
	"encoding/json"
	"testing"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/ledgertest"
)

// The tests' ledgers are copies of ledgertest's fixtures, made once per
// run: game 531's block 1, its packs on sale (ledgertest.Block) or in stock
// (ledgertest.Stock), or the back office that sealed counter ledgers C1 and
// C2 of it (ledgertest.Sealed). TestGenerateCLI generates a block of its
// own.

// serials are tickets of the fixtures' block, by prize.
func serials(t *testing.T) ledgertest.Serials {
	t.Helper()
	return ledgertest.SerialsOf(t, ledgertest.Block)
}

// docLine is ledger db's ticket serial in the interchange format, with its
// serial and prize, as an export line shows it and check reads it.
func docLine(t *testing.T, db, serial string) string {
	t.Helper()
	l, err := ledger.OpenReadOnly(db)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	tk, err := l.Lookup(context.Background(), serial, ledger.Identity{}, ledger.NoLimit)
	if err != nil {
		t.Fatal(err)
	}
	d := game.NewDoc(&tk.Ticket)
	d.Serial = serial
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
