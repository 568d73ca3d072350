package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"regexp"
	"strconv"
	"strings"
	"testing"
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

// untranslated are the lines left in English, written where no cli is at
// hand: load's progress and what its clean-up left behind (load.go,
// runLoad and cleanup).
var untranslated = map[string]bool{
	"%4.0f s  %6.0f answers/s  p50 %6.2f ms  p99 %6.2f ms  chain delay p99 %6.2f ms\n":                              true,
	"load: left behind: %s; desks load-1 … load-%d disabled (the journal keeps them; the next load enables them)\n": true,
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
			case pkg == "fmt" && (strings.HasPrefix(name, "Fprint") || name == "Errorf"):
				for _, a := range call.Args {
					if s, ok := literal(a); ok && hasWords(s) && !untranslated[s] {
						t.Errorf("%s: fmt.%s writes %q: write it through c.printf (or c.tr), and put its French in messages_fr.go",
							fset.Position(a.Pos()), name, s)
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
				if _, ok := frenchMessages[key]; !ok {
					t.Errorf("%s: %s(%q): no French in messages_fr.go", fset.Position(call.Args[i].Pos()), name, s)
				}
			}
			return true
		})
	}
}
