package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"vegas-desk/internal/ledger/ledgertest"
	"vegas-desk/internal/signing"
)

// endless is a reader of n bytes of JSON-looking text that keeps none of
// them: it counts what was taken from it.
type endless struct{ n, read int64 }

func (e *endless) Read(p []byte) (int, error) {
	if e.read >= e.n {
		return 0, os.ErrClosed
	}
	p = p[:min(int64(len(p)), e.n-e.read)]
	for i := range p {
		p[i] = ' '
	}
	e.read += int64(len(p))
	return len(p), nil
}

// runWithin runs one command line with stdin, failing the test when it
// has not returned within the deadline (an input read to its end would
// not: /dev/zero has none).
func runWithin(t *testing.T, d time.Duration, stdin *endless, args ...string) (string, int) {
	t.Helper()
	type result struct {
		errs string
		code int
	}
	done := make(chan result, 1)
	go func() {
		var out, errb bytes.Buffer
		var in io.Reader = strings.NewReader("")
		if stdin != nil {
			in = stdin
		}
		code := run(args, in, &out, &errb)
		done <- result{errb.String(), code}
	}()
	select {
	case r := <-done:
		return r.errs, r.code
	case <-time.After(d):
		t.Fatalf("%v still running after %v: its input is not bounded", args, d)
		return "", 0
	}
}

// check /dev/zero, an input without end, is refused at once (it grew
// without end): exit 2, what was wrong and what to do.
func TestCheckDevZero(t *testing.T) {
	db := filepath.Join(t.TempDir(), "none.db")
	errs, code := runWithin(t, 20*time.Second, nil, "--db", db, "check", "/dev/zero")
	if code != 2 || !strings.Contains(errs, "/dev/zero holds more than 64 KB, which no ticket's contents do") ||
		!strings.Contains(errs, "give one ticket's contents") {
		t.Errorf("check /dev/zero: exit %d, %s", code, errs)
	}
}

// check - with 1 GB on its standard input (it took 2 GB of memory) reads
// no more than its bound and one byte, and allocates accordingly.
func TestCheckHugeStdin(t *testing.T) {
	db := filepath.Join(t.TempDir(), "none.db")
	in := &endless{n: 1 << 30}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	errs, code := runWithin(t, 20*time.Second, in, "--db", db, "check", "-")
	runtime.ReadMemStats(&after)
	if code != 2 || !strings.Contains(errs, "standard input holds more than 64 KB") {
		t.Errorf("check - of 1 GB: exit %d, %s", code, errs)
	}
	if in.read > maxTicketDoc+1 {
		t.Errorf("check - read %d bytes of its standard input, want at most %d", in.read, maxTicketDoc+1)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 32<<20 {
		t.Errorf("check - of 1 GB allocated %d MB", alloc>>20)
	}
}

// The bound is the stated one: one ticket's contents padded to exactly
// maxTicketDoc bytes is checked, one byte more is refused.
func TestCheckBoundExact(t *testing.T) {
	db := ledgertest.Copy(t, ledgertest.Block)
	doc := strings.TrimSpace(docLine(t, db, serials(t).Winners[50][0]))
	dir := t.TempDir()
	for _, n := range []int{maxTicketDoc, maxTicketDoc + 1} {
		file := filepath.Join(dir, "doc.json")
		if err := os.WriteFile(file, []byte(doc+strings.Repeat(" ", n-len(doc))), 0o600); err != nil {
			t.Fatal(err)
		}
		out, errs, code := vd(t, filepath.Join(dir, "none.db"), "", "check", file)
		refused := strings.Contains(errs, "holds more than 64 KB")
		if n == maxTicketDoc && (code != 0 || refused || !strings.Contains(out, "50")) || n > maxTicketDoc && (code != 2 || !refused) {
			t.Errorf("check of %d bytes: exit %d, %s%s", n, code, out, errs)
		}
	}
}

// The other files the command line reads, each given /dev/zero: a
// passphrase file, a key file. Each is refused
// at once, saying which file and what to give, and nothing is written.
func TestSecretFilesBounded(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "none.db")
	key := filepath.Join(dir, "key")
	t.Setenv("VEGAS_DESK_PASSPHRASE", "")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"keygen", "-o", key, "--passphrase-file", "/dev/zero"}, "--passphrase-file /dev/zero: its first line holds more than 4 KB, which no passphrase does"},
	}
	for _, c := range cases {
		errs, code := runWithin(t, 20*time.Second, nil, append([]string{"--db", db}, c.args...)...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, %s", c.args, code, errs)
		}
	}
	t.Setenv("VEGAS_DESK_PASSPHRASE", "a passphrase long enough")
	errs, code := runWithin(t, 20*time.Second, nil, "--db", db, "checkpoint", "--key-file", "/dev/zero")
	if code != 2 || !strings.Contains(errs, "more than 16 KB, not a vegas-desk key file: give the file vegas-desk keygen made") {
		t.Errorf("checkpoint --key-file /dev/zero: exit %d, %s", code, errs)
	}
	if es, _ := os.ReadDir(dir); len(es) != 0 {
		t.Errorf("%d files made", len(es))
	}
	if signing.MaxKeyFile != 16<<10 {
		t.Errorf("MaxKeyFile %d: the test's message is out of date", signing.MaxKeyFile)
	}
}

// A passphrase file's first line is read, and only up to its bound: what
// follows a short first line is not read, a first line past the bound is
// refused, also without a line end.
func TestReadFirstLine(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "p")
	cases := []struct {
		data string
		want string
		big  bool
	}{
		{"secret\r\n" + strings.Repeat("x", 1<<20), "secret", false},
		{"secret", "secret", false},
		{strings.Repeat("x", maxSecretFile) + "\n", strings.Repeat("x", maxSecretFile), false},
		{strings.Repeat("x", maxSecretFile+1) + "\n", "", true},
		{strings.Repeat("x", maxSecretFile+1), "", true},
	}
	for i, c := range cases {
		if err := os.WriteFile(file, []byte(c.data), 0o600); err != nil {
			t.Fatal(err)
		}
		line, err := readFirstLine(file, maxSecretFile)
		_, big := err.(tooLarge)
		if string(line) != c.want || big != c.big || err != nil && !big {
			t.Errorf("case %d: %q, %v", i, line, err)
		}
	}
}

// A line typed at the terminal is bounded too: 10 KB without a line end
// is refused after its bound and one byte, the rest left unread.
func TestReadLineBounded(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	go func() {
		w.Write(bytes.Repeat([]byte("x"), 10<<10))
		w.Close()
	}()
	line, err := readLine(r)
	if err == nil || !strings.Contains(err.Error(), "the line typed holds more than 4 KB") {
		t.Errorf("10 KB typed: %d bytes, %v", len(line), err)
	}
	rest, _ := io.ReadAll(r)
	if want := 10<<10 - maxSecretFile - 1; len(rest) != want {
		t.Errorf("%d bytes left unread, want %d", len(rest), want)
	}
}
