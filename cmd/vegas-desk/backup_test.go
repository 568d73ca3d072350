package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/ledgertest"
	"vegas-desk/internal/pgtest"
)

// Backups taken while counters pay through serve (a burst of load's
// claims), of a file and of a shared ledger: each verifies, its head is
// the served ledger's, the last two are kept, nothing partial is left;
// a ledger restored from one (copy) answers as the original did up to
// the backup's head, and the claims paid after it are the ones missing.
func TestBackupWhileServing(t *testing.T) {
	t.Setenv("PGPASSWORD", pg.Password) // the restore reaches the original to fence it (issue 36)
	for _, db := range []string{ledgertest.Copy(t, ledgertest.Demo), pg.URL(pgtest.Owner, pg.NewDatabaseFrom(t, pgFixture(t, ledgertest.Demo)))} {
		dir, srv := serveOf(t, db)
		backups := filepath.Join(t.TempDir(), "backups")
		backup := func() ledger.BackupInfo {
			out, errs, code := vd(t, db, "", "backup", "--dir", backups, "--keep", "2", "--json")
			var b ledger.BackupInfo
			if code != 0 || json.Unmarshal([]byte(out), &b) != nil || b.Head == "" {
				t.Fatalf("backup: exit %d\n%s%s", code, out, errs)
			}
			return b
		}
		// The first backup before the burst; the next ones once load says
		// it pays (its first progress line, "… answers/s …"), each verified
		// whole (seconds of CPU), so that none is spent while load starts.
		taken := []ledger.BackupInfo{backup()}
		// The burst lasts until a backup was taken while load paid (one
		// with more entries than the first backup and fewer than a later
		// one), then is stopped as Ctrl-C stops it: on a slow machine a
		// backup takes seconds, and a burst of fixed length could hold
		// none whole. Two counters: payments at once, and CPU left to the
		// backups on two cores.
		burst, stop := context.WithTimeout(context.Background(), 5*time.Minute)
		defer stop()
		done := make(chan string, 1)
		paying := &watchWrites{for_: "answers/s", at: make(chan struct{})}
		go func() {
			var out bytes.Buffer
			code := runIn(burst, []string{"--db", db, "load", "--server", srv, "--dir", dir, "--counters", "2", "--seconds", "3600", "--json"},
				strings.NewReader(""), &out, paying)
			done <- fmt.Sprintf("exit %d\n%s%s", code, out.String(), paying.String())
		}()
		var load string
		select {
		case <-paying.at:
		case load = <-done:
			t.Fatalf("load ended before a line: %s", load)
		}
		for load == "" {
			b := backup()
			taken = append(taken, b)
			if n := len(taken); n >= 3 && taken[n-2].Entries > taken[0].Entries && b.Entries > taken[n-2].Entries {
				stop()
				load = <-done
				break
			}
			select {
			case load = <-done: // ended by itself (failed, or 5 minutes)
			default:
			}
		}
		if !strings.HasPrefix(load, "exit 0\n") {
			t.Fatalf("load: %s", load)
		}
		var v struct{ Entries int }
		if out, _, _ := vd(t, db, "", "verify", "--json"); json.Unmarshal([]byte(out), &v) != nil {
			t.Fatal(out)
		}
		during := false
		for _, b := range taken {
			during = during || b.Entries > taken[0].Entries && b.Entries < v.Entries
		}
		if !during {
			t.Fatalf("%d backups, none taken while load paid (from %d entries to %d)", len(taken), taken[0].Entries, v.Entries)
		}
		// Paid after every backup: a restore lacks it.
		paidAfter := false
		for _, w := range ledgertest.SerialsOf(t, ledgertest.Demo).Winners[15] {
			if _, _, code := vd(t, db, "", "claim", w); code == 0 {
				paidAfter = true
				break
			}
		}
		if !paidAfter {
			t.Fatal("no winner of 15 € left to pay")
		}
		kept, err := ledger.Backups(backups, "")
		if err != nil || len(kept) != 2 || kept[1].Head != taken[len(taken)-1].Head {
			t.Fatalf("kept %+v, %v", kept, err)
		}
		if entries, _ := os.ReadDir(backups); len(entries) != 4 {
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			t.Fatalf("the backups' directory holds %s, want 2 backups and their JSON", names)
		}

		// Restored from the first backup kept: the same answers up to its
		// head; what was paid after it is what the restored ledger lacks.
		b := kept[0]
		restored := filepath.Join(t.TempDir(), "restored.db")
		// copy --restore: the ledger's id, so its desk files work on it
		// (the original, which answers, is marked replaced).
		if out, errs, code := vd(t, db, "", "copy", "--restore", b.File, restored); code != 0 || !strings.Contains(out+errs, b.LedgerID) {
			t.Fatalf("restore: exit %d, want it to name ledger %s\n%s%s", code, b.LedgerID, out, errs)
		}
		if out, errs, code := vd(t, restored, "", "verify", "--head", b.Head); code != 0 || !strings.Contains(out, "unchanged in the chain") {
			t.Fatalf("the restored ledger does not hold the backup's head: exit %d\n%s%s", code, out, errs)
		}
		claims := func(db string) []map[string]any {
			out, errs, code := vd(t, db, "", "claims", "--json")
			var cs []map[string]any
			if code != 0 || json.Unmarshal([]byte(out), &cs) != nil {
				t.Fatalf("claims: exit %d\n%s%s", code, out, errs)
			}
			return cs
		}
		before, after := claims(restored), claims(db)
		if len(before) == 0 || len(before) >= len(after) {
			t.Fatalf("restored %d claims, the served ledger %d: the backup was not taken during the burst", len(before), len(after))
		}
		for i, c := range before {
			a, _ := json.Marshal(c)
			o, _ := json.Marshal(after[i])
			if string(a) != string(o) {
				t.Fatalf("claim %d restored differs:\n%s\n%s", i, a, o)
			}
		}
		t.Logf("%s: %d backups, the first before the burst; restored from one of %d entries: %d claims, %d paid after it (lost unless a counter's journal holds them)",
			db[:min(len(db), 20)], len(taken), b.Entries, len(before), len(after)-len(before))
	}
}

// watchWrites keeps what is written to it, and closes at once it holds
// for_ (load's first progress line, on the standard error with --json).
type watchWrites struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	for_ string
	at   chan struct{}
	once sync.Once
}

func (w *watchWrites) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.buf.Write(p)
	if strings.Contains(w.buf.String(), w.for_) {
		w.once.Do(func() { close(w.at) })
	}
	return n, err
}

func (w *watchWrites) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// upgrade on a ledger of this version changes nothing and says so; on a
// newer one it is refused (exit 1), leaving no backup behind.
func TestUpgradeCLI(t *testing.T) {
	db := ledgertest.Copy(t, ledgertest.Demo)
	backups := filepath.Join(t.TempDir(), "backups") // made 0700 (t.TempDir's are 0755)
	out, errs, code := vd(t, db, "", "upgrade", "--backup-dir", backups)
	if code != 0 || !strings.Contains(out, "nothing to upgrade") {
		t.Fatalf("upgrade of a current ledger: exit %d\n%s%s", code, out, errs)
	}
	l, err := ledger.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	sq, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sq.Exec(fmt.Sprintf("PRAGMA user_version = %d", ledger.SchemaVersion+1)); err != nil {
		t.Fatal(err)
	}
	sq.Close()
	out, errs, code = vd(t, db, "", "upgrade", "--backup-dir", backups)
	if code != 1 || !strings.Contains(errs, "install a newer vegas-desk") {
		t.Fatalf("upgrade of a newer ledger: exit %d\n%s%s", code, out, errs)
	}
	if entries, _ := os.ReadDir(backups); len(entries) != 0 {
		t.Fatalf("upgrade left %d files in the backups' directory", len(entries))
	}
}

// serve --backup-dir's loop itself (backups), with a short period: while
// its folder cannot be made (a file is where it goes) each backup fails,
// is logged, and the loop goes on; once it can, backups are taken, each
// verified, logged with its head, and only the last two kept; it stops
// when its context ends. Every wait is for a condition, bounded.
func TestScheduledBackups(t *testing.T) {
	// A ledger of one entry (a desk added): what is tested is the loop
	// (its failures, its keeping, its end), not the copy of a block
	// (TestBackupWhileServing backs a whole block up under load); each of
	// its backups, and their verification, is then a matter of
	// milliseconds, under the race detector too, not of seconds.
	l, err := ledger.Open(filepath.Join(t.TempDir(), "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := l.AddDesk(context.Background(), "D1", 100, ledger.Identity{Desk: "BO", Operator: "eve"}); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "backups")
	if err := os.WriteFile(dir, nil, 0o600); err != nil { // no folder can be made there
		t.Fatal(err)
	}
	var log lockedBuffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stopped := make(chan struct{})
	go func() {
		backups(ctx, l, dir, 20*time.Millisecond, 2, slog.New(slog.NewJSONHandler(&log, nil)))
		close(stopped)
	}()

	// lines are the loop's log lines of msg.
	type line struct {
		Level, Msg, Dir, Error, File, Head string
		Entries                            int
	}
	lines := func(msg string) []line {
		var out []line
		for _, s := range strings.Split(strings.TrimSpace(log.String()), "\n") {
			var l line
			if json.Unmarshal([]byte(s), &l) == nil && l.Msg == msg {
				out = append(out, l)
			}
		}
		return out
	}
	waitUntil := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(2 * time.Minute); !cond(); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s; the log:\n%s", what, log.String())
			}
		}
	}
	waitUntil("two failed backups", func() bool { return len(lines("backup failed")) >= 2 })
	if f := lines("backup failed")[0]; f.Level != "ERROR" || f.Dir != dir || !strings.Contains(f.Error, dir) {
		t.Errorf("the failure's line: %+v", f)
	}
	if len(lines("backup")) != 0 {
		t.Fatal("a backup logged as taken into a file")
	}
	if err := os.Remove(dir); err != nil {
		t.Fatal(err)
	}
	waitUntil("three backups after the failures", func() bool { return len(lines("backup")) >= 3 })
	cancel()
	select {
	case <-stopped:
	case <-time.After(time.Minute):
		t.Fatal("the loop did not stop when its context ended")
	}

	head, err := l.Head(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	taken := lines("backup")
	for _, b := range taken {
		if b.Level != "INFO" || b.Head != head || b.Entries == 0 || !strings.HasPrefix(b.File, dir+string(filepath.Separator)) {
			t.Errorf("a backup's line: %+v (the ledger's head %s)", b, head)
		}
	}
	kept, err := ledger.Backups(dir, l.ID())
	if err != nil || len(kept) != 2 {
		t.Fatalf("kept %+v %v, want the last 2 of %d", kept, err, len(taken))
	}
	// The two kept are the last two logged (a backup cut by the end of the
	// context is logged as failed and leaves nothing).
	if last := taken[len(taken)-2:]; kept[0].File != last[0].File || kept[1].File != last[1].File {
		t.Errorf("kept %s and %s, the last logged %s and %s", kept[0].File, kept[1].File, last[0].File, last[1].File)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 4 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Fatalf("the backups' folder holds %s, want 2 backups and their JSON", names)
	}
	for _, b := range kept {
		c, err := ledger.OpenReadOnly(b.File)
		if err != nil {
			t.Fatal(err)
		}
		r, err := c.Verify(context.Background(), 0, 0, nil)
		c.Close()
		if err != nil || !r.OK() || r.Head != b.Head {
			t.Errorf("%s: %+v %v", b.File, r, err)
		}
	}
}

// lockedBuffer is a buffer a logger writes to from another goroutine.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *lockedBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *lockedBuffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// A restore, and what was paid after the backup: the back office pays a
// ticket, takes a backup; then sealed counter C1 pays one (its own
// journal) and the back office another (at a served counter, say). The
// ledger restored from the backup (copy --restore) holds the backup's
// head and the first payment only; import-claims of C1's export brings
// C1's payment back (verify passes, the claim is there); of the claims the
// original lists after the backup's time (claims --since), the one no
// counter's journal brought back is the lost one, as the README says.
func TestRestoreSealedPaymentsHome(t *testing.T) {
	bo, c1 := ledgertest.Copy(t, ledgertest.Sealed), ledgertest.Copy(t, ledgertest.Sealed, "C1.db")
	w := ledgertest.SerialsOf(t, ledgertest.Sealed).Winners[6]
	before, atCounter, lost := w[0], w[1], w[2]
	mustRun := func(db string, args ...string) string {
		t.Helper()
		out, errs, code := vd(t, db, "", args...)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s%s", args, code, out, errs)
		}
		return out
	}
	// serials lists the claims of a claims --json's output.
	serials := func(out string) []string {
		t.Helper()
		var cs []struct{ Serial string }
		if err := json.Unmarshal([]byte(out), &cs); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		var s []string
		for _, c := range cs {
			s = append(s, c.Serial[:min(len(c.Serial), 16)]) // a counter keeps the public part
		}
		return s
	}
	mustRun(bo, "claim", before, "--operator", "eve")
	var b ledger.BackupInfo
	if err := json.Unmarshal([]byte(mustRun(bo, "backup", "--dir", filepath.Join(t.TempDir(), "backups"), "--json")), &b); err != nil {
		t.Fatal(err)
	}
	mustRun(c1, "claim", atCounter, "--operator", "ann")
	mustRun(bo, "claim", lost, "--operator", "eve")
	export := filepath.Join(t.TempDir(), "C1.jsonl")
	if err := os.WriteFile(export, []byte(mustRun(c1, "claims", "--jsonl")), 0o600); err != nil {
		t.Fatal(err)
	}
	// The original imports C1's payment too, as a back office does each day.
	mustRun(bo, "import-claims", export)

	restored := filepath.Join(t.TempDir(), "restored.db")
	if out := mustRun(bo, "copy", "--restore", b.File, restored); !strings.Contains(out, b.LedgerID) {
		t.Errorf("the restore does not name ledger %s:\n%s", b.LedgerID, out)
	}
	if out := mustRun(restored, "verify", "--head", b.Head); !strings.Contains(out, "unchanged in the chain") {
		t.Fatalf("the restored ledger's verify --head %s:\n%s", b.Head, out)
	}
	if got := serials(mustRun(restored, "claims", "--json")); len(got) != 1 || got[0] != before[:16] {
		t.Fatalf("the restored ledger's claims %v, want only %s, paid before the backup", got, before)
	}

	var rep struct{ Recorded int }
	if err := json.Unmarshal([]byte(mustRun(restored, "import-claims", export, "--json")), &rep); err != nil || rep.Recorded != 1 {
		t.Fatalf("import-claims of C1 into the restored ledger: %+v %v", rep, err)
	}
	if out := mustRun(restored, "verify"); !strings.Contains(out, "OK") {
		t.Fatalf("verify after the import:\n%s", out)
	}
	if got := serials(mustRun(restored, "claims", "--desk", "C1", "--json")); len(got) != 1 || got[0] != atCounter[:16] {
		t.Fatalf("C1's claims in the restored ledger %v, want %s", got, atCounter)
	}

	// What to look at: the claims the original lists since the backup, less
	// those the counters' journals brought back.
	since := serials(mustRun(bo, "claims", "--since", b.TakenAt, "--json"))
	home := map[string]bool{}
	for _, s := range serials(mustRun(restored, "claims", "--json")) {
		home[s] = true
	}
	var missing []string
	for _, s := range since {
		if !home[s] {
			missing = append(missing, s)
		}
	}
	if len(since) != 2 || len(missing) != 1 || missing[0] != lost[:16] {
		t.Fatalf("the original lists %v since the backup, the restored ledger lacks %v, want only %s", since, missing, lost)
	}
	if out := mustRun(restored, "lookup", lost); !strings.Contains(out, "payable") {
		t.Errorf("the lost payment's ticket in the restored ledger:\n%s", out)
	}
}
