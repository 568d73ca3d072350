package main

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Issue 39 item 3: one word for a ticket wherever a user reads French. The
// regulation of the game (règlement VEGAS) says « ticket »; the command
// line said « billet », the app « ticket ». No text of the command line,
// the app, its papers or its pictures (their Go sources' strings, the
// app's French translations) says « billet ».
func TestOneWordForTicket(t *testing.T) {
	const other = "billet"
	fset := token.NewFileSet()
	for _, dir := range []string{".", "../../internal/ui", "../../internal/paper", "../../internal/ticketart", "../../internal/printer"} {
		pkgs, err := parser.ParseDir(fset, dir, func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, pkg := range pkgs {
			for _, file := range pkg.Files {
				ast.Inspect(file, func(node ast.Node) bool {
					lit, ok := node.(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						return true
					}
					n++
					if s, err := strconv.Unquote(lit.Value); err == nil && strings.Contains(strings.ToLower(s), other) {
						t.Errorf("%s: %q says %q: the regulation's word is « ticket »", fset.Position(lit.Pos()), s, other)
					}
					return true
				})
			}
		}
		if n == 0 {
			t.Fatalf("%s: no string read", dir)
		}
	}
	// The catalogue as the command line uses it, and the app's French.
	for en, fr := range frenchMessages() {
		if strings.Contains(strings.ToLower(fr), other) {
			t.Errorf("%q in French is %q", en, fr)
		}
	}
	b, err := os.ReadFile(filepath.Join("..", "..", "internal", "ui", "translations", "fr.json"))
	if err != nil {
		t.Fatal(err)
	}
	var app map[string]any
	if err := json.Unmarshal(b, &app); err != nil {
		t.Fatal(err)
	}
	if len(app) < 100 {
		t.Fatalf("the app's French has %d texts", len(app))
	}
	for en, fr := range app {
		if strings.Contains(strings.ToLower(fmt.Sprint(fr)), other) {
			t.Errorf("the app's %q is %q", en, fr)
		}
	}
}
