package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/ledger/ledgertest"
	"vegas-desk/internal/paper"
	"vegas-desk/internal/signing"
)

// run1 runs one command line without --db.
func run1(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), code
}

// The commands of issue 9 end to end: a key, two sealed counter ledgers
// paying one ticket, their payments brought home, a certificate and a
// checkpoint checked, a kept head.
func TestSealCLI(t *testing.T) {
	// The back office that sealed counter ledgers C1 (payout limit 100 €)
	// and C2 of its block (ledgertest.Sealed), and its key.
	dir := t.TempDir()
	sealed := ledgertest.MustDir(t, ledgertest.Sealed)
	bo := ledgertest.Copy(t, ledgertest.Sealed)
	c1, c2 := ledgertest.Copy(t, ledgertest.Sealed, "C1.db"), ledgertest.Copy(t, ledgertest.Sealed, "C2.db")
	key, pass := filepath.Join(sealed, "key"), filepath.Join(sealed, "passphrase")
	pub := ledgertest.Key.Public().String()
	wrong := filepath.Join(dir, "wrong")
	os.WriteFile(wrong, []byte("incorrect horse battery\n"), 0o600)
	t.Setenv("VEGAS_DESK_PASSPHRASE", "")
	t.Setenv("VEGAS_DESK_KEY_FILE", "")
	ss := serials(t)
	fifty, thousand, loser := ss.Winners[50][0], ss.Winners[1000][0], ss.Losers[0]

	newKey := filepath.Join(dir, "keys", "bo.key")
	out, errs, code := run1(t, "", "keygen", "-o", newKey, "--passphrase-file", pass)
	if code != 0 || !regexp.MustCompile(`public key  [0-9a-f]{64}`).MatchString(out) {
		t.Fatalf("keygen: exit %d\n%s%s", code, out, errs)
	}
	if st, err := os.Stat(newKey); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("key file: %v %v", st.Mode(), err)
	}
	if _, errs, code := run1(t, "", "keygen", "-o", newKey, "--passphrase-file", pass); code != 2 || !strings.Contains(errs, "never replaced") {
		t.Errorf("keygen over a key file: exit %d %s", code, errs)
	}
	signFlags := []string{"--key-file", key, "--passphrase-file", pass}

	// A counter ledger issued from the command line (the fixture's were
	// issued through the ledger's API).
	c3 := filepath.Join(dir, "c3.db")
	if _, errs, code := vd(t, bo, "", "counter-ledger", "--desk", "C3", "--limit", "100", "--key-file", key, "--passphrase-file", wrong, "-o", c3); code != 2 || !strings.Contains(errs, "wrong passphrase") {
		t.Fatalf("a wrong passphrase: exit %d %s", code, errs)
	}
	if _, err := os.Stat(c3); err == nil {
		t.Fatal("a counter ledger was written with a wrong passphrase")
	}
	// A desk the ledger does not know has no limit to seal: one is given.
	if _, errs, code := vd(t, bo, "", append([]string{"counter-ledger", "--desk", "C3", "-o", c3}, signFlags...)...); code != 2 || !strings.Contains(errs, "--limit EUROS") {
		t.Fatalf("a counter ledger without a limit: exit %d %s", code, errs)
	}
	out, errs, code = vd(t, bo, "", append([]string{"counter-ledger", "--desk", "C3", "--limit", "100", "--block", "1", "-o", c3}, signFlags...)...)
	if code != 0 || !strings.Contains(out, "counter ledger "+c3) {
		t.Fatalf("counter-ledger C3: exit %d\n%s%s", code, out, errs)
	}
	if out, errs, code := vd(t, c3, "", "claim", fifty, "--operator", "cat"); code != 0 || !strings.Contains(out, "PAY 50 €") {
		t.Errorf("pay at counter 3: exit %d\n%s%s", code, out, errs)
	}
	if out, errs, code := vd(t, c3, "", "verify", "--key", pub); code != 0 || !strings.Contains(out, "OK") {
		t.Errorf("verify counter 3: exit %d\n%s%s", code, out, errs)
	}
	if _, errs, code := vd(t, bo, "", append([]string{"counter-ledger", "--desk", "C1", "--limit", "100", "-o", c1}, signFlags...)...); code != 2 || !strings.Contains(errs, "may hold payments not yet brought home") {
		t.Errorf("counter-ledger over a counter ledger: exit %d %s", code, errs)
	}

	for _, tc := range []struct {
		name   string
		db     string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"lookup at a counter", c1, []string{"lookup", fifty}, 0, "verdict  payable", ""},
		{"a loser at a counter", c1, []string{"lookup", loser}, 0, "verdict  not-winner", ""},
		{"pay at counter 1", c1, []string{"claim", fifty, "--operator", "ann"}, 0, "PAY 50 €", ""},
		{"pay again at counter 1", c1, []string{"claim", fifty, "--operator", "ann"}, 1, "", "already claimed"},
		{"above the counter's limit", c1, []string{"claim", thousand, "--operator", "ann"}, 1, "", "above this desk's payout limit"},
		{"pay at counter 2", c2, []string{"claim", fifty, "--operator", "bob"}, 0, "PAY 50 €", ""},
		{"generate at a counter", c1, []string{"generate"}, 1, "", "sealed ledger of counter C1"},
		{"export at a counter", c1, []string{"export", "--block", "1"}, 1, "", "sealed ledger of counter C1"},
		{"report at a counter", c1, []string{"report", "--block", "1"}, 1, "", "sealed ledger of counter C1"},
		{"verify a counter", c1, []string{"verify", "--key", pub}, 0, "OK", ""},
		{"verify a counter with another key", c1, []string{"verify", "--key", strings.Repeat("0", 64)}, 1, "signed by key", ""},
		{"jsonl on the back office", bo, []string{"claims", "--jsonl"}, 1, "", "a counter ledger exports"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errs, code := vd(t, tc.db, "", tc.args...)
			if code != tc.code || !strings.Contains(out, tc.stdout) || !strings.Contains(errs, tc.stderr) {
				t.Errorf("exit %d (want %d)\nstdout %s\nstderr %s\nwant %q / %q", code, tc.code, out, errs, tc.stdout, tc.stderr)
			}
		})
	}

	// The payments come home.
	for i, c := range []string{c1, c2} {
		jsonl, errs, code := vd(t, c, "", "claims", "--jsonl")
		if code != 0 {
			t.Fatalf("claims --jsonl: %s", errs)
		}
		f := filepath.Join(dir, "c.jsonl")
		os.WriteFile(f, []byte(jsonl), 0o600)
		out, errs, code := vd(t, bo, "", "import-claims", f, "--json")
		var rep struct {
			Recorded, Referred int
			Flags              []struct{ Kind string }
		}
		json.Unmarshal([]byte(out), &rep)
		switch i {
		case 0:
			if code != 0 || rep.Recorded != 1 || rep.Referred != 1 || len(rep.Flags) != 0 {
				t.Errorf("import of counter 1: exit %d\n%s%s", code, out, errs)
			}
		case 1: // recorded all the same: counter 2 paid it out
			if code != 1 || rep.Recorded != 1 || len(rep.Flags) != 1 || rep.Flags[0].Kind != "double-payment" {
				t.Errorf("import of counter 2: exit %d\n%s%s", code, out, errs)
			}
		}
		out, _, code = vd(t, bo, "", "import-claims", f)
		if (i == 0 && code != 0) || !strings.Contains(out, "0 recorded now") {
			t.Errorf("import again: exit %d\n%s", code, out)
		}
	}
	if out, _, code := vd(t, bo, "", "claims", "--desk", "C1"); code != 0 || !strings.Contains(out, fifty) {
		t.Errorf("the back office lists counter 1's payment: %s", out)
	}
	// Counter 1's referral reached the back office; counter 2's payment is
	// an open case until a decision closes it.
	if out, _, code := vd(t, bo, "", "referrals"); code != 0 || !strings.Contains(out, "by desk C1") || !strings.Contains(out, "claim "+thousand) {
		t.Errorf("the back office's referrals: exit %d\n%s", code, out)
	}
	if out, _, code := vd(t, bo, "", "claims", "--desk", "C2"); code != 0 || !strings.Contains(out, "DOUBLE PAYMENT: case 2 open") {
		t.Errorf("claims of counter 2: exit %d\n%s", code, out)
	}
	if out, _, code := vd(t, bo, "", "cases"); code != 0 || !strings.Contains(out, "case 2: ticket "+fifty+" paid twice, 50 € to recover — OPEN") ||
		!strings.Contains(out, "at desk C1 by ann") || !strings.Contains(out, "at desk C2 by bob") {
		t.Errorf("cases: exit %d\n%s", code, out)
	}
	if _, errs, code := vd(t, bo, "", "cases", "close", "2"); code != 2 || !strings.Contains(errs, "--reason is required") {
		t.Errorf("cases close without a reason: exit %d %s", code, errs)
	}
	if out, errs, code := vd(t, bo, "", "cases", "close", "2", "--reason", "recovered from the winner", "--operator", "clerk"); code != 0 || !strings.Contains(out, "case 2 closed") {
		t.Errorf("cases close: exit %d\n%s%s", code, out, errs)
	}
	if out, _, code := vd(t, bo, "", "cases"); code != 0 || out != "no open double payment\n" {
		t.Errorf("cases after the decision: exit %d\n%s", code, out)
	}
	if out, _, code := vd(t, bo, "", "cases", "--all", "--json"); code != 0 || !strings.Contains(out, `"decision": "recovered from the winner"`) {
		t.Errorf("cases --all --json: exit %d\n%s", code, out)
	}

	// A certificate in its three forms, checked; one byte changed, refused.
	text, errs, code := vd(t, bo, "", append([]string{"certificate", "--block", "1"}, signFlags...)...)
	if code != 0 || !strings.HasPrefix(text, "vegas-desk block certificate 1\n") {
		t.Fatalf("certificate: exit %d %s", code, errs)
	}
	// The fixture's block was generated from a seed given (--seed): the
	// operator chose it alone, and the certificate says so.
	if !strings.Contains(text, "\nseed=operator-alone\n") {
		t.Errorf("the certificate of a block of a given seed does not say the operator chose it alone:\n%s", text)
	}
	jsonCert, _, _ := vd(t, bo, "", append([]string{"certificate", "--block", "1", "--json"}, signFlags...)...)
	pdf := filepath.Join(dir, "cert.pdf")
	if _, errs, code := vd(t, bo, "", append([]string{"certificate", "--block", "1", "-o", pdf}, signFlags...)...); code != 0 {
		t.Fatalf("certificate -o: %s", errs)
	}
	pdfData, _ := os.ReadFile(pdf)
	forms := map[string][]byte{"cert.txt": []byte(text), "cert.json": []byte(jsonCert), "cert.pdf": pdfData}
	for name, data := range forms {
		f := filepath.Join(dir, "check-"+name)
		os.WriteFile(f, data, 0o600)
		if out, errs, code := run1(t, "", "verify-certificate", f, "--key", pub); code != 0 || !strings.Contains(out, "OK: block certificate") ||
			!strings.Contains(out, "seed chosen by the operator alone") {
			t.Errorf("verify-certificate %s: exit %d\n%s%s", name, code, out, errs)
		}
		if _, errs, code := run1(t, "", "verify-certificate", f, "--key", strings.Repeat("ab", 32)); code != 1 || !strings.Contains(errs, "REFUSED") {
			t.Errorf("verify-certificate %s with another key: exit %d %s", name, code, errs)
		}
	}
	// Secrets given for a seed the operator chose alone: nothing to open.
	for _, r := range []string{"operator", "auditor"} {
		if _, errs, code := run1(t, "", "seed", "commit", "--role", r, "-o", filepath.Join(dir, r+".secret"), "--public", filepath.Join(dir, r+".commitment")); code != 0 {
			t.Fatal(errs)
		}
	}
	if _, errs, code := run1(t, "", "verify-certificate", filepath.Join(dir, "check-cert.txt"), "--key", pub, "--reveal",
		filepath.Join(dir, "operator.secret")+","+filepath.Join(dir, "auditor.secret")); code != 1 || !strings.Contains(errs, "chosen by the operator alone") {
		t.Errorf("verify-certificate --reveal of a seed the operator chose alone: exit %d %s", code, errs)
	}
	pdfText, err := exec.Command("pdftotext", "-layout", pdf, "-").Output()
	if err != nil || !strings.Contains(string(pdfText), "Graine choisie par l'opérateur seul.") {
		t.Errorf("the PDF certificate does not say the operator chose the seed alone (%v):\n%s", err, pdfText)
	}
	// Every byte of the text, changed in turn.
	f := filepath.Join(dir, "changed.txt")
	for i := range text {
		changed := []byte(text)
		changed[i] ^= 0x01
		os.WriteFile(f, changed, 0o600)
		if _, _, code := run1(t, "", "verify-certificate", f, "--key", pub); code != 1 {
			t.Fatalf("byte %d of the certificate changed (%q): exit %d", i, text[i], code)
		}
	}
	// Bytes of the PDF, at places spread over it; and of the JSON's fields.
	for i := 0; i < len(pdfData); i += len(pdfData)/97 + 1 {
		changed := bytes.Clone(pdfData)
		changed[i] ^= 0x01
		os.WriteFile(f, changed, 0o600)
		if _, _, code := run1(t, "", "verify-certificate", f, "--key", pub); code != 1 {
			t.Fatalf("byte %d of the PDF changed: exit %d", i, code)
		}
	}
	changed := strings.Replace(jsonCert, `"winners": 524722`, `"winners": 524723`, 1)
	os.WriteFile(f, []byte(changed), 0o600)
	if _, _, code := run1(t, "", "verify-certificate", f, "--key", pub); code != 1 || changed == jsonCert {
		t.Errorf("a JSON field changed: exit %d", code)
	}
	if out, _, code := run1(t, "", "verify-certificate", c1, "--key", pub); code != 0 || !strings.Contains(out, "OK: counter ledger of desk C1") {
		t.Errorf("verify-certificate of a counter ledger: exit %d %s", code, out)
	}

	// A checkpoint, then a kept head.
	cpFile := filepath.Join(dir, "checkpoint.txt")
	if _, errs, code := vd(t, bo, "", append([]string{"checkpoint", "-o", cpFile}, signFlags...)...); code != 0 {
		t.Fatalf("checkpoint: %s", errs)
	}
	out, errs, code = run1(t, "", "verify-certificate", cpFile, "--key", pub)
	head := regexp.MustCompile(`head ([0-9a-f]{64})`).FindStringSubmatch(out)
	if code != 0 || head == nil {
		t.Fatalf("verify-certificate of a checkpoint: exit %d %s %s", code, out, errs)
	}
	if out, errs, code := vd(t, bo, "", "verify", "--head", head[1]); code != 0 || !strings.Contains(out, "unchanged in the chain") {
		t.Errorf("verify --head of the checkpoint: exit %d\n%s%s", code, out, errs)
	}
	if out, _, code := vd(t, bo, "", "verify", "--head", strings.Repeat("5", 64)); code != 1 || !strings.Contains(out, "does not hold this head") {
		t.Errorf("verify --head of another hash: exit %d\n%s", code, out)
	}
	if _, errs, code := vd(t, bo, "", "verify", "--head", "xyz"); code != 2 {
		t.Errorf("verify --head of a malformed hash: exit %d %s", code, errs)
	}
}

// verify-certificate reads PDFs from anyone: a certificate whose attached
// text claims a length the file does not hold (the largest, a negative one,
// one past the end, one too large to read) is refused, and says why; the
// genuine one passes.
func TestVerifyCertificateBadLengths(t *testing.T) {
	key := signing.KeyFromSeed(bytes.Repeat([]byte{9}, 32))
	text := key.Sign("vegas-desk block certificate 1\nledger=0123456789abcdef0123456789abcdef\ngame=531\ngame_name=\"VEGAS\"\nblock=1\n" +
		"tickets=2000000\npack_size=200\ndigest=" + strings.Repeat("ab", 32) + "\ngenerated_at=\"2025-05-01T10:00:00.000000000Z\"\n" +
		"prize=3 100\nwinners=100\npayout=300\nsigned_at=\"2025-05-02T10:00:00.000000000Z\"\n")
	s, err := signing.Verify([]byte(text), key.Public())
	if err != nil {
		t.Fatal(err)
	}
	cert, err := core.ParseCertificate(s)
	if err != nil {
		t.Fatal(err)
	}
	var pdf bytes.Buffer
	if err := paper.WriteCertificate(&pdf, certificatePaper(cert)); err != nil {
		t.Fatal(err)
	}
	length := regexp.MustCompile(`/Type /EmbeddedFile /Length (\d+)`)
	if !length.Match(pdf.Bytes()) {
		t.Fatal("the certificate's PDF has no attached text")
	}
	dir := t.TempDir()
	check := func(name string, data []byte) (string, int) {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, data, 0o600); err != nil {
			t.Fatal(err)
		}
		_, errs, code := run1(t, "", "verify-certificate", f, "--key", key.Public().String())
		return errs, code
	}
	if errs, code := check("genuine.pdf", pdf.Bytes()); code != 0 {
		t.Fatalf("the genuine certificate: exit %d %s", code, errs)
	}
	n := len(length.FindSubmatch(pdf.Bytes())[1])
	for claim, want := range map[string]string{
		"9223372036854775807":     "cut short",
		"-9223372036854775808":    "negative length",
		"-1":                      "negative length",
		fmt.Sprint(pdf.Len()):     "cut short",
		"99999999999999999999999": "cut short",
		"":                        "no length",
	} {
		crafted := length.ReplaceAll(pdf.Bytes(), []byte("/Type /EmbeddedFile /Length "+claim))
		errs, code := check("crafted.pdf", crafted)
		if code != 1 || !strings.Contains(errs, "REFUSED") || !strings.Contains(errs, want) {
			t.Errorf("/Length %s (was %d digits): exit %d, %s", claim, n, code, errs)
		}
	}
	// The stream itself cut short, its length kept.
	i := bytes.Index(pdf.Bytes(), []byte("stream\n"))
	if errs, code := check("cut.pdf", pdf.Bytes()[:i+len("stream\n")+3]); code != 1 || !strings.Contains(errs, "cut short") {
		t.Errorf("a PDF cut inside its attached text: exit %d, %s", code, errs)
	}
}

// Text an operator typed, printed back: control characters escaped.
func TestTerminalEscapes(t *testing.T) {
	db := ledgertest.Copy(t, ledgertest.Block)
	ss := serials(t)
	winners := []string{ss.Winners[50][1], ss.Winners[15][1]}
	evil := "ann\x1b[2J\r\u202eX"
	if _, errs, code := vd(t, db, "", "claim", winners[0], "--desk", "D\x1b]0;pwned\x07", "--operator", evil); code != 0 {
		t.Fatal(errs)
	}
	vd(t, db, "", "void", "1", "--reason", "oops\x1b[31m red\nfake line", "--operator", evil)
	var all strings.Builder
	if _, errs, code := vd(t, db, "", "claim", winners[1], "--desk", "D\x1b[1m", "--operator", evil); code != 0 {
		t.Fatal(errs)
	}
	for _, cmd := range [][]string{{"claims"}, {"daily"}, {"void", "1", "--reason", "again"}, {"lookup", winners[1]}} {
		out, errs, _ := vd(t, db, "", cmd...)
		all.WriteString(out + errs)
	}
	if _, errs, _ := vd(t, db, "", "claim", winners[1], "--desk", "D3", "--operator", "eve"); !strings.Contains(errs, `\x1b`) {
		t.Errorf("the first payer's name is not shown escaped: %q", errs)
	} else {
		all.WriteString(errs)
	}
	for _, bad := range []string{"\x1b", "\r", "\u202e", "\x07"} {
		if strings.Contains(all.String(), bad) {
			t.Errorf("%q reached the terminal:\n%q", bad, all.String())
		}
	}
	if !strings.Contains(all.String(), `\x1b[2J`) {
		t.Errorf("the escape is not shown escaped:\n%s", all.String())
	}
}

// verify-certificate reads no more of a file than a certificate can be:
// a larger one is refused, not read into memory.
func TestVerifyCertificateTooLarge(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big.pdf")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("%PDF-1.7\n")
	if err := f.Truncate(maxCertificate + 1<<20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	key := signing.KeyFromSeed(bytes.Repeat([]byte{9}, 32)).Public().String()
	if _, errs, code := run1(t, "", "verify-certificate", big, "--key", key); code != 1 || !strings.Contains(errs, "larger than 16 MB") {
		t.Errorf("a 17 MB file: exit %d, %s", code, errs)
	}
}

// The tests' builds (tag ci) write key files at a cost of 1,000 PBKDF2
// rounds (internal/signing's kdf_ci.go); the command as shipped, built
// without the tag like make cli builds it, writes them at
// signing.Iterations (600,000), and reads them back.
func TestProductionKeyCost(t *testing.T) {
	bin := build(t, "0", "nogui")
	dir := privateDir(t)
	pass := filepath.Join(dir, "passphrase")
	os.WriteFile(pass, []byte(ledgertest.Passphrase+"\n"), 0o600)
	key := filepath.Join(dir, "bo.key")
	if out, err := exec.Command(bin, "keygen", "-o", key, "--passphrase-file", pass).CombinedOutput(); err != nil {
		t.Fatalf("keygen: %v\n%s", err, out)
	}
	data, err := os.ReadFile(key)
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("\niterations=%d\n", signing.Iterations); signing.Iterations != 600_000 || !strings.Contains(string(data), want) {
		t.Fatalf("the shipped command's key file, want %q (600,000):\n%s", want, data)
	}
	if _, err := signing.ReadKeyFile(key, []byte(ledgertest.Passphrase)); err != nil {
		t.Fatal(err)
	}
}
