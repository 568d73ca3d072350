package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/ledger/ledgertest"
	"vegas-desk/internal/mrz/mrztest"
	"vegas-desk/internal/pgtest"
	"vegas-desk/internal/printer/printertest"
)

// winnersIn returns a serial of each prize found in pack (first ticket of
// each prize), by prize, reading the ledger directly.
func winnersIn(t *testing.T, db string, pack int) map[int]string {
	t.Helper()
	l, err := ledger.OpenReadOnly(db)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	out := map[int]string{}
	for pos := pack * game.PackSize; pos < (pack+1)*game.PackSize; pos++ {
		tk, err := l.TicketAt(context.Background(), 531, 1, pos)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := out[tk.Prize]; !ok {
			out[tk.Prize] = tk.Serial.String()
		}
	}
	return out
}

// winnerOf returns the serial of a winner of pack, any prize but those
// excluded.
func winnerOf(t *testing.T, w map[int]string, not ...int) (string, int) {
	t.Helper()
	for _, p := range []int{50, 15, 9, 6, 3, 100} {
		skip := false
		for _, n := range not {
			skip = skip || n == p
		}
		if s, ok := w[p]; ok && !skip {
			return s, p
		}
	}
	t.Fatal("no winner in the pack")
	return "", 0
}

func jsonOf(t *testing.T, out string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
}

// The retail commands, as a script would run them: the emission's dates,
// the packs' lifecycle by number and by scanned code, the verdicts at the
// counter, referrals, receipts, a counter's day and its settlement, every
// report with --json.
func TestRetailCLI(t *testing.T) {
	db := ledgertest.Copy(t, ledgertest.Stock)
	dir := privateDir(t)
	today := time.Now().Format(time.DateOnly)
	tomorrow := time.Now().AddDate(0, 0, 1).Format(time.DateOnly)
	yesterday := time.Now().AddDate(0, 0, -1).Format(time.DateOnly)
	w10, w11, w12 := winnersIn(t, db, 10), winnersIn(t, db, 11), winnersIn(t, db, 12)
	s10, p10 := winnerOf(t, w10)
	s12, _ := winnerOf(t, w12)
	code10 := game.PackCode{Game: 531, Block: 1, Pack: 10}.String()
	code11 := game.PackCode{Game: 531, Block: 1, Pack: 11}.String()
	code12 := game.PackCode{Game: 531, Block: 1, Pack: 12}.String()
	s11, p11 := winnerOf(t, w11)
	cups := printertest.Install(t, "Recus", "Bureau")

	type step struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}
	steps := []step{
		// Emission dates.
		{"emission", []string{"emission", "--json"}, 0, `"on_sale": ""`, ""},
		{"emission in order", []string{"emission", "--on-sale", tomorrow, "--end-of-sale", yesterday}, 2, "", "end of sale comes before"},
		{"emission not a day", []string{"emission", "--on-sale", "demain"}, 2, "", "not a day"},
		{"emission set", []string{"emission", "--on-sale", tomorrow, "--end-of-sale", tomorrow, "--json"}, 0, `"deadline": "` +
			time.Now().AddDate(0, 0, 1+ledger.DefaultClaimDays).Format(time.DateOnly) + `"`, ""},
		{"claim days", []string{"settings", "--claim-days", "30"}, 0, "claim days          30", ""},
		{"the deadline's default", []string{"emission", "--end-of-sale", tomorrow, "--json"}, 0, `"deadline": "` +
			time.Now().AddDate(0, 0, 31).Format(time.DateOnly) + `"`, ""},
		{"settings out of range", []string{"settings", "--claim-days", "0"}, 2, "", "--claim-days"},
		{"a commission that is not a rate", []string{"settings", "--commission", "five"}, 2, "", "percentage"},

		// The packs' lifecycle.
		{"deliver without a desk", []string{"packs", "deliver", "--block", "1", "--packs", "10-12"}, 2, "", "--desk"},
		{"deliver", []string{"packs", "deliver", "--block", "1", "--packs", "10-13", "--desk", "D1", "--json"}, 0, `"count": 4`, ""},
		{"activate before receiving", []string{"packs", "activate", "--block", "1", "10"}, 1, "", "pack 531-0001-0010-2 is delivered; activate needs it received"},
		{"receive by another desk", []string{"packs", "receive", "--block", "1", "10", "--desk", "D2"}, 1, "", "delivered to desk D1, not D2"},
		{"receive by number and by code", []string{"packs", "receive", "--block", "1", "10", "12-13", code11}, 0, "received 4 packs: 531-0001-0010-2 to 531-0001-0013-1", ""},
		{"a mistyped pack code", []string{"packs", "receive", "531-0001-0011-0"}, 2, "", "check digit"},
		{"a pack number without its block", []string{"packs", "activate", "11"}, 2, "", "--block"},
		{"activate by code", []string{"packs", "activate", code11, "--json"}, 0, `"first_code": "` + code11 + `"`, ""},
		{"activate", []string{"packs", "activate", "--block", "1", "10"}, 0, "activated (on sale) 1 pack", ""},
		{"stolen", []string{"packs", "stolen", "--block", "1", "12", "--reason", "break-in"}, 0, "reported stolen 1 pack", ""},
		{"activate a stolen pack", []string{"packs", "activate", "--block", "1", "12"}, 1, "", "is stolen"},
		{"settle a pack never received", []string{"packs", "settle", "--block", "1", "14"}, 1, "", "is stock"},
		{"unknown move", []string{"packs", "sell", "--block", "1", "10"}, 2, "", "want deliver"},
		{"packs list", []string{"packs", "list", "--desk", "D1", "--json"}, 0, `"state": "on-sale"`, ""},
		{"packs list by state", []string{"packs", "list", "--state", "stolen"}, 0, code12, ""},
		{"packs list a bad state", []string{"packs", "list", "--state", "sold"}, 2, "", "--state"},

		// Verdicts at the counter.
		{"before the on-sale date", []string{"claim", s10, "--desk", "D1", "--operator", "ann", "--json"}, 1, "", "not yet on sale"},
		{"emission now", []string{"emission", "--on-sale", yesterday, "--end-of-sale", yesterday, "--deadline", yesterday}, 0, "deadline     " + yesterday, ""},
		{"after the deadline", []string{"claim", s10, "--desk", "D1", "--operator", "ann"}, 1, "", "claim deadline passed"},
		{"emission open", []string{"emission", "--on-sale", yesterday, "--end-of-sale", tomorrow, "--deadline", tomorrow}, 0, "", ""},
		{"pack not on sale", []string{"claim", winnersIn(t, db, 13)[0], "--desk", "D1", "--operator", "ann"}, 1, "", "not on sale"},
		{"stolen pack", []string{"lookup", s12, "--desk", "D1", "--json"}, 0, `"verdict": "stolen"`, ""},
		{"a ticket's pack by its code", []string{"lookup", s12, "--desk", "D1"}, 0, "pack " + code12 + " (stolen)", ""},
		{"stolen pack claimed", []string{"claim", s12, "--desk", "D2", "--operator", "bob"}, 1, "", "reported stolen"},
		{"flagged attempts", []string{"attempts", "--reason", "stolen", "--json"}, 0, `"pack": "` + code12 + `"`, ""},
		{"above the limit", []string{"claim", s11, "--desk", "D1", "--operator", "ann", "--limit", "1"}, 1, "", "back office pays it"},
		{"open referrals", []string{"referrals", "--json"}, 0, `"serial": "` + s11 + `"`, ""},
		{"pay", []string{"claim", s10, "--desk", "D1", "--operator", "ann", "--json"}, 0, `"number": 1`, ""},
		{"the back office pays the referral", []string{"claim", s11, "--desk", "BO", "--operator", "eve"}, 0, "PAY", ""},
		{"no open referral", []string{"referrals", "--json"}, 0, "[]", ""},
		{"void", []string{"void", "2", "--reason", "paid at the wrong desk"}, 0, "voided", ""},

		// Receipts.
		{"receipt", []string{"receipt", "1", "-o", filepath.Join(dir, "r1.pdf")}, 0, "", "written to"},
		{"receipt as JSON", []string{"receipt", "1", "--json"}, 0, `"amount": ` + strconv.Itoa(p10), ""},
		{"receipt of a void", []string{"receipt", "2", "--json"}, 0, `"void_reason": "paid at the wrong desk"`, ""},
		{"receipt without -o", []string{"receipt", "1"}, 2, "", "-o FILE.pdf or --printer QUEUE"},
		{"receipt printed", []string{"receipt", "1", "--printer", "Recus"}, 0, "", "receipt of payment 1 printed on Recus (job Recus-1)"},
		{"receipt on a printer that does not exist", []string{"receipt", "1", "--printer", "Recu"}, 2, "",
			`printer "Recu" does not exist: give a queue that lpstat -e lists (here: Bureau, Recus)`},
		{"receipt of no payment", []string{"receipt", "99", "--json"}, 2, "", "no payment"},

		// The day and the settlement.
		{"daily summary", []string{"daily", "--json"}, 0, `"desk": "D1"`, ""},
		{"day report", []string{"daily", "--desk", "D1", "--day", today, "--json"}, 0, `"packs_activated": [`, ""},
		{"day report as CSV", []string{"daily", "--desk", "D1", "--day", today, "--csv"}, 0, "desk,day,kind,at,payment", ""},
		{"day report as PDF", []string{"daily", "--desk", "D1", "--day", today, "-o", filepath.Join(dir, "day.pdf")}, 0, "", ""},
		{"day report printed", []string{"daily", "--desk", "D1", "--day", today, "--printer", "Bureau"}, 0, "",
			"day report of desk D1, " + today + " printed on Bureau (job Bureau-2)"},
		{"a summary printed", []string{"daily", "--printer", "Bureau"}, 2, "", "--printer go with --day"},
		{"day report without a desk", []string{"daily", "--day", today}, 2, "", "--desk"},
		{"two formats", []string{"daily", "--desk", "D1", "--day", today, "--csv", "--json"}, 2, "", "choose one"},
		{"settlement", []string{"settlement", "--desk", "D1", "--since", today, "--until", today}, 0, "the retailer owes the operator", ""},
		{"settlement as JSON", []string{"settlement", "--desk", "D1", "--since", today, "--until", today, "--json"}, 0, `"pack_count": 2`, ""},
		{"settlement as CSV", []string{"settlement", "--desk", "D1", "--since", today, "--until", today, "--csv"}, 0, "D1," + today, ""},
		{"settlement as PDF", []string{"settlement", "--desk", "D1", "--since", today, "--until", today, "-o", filepath.Join(dir, "s.pdf")}, 0, "", ""},
		{"settlement backwards", []string{"settlement", "--desk", "D1", "--since", today, "--until", yesterday}, 2, "", "before"},
		{"settlement without a desk", []string{"settlement", "--since", today, "--until", today}, 2, "", "--desk"},
		{"print without -o", []string{"print", "--block", "1", "--packs", "10"}, 2, "", "-o FILE.pdf"},
		{"print too many packs", []string{"print", "--block", "1", "--packs", "0-10", "-o", filepath.Join(dir, "x.pdf")}, 2, "", "at most 10 packs"},
		{"print a pack on sale", []string{"print", "--block", "1", code11, "-o", filepath.Join(dir, "demo.pdf")}, 1, "",
			"pack " + code11 + " is on-sale at desk D1; a ledger that is not a demonstration ledger prints only packs in stock"},
		{"labels", []string{"packs", "labels", "--block", "1", "--packs", "10-13", code12, "-o", filepath.Join(dir, "labels.pdf")}, 0, "", ""},
		{"labels on a roll, printed", []string{"packs", "labels", "--block", "1", "--packs", "10-11", "--roll", "--printer", "Bureau"}, 0, "",
			"labels of 2 packs printed on Bureau"},
		{"labels without -o", []string{"packs", "labels", "--block", "1", "--packs", "10"}, 2, "", "-o FILE.pdf or --printer QUEUE"},
		{"labels of a block that does not exist", []string{"packs", "labels", "--block", "7", "--packs", "10", "-o", filepath.Join(dir, "x.pdf")}, 2, "", "not found"},
		{"verify", []string{"verify", "--json"}, 0, `"ok": true`, ""},
	}
	for _, st := range steps {
		out, errs, code := vd(t, db, "", st.args...)
		if code != st.code || !strings.Contains(out, st.stdout) || !strings.Contains(errs, st.stderr) {
			t.Errorf("%s: %v\nexit %d, want %d\nstdout %s\n(want %q)\nstderr %s\n(want %q)", st.name, st.args, code, st.code, out, st.stdout, errs, st.stderr)
		}
	}

	// What lp was given: the receipt, the failed try, the day report, the
	// labels.
	jobs := cups.Jobs(t)
	var queues []string
	for _, j := range jobs {
		queues = append(queues, strings.Join(j.Args[:2], " "))
	}
	if want := []string{"-d Recus", "-d Recu", "-d Bureau", "-d Bureau"}; !slices.Equal(queues, want) {
		t.Fatalf("lp was given %q, want %q", queues, want)
	}
	for i, want := range map[int]string{0: "REÇU DE PAIEMENT", 2: "Rapport du jour", 3: "531-0001-0011-5"} {
		f := filepath.Join(dir, fmt.Sprintf("job-%d.pdf", i))
		if err := os.WriteFile(f, jobs[i].File, 0o644); err != nil {
			t.Fatal(err)
		}
		if text, err := exec.Command("pdftotext", f, "-").Output(); err != nil || !strings.Contains(string(text), want) {
			t.Errorf("job %d printed %q, %v; want %q", i, text, err, want)
		}
	}
	// A printer whose queue refuses jobs: exit 1, and why.
	cups.Refuse(t, "Recus")
	if _, errs, code := vd(t, db, "", "receipt", "1", "--printer", "Recus"); code != 1 ||
		!strings.Contains(errs, `printer "Recus" refused the job (lp: Destination "Recus" is not accepting jobs.)`) {
		t.Errorf("a refusing printer: exit %d, %s", code, errs)
	}

	// D1's day: the referral of s11 (paid since by the back office, but
	// sent there by D1), the two packs put on sale at 600 € each.
	out, _, _ := vd(t, db, "", "daily", "--desk", "D1", "--day", today, "--json")
	var day struct {
		Referrals []struct {
			Serial string `json:"serial"`
			Amount *int   `json:"amount"`
			Tries  int    `json:"tries"`
		} `json:"referrals"`
		Referred int `json:"referred"`
		Sales    []struct {
			Pack    string `json:"pack"`
			Tickets int    `json:"tickets"`
			Value   int    `json:"value"`
		} `json:"sales"`
		SalesValue int `json:"sales_value"`
	}
	jsonOf(t, out, &day)
	if len(day.Referrals) != 1 || day.Referrals[0].Serial != core.MaskSerial(s11) || day.Referrals[0].Amount == nil ||
		*day.Referrals[0].Amount != p11 || day.Referrals[0].Tries != 1 || day.Referred != p11 {
		t.Errorf("the day's referrals: %s", out)
	}
	if len(day.Sales) != 2 || day.Sales[0].Pack != code10 || day.Sales[1].Pack != code11 || day.Sales[0].Value != 600 || day.SalesValue != 1200 {
		t.Errorf("the day's sales: %s", out)
	}

	// The settlement by hand: packs 10 and 11 activated today at D1, 2 ×
	// 200 × 3 € = 1 200 €; one payment stands at D1 (the referral was paid
	// at BO): prize p10; 5 % = 60 €.
	out, _, _ = vd(t, db, "", "settlement", "--desk", "D1", "--since", today, "--until", today, "--json")
	var s struct {
		Packs      []string `json:"packs"`
		Sales      int      `json:"sales_cents"`
		Prizes     int      `json:"prizes_cents"`
		Commission int      `json:"commission_cents"`
		Balance    int      `json:"balance_cents"`
		OwedBy     string   `json:"owed_by"`
	}
	jsonOf(t, out, &s)
	if len(s.Packs) != 2 || s.Sales != 120000 || s.Prizes != 100*p10 || s.Commission != 6000 || s.Balance != 120000-100*p10-6000 || s.OwedBy != "retailer" {
		t.Errorf("settlement %+v", s)
	}

	if out, errs, code := vd(t, db, "", "settings", "--commission", "5,5 %", "--json"); code != 0 || !strings.Contains(out, `"commission": 550`) {
		t.Errorf("settings --commission: %d %s %s", code, out, errs)
	}
	if out, _, _ := vd(t, db, "", "settlement", "--desk", "D1", "--since", today, "--until", today, "--json"); !strings.Contains(out, `"commission_cents": 6600`) {
		t.Errorf("the settlement at 5.5 %%:\n%s", out)
	}

	// Every label reads back, printed at 300 dpi, as its pack's code.
	if out, err := exec.Command("pdftoppm", "-r", "300", "-gray", "-png", filepath.Join(dir, "labels.pdf"), filepath.Join(dir, "label")).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm: %v %s", err, out)
	}
	pngs, _ := filepath.Glob(filepath.Join(dir, "label-*.png"))
	read, err := exec.Command("zbarimg", append([]string{"--quiet", "--raw", "-Sdisable", "-Scode128.enable"}, pngs...)...).Output()
	var want []string
	for _, p := range []int{10, 11, 12, 13} { // 12 named twice, labelled once
		want = append(want, game.PackCode{Game: 531, Block: 1, Pack: p}.Compact())
	}
	got := strings.Fields(string(read))
	slices.Sort(got)
	slices.Sort(want)
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("the labels read %v, %v; want %v", got, err, want)
	}

	// The PDFs say what they should.
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Fatal("pdftotext not found: install poppler-utils (make deps-test does)")
	}
	for file, want := range map[string][]string{
		"r1.pdf":  {"REÇU DE PAIEMENT", "n° 1", "Guichet :        D1", "ann"},
		"day.pdf": {"Rapport du jour", "Carnets mis en vente (2)", code10, code11, "Renvois au service central (1)", core.MaskSerial(s11)},
		"s.pdf":   {"Relevé de compte", "Le détaillant doit"},
	} {
		text, err := exec.Command("pdftotext", "-layout", "-enc", "UTF-8", filepath.Join(dir, file), "-").Output()
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range want {
			if !strings.Contains(strings.ReplaceAll(string(text), "\u00a0", " "), w) {
				t.Errorf("%s lacks %q:\n%s", file, w, text)
			}
		}
		if strings.Contains(string(text), s10) {
			t.Errorf("%s shows a whole serial", file)
		}
	}
}

// Winners' identities stay out of the exports unless asked for.
func TestIdentityExport(t *testing.T) {
	db := ledgertest.Copy(t, ledgertest.Block)
	big := serials(t).Winners[1000][0]
	if _, errs, code := vd(t, db, "", "claim", big, "--desk", "BO", "--operator", "eve"); code != 0 {
		t.Fatalf("claim: %s", errs)
	}
	if _, errs, code := vd(t, db, "", "emission", "--json"); code != 0 {
		t.Fatal(errs)
	}
	// A lower threshold: the 1 000 € payment needs an identity.
	if out, errs, code := vd(t, db, "", "settings", "--identity-threshold", "1000", "--json"); code != 0 || !strings.Contains(out, `"identity_threshold": 1000`) {
		t.Fatalf("settings: %d %s %s", code, out, errs)
	}
	out, errs, code := vd(t, db, "", "claim", big, "--desk", "BO", "--operator", "eve")
	if code != 1 || !strings.Contains(errs, "already claimed") {
		t.Fatalf("claim again: %d %s %s", code, out, errs)
	}
	if _, errs, code := vd(t, db, "", "void", "1", "--reason", "test"); code != 0 {
		t.Fatal(errs)
	}
	if _, errs, code := vd(t, db, "", "claim", big, "--desk", "BO", "--operator", "eve"); code != 1 || !strings.Contains(errs, "identity") {
		t.Fatalf("claim without an identity: %d %s", code, errs)
	}
	// Issue 23: an identity of characters that print nothing is none; the
	// refusal says why.
	if _, errs, code := vd(t, db, "", "claim", big, "--desk", "BO", "--operator", "eve",
		"--winner-name", "\u200b\u3164", "--winner-doc", "\u2060", "--winner-doc-number", "\ufeff\u2800\u200b\u200b"); code != 1 ||
		!strings.Contains(errs, "the identity given is none: winner's name") || !strings.Contains(errs, "at least 2 letters") {
		t.Fatalf("claim with an invisible identity: %d %s", code, errs)
	}
	if _, errs, code := vd(t, db, "", "claim", big, "--desk", "BO", "--operator", "eve",
		"--winner-name", "Jeanne Martin", "--winner-doc", "permis", "--winner-doc-number", "123"); code != 1 ||
		!strings.Contains(errs, "document number \"123\": a permis de conduire's number is 2 digits, 2 letters, 5 digits (since 2013)") {
		t.Fatalf("claim with a short document number: %d %s", code, errs)
	}
	// Issue 44: a CNI typed is none (its zone gives it).
	if _, errs, code := vd(t, db, "", "claim", big, "--desk", "BO", "--operator", "eve",
		"--winner-name", "Jeanne Martin", "--winner-doc", "CNI", "--winner-doc-number", "T7MK2QLV8"); code != 1 ||
		!strings.Contains(errs, "machine-readable zone: a CNI carries one") || !strings.Contains(errs, "--winner-mrz for a CNI") {
		t.Fatalf("claim with a CNI typed: %d %s", code, errs)
	}
	if _, errs, code := vd(t, db, "", "claim", big, "--desk", "BO", "--operator", "eve",
		"--winner-name", "Jeanne Martin", "--winner-doc", "permis", "--winner-doc-number", "19az 71864"); code != 0 {
		t.Fatalf("claim with an identity: %s", errs)
	}
	for _, args := range [][]string{{"claims", "--csv"}, {"claims", "--json"}, {"daily", "--json"}, {"receipt", "2", "--json"}} {
		out, _, _ := vd(t, db, "", args...)
		if strings.Contains(out, "Jeanne") || strings.Contains(out, "19AZ71864") {
			t.Errorf("%v shows the winner's identity:\n%s", args, out)
		}
	}
	out, _, _ = vd(t, db, "", "claims", "--csv", "--with-identity")
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(rows) != 3 || rows[0][14] != "winner_name" || rows[2][14] != "Jeanne Martin" || rows[1][14] != "" {
		t.Errorf("claims --csv --with-identity: %v\n%s", err, out)
	}
	out, _, _ = vd(t, db, "", "claims", "--json", "--with-identity")
	if !strings.Contains(out, `"doc_number": "19AZ71864"`) {
		t.Errorf("claims --json --with-identity:\n%s", out)
	}
	if _, errs, code := vd(t, db, "", "claims", "--with-identity"); code != 2 || !strings.Contains(errs, "--csv or --json") {
		t.Errorf("--with-identity alone: %d %s", code, errs)
	}
}

// On a shared ledger a counter through the validation server receives and
// activates its own packs, scanned or typed, prints its day and its
// receipts, and nothing more: the server refuses the rest.
func TestCounterRetailCLI(t *testing.T) {
	db := pg.NewDatabase(t)
	url := pg.URL(pgtest.Owner, db)
	stock := ledgertest.Copy(t, ledgertest.Stock)
	if _, errs, code := vd(t, stock, "", "copy", stock, url); code != 0 {
		t.Fatalf("copy: %s", errs)
	}
	dir, srv := serveOf(t, url)
	d1 := filepath.Join(t.TempDir(), "D1.desk")
	if out, errs, code := vd(t, url, "", "desks", "add", "D1", "--limit", "150", "--out", d1, "--dir", dir); code != 0 {
		t.Fatalf("desks add: %s %s", out, errs)
	}
	if _, errs, code := vd(t, url, "", "desks", "add", "D2"); code != 0 {
		t.Fatalf("desks add D2: %s", errs)
	}
	for _, args := range [][]string{
		{"packs", "deliver", "--block", "1", "--packs", "0-3", "--desk", "D1"},
		{"packs", "deliver", "--block", "1", "--packs", "4", "--desk", "D2"},
	} {
		if _, errs, code := vd(t, url, "", args...); code != 0 {
			t.Fatalf("%v: %s", args, errs)
		}
	}
	counter := func(args ...string) (string, string, int) {
		return vd(t, url, "", append([]string{"--server", srv, "--desk-cert", d1}, args...)...)
	}
	today := time.Now().Format(time.DateOnly)
	code0 := game.PackCode{Game: 531, Block: 1, Pack: 0}.String()
	for _, tc := range []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{[]string{"packs", "receive", "--block", "1", "0-2", "--operator", "ann"}, 0, "received 3 packs", ""},
		{[]string{"packs", "activate", code0, "--operator", "ann", "--json"}, 0, `"first_code": "` + code0 + `"`, ""},
		{[]string{"packs", "receive", "--block", "1", "4", "--operator", "ann"}, 1, "", "was not delivered to desk D1: ask the back office"},
		{[]string{"packs", "receive", "--block", "1", "9", "--operator", "ann"}, 1, "", "was not delivered to desk D1: ask the back office"},
		{[]string{"packs", "activate", "--block", "1", "3", "--operator", "ann"}, 1, "", "activate needs it received"},
		{[]string{"packs", "settle", "--block", "1", "0", "--operator", "ann"}, 1, "", "back office"},
		{[]string{"packs", "deliver", "--block", "1", "--packs", "5", "--desk", "D1", "--operator", "ann"}, 1, "", "back office"},
		{[]string{"packs", "stolen", "--block", "1", "1", "--operator", "ann"}, 1, "", "back office"},
		{[]string{"packs", "list", "--json"}, 0, `"state": "on-sale"`, ""},
		{[]string{"daily", "--day", today, "--json"}, 0, `"packs_activated": [
    "` + code0 + `"
  ]`, ""},
		{[]string{"daily", "--day", today, "--json"}, 0, `"pack": "` + code0 + `",
      "tickets": 200,
      "value": 600`, ""},
		{[]string{"daily", "--day", today, "--json"}, 0, `"referrals": [`, ""},
		{[]string{"settlement", "--desk", "D1", "--since", today, "--until", today}, 1, "", "back office"},
		{[]string{"referrals"}, 1, "", "back office"},
		{[]string{"emission", "--on-sale", today}, 1, "", "back office"},
		{[]string{"settings", "--commission", "9"}, 1, "", "back office"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			out, errs, code := counter(tc.args...)
			if code != tc.code || !strings.Contains(out, tc.stdout) || !strings.Contains(errs, tc.stderr) {
				t.Errorf("exit %d (want %d)\nstdout %s\nstderr %s", code, tc.code, out, errs)
			}
		})
	}
	// The counter sees its own packs only; the back office sees D2's too.
	out, _, _ := counter("packs", "list", "--json")
	if strings.Contains(out, `"desk": "D2"`) {
		t.Errorf("a counter lists another's packs:\n%s", out)
	}
	if out, _, _ := vd(t, url, "", "packs", "list", "--desk", "D2"); !strings.Contains(out, "delivered") {
		t.Errorf("the back office's list of D2's packs:\n%s", out)
	}
	if out, _, code := vd(t, url, "", "verify", "--json"); code != 0 || !strings.Contains(out, `"ok": true`) {
		t.Errorf("verify: %s", out)
	}
}

// Issue 44 at the command line: --winner-mrz takes the winner's identity
// from the document's zone, typed or read from the standard input (an MRZ
// reader); a zone whose check digit is wrong, or that names a
// placeholder, is none; a minor's or an expired card is refused in the
// user's language before anything is asked; a zone that reads pays, and
// the ledger keeps its name, document and number.
func TestClaimWinnerMRZ(t *testing.T) {
	db := ledgertest.Copy(t, ledgertest.Block)
	if _, errs, code := vd(t, db, "", "settings", "--identity-threshold", "1000"); code != 0 {
		t.Fatal(errs)
	}
	big := serials(t).Winners[1000][0]
	now := time.Now()
	claim := func(stdin string, args ...string) (string, string, int) {
		return vd(t, db, stdin, append([]string{"claim", big, "--desk", "BO", "--operator", "eve"}, args...)...)
	}
	wrong := strings.Replace(mrztest.Card("T7MK2QLV8", "DUPONT<<JEAN<PIERRE", now.AddDate(-40, 0, 0), now.AddDate(3, 0, 0)), "T7MK2QLV8", "T7MK2QLV9", 1)
	if _, errs, code := claim("", "--winner-mrz", wrong); code != 1 || !strings.Contains(errs, "check digit wrong") {
		t.Errorf("a zone mistyped: %d %s", code, errs)
	}
	placeholder := mrztest.Card("W3PL8NVK5", "NOM<<PRENOM", now.AddDate(-40, 0, 0), now.AddDate(3, 0, 0))
	if _, errs, code := claim("", "--winner-mrz", placeholder); code != 1 || !strings.Contains(errs, "a placeholder, not a name") {
		t.Errorf("a zone naming a placeholder: %d %s", code, errs)
	}
	minor := mrztest.Card("R8WN3CTJ6", "PETIT<<LUCAS", now.AddDate(-18, 0, 2), now.AddDate(5, 0, 0))
	if _, errs, code := claim("", "--winner-mrz", minor); code != 1 || !strings.Contains(errs, "under 18: a prize is never paid to a minor; do not pay") {
		t.Errorf("a minor: %d %s", code, errs)
	}
	t.Setenv("LANG", "fr_FR.UTF-8")
	if _, errs, code := claim("", "--winner-mrz", minor); code != 1 || !strings.Contains(errs, "un gain n'est jamais payé à un mineur ; ne payez pas") {
		t.Errorf("a minor, in French: %d %s", code, errs)
	}
	expired := mrztest.Card("H5QZ7VDM2", "BERNARD<<CLAIRE", now.AddDate(-40, 0, 0), now.AddDate(0, 0, -2))
	if _, errs, code := claim("", "--winner-mrz", expired); code != 1 || !strings.Contains(errs, "est périmée : demandez-en une en cours de validité") {
		t.Errorf("an expired card, in French: %d %s", code, errs)
	}
	t.Setenv("LANG", "C")
	// As an MRZ reader types it: its lines, each ended by Enter (CR LF).
	valid := mrztest.Card("T7MK2QLV8", "DUPONT<<JEAN<PIERRE", now.AddDate(-40, 0, 0), now.AddDate(3, 0, 0))
	if out, errs, code := claim(strings.ReplaceAll(valid, "\n", "\r\n")+"\r\n", "--winner-mrz", "-", "--json"); code != 0 || !strings.Contains(out, `"amount": 1000`) {
		t.Fatalf("a zone read: %d %s %s", code, out, errs)
	}
	out, _, _ := vd(t, db, "", "claims", "--json", "--with-identity")
	if !strings.Contains(out, `"name": "JEAN PIERRE DUPONT"`) || !strings.Contains(out, `"doc_type": "CNI"`) || !strings.Contains(out, `"doc_number": "T7MK2QLV8"`) {
		t.Errorf("kept:\n%s", out)
	}
}
