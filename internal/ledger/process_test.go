package ledger

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"vegas-desk/internal/game"
)

// runChild is the re-executed test binary: VEGAS_LEDGER_CHILD says what to
// do on the ledger VEGAS_LEDGER_DB.
func runChild(what string) int {
	ctx := context.Background()
	l, err := Open(os.Getenv("VEGAS_LEDGER_DB"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	defer l.Close()
	switch what {
	case "generate":
		// Report progress, and go on when the parent says so, so that it
		// kills at a chosen moment whatever the machine's load.
		in := bufio.NewReader(os.Stdin)
		_, err = l.Generate(ctx, 531, game.Seed{7}, GenerateOptions{Activate: true, Progress: func(done, total int) {
			fmt.Printf("%d\n", done)
			in.ReadString('\n')
		}})
		fmt.Println("done")
	case "claim":
		fmt.Println("ready")
		bufio.NewReader(os.Stdin).ReadString('\n') // start together
		_, err = l.Claim(ctx, claimReq(os.Getenv("VEGAS_LEDGER_SERIAL"), Identity{Desk: os.Getenv("VEGAS_LEDGER_DESK"), Operator: "op"}))
		if errors.Is(err, ErrAlreadyClaimed) {
			return 1
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	return 0
}

func child(t *testing.T, what, db string, env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append([]string{"VEGAS_LEDGER_CHILD=" + what, "VEGAS_LEDGER_DB=" + db}, env...)...)
	cmd.Stderr = os.Stderr
	return cmd
}

func TestKillDuringGenerate(t *testing.T) {
	if testing.Short() {
		t.Skip("generates blocks")
	}
	path := copyFixture(t)
	l := mustOpen(t, path)
	b, _ := l.Block(context.Background(), 531, 1)
	w := ticketsWith(t, l, b, 9, 1)[0]
	if _, err := l.Claim(context.Background(), claimReq(serialOf(b, w), Identity{Desk: "D1", Operator: "ann"})); err != nil {
		t.Fatal(err)
	}
	l.Close()
	// Kill at random moments: after k progress reports (k = 500 is after
	// the last batch, during the finder, the commit or the checkpoint).
	r := rand.New(rand.NewPCG(uint64(os.Getpid()), 1))
	moments := []int{r.IntN(50) + 1, r.IntN(450) + 50, 500}
	for _, k := range moments {
		t.Run(fmt.Sprint("after ", k, " batches"), func(t *testing.T) {
			cmd := child(t, "generate", path)
			out, _ := cmd.StdoutPipe()
			in, _ := cmd.StdinPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// The child waits after each report for the word to go on:
			// killed after k reports, it waits in the k-th, inside the
			// generation's transaction (a child left to run could finish
			// before a parent slowed by the machine's load kills it). After
			// the last batch (k = 500) it goes on: the kill falls in the
			// finder, the commit, the checkpoint, or after.
			sc := bufio.NewScanner(out)
			n := 0
			for n < k && sc.Scan() {
				if n++; n < k || k == 500 {
					in.Write([]byte("go on\n"))
				}
			}
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()
			if n < k {
				t.Fatalf("child reported %d batches", n)
			}
			l := mustOpen(t, path)
			var check string
			rdb(l).Get(&check, "PRAGMA integrity_check")
			if check != "ok" {
				t.Fatalf("integrity_check: %s", check)
			}
			var blocks, packs int
			rdb(l).Get(&blocks, "SELECT count(*) FROM blocks")
			rdb(l).Get(&packs, "SELECT count(*) FROM packs")
			if blocks != 1 || packs != game.Packs {
				// A kill after the commit may leave a whole second block.
				if !(k == 500 && blocks == 2 && packs == 2*game.Packs) {
					t.Fatalf("%d blocks, %d packs", blocks, packs)
				}
			}
			cs, err := l.Claims(context.Background(), ClaimFilter{})
			if err != nil || len(cs) != 1 || cs[0].Position != w {
				t.Fatalf("claims %+v, %v", cs, err)
			}
			// Block 1's tickets are read again at one kill point; the
			// journal and what it keeps, at each.
			verify := journalOnly
			if k == moments[0] {
				verify = func(l *Ledger) (VerifyReport, error) { return l.Verify(context.Background(), 531, 1, nil) }
			}
			rep, err := verify(l)
			if err != nil || !rep.OK() {
				t.Fatalf("verify %+v, %v", rep, err)
			}
			l.Close()
		})
	}
}

func TestConcurrentClaims(t *testing.T) {
	path := copyFixture(t)
	l := mustOpen(t, path)
	b, _ := l.Block(context.Background(), 531, 1)
	serial := serialOf(b, ticketsWith(t, l, b, 1000, 1)[0])
	l.Close()
	const n = 6
	var cmds []*exec.Cmd
	var stdins []*os.File
	for i := range n {
		cmd := child(t, "claim", path, "VEGAS_LEDGER_SERIAL="+serial, fmt.Sprintf("VEGAS_LEDGER_DESK=D%d", i))
		pr, pw, _ := os.Pipe()
		cmd.Stdin = pr
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		pr.Close()
		bufio.NewReader(out).ReadString('\n') // "ready": the ledger is open
		cmds, stdins = append(cmds, cmd), append(stdins, pw)
	}
	for _, w := range stdins {
		w.Write([]byte("go\n"))
	}
	codes := make([]int, n)
	var wg sync.WaitGroup
	for i, cmd := range cmds {
		wg.Go(func() { cmd.Wait(); codes[i] = cmd.ProcessState.ExitCode() })
	}
	wg.Wait()
	paid, refused := 0, 0
	for _, c := range codes {
		switch c {
		case 0:
			paid++
		case 1:
			refused++
		}
	}
	if paid != 1 || refused != n-1 {
		t.Fatalf("exit codes %v: %d paid, %d refused", codes, paid, refused)
	}
	l = mustOpen(t, path)
	cs, _ := l.Claims(context.Background(), ClaimFilter{})
	refs, _ := l.Attempts(context.Background(), time.Time{})
	if len(cs) != 1 || len(refs) != n-1 {
		t.Errorf("%d claims, %d refusals", len(cs), len(refs))
	}
}

// TestTamper changes a ticket's bytes and a claim with the sqlite3 tool,
// dropping the protective triggers as an attacker can, and putting them
// back so that the file opens (a file without them is refused: see
// TestHostileFiles).
func TestTamper(t *testing.T) {
	sqlite3, err := exec.LookPath("sqlite3")
	if err != nil {
		t.Fatal("the sqlite3 tool is not installed: make test installs it (make deps-test)")
	}
	ctx := context.Background()
	path := copyFixture(t)
	l := mustOpen(t, path)
	b, _ := l.Block(ctx, 531, 1)
	w := ticketsWith(t, l, b, 15, 2)
	c1, err := l.Claim(ctx, claimReq(serialOf(b, w[0]), Identity{Desk: "D1", Operator: "ann"}))
	if err != nil {
		t.Fatal(err)
	}
	c2, err := l.Claim(ctx, claimReq(serialOf(b, w[1]), Identity{Desk: "D1", Operator: "ann"}))
	if err != nil {
		t.Fatal(err)
	}
	// And a loser made a 3 € winner in its prize byte.
	loser := ticketsWith(t, l, b, 0, 1000)[999]
	l.Close()

	// The last byte of the victim's encoding inside its pack's codes
	// (substr counts from 1).
	const victim = 123456
	packRow := b.PackID(victim)
	k := (victim%game.PackSize)*game.EncodedSize + game.EncodedSize
	out, err := exec.Command(sqlite3, path, fmt.Sprintf("SELECT hex(substr(codes, %d, 1)) FROM packs WHERE id = %d", k, packRow)).Output()
	if err != nil {
		t.Fatal(err)
	}
	var last int
	fmt.Sscanf(strings.TrimSpace(string(out)), "%x", &last)
	script := fmt.Sprintf(`DROP TRIGGER packs_no_update; DROP TRIGGER journal_no_update;
UPDATE packs SET codes = CAST(substr(codes, 1, %d) || x'%02x' || substr(codes, %d) AS BLOB) WHERE id = %d;
UPDATE packs SET prizes = CAST(substr(prizes, 1, %d) || x'08' || substr(prizes, %d) AS BLOB) WHERE id = %d;
UPDATE journal SET amount = 1000 WHERE id = %d;
CREATE TRIGGER journal_no_update BEFORE UPDATE ON journal
BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END;
CREATE TRIGGER packs_no_update BEFORE UPDATE ON packs
BEGIN SELECT RAISE(ABORT, 'tickets are never changed'); END;`, k-1, last^0x01, k+1, packRow,
		loser%game.PackSize, loser%game.PackSize+2, b.PackID(loser), c2.Entry)
	if out, err := exec.Command(sqlite3, path, script).CombinedOutput(); err != nil {
		t.Fatalf("sqlite3: %v\n%s", err, out)
	}
	if out, _ := exec.Command(sqlite3, path, fmt.Sprintf("SELECT typeof(codes), length(codes) FROM packs WHERE id = %d", packRow)).Output(); strings.TrimSpace(string(out)) != fmt.Sprintf("blob|%d", packCodesSize) {
		t.Fatalf("tampered pack row: %s", out)
	}

	l = mustOpen(t, path)
	rep, err := l.Verify(ctx, 0, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.OK() {
		t.Fatal("verify found nothing")
	}
	var text []string
	for _, p := range rep.Problems {
		text = append(text, p.String())
	}
	all := strings.Join(text, "\n")
	t.Log(all)
	for _, want := range []string{
		fmt.Sprintf("block 531/1 pack %d:", victim/game.PackSize),
		fmt.Sprintf("block 531/1 ticket %d: contents win 0 €, the ledger says 3 €", loser),
		"block 531/1 finder:",
		"block 531/1: 160001 tickets win 3 €",
		"block 531/1: digest",
		fmt.Sprintf("payment %d:", c2.Number),
	} {
		if !strings.Contains(all, want) {
			t.Errorf("problems do not name %q", want)
		}
	}
	if strings.Contains(all, fmt.Sprintf("payment %d:", c1.Number)) {
		t.Errorf("untouched payment %d named", c1.Number)
	}
}
