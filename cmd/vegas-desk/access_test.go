package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"vegas-desk/internal/ledger/ledgertest"
)

// Every command of the table declares the ledger access it needs, and the
// commands that only read are declared read: the table opens them
// read-only.
func TestEveryCommandDeclaresAccess(t *testing.T) {
	root := (&cli{}).commands()
	known := slices.Collect(func(yield func(string) bool) {
		for _, n := range accessNames {
			yield(n)
		}
	})
	var reads []string
	var walk func(*cobra.Command)
	walk = func(cmd *cobra.Command) {
		for _, sub := range cmd.Commands() {
			walk(sub)
		}
		if cmd == root || !cmd.Runnable() || cmd.Name() == "help" || cmd.HasParent() && cmd.Parent().Name() == "completion" ||
			cmd.HasSubCommands() && cmd.Annotations == nil { // a group (packs, desks, seed)
			return
		}
		path := strings.TrimPrefix(cmd.CommandPath(), root.Name()+" ")
		a, ok := cmd.Annotations["access"]
		if !ok || !slices.Contains(known, a) {
			t.Errorf("%s declares no access (%q)", path, a)
		}
		if a == "read" {
			reads = append(reads, path)
		}
	}
	walk(root)
	slices.Sort(reads)
	want := []string{"attempts", "blocks", "cases", "certificate", "claims", "daily", "desks list", "emission", "export", "lookup",
		"packs labels", "packs list", "receipt", "referrals", "render", "report", "settings", "settlement", "verify"}
	if !slices.Equal(reads, want) {
		t.Errorf("the commands declared read:\n%v\nwant\n%v", reads, want)
	}
}

// The access each command line opens the ledger with, as perform hears it.
func TestAccessOpened(t *testing.T) {
	db := ledgertest.Copy(t, ledgertest.Block)
	winner := serials(t).Winners[50][0]
	var got []access
	testOpened = func(a access) { got = append(got, a) }
	defer func() { testOpened = nil }()
	for _, tc := range []struct {
		args []string
		want access
	}{
		{[]string{"blocks"}, read},
		{[]string{"lookup", winner}, read},
		{[]string{"emission"}, read},
		{[]string{"emission", "--on-sale", "2025-01-01"}, write},
		{[]string{"settings"}, read},
		{[]string{"settings", "--claim-days", "90"}, write},
		{[]string{"claim", winner, "--desk", "C1", "--operator", "ann"}, write},
		{[]string{"catalogue"}, none},
	} {
		got = nil
		if _, errs, code := vd(t, db, "", tc.args...); code != 0 || !slices.Equal(got, []access{tc.want}) {
			t.Errorf("%v: exit %d, opened %v, want %v\n%s", tc.args, code, got, tc.want, errs)
		}
	}
	// Bad input is said before any ledger is opened.
	got = nil
	if _, errs, code := vd(t, db, "", "claim", "531-0001-0000042-1554-0477-0488-4562-3"); code != 2 || len(got) != 0 {
		t.Errorf("claim of a mistyped serial: exit %d, opened %v\n%s", code, got, errs)
	}
}

// childArgs names the environment variable that makes the test binary run
// one command line (its arguments, in JSON) as vegas-desk does, and exit
// (TestMain).
const childArgs = "VEGAS_DESK_TEST_COMMAND"

// runChild runs the command line of childArgs, if any.
func runChild() {
	args, ok := os.LookupEnv(childArgs)
	if !ok {
		return
	}
	var list []string
	if err := json.Unmarshal([]byte(args), &list); err != nil {
		panic(err)
	}
	os.Exit(run(list, os.Stdin, os.Stdout, os.Stderr))
}

// unprivileged runs one command line in a process of its own that file
// permissions bind: as root, without the capabilities that override them
// (setpriv), so that a file of mode 0400 is read-only to it as it is to
// any other account.
func unprivileged(t *testing.T, env []string, args ...string) (string, string, int) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	enc, _ := json.Marshal(args)
	cmd := exec.Command(self)
	if os.Geteuid() == 0 {
		cmd = exec.Command("setpriv", "--bounding-set=-dac_override,-dac_read_search,-fowner", "--inh-caps=-all", "--", self)
	}
	cmd.Env = append(append(os.Environ(), childArgs+"="+string(enc)), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	code := cmd.ProcessState.ExitCode()
	if code < 0 {
		t.Fatalf("%v: %v\n%s", args, err, errb.String())
	}
	return out.String(), errb.String(), code
}

// A ledger file its user may not write (mode 0400): the commands that only
// read answer from it, and a command that writes is refused at once, in
// words that say why, not by the database's "attempt to write a readonly
// database" once it has half run; the file is left as it was.
func TestReadOnlyLedgerFile(t *testing.T) {
	db := ledgertest.Copy(t, ledgertest.Block)
	ss := serials(t)
	winner, loser := ss.Winners[50][0], ss.Losers[0]
	doc := docLine(t, db, loser)
	docFile := db + ".ticket.json"
	if err := os.WriteFile(docFile, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(db, 0o400); err != nil {
		t.Fatal(err)
	}
	before := digestOf(t, db)
	const unknown = "531-0001-0000042-1554-0477-0488-4562-2" // no ticket of the fixture's
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"blocks"}, 0, "531/1"},
		{[]string{"lookup", winner}, 0, "verdict"},
		{[]string{"lookup", unknown}, 1, "unknown serial"},
		{[]string{"check", docFile}, 0, "not-winner"},
		{[]string{"claims"}, 0, ""},
		{[]string{"daily"}, 0, "total"},
		{[]string{"attempts"}, 0, ""},
		{[]string{"referrals"}, 0, ""},
		{[]string{"cases"}, 0, ""},
		{[]string{"report", "--block", "1"}, 0, "liability"},
		{[]string{"packs", "list"}, 0, ""},
		{[]string{"desks", "list"}, 0, ""},
		{[]string{"settings"}, 0, "identity threshold"},
		{[]string{"emission"}, 0, "on sale"},
	} {
		out, errs, code := unprivileged(t, nil, append([]string{"--db", db}, tc.args...)...)
		if code != tc.code || !strings.Contains(out+errs, tc.want) || strings.Contains(errs, "readonly database") {
			t.Errorf("%v on a read-only file: exit %d, want %d\n%s%s", tc.args, code, tc.code, out, errs)
		}
	}
	for _, args := range [][]string{
		{"claim", winner, "--desk", "C1", "--operator", "ann"},
		{"void", "1", "--reason", "a mistake"},
		{"desks", "add", "ZZ"},
		{"settings", "--identity-threshold", "100"},
		{"emission", "--on-sale", "2025-01-01"},
		{"packs", "activate", "--block", "1", "7"},
	} {
		out, errs, code := unprivileged(t, nil, append([]string{"--db", db}, args...)...)
		if code != 1 || !strings.Contains(errs, "ledger "+db+" cannot be written here") || strings.Contains(errs, "readonly database") || out != "" {
			t.Errorf("%v on a read-only file: exit %d, want 1 and why\n%s%s", args, code, out, errs)
		}
	}
	_, errs, code := unprivileged(t, []string{"LANG=fr_FR.UTF-8"}, "--db", db, "desks", "add", "ZZ")
	if code != 1 || !strings.Contains(errs, "le registre "+db+" ne peut pas être écrit ici") {
		t.Errorf("desks add on a read-only file, in French: exit %d\n%s", code, errs)
	}
	if after := digestOf(t, db); after != before {
		t.Errorf("the read-only file changed: %s, was %s", after, before)
	}
}
