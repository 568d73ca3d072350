package main

import (
	"bytes"
	"strings"
	"testing"

	"vegas-desk/internal/ledger/ledgertest"
)

// A lookup on a ledger file starts no Ctrl-C watcher (a goroutine and two
// threads in a process of a few milliseconds, issue 38); every other
// command, and a lookup that asks a server or PostgreSQL, whose answer
// Ctrl-C must stop waiting for, watches.
func TestCtrlCWatched(t *testing.T) {
	db := ledgertest.Copy(t, ledgertest.Block)
	ss := serials(t)
	var heard []bool
	testWatched = func(w bool) { heard = append(heard, w) }
	defer func() { testWatched = nil }()
	for _, tc := range []struct {
		args  []string
		watch bool
	}{
		{[]string{"--db", db, "lookup", ss.Losers[0]}, false},
		{[]string{"--db", db, "lookup", "--json", ss.Winners[15][0]}, false},
		{[]string{"--db", db, "claim", "--desk", "C1", ss.Losers[1]}, true},
		{[]string{"--db", db, "blocks"}, true},
		{[]string{"--db", "postgres://vegas@127.0.0.1:1/none?connect_timeout=1", "lookup", ss.Losers[0]}, true},
		{[]string{"--db", db, "--server", "https://127.0.0.1:1", "--desk-cert", db + ".none", "lookup", ss.Losers[0]}, true},
	} {
		heard = nil
		var out, errb bytes.Buffer
		code := run(tc.args, strings.NewReader(""), &out, &errb)
		if len(heard) != 1 || heard[0] != tc.watch {
			t.Errorf("%v: watched Ctrl-C %v, want [%v] (exit %d)\n%s%s", tc.args, heard, tc.watch, code, out.String(), errb.String())
		}
	}
}
