package main

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/ledgertest"
)

// run1 without a ledger: the command line's help and completion.
func vdNone(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), code
}

// Every command and subcommand has its own --help: what it does, its
// flags with their defaults, an example; exit 0, on the standard output.
func TestEveryCommandHelp(t *testing.T) {
	t.Setenv("LANG", "C")
	var walk func(cmd *cobra.Command)
	n := 0
	walk = func(cmd *cobra.Command) {
		for _, sub := range cmd.Commands() {
			path := strings.Fields(strings.TrimPrefix(sub.CommandPath(), "vegas-desk "))
			out, errs, code := vdNone(t, append(path, "--help")...)
			if code != 0 || errs != "" || !strings.Contains(out, "Usage:") || !strings.Contains(out, sub.Short) {
				t.Errorf("%s --help: exit %d\n%s\n%s", sub.CommandPath(), code, out, errs)
			}
			if sub.Runnable() && sub.Name() != "help" && sub.Name() != "completion" && !strings.HasPrefix(sub.Name(), "__") &&
				(!strings.Contains(out, "Examples:\n  vegas-desk ") || !strings.Contains(out, "Flags:")) {
				t.Errorf("%s --help lacks an example or its flags:\n%s", sub.CommandPath(), out)
			}
			n++
			walk(sub)
		}
	}
	walk((&cli{}).commands())
	if n < 50 {
		t.Errorf("%d commands walked", n)
	}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"claim", "--help"}, []string{"vegas-desk claim SERIAL [flags]", `--method serial|contents`, `(default serial)`, "--winner-doc-number NUMBER", "--db PATH|URL", "--desk ID"}},
		{[]string{"desks", "--help"}, []string{"add", "cert", "revoke", "unlock", "limit"}},
		{[]string{"desks", "add", "--help"}, []string{"--limit EUROS", "(default 150)", "--out FILE", "vegas-desk desks add C1"}},
		{[]string{"receipt", "--help"}, []string{"-o, --output FILE", "--printer QUEUE"}},
		{[]string{"help"}, []string{"Exit status: 0 ok, 1 refused", "claim", "serve", "completion"}},
		{[]string{"help", "packs"}, []string{"deliver", "labels", "PACK is a pack number"}},
		{[]string{"packs", "help"}, []string{"deliver", "labels", "PACK is a pack number"}},
		{[]string{"claim", "-help"}, []string{"vegas-desk claim SERIAL [flags]"}}, // Go's flag package's way
	} {
		out, errs, code := vdNone(t, tc.args...)
		for _, w := range tc.want {
			if code != 0 || !strings.Contains(out, w) {
				t.Errorf("%v: exit %d, want %q in\n%s%s", tc.args, code, w, out, errs)
			}
		}
	}
}

// Usage errors stay exit 2, each naming what was wrong and whose help to read.
func TestUsageErrors(t *testing.T) {
	t.Setenv("LANG", "C")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"claim"}, "claim: want one SERIAL, got 0 argument(s) (see vegas-desk claim --help)"},
		{[]string{"claim", "--frob", "x"}, "unknown flag: --frob (see vegas-desk claim --help)"},
		{[]string{"desks"}, "desks: want add, cert, revoke, list, disable, enable, unlock or limit (see vegas-desk desks --help)"},
		{[]string{"desks", "password", "D1"}, `desks "password": want add`},
		{[]string{"desks", "limit", "D1"}, "desks limit: want a desk ID and a limit in euros, got 1 argument(s) (see vegas-desk desks limit --help)"},
		{[]string{"packs"}, "packs: want deliver, receive"},
		{[]string{"lookup", "x", "--limit", "-3"}, "give a payout limit of 0 or more euros"},
	} {
		_, errs, code := vdNone(t, tc.args...)
		if code != exitUsage || !strings.Contains(errs, tc.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, want %q in\n%s", tc.args, code, tc.want, errs)
		}
	}
}

// vegas-desk completion bash is a script bash takes (complete -p names
// vegas-desk), and what it asks (__complete) names the commands, the
// subcommands and the flags; completion powershell registers vegas-desk's
// completer, which asks the same.
func TestCompletion(t *testing.T) {
	dir := t.TempDir()
	out, errs, code := vdNone(t, "completion", "bash")
	if code != 0 || errs != "" {
		t.Fatalf("completion bash: exit %d %s", code, errs)
	}
	script := filepath.Join(dir, "vegas-desk.bash")
	if err := os.WriteFile(script, []byte(out), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := exec.Command("bash", "--norc", "--noprofile", "-c", "source "+script+" && complete -p vegas-desk").CombinedOutput()
	if err != nil || !strings.Contains(string(got), "complete -o default -F __start_vegas-desk vegas-desk") {
		t.Errorf("bash: %v\n%s", err, got)
	}
	out, _, code = vdNone(t, "completion", "powershell")
	if code != 0 || !strings.Contains(out, "Register-ArgumentCompleter -CommandName 'vegas-desk'") || !strings.Contains(out, "__complete") {
		t.Errorf("completion powershell: exit %d\n%.400s", code, out)
	}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"__complete", ""}, []string{"claim\t", "desks\t", "packs\t", "serve\t"}},
		{[]string{"__complete", "desks", ""}, []string{"add\t", "unlock\t", "revoke\t"}},
		{[]string{"__complete", "claim", "--w"}, []string{"--winner-name\t", "--winner-doc\t"}},
	} {
		out, _, code := vdNone(t, tc.args...)
		for _, w := range tc.want {
			if code != 0 || !strings.Contains(out, w) {
				t.Errorf("%v: exit %d, want %q in\n%s", tc.args, code, w, out)
			}
		}
	}
}

// The command line speaks French where the locale says French (LC_ALL,
// LC_MESSAGES, LANG), English elsewhere: its help, its usage errors, the
// ledger's refusals and the verdict lines it prints.
func TestFrench(t *testing.T) {
	db := ledgertest.Copy(t, ledgertest.Block)
	ss := serials(t)
	loser, winner := ss.Losers[0], ss.Winners[15][1]
	for _, tc := range []struct {
		env    map[string]string
		french bool
	}{
		{map[string]string{"LANG": "fr_FR.UTF-8"}, true},
		{map[string]string{"LANG": "C"}, false},
		{map[string]string{"LANG": "C", "LC_MESSAGES": "fr_BE.UTF-8"}, true},
		{map[string]string{"LANG": "fr_FR.UTF-8", "LC_ALL": "C.UTF-8"}, false},
	} {
		for k, v := range tc.env {
			t.Setenv(k, v)
		}
		pick := func(en, fr string) string {
			if tc.french {
				return fr
			}
			return en
		}
		checks := []struct {
			args         []string
			code         int
			stdout, errs string
		}{
			{[]string{"claim", "--help"}, 0, pick("pay a winning ticket (its verdict: PAID, or why not)\n\nUsage:\n  vegas-desk claim SERIAL [flags]",
				"payer un ticket gagnant (son verdict : PAYÉ, ou pourquoi pas)\n\nUtilisation :\n  vegas-desk claim SERIAL [options]"), ""},
			{[]string{"claim", "--help"}, 0, pick(`--method serial|contents     how the ticket was identified: serial or contents (default serial)`,
				`--method serial|contents     comment le ticket a été identifié : serial (numéro) ou contents (contenu) (par défaut serial)`), ""},
			{[]string{"desks"}, 2, "", pick("vegas-desk: desks: want add, cert, revoke, list, disable, enable, unlock or limit (see vegas-desk desks --help)\n",
				"vegas-desk: desks : il faut add, cert, revoke, list, disable, enable, unlock ou limit (voir vegas-desk desks --help)\n")},
			{[]string{"claim"}, 2, "", pick("vegas-desk: claim: want one SERIAL, got 0 argument(s) (see vegas-desk claim --help)\n",
				"vegas-desk: claim : il faut un NUMÉRO de ticket, reçu 0 argument(s) (voir vegas-desk claim --help)\n")},
			{[]string{"claim", "--frob"}, 2, "", pick("vegas-desk: unknown flag: --frob (see vegas-desk claim --help)\n",
				"vegas-desk: option inconnue : --frob (voir vegas-desk claim --help)\n")},
			{[]string{"lookup", "531-0001-00"}, 2, "", pick(`vegas-desk: serial "531-0001-00": not a serial: 9 digits where a serial has 31`,
				`vegas-desk: ticket "531-0001-00" : pas un numéro : 9 chiffres là où un numéro en a 31`)},
			{[]string{"report", "--block", "abc"}, 2, "", pick(`vegas-desk: invalid argument "abc" for "--block" flag: strconv.ParseInt: parsing "abc": invalid syntax`,
				"vegas-desk: valeur « abc » de --block refusée : pas un nombre")},
			{[]string{"claim", loser, "--limit", "-1"}, 2, "", pick("vegas-desk: invalid argument \"-1\" for \"--limit\" flag: give a payout limit of 0 or more euros",
				"vegas-desk: valeur « -1 » de --limit refusée : donnez un plafond de paiement de 0 euro ou plus")},
			{[]string{"void", "abc", "--reason", "x"}, 2, "", pick(`vegas-desk: void: payment number "abc": want the number the claims command shows`,
				"vegas-desk: void : numéro de paiement « abc » : il faut le numéro que montre la commande claims")},
			{[]string{"cases", "close", "0", "--reason", "x"}, 2, "", pick(`vegas-desk: cases close: payment number "0": want the number the cases command shows`,
				"vegas-desk: cases close : numéro de paiement « 0 » : il faut le numéro que montre la commande cases")},
			{[]string{"claim", loser}, 1, "", pick("vegas-desk: serial "+loser+": this ticket loses, there is nothing to pay\n",
				"vegas-desk: ticket "+loser+" : ce ticket est perdant, il n'y a rien à payer\n")},
			{[]string{"claim", winner, "--desk", "C9", "--operator", "anne"}, 0, pick("PAY 15 €\npayment 1: 15 € paid ", "PAYEZ 15 €\npaiement 1 : 15 € payé le "), ""},
			{[]string{"claim", winner}, 1, "", pick("vegas-desk: serial "+winner+": already claimed: payment n° ",
				"vegas-desk: ticket "+winner+" : déjà payé : paiement n° ")},
		}
		for _, ch := range checks {
			out, errs, code := vd(t, db, "", ch.args...)
			if code != ch.code || !strings.Contains(out, ch.stdout) || !strings.HasPrefix(errs, ch.errs) {
				t.Errorf("%v %v: exit %d (want %d)\nstdout %s\n(want %q)\nstderr %s\n(want %q)", tc.env, ch.args, code, ch.code, out, ch.stdout, errs, ch.errs)
			}
		}
		// Each round pays its winner again: a new ledger a round.
		db = ledgertest.Copy(t, ledgertest.Block)
		for k := range tc.env {
			os.Unsetenv(k)
		}
	}
}

// serve --init's next commands, run as they are printed (a directory of
// the authority with a space, not the default one): the first adds the
// desk and writes its desk file, the second's settings pass serve --check.
func TestServeInitNext(t *testing.T) {
	t.Setenv("VEGAS_DESK_PASSPHRASE", ledgertest.Passphrase)
	db := ledgertest.Copy(t, ledgertest.Block)
	work := t.TempDir()
	t.Chdir(work)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	out, errs, code := vd(t, db, "", "serve", "--init", "--dir", filepath.Join(work, "l'autorité du siège"), "--host", "127.0.0.1", "--listen", addr)
	if code != 0 {
		t.Fatalf("serve --init: exit %d\n%s%s", code, out, errs)
	}
	var next [][]string
	for _, line := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(line, "  vegas-desk "); ok {
			next = append(next, shellWords(t, rest))
		}
	}
	if len(next) != 2 || !strings.Contains(out, "--dir '") {
		t.Fatalf("serve --init's next commands:\n%s", out)
	}
	var o, e bytes.Buffer
	if code := run(next[0], strings.NewReader(""), &o, &e); code != 0 {
		t.Fatalf("%v: exit %d\n%s%s", next[0], code, o.String(), e.String())
	}
	if st, err := os.Stat(filepath.Join(work, "C1.desk")); err != nil || st.Size() == 0 {
		t.Fatalf("no desk file C1.desk: %v", err)
	}
	o.Reset()
	if code := run(append(next[1], "--check"), strings.NewReader(""), &o, &e); code != 0 {
		t.Fatalf("%v --check: exit %d\n%s%s", next[1], code, o.String(), e.String())
	}
}

// shellWords splits a command line as a POSIX shell does words and
// single quotes.
func shellWords(t *testing.T, s string) []string {
	out, err := exec.Command("bash", "-c", `for w in `+s+`; do printf '%s\0' "$w"; done`).Output()
	if err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
}

// Every help text of the tree (a command's, a flag's) has its French,
// but for cobra's long texts of completion's scripts (their commands are
// the same in every language).
func TestFrenchHelpComplete(t *testing.T) {
	root := (&cli{}).commands()
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	missing := map[string]bool{}
	check := func(s string) {
		if _, ok := frenchMessages()[strings.ReplaceAll(s, "%", "%%")]; s != "" && !ok {
			missing[s] = true
		}
	}
	var walk func(*cobra.Command)
	walk = func(cmd *cobra.Command) {
		check(cmd.Short)
		if cmd.Parent() == nil || cmd.Parent().Name() != "completion" && cmd.Name() != "completion" {
			check(cmd.Long)
		}
		cmd.LocalNonPersistentFlags().VisitAll(func(f *pflag.Flag) { check(f.Usage) })
		for _, sub := range cmd.Commands() {
			walk(sub)
		}
	}
	root.PersistentFlags().VisitAll(func(f *pflag.Flag) { check(f.Usage) })
	walk(root)
	for s := range missing {
		t.Errorf("no French for %q", s)
	}
}

// A validation server's refusals of the desk, in French: what they mean
// and whom to call, then the server's own words.
func TestFrenchServerRefusals(t *testing.T) {
	t.Setenv("VEGAS_DESK_PASSPHRASE", ledgertest.Passphrase)
	file := ledgertest.Copy(t, ledgertest.Block)
	dir := filepath.Join(t.TempDir(), "ca")
	desk := filepath.Join(t.TempDir(), "C1.desk")
	for _, args := range [][]string{{"serve", "--init", "--dir", dir, "--host", "127.0.0.1"}, {"desks", "add", "C1", "--out", desk, "--dir", dir}} {
		if out, errs, code := vd(t, file, "", args...); code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", args, code, out, errs)
		}
	}
	_, _, url := startServer(t, file, dir)
	claim := func() (string, int) {
		_, errs, code := vd(t, file, "", "--server", url, "--desk-cert", desk, "claim", serials(t).Winners[15][4])
		return errs, code
	}
	if _, errs, code := vd(t, file, "", "desks", "disable", "C1"); code != 0 {
		t.Fatal(errs)
	}
	t.Setenv("LANG", "fr_FR.UTF-8")
	if errs, code := claim(); code != 1 || !strings.HasPrefix(errs, "vegas-desk: ce guichet est désactivé : appelez le siège (") || !strings.Contains(errs, "C1") {
		t.Errorf("a disabled desk's claim: exit %d %s", code, errs)
	}
	t.Setenv("LANG", "C")
	if errs, code := claim(); code != 1 || strings.Contains(errs, "siège") || !strings.Contains(errs, "disabled") {
		t.Errorf("a disabled desk's claim, in English: exit %d %s", code, errs)
	}
	vd(t, file, "", "desks", "enable", "C1")
	if _, errs, code := vd(t, file, "", "desks", "cert", "C1", "--out", filepath.Join(t.TempDir(), "new.desk"), "--dir", dir); code != 0 {
		t.Fatal(errs)
	}
	t.Setenv("LANG", "fr_FR.UTF-8")
	if errs, code := claim(); code != 1 || !strings.HasPrefix(errs, "vegas-desk: ce fichier de guichet est révoqué : demandez le nouveau au siège (") {
		t.Errorf("a revoked desk file's claim: exit %d %s", code, errs)
	}
}

// Every serial and pack code in the help's examples is one the command
// line accepts: its check digit right (the examples of claim, lookup and
// render had a wrong one).
func TestHelpExampleSerials(t *testing.T) {
	serial := regexp.MustCompile(`\b\d{3}-\d{4}-\d{7}(?:-\d{4}){4}-\d\b`)
	pack := regexp.MustCompile(`\b\d{3}-\d{4}-\d{4}-\d\b`)
	n := 0
	var walk func(cmd *cobra.Command)
	walk = func(cmd *cobra.Command) {
		for _, text := range []string{cmd.Example, cmd.Long} {
			for _, s := range serial.FindAllString(text, -1) {
				n++
				if _, err := game.ParseSerial(s); err != nil {
					t.Errorf("%s's help: %v", cmd.CommandPath(), err)
				}
			}
			for _, s := range pack.FindAllString(serial.ReplaceAllString(text, ""), -1) {
				n++
				if _, err := game.ParsePackCode(s); err != nil {
					t.Errorf("%s's help: %v", cmd.CommandPath(), err)
				}
			}
		}
		for _, sub := range cmd.Commands() {
			walk(sub)
		}
	}
	walk((&cli{}).commands())
	if n < 4 {
		t.Errorf("%d serials in the examples", n)
	}
}
