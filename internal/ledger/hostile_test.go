package ledger

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

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
		req.Winner = &Winner{Name: "Jean Dupont", DocType: "permis de conduire", DocNumber: "880692310285"}
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
	if err != nil || rep.Recorded != 3 || len(rep.Flags) != 1 || rep.Flags[0].Kind != "double-payment" { // the double payment recorded too (issue 29)
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
	file := func(line []byte) []byte {
		return append(bytes.Join(append(lines[:len(lines)-1:len(lines)-1], line), []byte("\n")), '\n')
	}
	// with is the payment's line with one field changed, written as a
	// counter writes its lines (its keys in its order).
	with := func(field string, value any) []byte {
		var x core.ExportEntry
		if err := json.Unmarshal(claimLine, &x); err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		b, _ := json.Marshal(x)
		json.Unmarshal(b, &m)
		m[field] = value
		b, _ = json.Marshal(m)
		x = core.ExportEntry{}
		json.Unmarshal(b, &x)
		var out bytes.Buffer
		enc := json.NewEncoder(&out)
		enc.SetEscapeHTML(false)
		enc.Encode(x)
		return file(bytes.TrimSuffix(out.Bytes(), []byte("\n")))
	}
	// replaced is the payment's line with its first old replaced by new.
	replaced := func(old, new string) []byte {
		if !bytes.Contains(claimLine, []byte(old)) {
			t.Fatalf("%s is not in %s", old, claimLine)
		}
		return file(bytes.Replace(claimLine, []byte(old), []byte(new), 1))
	}
	esc := "\x1b]0;pwned\x07\x1b[2J"
	cases := map[string]struct {
		file []byte
		want string
	}{
		"a 4 MB operator with escape sequences":      {with("operator", strings.Repeat(esc, 4<<20/len(esc))), "longer than 16 KB"},
		"a 1 MB method":                              {with("method", strings.Repeat("m", 1<<20)), "longer than 16 KB"},
		"an operator of 65 characters":               {with("operator", strings.Repeat("é", 65)), "operator: at most 64 characters"},
		"a request id of 65 characters":              {with("request", strings.Repeat("r", 65)), "request id: at most 64 characters"},
		"a winner's name of 201 characters":          {with("winner", map[string]string{"Name": strings.Repeat("n", 201), "DocType": "CNI", "DocNumber": "1"}), "winner's name: at most 200"},
		"a NUL in the desk":                          {with("desk", "C1\x00"), "desk"},
		"a method no counter writes":                 {with("method", "telepathy"), `method "telepathy"`},
		"a kind no counter writes":                   {with("kind", "void"), `kind "void"`},
		"a time not in the ledger's form":            {with("at", "2025-05-02T10:00:01Z"), "not a time as a ledger writes it"},
		"a key twice (another tool reads the first)": {replaced(`{"id":`, `{"operator":"someone else","id":`), "a key twice"},
		"a key of other case":                        {replaced(`"operator":`, `"Operator":`), "a key twice or of other case"},
		"more after the entry":                       {file(append(append([]byte(nil), claimLine...), ` {"kind":"claim"}`...)), "more after the entry"},
		"a file larger than any export":              {append(append([]byte(nil), good...), bytes.Repeat([]byte("\n"), core.MaxExportSize)...), "larger than 64 MB"},
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

// forgeExport is a counter's export changed as its holder can change it:
// the entries edited by change, their hashes chained again, each line
// written as a counter writes it.
func forgeExport(tb testing.TB, data []byte, change func([]core.ExportEntry) []core.ExportEntry) []byte {
	tb.Helper()
	lines := bytes.Split(bytes.TrimSpace(data), []byte("\n"))
	var xs []core.ExportEntry
	for _, ln := range lines[1:] {
		var x core.ExportEntry
		if err := json.Unmarshal(ln, &x); err != nil {
			tb.Fatal(err)
		}
		xs = append(xs, x)
	}
	var out bytes.Buffer
	out.Write(append(lines[0], '\n'))
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	var prev []byte
	for i, x := range change(xs) {
		x.ID = int64(i + 1)
		e, err := x.Entry()
		if err != nil {
			tb.Fatal(err)
		}
		prev = e.ChainHash(prev)
		x.Hash = hex.EncodeToString(prev)
		enc.Encode(&x)
	}
	return out.Bytes()
}

// The holder of a counter ledger writes into its export, with every hash
// chained again, what no counter writes: a second issue entry (moving the
// bound before which a payment is forged back), a payment removed (the
// numbers of its kind show the gap), a payment by a blank operator, more
// forged payments than a report lists. Each file is refused as a whole.
func TestImportRefusesWhatNoCounterWrites(t *testing.T) {
	ctx := context.Background()
	bo, c1, _ := openCounterCopies(t)
	b := mustBlock(t, bo)
	for _, pos := range ticketsWith(t, bo, b, 15, 3) {
		if _, err := c1.Claim(ctx, claimReq(serialOf(b, pos), Identity{Desk: "C1", Operator: "ann"})); err != nil {
			t.Fatal(err)
		}
	}
	export := exportOf(t, c1)
	lastClaim := func(xs []core.ExportEntry) core.ExportEntry {
		for i := len(xs) - 1; ; i-- {
			if xs[i].Kind == "claim" {
				return xs[i]
			}
		}
	}
	cases := map[string]struct {
		change func([]core.ExportEntry) []core.ExportEntry
		want   string
	}{
		"a second issue entry": {func(xs []core.ExportEntry) []core.ExportEntry {
			issue := xs[0]
			issue.At = core.FormatTime(time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC))
			return append(xs[:1:1], append([]core.ExportEntry{issue}, xs[1:]...)...)
		}, "a second issue entry"},
		"a payment removed, the numbers kept": {func(xs []core.ExportEntry) []core.ExportEntry {
			var out []core.ExportEntry
			removed := false
			for _, x := range xs {
				if x.Kind == "claim" && !removed {
					removed = true
					continue
				}
				out = append(out, x)
			}
			return out
		}, "an entry was removed or renumbered"},
		"a payment by a blank operator": {func(xs []core.ExportEntry) []core.ExportEntry {
			x := lastClaim(xs)
			x.Number++
			x.Operator = " "
			return append(xs, x)
		}, "a claim records both"},
		"more forged payments than a report lists": {func(xs []core.ExportEntry) []core.ExportEntry {
			x := lastClaim(xs)
			for range core.MaxProblems + 1 {
				x.Number++
				x.Serial = game.PublicSerial(531, 1, x.Position) // no proof: each is flagged
				x.Detail = ""
				xs = append(xs, x)
			}
			return xs
		}, "a forged file"},
	}
	for name, tc := range cases {
		last := lastEntry(t, bo)
		rep, err := bo.ImportClaims(ctx, bytes.NewReader(forgeExport(t, export, tc.change)), Identity{Desk: "BO", Operator: "clerk"})
		if err != nil || !rep.Rejected || len(rep.Flags) == 0 || !strings.Contains(rep.Flags[len(rep.Flags)-1].What, tc.want) {
			t.Errorf("%s: %+v %v; want it refused saying %q", name, rep, err, tc.want)
		}
		if lastEntry(t, bo) != last {
			t.Errorf("%s: the refused file recorded entries", name)
		}
	}
	if rep, err := bo.ImportClaims(ctx, bytes.NewReader(forgeExport(t, export, func(xs []core.ExportEntry) []core.ExportEntry { return xs })), Identity{Desk: "BO", Operator: "clerk"}); err != nil || !rep.OK() || rep.Recorded != 3 {
		t.Errorf("the export unchanged, chained again: %+v %v", rep, err)
	}
}

// A payment brought home, then voided at the back office (the ticket is
// unpaid again): the counter's holder writes the payment again as a new
// entry of its journal. The import names it a double payment, with the
// payment imported before, and the ticket stays unpaid.
func TestImportReplayOfVoidedPayment(t *testing.T) {
	ctx := context.Background()
	bo, c1, _ := openCounterCopies(t)
	b := mustBlock(t, bo)
	pos := ticketsWith(t, bo, b, 50, 1)[0]
	if _, err := c1.Claim(ctx, claimReq(serialOf(b, pos), Identity{Desk: "C1", Operator: "ann"})); err != nil {
		t.Fatal(err)
	}
	clerk := Identity{Desk: "BO", Operator: "clerk"}
	export := exportOf(t, c1)
	if rep, err := bo.ImportClaims(ctx, bytes.NewReader(export), clerk); err != nil || !rep.OK() || rep.Recorded != 1 {
		t.Fatalf("import: %+v %v", rep, err)
	}
	tk, err := bo.TicketAt(ctx, 531, 1, pos)
	if err != nil || tk.Claim == nil {
		t.Fatalf("%+v %v", tk, err)
	}
	if _, err := bo.Void(ctx, tk.Claim.Number, "paid by mistake", clerk); err != nil {
		t.Fatal(err)
	}
	again := forgeExport(t, export, func(xs []core.ExportEntry) []core.ExportEntry {
		x := xs[len(xs)-1]
		x.Number++
		x.At = core.FormatTime(core.ParseTime(x.At).Add(time.Minute))
		return append(xs, x)
	})
	rep, err := bo.ImportClaims(ctx, bytes.NewReader(again), clerk)
	if err != nil || rep.Already != 1 || fmt.Sprint(flagKinds(rep)) != "[double-payment]" {
		t.Fatalf("the replay: %+v %v", rep, err)
	}
	if tk, _ := bo.TicketAt(ctx, 531, 1, pos); tk.Status != StatusUnpaid {
		t.Errorf("the replayed payment made the ticket %v", tk.Status)
	}
}
