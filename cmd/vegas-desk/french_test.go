package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"vegas-desk/internal/ledger/ledgertest"
)

// words finds a word in a message: two letters, once the program's name
// and the format's verbs are taken out.
var (
	verbs = regexp.MustCompile(`%(\[\d+\])?[-+# 0]*\d*(\.\d+)?[a-zA-Z%]|vegas-desk`)
	words = regexp.MustCompile(`[A-Za-z]{2,}`)
)

func hasWords(s string) bool { return words.MatchString(verbs.ReplaceAllString(s, "")) }

// literal is e's text when e is a string literal or a sum of them.
func literal(e ast.Expr) (string, bool) {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind == token.STRING {
			s, err := strconv.Unquote(e.Value)
			return s, err == nil
		}
	case *ast.BinaryExpr:
		a, ok1 := literal(e.X)
		b, ok2 := literal(e.Y)
		return a + b, ok1 && ok2 && e.Op == token.ADD
	case *ast.ParenExpr:
		return literal(e.X)
	}
	return "", false
}

// untranslated are the texts left in English: load's progress and what
// its clean-up left behind, written where no cli is at hand (load.go,
// runLoad and cleanup); a Windows service's log line; sentinel errors,
// never printed.
var untranslated = map[string]bool{
	"%s s  %6.0f answers/s  p50 %6.2f ms  p99 %6.2f ms  chain delay p99 %6.2f ms\n":                                   true,
	"load: left behind: %s; desks _load-1 … _load-%d disabled (the journal keeps them; the next load enables them)\n": true,
	"serve ended": true,
	"refused":     true,
	"too large":   true,
}

// Every message the command line writes for a person goes through the
// French catalogue: each text given to tr, printf, badInput, text, count
// and plural is in it, and no fmt.Fprint* nor fmt.Errorf of the command
// line writes words of its own (a line added in English only fails here).
func TestFrenchCatalogueComplete(t *testing.T) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range pkgs["main"].Files {
		ast.Inspect(file, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			var name, pkg string
			switch f := call.Fun.(type) {
			case *ast.Ident:
				name = f.Name
			case *ast.SelectorExpr:
				name = f.Sel.Name
				if x, ok := f.X.(*ast.Ident); ok {
					pkg = x.Name
				}
			}
			var texts []int // the arguments that are texts to translate
			switch {
			case name == "tr" || name == "text" || name == "badInput" || name == "failf":
				texts = []int{0}
			case name == "printf" && pkg != "fmt":
				texts = []int{1}
			case name == "count" || name == "plural":
				texts = []int{1, 2}
			case pkg == "fmt" && (strings.HasPrefix(name, "Fprint") || name == "Errorf"), pkg == "errors" && name == "New":
				for _, a := range call.Args {
					if s, ok := literal(a); ok && hasWords(s) && !untranslated[s] {
						t.Errorf("%s: %s.%s writes %q: write it through c.printf, c.tr or failf, and put its French in messages_fr.go",
							fset.Position(a.Pos()), pkg, name, s)
					}
				}
			}
			for _, i := range texts {
				if i >= len(call.Args) {
					continue
				}
				s, ok := literal(call.Args[i])
				if !ok || !hasWords(s) {
					continue
				}
				key := s
				if name == "text" {
					key = strings.ReplaceAll(s, "%", "%%")
				}
				if _, ok := frenchMessages()[key]; !ok {
					t.Errorf("%s: %s(%q): no French in the catalogue (messages_fr.go, help_fr.go)", fset.Position(call.Args[i].Pos()), name, s)
				}
			}
			return true
		})
	}
}

// A line's words, for telling English from French: its letters, without
// numbers, hexadecimal digests and keys, serials, paths and the names of
// the game's surfaces.
var (
	notWords = regexp.MustCompile(`\S*/\S*|\b[0-9a-f]*[0-9][0-9a-f]*\b|\b(roulette|jackpot|craps|duel|bonus)\b`)
	aWord    = regexp.MustCompile(`\pL{2,}`)
)

func skeleton(line string) string {
	if strings.HasPrefix(strings.TrimSpace(line), "vegas-desk --") {
		return "" // a command to run
	}
	return strings.Join(aWord.FindAllString(notWords.ReplaceAllString(strings.ToLower(line), " "), -1), " ")
}

// englishWord is an English word no French line holds, once a line is
// rid of its commands, JSON, identifiers and paths (frenchText): a value
// printed as it is in a French sentence. (Not the commands' names, which
// French sentences name: claim, claims, verify…)
var englishWord = regexp.MustCompile(`\b(the|to|of|by|at|and|is|not|no|with|from|for|paid|payment|payments|pack|packs|block|blocks|desk|winners|prize|entries|entry|head|ledger|referral|referrals|voided|until|written|none|serial|loser|unpaid|payable|stolen|returned|delivered|received|settled|destroyed|generate|deliver|activate|return|active|disabled|locked)\b`)

func frenchText(line string) string {
	line = regexp.MustCompile(`\{.*\}|vegas-desk [^:]*$`).ReplaceAllString(line, "")
	var kept []string
	for _, f := range strings.Fields(line) {
		if !strings.ContainsAny(f, "-/0123456789\"«»") {
			kept = append(kept, f)
		}
	}
	return strings.Join(kept, " ")
}

// sameWords are the words of lines the same in both languages.
var sameWords = map[string]bool{
	"":        true,
	"total":   true, // report's last row
	"journal": true, // a payment's journal entry, under its verdict
}

// Every command's lines for a person are French under a French locale:
// one round of the back office's and a counter's day (pay, refuse, refer,
// void, list, report, settle, move packs, bring a counter ledger home and
// close its double payment, the desks and their files, backups, copies,
// certificates) runs under LANG=C and under LANG=fr_FR.UTF-8, each on its
// own copy of the sealed fixture, and no line of the French round has the
// words of an English one. TestFrenchCatalogueComplete finds a message
// written past the catalogue; this finds a word of the ledger's or of a
// value printed as it is.
func TestFrenchLines(t *testing.T) {
	t.Setenv("VEGAS_DESK_PASSPHRASE", ledgertest.Passphrase)
	t.Setenv("LC_ALL", "")
	t.Setenv("LC_MESSAGES", "")
	ss := ledgertest.SerialsOf(t, ledgertest.Sealed)
	key := filepath.Join(ledgertest.MustDir(t, ledgertest.Sealed), "key")
	pub := ledgertest.Key.Public().String()
	today := time.Now().Format(time.DateOnly)
	type step struct {
		db   string // "bo" (the back office's), "c1" (counter C1's sealed ledger), "stock" (a ledger of packs in stock)
		args []string
		code int
	}
	ran := map[string]bool{}
	round := func(lang string) [][]string {
		t.Setenv("LANG", lang)
		dir := privateDir(t)
		dbs := map[string]string{"bo": ledgertest.Copy(t, ledgertest.Sealed), "c1": ledgertest.Copy(t, ledgertest.Sealed, "C1.db"),
			"stock": ledgertest.Copy(t, ledgertest.Stock)}
		in := func(name string) string { return filepath.Join(dir, name) }
		steps := []step{
			{"bo", []string{"blocks"}, 0},
			{"bo", []string{"catalogue"}, 0},
			{"bo", []string{"report", "--block", "1"}, 0},
			{"bo", []string{"lookup", ss.Winners[15][0]}, 0},
			{"bo", []string{"claim", ss.Winners[15][0], "--desk", "C9", "--operator", "anne"}, 0},
			{"bo", []string{"lookup", ss.Winners[15][0]}, 0},
			{"bo", []string{"lookup", ss.Losers[0]}, 0},
			{"bo", []string{"claim", ss.Winners[15][1], "--desk", "C9", "--operator", "anne", "--limit", "10"}, 1},
			{"bo", []string{"claim", ss.Winners[6][0], "--desk", "C9", "--operator", "anne"}, 0},
			{"bo", []string{"claim", ss.Winners[9][0], "--desk", "C9", "--operator", "anne"}, 0},
			{"bo", []string{"void", "3", "--reason", "erreur", "--operator", "anne"}, 0},
			{"bo", []string{"void", "3", "--reason", "encore"}, 1},
			{"bo", []string{"void", "99", "--reason", "x"}, 2},
			{"bo", []string{"receipt", "1", "-o", in("receipt.pdf")}, 0},
			{"bo", []string{"check", "-"}, 0},
			{"bo", []string{"check", "-", "wrong prize"}, 0},
			{"bo", []string{"check", "-", "faults"}, 2},
			{"bo", []string{"referrals"}, 0},
			{"bo", []string{"attempts"}, 0},
			{"bo", []string{"claims"}, 0},
			{"bo", []string{"daily"}, 0},
			{"bo", []string{"daily", "--desk", "C9", "--day", today}, 0},
			{"bo", []string{"settlement", "--desk", "C9", "--since", "2020-01-01", "--until", today}, 0},
			{"bo", []string{"emission"}, 0},
			{"bo", []string{"emission", "--on-sale", "2025-06-01", "--end-of-sale", "2025-05-01"}, 2},
			{"bo", []string{"report", "--block", "9"}, 2},
			{"bo", []string{"settings"}, 0},
			{"bo", []string{"packs", "return", "--block", "1", "--packs", "100-101", "--reason", "retour"}, 0},
			{"bo", []string{"packs", "stolen", "--block", "1", "--packs", "102", "--reason", "vol"}, 0},
			{"bo", []string{"packs", "deliver", "--block", "1", "--packs", "5", "--desk", "C3"}, 1},
			{"stock", []string{"desks", "add", "C1"}, 0},
			{"stock", []string{"packs", "deliver", "--block", "1", "--packs", "5", "--desk", "C3"}, 2},
			{"stock", []string{"packs", "deliver", "--block", "1", "--packs", "5-6", "--desk", "C1"}, 0},
			{"stock", []string{"packs", "receive", "--block", "1", "--packs", "5", "--desk", "C1"}, 0},
			{"stock", []string{"packs", "list"}, 0},
			{"bo", []string{"packs", "return", "5"}, 2},
			{"bo", []string{"packs", "return", "53x-0001-0005-0"}, 2},
			{"bo", []string{"packs", "list", "--block", "1"}, 0},
			{"bo", []string{"packs", "list", "--state", "destroyed"}, 0},
			{"c1", []string{"claim", ss.Winners[50][0], "--operator", "anne"}, 0},
			{"c1", []string{"claim", ss.Winners[1000][0], "--operator", "anne"}, 1},
			{"bo", []string{"claim", ss.Winners[50][0], "--desk", "C9", "--operator", "anne"}, 0},
			{"c1", []string{"claims"}, 0},
			{"c1", []string{"verify", "--key", pub}, 0},
			{"bo", []string{"import-claims", "C1.jsonl"}, 1},
			{"bo", []string{"cases"}, 0},
			{"bo", []string{"cases", "close", "1", "--reason", "récupéré"}, 2},
			{"bo", []string{"cases", "close", "5", "--reason", "récupéré"}, 0},
			{"bo", []string{"cases", "--all"}, 0},
			{"bo", []string{"claims", "--desk", "C1"}, 0},
			{"bo", []string{"verify"}, 0},
			{"bo", []string{"checkpoint", "--key-file", key, "-o", in("head.txt")}, 0},
			{"bo", []string{"verify-certificate", "--key", pub, in("head.txt")}, 0},
			{"bo", []string{"certificate", "--block", "1", "--key-file", key, "-o", in("cert.txt")}, 0},
			{"bo", []string{"verify-certificate", "--key", pub, in("cert.txt")}, 0},
			{"bo", []string{"verify-certificate", "--key", pub, dbs["c1"]}, 0},
			{"bo", []string{"seed", "commit", "--role", "auditor", "-o", in("auditor.secret"), "--public", in("auditor.commitment")}, 0},
			{"bo", []string{"seed", "commit", "--role", "auditor", "-o", in("auditor.secret"), "--public", in("x.commitment")}, 2},
			{"bo", []string{"seed", "record", in("auditor.secret"), "--key-file", key}, 2},
			{"bo", []string{"seed", "record", in("auditor.commitment"), "--key-file", key}, 0},
			{"bo", []string{"seed", "record", in("auditor.commitment"), "--key-file", key}, 1},
			{"bo", []string{"verify-certificate", "--key", pub, in("cert.txt"), "--reveal", in("auditor.secret") + "," + in("auditor.secret")}, 2},
			{"bo", []string{"keygen", "-o", in("new.key")}, 0},
			{"bo", []string{"serve", "--init", "--dir", in("ca"), "--host", "127.0.0.1"}, 0},
			{"bo", []string{"serve", "--check", "--dir", in("ca"), "--listen", "127.0.0.1:0"}, 0},
			{"bo", []string{"desks", "add", "D1", "--limit", "500"}, 0},
			{"bo", []string{"desks", "add", "D2", "--out", in("D2.desk"), "--dir", in("ca")}, 0},
			{"bo", []string{"desks", "cert", "D2", "--out", in("D2b.desk"), "--dir", in("ca")}, 0},
			{"bo", []string{"desks", "add", "D1"}, 1},
			{"bo", []string{"desks", "disable", "ZZ"}, 2},
			{"bo", []string{"desks", "disable", "D1"}, 0},
			{"bo", []string{"desks", "list"}, 0},
			{"bo", []string{"desks", "enable", "D1"}, 0},
			{"bo", []string{"desks", "unlock", "D1"}, 0},
			{"bo", []string{"desks", "limit", "D1", "300"}, 0},
			{"bo", []string{"desks", "revoke", "D2", "--cert", in("D2b.desk")}, 0},
			{"bo", []string{"backup", "--dir", in("backups")}, 0},
			{"bo", []string{"upgrade"}, 0},
			{"bo", []string{"copy", dbs["bo"], in("copy.db")}, 0},
		}
		var lines [][]string
		for _, s := range steps {
			ran[s.args[0]], ran[strings.Join(s.args[:min(2, len(s.args))], " ")] = true, true
			stdin := ""
			switch s.args[0] {
			case "check":
				stdin = docLine(t, dbs["bo"], ss.Winners[100][0])
				if len(s.args) == 3 {
					doc := stdin
					stdin = map[string]string{"wrong prize": strings.Replace(doc, `"prize":100`, `"prize":50`, 1),
						"faults": strings.Replace(strings.Replace(doc, "{", `{"extra":1,`, 1), `"bonus":`, `"bonus":7,"x":`, 1)}[s.args[2]]
					if stdin == doc || !strings.Contains(stdin, `"x":`) && s.args[2] == "faults" {
						t.Fatalf("check %s: the contents are unchanged: %s", s.args[2], doc)
					}
					s.args = s.args[:2]
				}
			case "import-claims":
				out, errs, code := vd(t, dbs["c1"], "", "claims", "--jsonl")
				if code != 0 {
					t.Fatalf("claims --jsonl: exit %d\n%s", code, errs)
				}
				stdin, s.args = out, []string{"import-claims", "-"}
			}
			out, errs, code := vd(t, dbs[s.db], stdin, s.args...)
			if code != s.code {
				t.Fatalf("%s %v: exit %d, want %d\n%s%s\n(the steps before: %q)", lang, s.args, code, s.code, out, errs, lines)
			}
			lines = append(lines, strings.Split(strings.TrimSpace(out+errs), "\n"))
		}
		return lines
	}
	english, french := round("C"), round("fr_FR.UTF-8")
	// Every command runs, or is named here with why not.
	notRun := map[string]string{
		"generate":        "2,000,000 tickets: TestGenerateCLI makes the tests' only block",
		"export":          "2,000,000 lines of JSON; its warning is in the catalogue",
		"print":           "draws 200 tickets a pack; its lines are in the catalogue",
		"render":          "writes a PNG, and no line",
		"counter-ledger":  "seals a block; its lines are in the catalogue",
		"load":            "TestLoadCLI's, with a server",
		"serve":           "a running server's lines are its log, not translated",
		"service":         "Windows only",
		"help":            "TestFrench, TestFrenchHelpComplete",
		"completion":      "a shell's script",
		"packs activate":  "the lines of packs return",
		"packs settle":    "the lines of packs return",
		"packs destroyed": "the lines of packs stolen",
		"packs labels":    "writes a PDF, and no line",
	}
	var walk func(*cobra.Command)
	walk = func(cmd *cobra.Command) {
		if !cmd.HasSubCommands() {
			path := strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
			if _, skipped := notRun[strings.Fields(path)[0]]; !ran[path] && notRun[path] == "" && !skipped {
				t.Errorf("%s: not run by TestFrenchLines (add it, or say in notRun why not)", path)
			}
		}
		for _, sub := range cmd.Commands() {
			walk(sub)
		}
	}
	root := (&cli{}).commands()
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	walk(root)
	for i := range english {
		words := map[string]bool{}
		for _, l := range english[i] {
			words[skeleton(l)] = true
		}
		for _, l := range french[i] {
			// lookup's "ticket {…}": the regulation's word in both
			// languages (TestOneWordForTicket), its contents the same.
			if s := skeleton(l); words[s] && !sameWords[s] && !(strings.HasPrefix(s, "ticket ") && strings.Contains(l, "{")) {
				t.Errorf("step %d: %q is English under LANG=fr_FR.UTF-8 (English:\n%s)", i, l, strings.Join(english[i], "\n"))
			} else if w := englishWord.FindString(frenchText(l)); w != "" {
				t.Errorf("step %d: %q holds the English %q under LANG=fr_FR.UTF-8", i, l, w)
			}
		}
	}
}

// Each French format takes the English one's arguments: formatted with
// arguments of the English verbs' types, neither says %!.
func TestFrenchFormats(t *testing.T) {
	verb := regexp.MustCompile(`%[-+# 0]*\d*(\.\d+)?([a-zA-Z%])`)
	for en, fr := range frenchMessages() {
		var args []any
		for _, m := range verb.FindAllStringSubmatch(en, -1) {
			switch m[2] {
			case "%":
			case "d", "x":
				args = append(args, 7)
			case "f", "g":
				args = append(args, 1.5)
			case "w":
				args = append(args, errRefused)
			case "t":
				args = append(args, true)
			default:
				args = append(args, "s")
			}
		}
		en, fr := strings.ReplaceAll(en, "%w", "%v"), strings.ReplaceAll(fr, "%w", "%v")
		for _, out := range []string{fmt.Sprintf(en, args...), fmt.Sprintf(fr, args...)} {
			if strings.Contains(out, "%!") {
				t.Errorf("%q → %q: %s", en, fr, out)
			}
		}
	}
}
