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
// as typed (or its zone as read), whether it is given, the name as kept
// and the key its look-alikes share.
type IdentityCase struct {
	Line   int
	Name   string
	Given  bool
	Winner core.Winner // as typed; Winner.MRZ the zone as read (mrz=)
	Kept   string      // the name as kept (normalised), "" when none
	Key    string      // the name's key, NameSkeleton (key=), "" when the line gives none
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
// kept name quoted (given) or - (none); then, as it may be, mrz="…" (the
// zone, its lines separated by \n) and key="…".
func parseIdentity(n int, line string) (IdentityCase, error) {
	f := strings.Fields(line)
	if len(f) < 2 || f[1] != "given" && f[1] != "none" {
		return IdentityCase{}, fmt.Errorf("want a name, then given or none")
	}
	c := IdentityCase{Line: n, Name: f[0], Given: f[1] == "given"}
	rest := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(strings.TrimPrefix(line, f[0])), f[1]))
	var texts []string
	for rest != "" && rest != "-" && !strings.HasPrefix(rest, "- ") && !strings.HasPrefix(rest, "mrz=") && !strings.HasPrefix(rest, "key=") {
		q, err := strconv.QuotedPrefix(rest)
		if err != nil {
			return IdentityCase{}, fmt.Errorf("at %q: want a quoted string: %w", rest, err)
		}
		s, _ := strconv.Unquote(q)
		texts = append(texts, s)
		rest = strings.TrimSpace(rest[len(q):])
	}
	if !c.Given && strings.HasPrefix(rest, "-") {
		rest = strings.TrimSpace(rest[1:])
		texts = append(texts, "-")
	}
	for rest != "" {
		key, value, ok := strings.Cut(rest, "=")
		q, err := strconv.QuotedPrefix(value)
		if !ok || err != nil || key != "mrz" && key != "key" {
			return IdentityCase{}, fmt.Errorf("at %q: want mrz=\"…\" or key=\"…\"", rest)
		}
		v, _ := strconv.Unquote(q)
		if key == "mrz" {
			c.Winner.MRZ = v
		} else {
			c.Key = v
		}
		rest = strings.TrimSpace(value[len(q):])
	}
	if !c.Given {
		if len(texts) == 0 || texts[len(texts)-1] != "-" {
			return IdentityCase{}, fmt.Errorf("an identity that is none: want 3 quoted strings, then -")
		}
		texts, rest = texts[:len(texts)-1], "-"
	}
	switch {
	case c.Given && (len(texts) != 4 || rest != ""):
		return IdentityCase{}, fmt.Errorf("a given identity: want 4 quoted strings (name, document, number, the name kept)")
	case !c.Given && (len(texts) != 3 || rest != "-"):
		return IdentityCase{}, fmt.Errorf("an identity that is none: want 3 quoted strings, then -")
	}
	c.Winner.Name, c.Winner.DocType, c.Winner.DocNumber = texts[0], texts[1], texts[2]
	if c.Given {
		c.Kept = texts[3]
	}
	return c, nil
}
