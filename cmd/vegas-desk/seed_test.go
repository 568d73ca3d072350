package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/ledgertest"
)

// ceremonyFiles are the files of a drawing: each party's secret and
// commitment, the back office's key file.
type ceremonyFiles struct {
	dir                                    string
	opSecret, opPublic, auSecret, auPublic string
	key                                    string
}

// ceremony draws block 531/1 of a new ledger as docs/ceremony.md tells:
// each party's seed commit, the back office's seed record of both
// commitments, then generate --commitments --reveal. It checks each
// command's refusals of what the ceremony must not take on its way.
func ceremony(t *testing.T) (string, ceremonyFiles) {
	t.Setenv("VEGAS_DESK_PASSPHRASE", ledgertest.Passphrase)
	dir := t.TempDir()
	f := ceremonyFiles{dir: dir, key: filepath.Join(ledgertest.MustDir(t, ledgertest.Sealed), "key")}
	in := func(name string) string { return filepath.Join(dir, name) }
	f.opSecret, f.opPublic, f.auSecret, f.auPublic = in("operator.secret"), in("operator.commitment"), in("auditor.secret"), in("auditor.commitment")
	db := in("l.db")

	// The operator's commitment on the standard output, the auditor's
	// with --public.
	out, errs, code := run1(t, "", "seed", "commit", "--role", "operator", "-o", f.opSecret)
	if code != 0 || !strings.HasPrefix(out, "vegas-desk seed commitment 1\nrole=operator\ngame=531\ncommitment=") || strings.Contains(out, "secret=") ||
		!strings.Contains(errs, "keep it to yourself") {
		t.Fatalf("seed commit: exit %d\n%s%s", code, out, errs)
	}
	os.WriteFile(f.opPublic, []byte(out), 0o644)
	if _, errs, code := run1(t, "", "seed", "commit", "--role", "auditor", "-o", f.auSecret, "--public", f.auPublic); code != 0 {
		t.Fatalf("seed commit --public: exit %d %s", code, errs)
	}
	for _, s := range []string{f.opSecret, f.auSecret} {
		if st, err := os.Stat(s); err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v %v, want mode 0600", s, st.Mode(), err)
		}
	}
	// What seed commit refuses: a secret file replaced, a role of its own.
	before, _ := os.ReadFile(f.opSecret)
	if _, errs, code := run1(t, "", "seed", "commit", "--role", "operator", "-o", f.opSecret); code != 2 || !strings.Contains(errs, "never replaced") {
		t.Errorf("seed commit over a secret file: exit %d %s", code, errs)
	}
	if after, _ := os.ReadFile(f.opSecret); string(after) != string(before) {
		t.Error("seed commit replaced a secret file")
	}
	if _, errs, code := run1(t, "", "seed", "commit", "--role", "boss", "-o", in("x")); code != 2 || !strings.Contains(errs, "want operator or auditor") {
		t.Errorf("seed commit --role boss: exit %d %s", code, errs)
	}

	// A secret file is not recorded: its secret stays with its holder.
	if _, errs, code := vd(t, db, "", "seed", "record", f.auSecret, "--key-file", f.key); code != 2 || !strings.Contains(errs, "is a secret file") {
		t.Errorf("seed record of a secret file: exit %d %s", code, errs)
	}
	// The first record makes the ledger, as generate would.
	if out, errs, code := vd(t, db, "", "seed", "record", f.opPublic, "--key-file", f.key, "--operator", "anne"); code != 0 || !strings.Contains(out, "recorded: journal entry 1") {
		t.Fatalf("seed record %s: exit %d\n%s%s", f.opPublic, code, out, errs)
	}
	if _, errs, code := vd(t, db, "", "generate", "--commitments", f.opPublic+","+f.auPublic, "--reveal", f.opSecret+","+f.auSecret); code != 1 ||
		!strings.Contains(errs, "auditor's commitment") || !strings.Contains(errs, "was never recorded") {
		t.Fatalf("generate before the auditor's commitment is recorded: exit %d %s", code, errs)
	}
	if out, errs, code := vd(t, db, "", "seed", "record", f.auPublic, "--key-file", f.key, "--operator", "anne"); code != 0 || !strings.Contains(out, "recorded: journal entry 2") {
		t.Fatalf("seed record %s: exit %d\n%s%s", f.auPublic, code, out, errs)
	}
	if _, errs, code := vd(t, db, "", "seed", "record", f.opPublic, "--key-file", f.key); code != 1 || !strings.Contains(errs, "recorded already") {
		t.Errorf("seed record twice: exit %d %s", code, errs)
	}
	// One reveal only, or both the operator's: refused before a ticket.
	for _, args := range [][]string{
		{"--commitments", f.opPublic + "," + f.auPublic, "--reveal", f.opSecret},
		{"--commitments", f.opPublic + "," + f.auPublic, "--reveal", f.opSecret + "," + f.opSecret},
		{"--commitments", f.opPublic, "--reveal", f.opSecret + "," + f.auSecret},
		{"--commitments", f.opPublic + "," + f.auPublic, "--reveal", f.opSecret + "," + f.auSecret, "--seed", strings.Repeat("ab", 32)},
	} {
		if _, errs, code := vd(t, db, "", append([]string{"generate"}, args...)...); code != 2 {
			t.Errorf("generate %v: exit %d %s", args, code, errs)
		}
	}

	out, errs, code = vd(t, db, "", "generate", "--commitments", f.opPublic+","+f.auPublic, "--reveal", f.auSecret+","+f.opSecret, "--activate", "--json")
	var gen map[string]any
	if err := json.Unmarshal([]byte(out), &gen); code != 0 || err != nil || gen["block"] != 1.0 || gen["tickets"] != 2e6 || gen["seed"] != "drawn" {
		t.Fatalf("generate --commitments --reveal: exit %d %v\n%s%s", code, err, out, errs)
	}
	// A commitment draws one block.
	if _, errs, code := vd(t, db, "", "generate", "--commitments", f.opPublic+","+f.auPublic, "--reveal", f.opSecret+","+f.auSecret); code != 1 ||
		!strings.Contains(errs, "drew block 531/1 already") {
		t.Errorf("generate again from the same commitments: exit %d %s", code, errs)
	}
	return db, f
}

// drawnCertificate: the certificate of a drawn block shows its drawing in
// its three forms; verify-certificate --reveal draws the seed again and
// generates the block again from it; and it refuses a reveal that does
// not match, a commitment recorded after the generation began, one
// commitment only or one role twice, and a commitment two certificates
// drew from.
func drawnCertificate(t *testing.T, db string, f ceremonyFiles) {
	pub := ledgertest.Key.Public().String()
	in := func(name string) string { return filepath.Join(f.dir, name) }
	text, errs, code := vd(t, db, "", "certificate", "--block", "1", "--key-file", f.key)
	if code != 0 || !strings.Contains(text, "\nseed=drawn\ngeneration_began=") || !strings.Contains(text, "\nreveal_hash=auditor ") {
		t.Fatalf("certificate: exit %d\n%s%s", code, text, errs)
	}
	os.WriteFile(in("cert.txt"), []byte(text), 0o600)
	if _, errs, code := vd(t, db, "", "certificate", "--block", "1", "--key-file", f.key, "-o", in("cert.pdf")); code != 0 {
		t.Fatalf("certificate -o: %s", errs)
	}
	jsonCert, _, _ := vd(t, db, "", "certificate", "--block", "1", "--key-file", f.key, "--json")
	if !strings.Contains(jsonCert, `"seed": "drawn"`) || !strings.Contains(jsonCert, `"reveal_hash": "`) {
		t.Errorf("certificate --json:\n%s", jsonCert)
	}
	os.WriteFile(in("cert.json"), []byte(jsonCert), 0o600)
	reveals := f.opSecret + "," + f.auSecret
	// Each form reads the drawing; the PDF's is checked with the reveals
	// (a block generated again, in memory, each time).
	for _, name := range []string{"cert.txt", "cert.json"} {
		if out, errs, code := run1(t, "", "verify-certificate", in(name), "--key", pub); code != 0 || !strings.Contains(out, "seed drawn from two commitments") ||
			!strings.Contains(out, "checked with --reveal") {
			t.Errorf("verify-certificate %s: exit %d\n%s%s", name, code, out, errs)
		}
	}
	out, errs, code := run1(t, "", "verify-certificate", in("cert.pdf"), "--key", pub, "--reveal", reveals)
	if code != 0 || !strings.Contains(out, "seed drawn from two commitments") || !strings.Contains(out, "OK: the reveals draw the seed, and the seed generates this block again") {
		t.Errorf("verify-certificate cert.pdf --reveal: exit %d\n%s%s", code, out, errs)
	}

	// Another secret of the auditor's: it does not open the commitment.
	if _, errs, code := run1(t, "", "seed", "commit", "--role", "auditor", "-o", in("other.secret"), "--public", in("other.commitment")); code != 0 {
		t.Fatal(errs)
	}
	if _, errs, code := run1(t, "", "verify-certificate", in("cert.txt"), "--key", pub, "--reveal", f.opSecret+","+in("other.secret")); code != 1 ||
		!strings.Contains(errs, "does not open the certificate's auditor commitment") {
		t.Errorf("a reveal that does not match: exit %d %s", code, errs)
	}
	// A changed secret file is no secret file.
	b, _ := os.ReadFile(f.auSecret)
	// (its first digit made another: a random secret may begin with f)
	changed := regexp.MustCompile(`secret=.`).ReplaceAllStringFunc(string(b), func(m string) string {
		if m == "secret=f" {
			return "secret=0"
		}
		return "secret=f"
	})
	if changed == string(b) {
		t.Fatalf("the secret file was not changed:\n%s", b)
	}
	os.WriteFile(in("changed.secret"), []byte(changed), 0o600)
	if _, errs, code := run1(t, "", "verify-certificate", in("cert.txt"), "--key", pub, "--reveal", f.opSecret+","+in("changed.secret")); code != 2 ||
		!strings.Contains(errs, "the file was changed") {
		t.Errorf("a changed secret file: exit %d %s", code, errs)
	}

	// Certificates whose drawing is not one, signed with the back
	// office's key (its holder could sign them; the check does not trust
	// the signature for what the drawing says).
	body := text[:strings.Index(text, "public_key=")]
	resign := func(name, body string) string {
		p := in(name)
		os.WriteFile(p, []byte(ledgertest.Key.Sign(body)), 0o600)
		return p
	}
	lineOf := func(prefix string) string {
		return regexp.MustCompile(`(?m)^` + prefix + `.*\n`).FindString(body)
	}
	began := regexp.MustCompile(`generation_began="(.*)"`).FindStringSubmatch(body)[1]
	opLine := lineOf("commitment=operator ")
	lateOp := regexp.MustCompile(`\S+\n$`).ReplaceAllString(opLine, began+"\n")
	auLine, auHash := lineOf("commitment=auditor "), lineOf("reveal_hash=auditor ")
	for _, c := range []struct{ name, body, want string }{
		{"recorded at the start", strings.Replace(body, opLine, lateOp, 1), "not before the generation began"},
		{"one commitment only", strings.Replace(strings.Replace(body, auLine, "", 1), auHash, "", 1), "drawn from 1 commitment(s) (operator)"},
		{"the operator twice", strings.Replace(strings.Replace(body, auLine, strings.Replace(auLine, "=auditor", "=operator", 1), 1),
			auHash, strings.Replace(auHash, "=auditor", "=operator", 1), 1), "not from one of the operator and one of the auditor"},
		{"a seed said drawn without commitments", regexp.MustCompile(`(?m)^(commitment|reveal_hash)=.*\n`).ReplaceAllString(body, ""), "drawn from 0 commitment(s)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := resign(c.name+".txt", c.body)
			if c.body == body {
				t.Fatal("the certificate is unchanged")
			}
			if out, errs, code := run1(t, "", "verify-certificate", p, "--key", pub); code != 1 || !strings.Contains(errs, c.want) {
				t.Errorf("exit %d, want 1 saying %q\n%s%s", code, c.want, out, errs)
			}
		})
	}
	// Two certificates drawn from the same commitments: the other one is
	// of block 2.
	other := resign("block2.txt", strings.Replace(body, "\nblock=1\n", "\nblock=2\n", 1))
	if _, errs, code := run1(t, "", "verify-certificate", in("cert.txt"), other, "--key", pub); code != 1 || !strings.Contains(errs, "drew block 531/1 of "+in("cert.txt")+" too") {
		t.Errorf("a reused commitment: exit %d %s", code, errs)
	}
	// The right reveals, a block the seed does not generate.
	wrong := resign("digest.txt", regexp.MustCompile(`\ndigest=\w+\n`).ReplaceAllString(body, "\ndigest="+strings.Repeat("0", 64)+"\n"))
	if _, errs, code := run1(t, "", "verify-certificate", wrong, "--key", pub, "--reveal", reveals); code != 1 || !strings.Contains(errs, "the block was not generated from this drawing") {
		t.Errorf("a block of another seed: exit %d %s", code, errs)
	}
	_ = game.Operator
}
