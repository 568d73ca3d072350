package core

import (
	"os/exec"
	"strings"
	"testing"
)

// The rule links no PDF library, nor the package that draws the papers:
// what go list -deps says core's build links, read back.
func TestRuleLinksNoPDF(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(goTool, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 || !strings.Contains(string(out), "vegas-desk/internal/game") {
		t.Fatalf("go list -deps listed %d packages, no vegas-desk/internal/game: not core's graph", len(deps))
	}
	for _, p := range deps {
		if strings.Contains(p, "pdf") || p == "vegas-desk/internal/paper" || strings.HasPrefix(p, "github.com/boombuler/barcode") {
			t.Errorf("core links %s", p)
		}
	}
}
