package ledger

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/core"
)

// Issue 15's attack on a copied counter ledger: its holder reads the
// serials of the tickets it paid offline, and claims them at an online
// counter before the import comes home, so that the import blames the
// honest counter. The file holds no paid ticket's secret part (its
// payments keep the public part and a proof), nor does its export; the
// back office still checks each payment, and a double payment names both
// payments with their times.
func TestCopiedCounterGivesNoSerial(t *testing.T) {
	ctx := context.Background()
	boPath, counters := counterCopies(t)
	bo, _, c2 := openCounters(t, boPath, counters)
	b := mustBlock(t, bo)
	var paid []game.Serial
	for _, prize := range []int{50, 1000, 50000} {
		pos := ticketsWith(t, bo, b, prize, 1)[0]
		req := claimReq(serialOf(b, pos), Identity{Desk: "C2", Operator: "ann"})
		req.Winner = &Winner{Name: "Jean Dupont", DocType: "CNI", DocNumber: "123456"}
		if _, err := c2.Claim(ctx, req); err != nil {
			t.Fatal(err)
		}
		paid = append(paid, game.Serial{Game: b.Game, Block: b.Number, Position: pos, Secret: b.Key.Secret(pos)})
	}
	export := exportOf(t, c2)
	c2.Close()
	file, err := os.ReadFile(counters[1])
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range paid {
		secret := s.String()[17:36] // "SSSS-SSSS-SSSS-SSSS"
		for name, data := range map[string][]byte{"the file": file, "its export": export} {
			for _, needle := range []string{s.String(), s.Compact(), secret, strings.ReplaceAll(secret, "-", "")} {
				if bytes.Contains(data, []byte(needle)) {
					t.Errorf("%s holds the paid serial %s (as %q)", name, s, needle)
				}
			}
		}
	}
	// The thief claims the 50 € ticket online first (it knows the serial:
	// say, it saw the ticket); the import names both payments.
	if _, err := bo.Claim(ctx, claimReq(paid[0].String(), Identity{Desk: "BO", Operator: "mallory"})); err != nil {
		t.Fatal(err)
	}
	rep, err := bo.ImportClaims(ctx, bytes.NewReader(export), Identity{Desk: "BO", Operator: "clerk"})
	if err != nil || rep.Recorded != 2 || len(rep.Flags) != 1 || rep.Flags[0].Kind != "double-payment" {
		t.Fatalf("import: %+v %v", rep, err)
	}
	what := rep.Flags[0].What
	if times := regexp.MustCompile(`\d\d/\d\d/\d{4} \d\d:\d\d:\d\d`).FindAllString(what, -1); len(times) != 2 ||
		!strings.Contains(what, `"mallory"`) || !strings.Contains(what, `"ann"`) || !strings.Contains(what, `desk "C2"`) {
		t.Errorf("the double payment does not name both payments with their times: %s", what)
	}
	for _, s := range paid[1:] {
		if tk, err := bo.Lookup(ctx, s.String(), Identity{Desk: "BO", Operator: "clerk"}, NoLimit); err != nil || tk.Claim == nil || tk.Claim.Desk != "C2" {
			t.Errorf("%s after the import: %+v %v", s, tk.Claim, err)
		}
	}
	if vr, err := journalOnly(bo); err != nil || !vr.OK() {
		t.Errorf("verify: %v %v", vr.Problems, err)
	}
}

// Issue 15's attack on import-claims: a file whose entries hold a 4 MB
// operator with escape sequences, a 1 MB method, a text a claim would
// refuse, a time not in the ledger's form, a kind or method a counter
// never writes, or a file larger than any counter's export, is refused as
// a whole before anything is recorded, reading no more than a line (and
// no more than MaxExportSize) at a time.
func TestImportHostile(t *testing.T) {
	ctx := context.Background()
	bo, c1, _ := openCounterCopies(t)
	b := mustBlock(t, bo)
	if _, err := c1.Claim(ctx, claimReq(serialOf(b, ticketsWith(t, bo, b, 15, 1)[0]), Identity{Desk: "C1", Operator: "ann"})); err != nil {
		t.Fatal(err)
	}
	good := exportOf(t, c1)
	lines := bytes.Split(bytes.TrimSpace(good), []byte("\n"))
	claimLine := lines[len(lines)-1] // the payment
	with := func(field string, value any) []byte {
		var m map[string]any
		if err := json.Unmarshal(claimLine, &m); err != nil {
			t.Fatal(err)
		}
		m[field] = value
		line, _ := json.Marshal(m)
		return append(bytes.Join(append(lines[:len(lines)-1:len(lines)-1], line), []byte("\n")), '\n')
	}
	esc := "\x1b]0;pwned\x07\x1b[2J"
	cases := map[string]struct {
		file []byte
		want string
	}{
		"a 4 MB operator with escape sequences": {with("operator", strings.Repeat(esc, 4<<20/len(esc))), "longer than 16 KB"},
		"a 1 MB method":                         {with("method", strings.Repeat("m", 1<<20)), "longer than 16 KB"},
		"an operator of 65 characters":          {with("operator", strings.Repeat("é", 65)), "operator: at most 64 characters"},
		"a request id of 65 characters":         {with("request", strings.Repeat("r", 65)), "request id: at most 64 characters"},
		"a winner's name of 201 characters":     {with("winner", map[string]string{"Name": strings.Repeat("n", 201), "DocType": "CNI", "DocNumber": "1"}), "winner's name: at most 200"},
		"a NUL in the desk":                     {with("desk", "C1\x00"), "desk"},
		"a method no counter writes":            {with("method", "telepathy"), `method "telepathy"`},
		"a kind no counter writes":              {with("kind", "void"), `kind "void"`},
		"a time not in the ledger's form":       {with("at", "2025-05-02T10:00:01Z"), "not a time as a ledger writes it"},
		"a file larger than any export":         {append(append([]byte(nil), good...), bytes.Repeat([]byte("\n"), core.MaxExportSize)...), "larger than 64 MB"},
	}
	for name, tc := range cases {
		last := lastEntry(t, bo)
		rep, err := bo.ImportClaims(ctx, bytes.NewReader(tc.file), Identity{Desk: "BO", Operator: "clerk"})
		if err == nil || !strings.Contains(err.Error(), tc.want) || rep.Recorded != 0 {
			t.Errorf("%s: %+v, %v; want an error saying %q", name, rep, err, tc.want)
		}
		if lastEntry(t, bo) != last {
			t.Errorf("%s: the refused file recorded entries", name)
		}
	}
	// The refusal stops reading: a stream that never ends is refused at
	// the size bound.
	_, err := bo.ImportClaims(ctx, io.MultiReader(bytes.NewReader(good), endless{}), Identity{Desk: "BO", Operator: "clerk"})
	if err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("an endless file: %v", err)
	}
	if rep, err := bo.ImportClaims(ctx, bytes.NewReader(good), Identity{Desk: "BO", Operator: "clerk"}); err != nil || rep.Recorded != 1 {
		t.Errorf("the untouched file after: %+v %v", rep, err)
	}
}

// endless reads blank lines for ever.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = '\n'
	}
	return len(p), nil
}
