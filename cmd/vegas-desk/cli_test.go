package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/ledgertest"
	"vegas-desk/internal/ticketart"
)

// vd runs one command line in-process against db.
func vd(t *testing.T, db, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(append([]string{"--db", db}, args...), strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), code
}

// generate and export, on a new ledger: the only block the command line's
// tests generate (the others copy ledgertest's), drawn from the operator's
// and the auditor's secrets (the ceremony of docs/ceremony.md), whose
// certificate verify-certificate checks and refuses when its drawing is
// not one (drawnCertificate).
func TestGenerateCLI(t *testing.T) {
	db, files := ceremony(t)
	t.Run("certificate", func(t *testing.T) { drawnCertificate(t, db, files) })
	if out, _, code := vd(t, db, "", "blocks"); code != 0 || !strings.Contains(out, "531/1") {
		t.Errorf("blocks: exit %d\n%s", code, out)
	}
	// An export read by a reader that stops after its first lines (export
	// | head -3): the lines it got are tickets, and the back office is
	// warned of what an export gives away.
	head := &firstLines{n: 3}
	var errb bytes.Buffer
	code := run([]string{"--db", db, "export", "--block", "1"}, strings.NewReader(""), head, &errb)
	if code != 1 || len(head.lines) != 3 || !strings.Contains(errb.String(), "WARNING") || !strings.Contains(errb.String(), "claim every unpaid winner") {
		t.Fatalf("export | head -3: exit %d, %d lines\n%s", code, len(head.lines), errb.String())
	}
	for i, ln := range head.lines {
		if in, err := game.ParseDoc([]byte(ln)); err != nil || in.Prize == nil || !strings.HasPrefix(in.Serial, "531-0001-") {
			t.Errorf("line %d: %v %s", i, err, ln)
		}
	}
}

// firstLines keeps the first n lines written to it, then refuses more, as
// a closed pipe does.
type firstLines struct {
	n     int
	lines []string
	rest  string
}

func (w *firstLines) Write(p []byte) (int, error) {
	w.rest += string(p)
	for len(w.lines) < w.n {
		ln, rest, ok := strings.Cut(w.rest, "\n")
		if !ok {
			return len(p), nil
		}
		w.lines, w.rest = append(w.lines, ln), rest
	}
	return 0, io.ErrClosedPipe
}

func TestCLI(t *testing.T) {
	db := ledgertest.Copy(t, ledgertest.Block)
	ss := serials(t)
	winner, loser, winnerPrize := ss.Winners[15][0], ss.Losers[0], 15
	winnerLine := docLine(t, db, winner)

	// Flags after the positional argument.
	out, _, code := vd(t, db, "", "lookup", winner, "--json")
	var lk map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &lk) != nil {
		t.Fatalf("lookup: %d %s", code, out)
	}
	for _, k := range []string{"serial", "block", "pack", "prize", "status", "ticket", "claim"} {
		if _, ok := lk[k]; !ok {
			t.Errorf("lookup json lacks %q", k)
		}
	}
	if lk["status"] != "unpaid" {
		t.Errorf("status %v", lk["status"])
	}

	// Times are shown in local time, to the second, as the claims command
	// shows them.
	today := time.Now().Format("2006-01-02 ")
	bad := []byte(winner)
	bad[len(bad)-1] = '0' + (bad[len(bad)-1]-'0'+1)%10
	tests := []struct {
		name   string
		args   []string
		stdin  string
		code   int
		stdout string
		stderr string
	}{
		{"lookup bad check digit", []string{"lookup", string(bad)}, "", 2, "",
			"vegas-desk: serial \"" + string(bad) + "\": check digit does not match: a digit was mistyped; type the serial again\n"},
		{"lookup unknown block", []string{"lookup", game.Serial{Game: 531, Block: 9, Position: 1}.String()}, "", 1, "", "unknown serial"},
		{"claim", []string{"claim", winner, "--desk", "D1", "--operator", "ann"}, "", 0, "PAY", ""},
		{"claim again", []string{"claim", winner, "--desk", "D2", "--operator", "bob"}, "", 1, "", `at desk "D1" by "ann"`},
		{"claim loser", []string{"claim", loser}, "", 1, "", "this ticket loses"},
		{"claims csv", []string{"claims", "--block", "1", "--csv"}, "", 0, "number,at,serial,game", ""},
		{"claims json", []string{"claims", "--json"}, "", 0, `"operator": "ann"`, ""},
		{"void without reason", []string{"void", "1"}, "", 2, "", "--reason"},
		{"void", []string{"void", "1", "--reason", "wrong ticket"}, "", 0, "payment 1 voided " + today, ""},
		{"void again", []string{"void", "1", "--reason", "twice"}, "", 1, "", "already voided on " + today},
		{"daily of a desk whose one claim was voided", []string{"daily", "--desk", "D1"}, "", 0, "total                             0 claims            0 €\n", ""},
		{"claim after void", []string{"claim", winner, "--desk", "D2"}, "", 0, "PAY", ""},
		{"report", []string{"report", "--block", "1", "--json"}, "", 0, `"liability"`, ""},
		{"report no block", []string{"report"}, "", 2, "", "--block"},
		{"blocks", []string{"blocks"}, "", 0, "531/1", ""},
		{"check winner", []string{"check", "--json", "-"}, winnerLine, 0, `"status": "paid"`, ""},
		{"check invalid", []string{"check", "-"}, `{"roulette":{"winning":[3,3,3,3],"bets":[]},"craps":{"dice":[9,1],"amount":3},"duel":{"cards":["2","2","2"],"bank":"AS","amount":3},"jackpot":[],"bonus":0}`, 2, "", "roulette.winning"},
		{"verify", []string{"verify", "--json"}, "", 0, `"ok": true`, ""},
		{"catalogue", []string{"catalogue"}, "", 0, "ROULETTE", ""},
		{"unknown command", []string{"frobnicate"}, "", 2, "", "unknown command"},
		{"daily", []string{"daily"}, "", 0, fmt.Sprintf("  %-16s %6d %-6s %12s €\ntotal", "D2", 1, "claim", game.GroupDigits(winnerPrize)), ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, errs, code := vd(t, db, tc.stdin, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d\nstdout %s\nstderr %s", code, tc.code, out, errs)
			}
			if !strings.Contains(out, tc.stdout) {
				t.Errorf("stdout %q lacks %q", out, tc.stdout)
			}
			if !strings.Contains(errs, tc.stderr) {
				t.Errorf("stderr %q lacks %q", errs, tc.stderr)
			}
		})
	}
	// Each fault of invalid contents on its own line.
	var invalid string
	for _, tc := range tests {
		if tc.name == "check invalid" {
			invalid = tc.stdin
		}
	}
	_, errs, _ := vd(t, db, invalid, "check", "-")
	if n := strings.Count(errs, "\n"); n < 4 {
		t.Errorf("only %d stderr lines:\n%s", n, errs)
	}

	t.Run("a wrong secret is recorded", func(t *testing.T) {
		s, err := game.ParseSerial(winner)
		if err != nil {
			t.Fatal(err)
		}
		s.Secret = (s.Secret + 1) % game.SecretModulus
		_, errs, code := vd(t, db, "", "lookup", s.String(), "--desk", "D9")
		if code != 1 || !strings.Contains(errs, "unknown serial") {
			t.Errorf("exit %d, %s", code, errs)
		}
		l, err := ledger.OpenReadOnly(db)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		rs, err := l.Attempts(context.Background(), time.Time{})
		if err != nil || len(rs) == 0 || rs[len(rs)-1].Serial != s.String() || rs[len(rs)-1].Desk != "D9" {
			t.Errorf("refusals %+v, %v; want the last for %s at D9", rs, err, s)
		}
	})

	t.Run("check against the ledger", func(t *testing.T) {
		var d game.Doc
		if err := json.Unmarshal([]byte(winnerLine), &d); err != nil {
			t.Fatal(err)
		}
		// Another ticket's serial on these contents.
		d.Serial = loser
		other, _ := json.Marshal(d)
		out, _, code := vd(t, db, string(other), "check", "--json", "-")
		if code != 0 || !strings.Contains(out, `"genuine": false`) || !strings.Contains(out, "is not the serial of the ledger's ticket") {
			t.Errorf("winning contents under a loser's serial: exit %d\n%s", code, out)
		}
		// Winning contents that no ticket of the ledger shows: a losing
		// jackpot line with another amount.
		d.Serial = ""
		for i, l := range d.Jackpot {
			if l.Symbols[0] != l.Symbols[1] || l.Symbols[1] != l.Symbols[2] {
				d.Jackpot[i].Amount = 3
				if l.Amount == 3 {
					d.Jackpot[i].Amount = 6
				}
				break
			}
		}
		forged, _ := json.Marshal(d)
		out, _, code = vd(t, db, string(forged), "check", "--json", "-")
		if code != 0 || !strings.Contains(out, `"genuine": false`) || !strings.Contains(out, "no ticket of the ledger shows these contents") {
			t.Errorf("contents the ledger does not hold: exit %d\n%s", code, out)
		}
	})

	t.Run("no ledger at a mistyped path", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "typo.db")
		for _, cmd := range [][]string{{"verify"}, {"blocks"}, {"lookup", winner}, {"claims"}} {
			_, errs, code := vd(t, p, "", cmd...)
			if code != 2 || !strings.Contains(errs, "no ledger at "+p) {
				t.Errorf("%v: exit %d, %s", cmd, code, errs)
			}
		}
		if _, err := os.Stat(p); err == nil {
			t.Error("a read command created a ledger")
		}
	})

	t.Run("render", func(t *testing.T) {
		dir := privateDir(t)
		path := filepath.Join(dir, "ticket.png")
		if _, errs, code := vd(t, db, "", "render", winner, "-o", path); code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		assertRendered(t, db, winner, path)
		// A failed render leaves the file that was there, and nothing else.
		if err := os.WriteFile(path, []byte("keep"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, _, code := vd(t, db, "", "render", string(bad), "-o", path); code != 2 {
			t.Errorf("render of a mistyped serial: exit %d", code)
		}
		if b, _ := os.ReadFile(path); string(b) != "keep" {
			t.Error("a failed render changed the file")
		}
		if es, _ := os.ReadDir(dir); len(es) != 1 {
			t.Errorf("%d files left in the directory", len(es))
		}
	})

	// The binaries themselves: make cli renders, and no command of the full
	// build lets Fyne write to its output.
	t.Run("the command-line build renders", func(t *testing.T) {
		bin := build(t, "0", "nogui")
		path := filepath.Join(privateDir(t), "ticket.png")
		cmd := exec.Command(bin, "--db", db, "render", winner, "-o", path)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		assertRendered(t, db, winner, path)
	})
	t.Run("nothing from Fyne in a command's output", func(t *testing.T) {
		bin := build(t, "0", "ci,migrated_fynedo")
		for _, locale := range []string{"LANG=C", "LANG=C.UTF-8", "LC_ALL=C.utf8", "LANG=fr_FR.UTF-8"} {
			var stderr bytes.Buffer
			cmd := exec.Command(bin, "--db", db, "blocks")
			cmd.Env = append(withoutLocale(os.Environ()), locale)
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil || stderr.Len() > 0 || !strings.Contains(string(out), "531/1") {
				t.Errorf("%s: %v\nstdout %s\nstderr %s", locale, err, out, stderr.String())
			}
		}
	})

	t.Run("not a ledger", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "notes.txt")
		os.WriteFile(p, []byte("hello"), 0o644)
		_, errs, code := vd(t, p, "", "blocks")
		if code != 1 || !strings.Contains(errs, "not a vegas-desk ledger") {
			t.Errorf("exit %d, %s", code, errs)
		}
		if b, _ := os.ReadFile(p); string(b) != "hello" {
			t.Error("file changed")
		}
	})
}

// assertRendered checks that the PNG at path is ticketart's drawing of the
// ledger's ticket serial.
func assertRendered(t *testing.T, db, serial, path string) {
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
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	want := ticketart.Draw(&tk.Ticket, &tk.Serial, ticketart.Options{})
	if img.Bounds() != want.Bounds() {
		t.Fatalf("size %v, want %v", img.Bounds(), want.Bounds())
	}
	for y := range want.Bounds().Dy() {
		for x := range want.Bounds().Dx() {
			r1, g1, b1, _ := img.At(x, y).RGBA()
			r2, g2, b2, _ := want.At(x, y).RGBA()
			if r1 != r2 || g1 != g2 || b1 != b2 {
				t.Fatalf("pixel (%d, %d) differs from ticketart's drawing", x, y)
			}
		}
	}
}

// build returns the path of this command built with the build tags tags
// (and cgo on or off): built once per test process, shared by the tests
// that run it (none writes to it), removed when the tests end (TestMain).
func build(t *testing.T, cgo, tags string) string {
	t.Helper()
	once, _ := builds.LoadOrStore(cgo+" "+tags, sync.OnceValues(func() (string, error) { return buildOnce(cgo, tags) }))
	bin, err := once.(func() (string, error))()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

var (
	builds    sync.Map // "cgo tags" → func() (string, error)
	builtMu   sync.Mutex
	builtDirs []string // removed by TestMain
)

func buildOnce(cgo, tags string) (string, error) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "vegas-desk-build-")
	if err != nil {
		return "", err
	}
	builtMu.Lock()
	builtDirs = append(builtDirs, dir)
	builtMu.Unlock()
	bin := filepath.Join(dir, "vegas-desk")
	cmd := exec.Command(goTool, "build", "-tags", tags, "-o", bin, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED="+cgo)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build -tags %s: %v\n%s", tags, err, out)
	}
	return bin, nil
}

// removeBuilds removes what build made.
func removeBuilds() {
	builtMu.Lock()
	defer builtMu.Unlock()
	for _, d := range builtDirs {
		os.RemoveAll(d)
	}
}

// withoutLocale drops the locale variables from env.
func withoutLocale(env []string) []string {
	var out []string
	for _, e := range env {
		if !strings.HasPrefix(e, "LANG") && !strings.HasPrefix(e, "LC_") {
			out = append(out, e)
		}
	}
	return out
}

// The shipped app links no test driver: the ticket picture is drawn by
// ticketart, not by Fyne's software canvas of its test package.
func TestAppLinksNoTestPackage(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ tags, cgo, banned string }{
		{"migrated_fynedo", "1", "fyne.io/fyne/v2/test"},
		{"nogui", "0", "fyne.io/"},
	} {
		cmd := exec.Command(goTool, "list", "-deps", "-tags", tc.tags, ".")
		cmd.Env = append(os.Environ(), "CGO_ENABLED="+tc.cgo)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list -tags %s: %v", tc.tags, err)
		}
		for _, p := range strings.Fields(string(out)) {
			if strings.HasPrefix(p, tc.banned) {
				t.Errorf("-tags %s links %s", tc.tags, p)
			}
		}
	}
}

// writeFile leaves an existing file as it was when the writing fails, and
// no temporary file.
func TestWriteFileKeepsTheOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ticket.png")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := writeFile(path, func(w io.Writer) error {
		io.WriteString(w, "half a pic")
		return errors.New("disk full")
	})
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("err = %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("the file now holds %q", b)
	}
	if es, _ := os.ReadDir(dir); len(es) != 1 {
		t.Errorf("%d files in the directory, want 1", len(es))
	}
	if err := writeFile(path, func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err }); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "new" {
		t.Errorf("the file holds %q, want new", b)
	}
}
