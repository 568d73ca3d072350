//go:build linux

package ui

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/ledgertest"
)

// durableLedger, in the environment, makes TestPayDurable the traced
// process that pays: the ledger file it pays from.
const durableLedger = "VEGAS_DESK_DURABLE_LEDGER"

// The app's PAYÉ is shown only once the payment is on disk (issue 32):
// this test's binary runs again under strace as the app paying a winner
// through the counter's screen (PAYER, then the confirmation's PAYER) from
// a ledger file of its own, and writes "PAYÉ shown" to its stdout as soon
// as PAYÉ is on the screen; nothing the payment wrote to the file's WAL may
// be unsynced at that write (ledgertest.CheckSynced). Under
// synchronous=NORMAL the WAL was synced only as the ledger closed.
func TestPayDurable(t *testing.T) {
	if path := os.Getenv(durableLedger); path != "" {
		payTraced(t, path)
		return
	}
	if _, err := exec.LookPath("strace"); err != nil {
		t.Fatal("strace is needed (make deps-test installs it)")
	}
	file := ledgertest.Copy(t, ledgertest.Demo)
	trace := filepath.Join(t.TempDir(), "trace")
	cmd := ledgertest.Strace(trace, os.Args[0], "-test.run=^TestPayDurable$", "-test.count=1")
	cmd.Env = append(os.Environ(), durableLedger+"="+file)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "PAYÉ shown") {
		t.Fatalf("the traced payment: %v\n%s", err, out)
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(file))
	if err != nil {
		t.Fatal(err)
	}
	wal := filepath.Join(dir, filepath.Base(file)+"-wal")
	rep, err := ledgertest.CheckSynced(trace, func(p string) bool { return p == wal }, func(fd int, _ string) bool { return fd == 1 })
	if err != nil {
		t.Fatal(err)
	}
	if rep.Syncs == 0 {
		t.Fatalf("no sync of %s: %+v", wal, rep)
	}
}

// payTraced pays a winner from the ledger at path through the counter's
// screen, and says "PAYÉ shown" on stdout once PAYÉ is shown.
func payTraced(t *testing.T, path string) {
	l, err := ledger.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	d := newTestDesk(t, l)
	scan(d, takeWinner(t, 3))
	if d.counter.view.kind != verdictWinner {
		t.Fatalf("verdict %q, want GAGNANT", d.counter.view.title.Text())
	}
	test.Tap(d.counter.view.pay)
	test.Tap(findButton(t, d.win, "PAYER"))
	waitFor(t, "PAYÉ", time.Minute, func() bool { return d.counter.view.kind == verdictJustPaid })
	os.Stdout.WriteString("PAYÉ shown\n")
}
