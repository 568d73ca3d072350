package vegasdesk

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// The README points only to files of the repository: a clone has no
// ../shared, and every link and image it names is there.
func TestReadmeLinks(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	if strings.Contains(readme, "../") {
		t.Error("the README points outside the repository (../)")
	}
	links := regexp.MustCompile(`\]\(([^)#]+)\)|src="([^"]+)"`)
	n := 0
	for _, m := range links.FindAllStringSubmatch(readme, -1) {
		path := m[1] + m[2]
		if strings.Contains(path, "://") {
			continue
		}
		n++
		if _, err := os.Stat(path); err != nil {
			t.Errorf("the README names %s: %v", path, err)
		}
	}
	if n < 5 {
		t.Errorf("found %d links: the pattern misses them", n)
	}
}
