package conformance

import (
	"bufio"
	"bytes"
	_ "embed"
	"fmt"
	"strconv"
	"strings"

	"vegas-desk/internal/ledger/core"
)

//go:embed identities.txt
var identityTable []byte

// IdentityCase is one line of the identities table: a winner's identity
// as typed, whether it is given, and the name as kept.
type IdentityCase struct {
	Line   int
	Name   string
	Given  bool
	Winner core.Winner // as typed
	Kept   string      // the name as kept (normalised), "" when none
}

// Identities reads the identities table. A malformed line is a panic: the
// table is the tests' own source.
func Identities() []IdentityCase {
	cs, err := ParseIdentities(identityTable)
	if err != nil {
		panic(err)
	}
	return cs
}

// IdentityNamed is the identities table's case name.
func IdentityNamed(name string) (IdentityCase, bool) {
	for _, c := range Identities() {
		if c.Name == name {
			return c, true
		}
	}
	return IdentityCase{}, false
}

// ParseIdentities reads an identities table.
func ParseIdentities(data []byte) ([]IdentityCase, error) {
	var out []IdentityCase
	sc := bufio.NewScanner(bytes.NewReader(data))
	names := map[string]bool{}
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		c, err := parseIdentity(n, line)
		if err != nil {
			return nil, fmt.Errorf("identities.txt:%d: %w", n, err)
		}
		if names[c.Name] {
			return nil, fmt.Errorf("identities.txt:%d: case %s twice", n, c.Name)
		}
		names[c.Name] = true
		out = append(out, c)
	}
	return out, sc.Err()
}

// parseIdentity reads: name, given|none, three quoted strings, and the
// kept name quoted (given) or - (none).
func parseIdentity(n int, line string) (IdentityCase, error) {
	f := strings.Fields(line)
	if len(f) < 2 || f[1] != "given" && f[1] != "none" {
		return IdentityCase{}, fmt.Errorf("want a name, then given or none")
	}
	c := IdentityCase{Line: n, Name: f[0], Given: f[1] == "given"}
	rest := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(strings.TrimPrefix(line, f[0])), f[1]))
	var texts []string
	for rest != "" && rest != "-" {
		q, err := strconv.QuotedPrefix(rest)
		if err != nil {
			return IdentityCase{}, fmt.Errorf("at %q: want a quoted string: %w", rest, err)
		}
		s, _ := strconv.Unquote(q)
		texts = append(texts, s)
		rest = strings.TrimSpace(rest[len(q):])
	}
	switch {
	case c.Given && (len(texts) != 4 || rest != ""):
		return IdentityCase{}, fmt.Errorf("a given identity: want 4 quoted strings (name, document, number, the name kept)")
	case !c.Given && (len(texts) != 3 || rest != "-"):
		return IdentityCase{}, fmt.Errorf("an identity that is none: want 3 quoted strings, then -")
	}
	c.Winner = core.Winner{Name: texts[0], DocType: texts[1], DocNumber: texts[2]}
	if c.Given {
		c.Kept = texts[3]
	}
	return c, nil
}
