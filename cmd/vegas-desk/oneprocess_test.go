package main

import (
	"bytes"
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"vegas-desk/internal/ledger"
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

// A read-only ledger file is left to the end of a process of the command's
// own (release): its close wrote nothing. Every other ledger is closed, and
// so is every ledger in the tests' process. A lookup process that left its
// file so leaves it to the next as a closed one would: read by sqlite3's
// kind of reader, written by a claim.
func TestReadOnlyLeftOpen(t *testing.T) {
	db := ledgertest.Copy(t, ledgertest.Block)
	ss := serials(t)
	var heard []bool
	testReleased = func(l *ledger.Ledger, closed bool) {
		heard = append(heard, closed)
		if !closed {
			l.Close() // this process goes on
		}
	}
	defer func() { testReleased = nil }()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	defer func() { ownProcess = false }()
	for _, tc := range []struct {
		own    bool
		args   []string
		closed bool
	}{
		{false, []string{"lookup", ss.Losers[0]}, true},
		{true, []string{"lookup", ss.Losers[0]}, false},
		{true, []string{"blocks"}, false},
		{true, []string{"claim", "--desk", "C1", ss.Losers[1]}, true},
	} {
		heard = nil
		ownProcess = tc.own
		out, errs, code := vd(t, db, "", tc.args...)
		if len(heard) != 1 || heard[0] != tc.closed {
			t.Errorf("%v (own process %v): closed %v, want [%v] (exit %d)\n%s%s", tc.args, tc.own, heard, tc.closed, code, out, errs)
		}
	}
	ownProcess = false

	bin := build(t, "0", "nogui")
	winner := ss.Winners[15][0]
	for i := 0; i < 2; i++ {
		out, err := exec.Command(bin, "--db", db, "lookup", winner).CombinedOutput()
		if err != nil || !strings.Contains(string(out), winner) {
			t.Fatalf("lookup process %d: %v\n%s", i, err, out)
		}
	}
	if out, errs, code := vd(t, db, "", "claim", "--desk", "C1", winner); code != 0 || !strings.Contains(out, "payment 1:") {
		t.Fatalf("claim after lookup processes: exit %d\n%s%s", code, out, errs)
	}
	out, err := exec.Command(bin, "--db", db, "lookup", winner).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "paid") {
		t.Errorf("lookup process after the claim: %v\n%s", err, out)
	}
}
