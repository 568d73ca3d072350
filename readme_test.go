package vegasdesk

import (
	"bufio"
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// docs are README.md and every Markdown file under docs/, by their
// repository path.
func docs(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != "." && p != "docs" && !strings.HasPrefix(p, "docs/") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") && (p == "README.md" || strings.HasPrefix(p, "docs/")) {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[p] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 10 {
		t.Fatalf("found %d documents: %v", len(out), out)
	}
	return out
}

// The README stays a front page: what vegas-desk is, the two commands, a
// first try, a picture of the counter, and where to read next.
func TestReadmeShort(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(b, []byte("\n")); n > 250 {
		t.Errorf("README.md has %d lines; keep it under 250 and move the rest to docs/", n)
	}
	for _, want := range []string{"make run", "make test", "docs/counter.png", "docs/guide-detaillant.md", "docs/runbook.md",
		"docs/api/openapi.yaml", "docs/trust-model.md", "docs/ledger-format.md", "docs/design.md", "docs/performance.md", "docs/cli.md"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("README.md does not name %s", want)
		}
	}
}

// Every document points only to files of the repository (a clone has no
// ../shared), and every link and image it names is there.
func TestReadmeLinks(t *testing.T) {
	links := regexp.MustCompile(`\]\(([^)#\s]*)(#[^)\s]*)?\)|src="([^"]+)"`)
	all := docs(t)
	n := 0
	for doc, text := range all {
		for _, m := range links.FindAllStringSubmatch(text, -1) {
			target, anchor := m[1]+m[3], strings.TrimPrefix(m[2], "#")
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			n++
			p := path.Join(path.Dir(doc), target)
			if target == "" {
				p = doc
			}
			if strings.HasPrefix(p, "../") {
				t.Errorf("%s points outside the repository: %s", doc, target)
				continue
			}
			if _, err := os.Stat(p); err != nil {
				t.Errorf("%s names %s: %v", doc, target, err)
			}
			if anchor != "" && strings.HasSuffix(p, ".md") && !slices.Contains(anchors(all[p]), anchor) {
				t.Errorf("%s links to %s#%s: no such heading there (%v)", doc, target, anchor, anchors(all[p]))
			}
		}
	}
	if n < 50 {
		t.Errorf("found %d links: the pattern misses them", n)
	}
}

// anchors are the anchors GitHub gives the headings of a Markdown text:
// lower case, punctuation dropped, spaces as hyphens.
func anchors(text string) []string {
	var out []string
	inCode := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "```") {
			inCode = !inCode
		}
		if inCode || !strings.HasPrefix(line, "#") {
			continue
		}
		h := strings.ToLower(strings.TrimSpace(strings.TrimLeft(line, "#")))
		var b strings.Builder
		for _, r := range h {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		out = append(out, b.String())
	}
	return out
}

// exampleFiles are file names the documents give that are no file of
// the repository: what a command writes (the certificate's attached
// text), and Unicode's table the confusables package is made of.
var exampleFiles = []string{"certificat.txt", "confusables.txt"}

// Every file of the repository a document names (a source, a schema, a
// script, a table, a document) exists: by its path, or by the end of its
// path (`postgres/chain.go`, `rule.go` in the layout).
func TestDocsFileNames(t *testing.T) {
	var files []string
	filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, "/"+filepath.ToSlash(p))
		}
		if err == nil && d.IsDir() && (strings.HasPrefix(d.Name(), ".") && p != ".") {
			return filepath.SkipDir
		}
		return nil
	})
	name := regexp.MustCompile("[A-Za-z0-9_./-]*[A-Za-z0-9_]\\.(go|sql|sh|yml|yaml|toml|nsi|rc|md|txt|json)\\b")
	n := 0
	for doc, text := range docs(t) {
		for _, f := range name.FindAllString(text, -1) {
			f = strings.TrimPrefix(strings.TrimPrefix(f, "./"), "../")
			if slices.Contains(exampleFiles, f) || strings.HasSuffix(f, ".db.json") || strings.Contains(f, "…") ||
				strings.HasPrefix(f, "/") || strings.HasPrefix(f, "_") { // a kind of file: _test.go, _windows.go
				continue
			}
			n++
			found := slices.ContainsFunc(files, func(p string) bool { return strings.HasSuffix(p, "/"+f) }) ||
				slices.ContainsFunc(files, func(p string) bool { return strings.HasSuffix(p, "/"+path.Join(path.Dir(doc), f)) })
			if !found {
				t.Errorf("%s names %s, which is no file of the repository", doc, f)
			}
		}
	}
	if n < 100 {
		t.Errorf("found %d file names: the pattern misses them", n)
	}
}

// Every test, fuzz target and benchmark a document names is one of the
// code's, and so is every exported name it gives a package of ours
// (`core.Decide`, `ledger.Copy`, `protocol.Retry`).
func TestDocsGoNames(t *testing.T) {
	funcs := map[string]bool{}
	pkgs := map[string]map[string]bool{} // package name → its top-level names and methods
	filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() && (strings.HasPrefix(d.Name(), ".") && p != "." || d.Name() == "third_party" || d.Name() == "testdata") {
			if d != nil && d.IsDir() {
				return filepath.SkipDir
			}
			return err
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Error(err)
			return nil
		}
		names := pkgs[f.Name.Name]
		if names == nil {
			names = map[string]bool{}
			pkgs[f.Name.Name] = names
		}
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				funcs[d.Name.Name] = true
				names[d.Name.Name] = true
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						names[s.Name.Name] = true
					case *ast.ValueSpec:
						for _, id := range s.Names {
							names[id.Name] = true
						}
					}
				}
			}
		}
		return nil
	})
	test := regexp.MustCompile(`\b(?:Test|Fuzz|Benchmark)[A-Z][A-Za-z0-9_]*`)
	qualified := regexp.MustCompile("\\b(core|ledger|protocol|wire|game|server|paper|postgres|sqlite|backoffice|counter|remote|ticketart|signing|platform|printer|testcache|ledgertest|servertest|pgtest|mrz)\\.([A-Z][A-Za-z0-9]*)")
	n := 0
	for doc, text := range docs(t) {
		for _, name := range test.FindAllString(text, -1) {
			n++
			if !funcs[name] {
				t.Errorf("%s names %s, which is no function of the code", doc, name)
			}
		}
		for _, m := range qualified.FindAllStringSubmatch(text, -1) {
			n++
			if !pkgs[m[1]][m[2]] {
				t.Errorf("%s names %s.%s, which package %s does not declare", doc, m[1], m[2], m[1])
			}
		}
	}
	if n < 100 {
		t.Errorf("found %d Go names: the patterns miss them", n)
	}
}

// The commands the documents show (in code and between backquotes) are
// the command line's: every `vegas-desk` command and subcommand exists,
// and every flag given to one is one of its flags, as the binary's own
// help lists them; every `make` target is the Makefile's.
func TestDocsCommands(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "vegas-desk")
	build := exec.Command("go", "build", "-tags", "nogui", "-o", bin, "./cmd/vegas-desk")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	helps := map[string]string{}
	help := func(args ...string) string {
		key := strings.Join(args, " ")
		if h, ok := helps[key]; ok {
			return h
		}
		cmd := exec.Command(bin, append(args, "--help")...)
		cmd.Env = append(os.Environ(), "LANG=C", "LC_ALL=C", "LANGUAGE=")
		out, err := cmd.CombinedOutput()
		if err != nil {
			out = nil
		}
		helps[key] = string(out)
		return string(out)
	}
	subcommands := func(h string) []string {
		_, list, ok := strings.Cut(h, "Available Commands:\n")
		if !ok {
			return nil
		}
		var out []string
		for _, line := range strings.Split(list, "\n") {
			f := strings.Fields(line)
			if len(f) == 0 {
				break
			}
			out = append(out, f[0])
		}
		return out
	}
	makefile, err := os.ReadFile("Makefile")
	if err != nil {
		t.Fatal(err)
	}

	// Shell and console blocks, and spans between backquotes; a text block
	// (a format's first line, the usage) is no command.
	spans := regexp.MustCompile("(?s)```(?:sh|bat)?\n(.*?)```|```[a-z]+\n.*?```|`([^`\n]+)`")
	invocation := regexp.MustCompile(`(?:^|[\s(/])(?:bin/)?vegas-desk(?:-cli)?(?:\.exe)?((?:[ \t]+[^\s|;&#)]+)*)`)
	makeTarget := regexp.MustCompile(`(?:^|&&)\s*make ([a-z][a-z-]*)`)
	valued := map[string]bool{"--db": true, "--server": true, "--desk-cert": true}
	commands, flags := 0, 0
	for doc, text := range docs(t) {
		for _, s := range spans.FindAllStringSubmatch(text, -1) {
			code := strings.ReplaceAll(s[1]+s[2], "\\\n", " ")
			sc := bufio.NewScanner(strings.NewReader(code))
			for sc.Scan() {
				line := sc.Text()
				for _, m := range makeTarget.FindAllStringSubmatch(line, -1) {
					if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(m[1]) + `:`).Match(makefile) {
						t.Errorf("%s: make %s: no such target in the Makefile", doc, m[1])
					}
				}
				found := invocation.FindAllStringSubmatch(line, -1)
				// A span between backquotes that begins with a command of the
				// root's and gives it a flag (`claim SERIAL --receipt FILE`) is
				// an invocation too.
				if f := strings.Fields(line); s[2] != "" && len(found) == 0 && len(f) > 1 &&
					slices.Contains(subcommands(help()), f[0]) && strings.Contains(line, " -") {
					found = [][]string{{line, " " + line}}
				}
				for _, m := range found {
					words := strings.Fields(m[1])
					var path []string
					i := 0
					for ; i < len(words); i++ {
						w := words[i]
						if valued[w] {
							i++
							continue
						}
						if strings.HasPrefix(w, "-") {
							continue
						}
						break
					}
					if i >= len(words) {
						continue
					}
					c := words[i]
					if c != strings.ToLower(c) || strings.ContainsAny(c, "[]…<>{}") || !regexp.MustCompile(`^[a-z][a-z-]*$`).MatchString(c) {
						continue // COMMAND, a placeholder
					}
					path = append(path, c)
					commands++
					if help(path...) == "" {
						t.Errorf("%s: vegas-desk %s: no such command (%q)", doc, c, strings.TrimSpace(m[0]))
						continue
					}
					rest := words[i+1:]
					for j, w := range rest {
						if !strings.HasPrefix(w, "-") && slices.Contains(subcommands(help(path...)), w) && j == 0 {
							path = append(path, w)
						}
					}
					h := help(path...)
					if slices.Equal(path, []string{"service"}) && len(rest) > 0 && rest[0] == "install" {
						h = help("serve") // service install takes serve's flags
					}
					for _, w := range rest {
						if !strings.HasPrefix(w, "-") || w == "-" || strings.ContainsAny(w, "…<*") {
							continue
						}
						flag, _, _ := strings.Cut(w, "=")
						flags++
						if !regexp.MustCompile(`(^|[\s,])` + regexp.QuoteMeta(flag) + `([\s,]|$)`).MatchString(h) {
							t.Errorf("%s: vegas-desk %s: no flag %s (%q)", doc, strings.Join(path, " "), flag, strings.TrimSpace(m[0]))
						}
					}
				}
			}
		}
	}
	if commands < 60 || flags < 50 {
		t.Errorf("found %d commands and %d flags: the patterns miss them", commands, flags)
	}
}
