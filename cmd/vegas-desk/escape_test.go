package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/ledgertest"
)

// rawControl is the first character of s a terminal acts on rather than
// shows (besides the line break and the tab): a C0 or C1 control, DEL, a
// bidirectional control, a line or paragraph separator; or "".
func rawControl(s string) string {
	for i, r := range s {
		bidi := r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x200e || r == 0x200f || r == 0x061c
		if r != '\n' && r != '\t' && (unicode.IsControl(r) || bidi || r == 0x2028 || r == 0x2029) {
			return fmt.Sprintf("%U at byte %d: …%q…", r, i, s[max(0, i-40):min(len(s), i+20)])
		}
	}
	return ""
}

// hostile is a text an operator (or a counter, through serve) may type
// where the ledger records free text: a line break that forges a line, an
// escape sequence that clears the back office's terminal and sets its
// title, bidirectional controls that turn what follows around, C1
// controls (NEL, CSI), DEL, a line separator.
func hostile(what string) string {
	return what + "\nFORGED 50 000 €\r\x1b[2J\x1b]0;x\x07\u202eevil\u202c\u2066\u0085\u009b31m\x7f\u2028"
}

// Every command that prints text of the ledger (desks, operators, reasons,
// decisions, settings' authors …) prints it escaped (terminal), as text
// or JSON: hostile texts recorded by claims, refused lookups, voids, pack
// moves, emission and settings changes, on a file and through serve, and
// not one raw control character nor a forged line in any command's
// output.
func TestLedgerTextEscaped(t *testing.T) {
	db := ledgertest.Copy(t, ledgertest.Block)
	s := serials(t)
	winners := s.Winners[3]
	unknown := game.Serial{Game: 531, Block: 9, Position: 1}.String() // a block the ledger has not
	must := func(args ...string) string {
		t.Helper()
		out, errs, code := vd(t, db, "", args...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", args, code, out, errs)
		}
		return out + errs
	}
	// Recorded on the file.
	must("claim", winners[0], "--desk", hostile("desk"), "--operator", hostile("claimer"))
	must("claim", winners[1], "--operator", hostile("payer"))
	must("void", "2", "--reason", hostile("void reason"), "--operator", hostile("voider"))
	vd(t, db, "", "lookup", unknown, "--desk", hostile("lookup desk"), "--operator", hostile("looker"))
	must("desks", "add", "C1")
	must("packs", "stolen", "--block", "1", "901", "--reason", hostile("stolen reason"), "--operator", hostile("mover"))
	must("packs", "destroyed", "--block", "1", "902", "--reason", hostile("destroyed reason"))
	must("emission", "--end-of-sale", "2099-12-31", "--operator", hostile("emitter"))
	must("settings", "--identity-threshold", "1500", "--operator", hostile("setter"))
	// Recorded through serve: a counter's operator.
	dir, srv := serveOf(t, db)
	deskFile := filepath.Join(t.TempDir(), "C1.desk")
	must("desks", "add", "C2", "--out", deskFile, "--dir", dir)
	counter := func(args ...string) (string, string, int) {
		return vd(t, "", "", append([]string{"--server", srv, "--desk-cert", deskFile}, args...)...)
	}
	counter("lookup", unknown, "--operator", hostile("counter looker"))
	counter("claim", winners[2], "--operator", hostile("counter payer"))

	seen := map[string]bool{}
	for _, args := range [][]string{
		{"claims"}, {"claims", "--json"}, {"attempts"}, {"attempts", "--json"}, {"daily"}, {"daily", "--json"},
		{"referrals"}, {"referrals", "--json"}, {"cases", "--all"}, {"cases", "--all", "--json"},
		{"desks", "list"}, {"desks", "list", "--json"}, {"packs", "list", "--block", "1"}, {"packs", "list", "--block", "1", "--json"},
		{"lookup", winners[0]}, {"lookup", winners[0], "--json"}, {"lookup", winners[1]}, {"claim", winners[0]}, {"claim", winners[0], "--json"},
		{"void", "2", "--reason", "again"}, {"report", "--block", "1"}, {"report", "--block", "1", "--json"},
		{"emission"}, {"emission", "--json"}, {"settings"}, {"settings", "--json"}, {"blocks"}, {"verify", "--block", "1"},
		{"settlement", "--desk", "C1"}, {"settlement", "--desk", "C1", "--json"},
	} {
		out, errs, code := vd(t, db, "", args...)
		if code == 2 && strings.Contains(errs, "unknown flag") {
			t.Errorf("%v: %s", args, errs)
			continue
		}
		for name, text := range map[string]string{"output": out, "error": errs} {
			if c := rawControl(text); c != "" {
				t.Errorf("%v: its %s holds a raw control, %s", args, name, c)
			}
			for _, line := range strings.Split(text, "\n") {
				if strings.HasPrefix(strings.TrimSpace(line), "FORGED") {
					t.Errorf("%v: a forged line in its %s: %q", args, name, line)
				}
			}
		}
		for _, who := range []string{"claimer", "payer", "voider", "looker", "counter looker", "counter payer", "void reason", "stolen reason", "emitter", "setter"} {
			if strings.Contains(out+errs, who+`\nFORGED`) || strings.Contains(out+errs, who+`\\nFORGED`) {
				seen[who] = true
			}
		}
	}
	// The test is not empty: each text is shown somewhere, escaped.
	for _, who := range []string{"claimer", "payer", "voider", "looker", "counter looker", "counter payer", "void reason"} {
		if !seen[who] {
			t.Errorf("no command shows %q's text, escaped", who)
		}
	}
}

// desks list in the order a person reads it: load-2 before load-10 (issue
// 39 item 3), as text and JSON.
func TestDesksListNaturalOrder(t *testing.T) {
	db := ledgertest.Copy(t, ledgertest.Block)
	for _, id := range []string{"load-10", "load-2", "C10", "C9", "load-1"} {
		if _, errs, code := vd(t, db, "", "desks", "add", id); code != 0 {
			t.Fatalf("desks add %s: %s", id, errs)
		}
	}
	out, errs, code := vd(t, db, "", "desks", "list")
	var ids []string
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 0 && !strings.HasPrefix(line, " ") {
			ids = append(ids, f[0])
		}
	}
	if want := "C9 C10 load-1 load-2 load-10"; code != 0 || !strings.HasSuffix(strings.Join(ids, " "), want) {
		t.Errorf("desks list: exit %d, order %v, want … %s\n%s%s", code, ids, want, out, errs)
	}
}
