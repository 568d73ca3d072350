package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/paper"
	"vegas-desk/internal/signing"
)

// The commands of the back office's signing key, of sealed counter ledgers
// and of anchors: keygen, counter-ledger, certificate, verify-certificate,
// checkpoint, import-claims.

// keyFlags are the flags of a command that signs.
type keyFlags struct{ file, passphraseFile *string }

func addKeyFlags(fs *pflag.FlagSet) keyFlags {
	return keyFlags{
		file:           fs.String("key-file", os.Getenv("VEGAS_DESK_KEY_FILE"), "the back office's key file (keygen; or VEGAS_DESK_KEY_FILE)"),
		passphraseFile: fs.String("passphrase-file", "", "read the key file's passphrase from this file (or VEGAS_DESK_PASSPHRASE; else it is asked)"),
	}
}

// key opens the back office's key file.
func (c *cli) key(k keyFlags, what string) (*signing.Key, error) {
	if *k.file == "" {
		return nil, badInput("%s: give the back office's key file with --key-file FILE (or VEGAS_DESK_KEY_FILE); make one with vegas-desk keygen", what)
	}
	pass, err := c.passphrase(*k.passphraseFile, false)
	if err != nil {
		return nil, err
	}
	key, err := signing.ReadKeyFile(*k.file, pass)
	switch {
	case errors.Is(err, signing.ErrWrongPassphrase):
		return nil, badInput("%s: key file %s: wrong passphrase; type it again", what, *k.file)
	case errors.Is(err, signing.ErrNotKeyFile), errors.Is(err, os.ErrNotExist):
		return nil, badInput("%s: %v: give the file vegas-desk keygen made", what, err)
	case err != nil:
		return nil, failf("%s: %w", what, err)
	}
	return key, nil
}

func (c *cli) keygen(fs *pflag.FlagSet) work {
	out := fs.String("o", "", "the key file to write (never replaced)")
	passFile := fs.String("passphrase-file", "", "read the passphrase from this file (or VEGAS_DESK_PASSPHRASE; else it is asked twice)")
	return work{run: func(_ *ledger.Ledger, args []string) error {
		if _, err := c.positional(fs, args, 0, "no argument"); err != nil {
			return err
		}
		if *out == "" {
			return badInput("keygen: -o FILE is required: where to keep the key, outside every ledger (a removable drive, a safe)")
		}
		if _, err := os.Stat(*out); err == nil {
			return badInput("keygen: %s exists: a key file is never replaced; choose another name", *out)
		}
		pass, err := c.passphrase(*passFile, true)
		if err != nil {
			return err
		}
		if n := len([]rune(string(pass))); n < signing.MinPassphrase {
			return badInput("keygen: the passphrase has %d characters; give at least %d", n, signing.MinPassphrase)
		}
		k, err := signing.Generate()
		if err != nil {
			return err
		}
		if err := signing.WriteKeyFile(*out, k, pass); err != nil {
			return failf("keygen: %w", err)
		}
		pub := k.Public().String()
		c.printf(c.stdout, "key file    %s (encrypted under the passphrase: keep both, apart)\npublic key  %s\n            %s\n", *out, pub, groups(pub))
		c.printf(c.stdout, "Publish the public key (print it, give it to the auditor): verify-certificate --key checks every signature against it.\n")
		return nil
	}}
}

// groups prints hex in groups of 8 for reading aloud and typing.
func groups(h string) string {
	var parts []string
	for len(h) > 8 {
		parts, h = append(parts, h[:8]), h[8:]
	}
	return strings.Join(append(parts, h), " ")
}

// blockList is a repeatable --block flag.
type blockList []int

func (b *blockList) String() string {
	if len(*b) == 0 {
		return "" // no default to show
	}
	return fmt.Sprint(*b)
}
func (b *blockList) Type() string { return "N" }
func (b *blockList) Set(s string) error {
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return failf("block %q: give a block number", f)
		}
		*b = append(*b, n)
	}
	return nil
}

func (c *cli) counterLedger(fs *pflag.FlagSet) work {
	desk := fs.String("desk", "", "the counter's desk id (required)")
	var blocks blockList
	fs.Var(&blocks, "block", "a block to seal (repeat, or N,M; default: every block, at most 8)")
	code := fs.Int("game", defaultGame, "game code of the blocks")
	limit := addLimitFlag(fs, "the payout limit to seal, in euros, which may only lower the desk's (default: the desk's in the ledger; required for a desk it does not know)")
	out := fs.String("o", "", "the counter ledger file to write (never replaced)")
	operator := fs.String("operator", "", "operator name (default: $USER)")
	asJSON := fs.Bool("json", false, "JSON output")
	kf := addKeyFlags(fs)
	var key *signing.Key
	return work{check: func(args []string) (err error) {
		if _, err := c.positional(fs, args, 0, "no argument"); err != nil {
			return err
		}
		if *desk == "" || *out == "" {
			return badInput("counter-ledger: give the counter's --desk ID and the file to write with -o FILE")
		}
		if _, err := os.Stat(*out); err == nil {
			return badInput("counter-ledger: %s exists: a counter ledger may hold payments not yet brought home (import-claims); choose another name", *out)
		}
		key, err = c.key(kf, "counter-ledger")
		return err
	}, run: func(l *ledger.Ledger, _ []string) error {
		spec := ledger.CounterSpec{Desk: *desk, Limit: limit.Limit, Key: key, Who: defaultIdentity("", *operator)}
		for _, n := range blocks {
			spec.Blocks = append(spec.Blocks, [2]int{*code, n})
		}
		if f, ok := c.stderr.(*os.File); ok && isTerminal(f) {
			last := -1
			spec.Progress = func(done, total int) {
				if pct := done * 100 / total; pct != last && pct%5 == 0 {
					last = pct
					c.printf(c.stderr, "\rsealing: %3d %%", pct)
				}
			}
			defer fmt.Fprintln(c.stderr)
		}
		t0 := time.Now()
		is, err := l.IssueCounter(c.ctx, *out, spec)
		if err != nil {
			return err
		}
		secs := time.Since(t0).Seconds()
		var names []string
		for _, b := range is.Blocks {
			names = append(names, b.Name())
		}
		if *asJSON {
			return c.json(map[string]any{"file": is.Path, "ledger": is.ID, "desk": is.Desk, "blocks": names, "payout_limit": int(is.Limit),
				"seal": is.Digest, "genesis": is.Genesis, "entry": is.Entry, "seconds": secs})
		}
		c.printf(c.stdout, "counter ledger %s for desk %s: blocks %s, payout limit %s\nseal           %s (signed by %s)\n%s s\n",
			is.Path, is.Desk, strings.Join(names, " "), c.limit(is.Limit), is.Digest, key.Public(), c.decimal(secs, 1))
		return nil
	}}
}

func (c *cli) certificate(fs *pflag.FlagSet) work {
	code, block := blockFlags(fs)
	out := fs.String("o", "", "write it to FILE: a PDF when FILE ends in .pdf, else the signed text (default: the text on standard output)")
	asJSON := fs.Bool("json", false, "JSON output (the fields, and the signed text as \"document\")")
	kf := addKeyFlags(fs)
	var key *signing.Key
	return work{check: func(args []string) (err error) {
		if _, err := c.positional(fs, args, 0, "no argument"); err != nil {
			return err
		}
		if *block <= 0 {
			return badInput("certificate: --block N is required (see vegas-desk blocks)")
		}
		key, err = c.key(kf, "certificate")
		return err
	}, run: func(l *ledger.Ledger, _ []string) error {
		cert, err := l.Certificate(c.ctx, *code, *block, key)
		if err != nil {
			return err
		}
		var write func(io.Writer) error
		switch {
		case *asJSON:
			write = func(w io.Writer) error { return writeJSON(w, certificateJSON(cert)) }
		case strings.HasSuffix(strings.ToLower(*out), ".pdf"):
			write = func(w io.Writer) error { return paper.WriteCertificate(w, certificatePaper(cert)) }
		default:
			write = func(w io.Writer) error { _, err := io.WriteString(w, cert.Text); return err }
		}
		if *out == "" {
			return write(c.stdout)
		}
		if err := writeFile(*out, write); err != nil {
			return err
		}
		c.printf(c.stdout, "certificate of block %s written to %s\n", cert.Block.Name(), *out)
		return nil
	}}
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// certificateJSON is the JSON form of a certificate: its fields, and the
// signed text they come from.
func certificateJSON(c ledger.Certificate) map[string]any {
	prizes := []any{}
	winners, payout := 0, 0
	for _, t := range c.Counts {
		prizes = append(prizes, map[string]any{"amount": t.Prize, "count": t.Generated})
		winners += t.Generated
		payout += t.Generated * t.Prize
	}
	s, _ := signing.Verify([]byte(c.Text), nil)
	id, sig := "", ""
	if s != nil {
		id, _ = s.Get("ledger")
		sig = c.Text[strings.LastIndex(c.Text, "signature=")+len("signature=") : len(c.Text)-1]
	}
	return map[string]any{"kind": "block certificate", "ledger": id, "game": c.Block.Game, "game_name": c.GameName,
		"block": c.Block.Number, "tickets": c.Block.Tickets, "pack_size": c.Block.PackSize, "digest": c.Block.Digest,
		"generated_at": c.Block.CreatedAt.UTC().Format(time.RFC3339Nano), "prizes": prizes, "winners": winners, "payout": payout,
		"signed_at": c.SignedAt.UTC().Format(time.RFC3339Nano), "public_key": c.PublicKey, "signature": sig, "document": c.Text,
		"seed": seedKind(c.Drawing), "drawing": drawingJSON(c.Drawing)}
}

// seedKind is how a block's seed was chosen, as its certificate says.
func seedKind(d *ledger.Drawing) string {
	if d == nil {
		return "operator-alone"
	}
	return "drawn"
}

// certificatePaper is the printed certificate, its times in UTC so that
// the same text prints the same PDF anywhere (verify-certificate compares
// them byte for byte).
func certificatePaper(c ledger.Certificate) paper.Certificate {
	p := paper.Certificate{Game: c.Block.Game, GameName: c.GameName, Block: c.Block.Number, Tickets: c.Block.Tickets,
		Digest: c.Block.Digest, GeneratedAt: c.Block.CreatedAt.UTC(), PublicKey: c.PublicKey,
		PrintedAt: c.SignedAt.UTC(), Document: c.Text}
	p.Signature = c.Text[strings.LastIndex(c.Text, "signature=")+len("signature=") : len(c.Text)-1]
	for _, t := range c.Counts {
		p.Prizes = append(p.Prizes, paper.Prize{Amount: t.Prize, Count: t.Generated})
	}
	if d := c.Drawing; d != nil {
		p.Drawing = &paper.Drawing{Began: d.Began.UTC()}
		for _, x := range d.Parties {
			p.Drawing.Parties = append(p.Drawing.Parties, paper.DrawParty{Role: string(x.Role), Commitment: x.Commitment.String(),
				RecordedAt: x.RecordedAt.UTC(), RevealHash: hex.EncodeToString(x.RevealHash[:])})
		}
	}
	return p
}

// maxCertificate bounds what verify-certificate reads of a certificate or
// a checkpoint (a counter ledger, a SQLite file, is opened, not read).
const maxCertificate = 16 << 20

var errTooLarge = errors.New("too large")

// readCertificate reads file path: whole when it is no larger than
// maxCertificate, its first 16 bytes when it is a SQLite file, else
// errTooLarge.
func readCertificate(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxCertificate+1))
	switch {
	case err != nil:
		return nil, err
	case bytes.HasPrefix(data, []byte("SQLite format 3\x00")):
		return data[:16], nil
	case len(data) > maxCertificate:
		return nil, errTooLarge
	}
	return data, nil
}

func (c *cli) verifyCertificate(fs *pflag.FlagSet) work {
	keyHex := fs.String("key", "", "the back office's public key, as keygen printed it (required)")
	reveal := fs.String("reveal", "", "a drawn block's certificate: the operator's and the auditor's secret files, comma-separated: the seed and the block are computed again from them")
	return work{run: func(_ *ledger.Ledger, args []string) error {
		if len(args) == 0 {
			return badInput("%s: want %s, got %d argument(s) (see vegas-desk %s --help)", fs.Name(), c.text("FILE...: certificates (text, JSON or PDF), checkpoints or counter ledgers"), 0, fs.Name())
		}
		if *keyHex == "" {
			return badInput("verify-certificate: --key PUBKEY is required: the public key keygen printed, from a copy you trust")
		}
		key, err := signing.ParsePublicKey(*keyHex)
		if err != nil {
			return badInput("verify-certificate: --key: %v", err)
		}
		var reveals []game.SeedFile
		if *reveal != "" {
			if len(args) != 1 {
				return badInput("verify-certificate: --reveal opens one block's commitments: give one certificate with it")
			}
			if reveals, err = seedFiles("reveal", *reveal); err != nil {
				return err
			}
		}
		// A commitment draws one block: the certificates given together
		// name each once.
		drew := map[game.Commitment]string{}
		for _, path := range args {
			if err := c.verifyOne(path, key, reveals, drew); err != nil {
				return err
			}
		}
		return nil
	}}
}

// verifyOne is verify-certificate of one file: drew holds the commitments
// the certificates before it drew from, and the file and block of each.
func (c *cli) verifyOne(path string, key signing.PublicKey, reveals []game.SeedFile, drew map[game.Commitment]string) error {
	{
		pos := []string{path}
		refuse := func(format string, args ...any) error {
			c.printf(c.stderr, "vegas-desk: verify-certificate: %s: REFUSED: %s\n", pos[0], terminal(c.tr(format, args...)))
			return errRefused
		}
		data, err := readCertificate(pos[0])
		switch {
		case errors.Is(err, errTooLarge):
			return refuse("larger than %d MB, which no certificate or checkpoint is", maxCertificate>>20)
		case err != nil:
			return badInput("verify-certificate: %v", err)
		}
		text, form := data, "text"
		switch {
		case bytes.HasPrefix(data, []byte("SQLite format 3\x00")):
			if len(reveals) > 0 {
				return refuse("--reveal checks a block certificate; this is a counter ledger")
			}
			return c.verifyCounterFile(pos[0], key)
		case bytes.HasPrefix(data, []byte("%PDF")):
			form = "PDF"
			if text, err = core.AttachedText(data); err != nil {
				return refuse("%v", err)
			}
		case bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")):
			form = "JSON"
			var doc struct{ Document string }
			if err := json.Unmarshal(data, &doc); err != nil || doc.Document == "" {
				return refuse("not a certificate's JSON (no \"document\")")
			}
			text = []byte(doc.Document)
		}
		s, err := signing.Verify(text, key)
		if err != nil {
			return refuse("%v", err)
		}
		switch s.Kind {
		case "vegas-desk block certificate 1":
			cert, err := core.ParseCertificate(s)
			if err != nil {
				return refuse("%v", err)
			}
			switch form {
			case "PDF":
				// The PDF around the signed text must be the one this text
				// prints: nothing else on it may differ from what was signed.
				var again bytes.Buffer
				if err := paper.WriteCertificate(&again, certificatePaper(cert)); err != nil {
					return err
				}
				if !bytes.Equal(again.Bytes(), data) {
					return refuse("the signed text inside is genuine, but the PDF around it is not the one it prints: trust only the text (%s)", paper.AttachmentName)
				}
			case "JSON":
				var got, want any
				b, _ := json.Marshal(certificateJSON(cert))
				json.Unmarshal(b, &want)
				json.Unmarshal(data, &got)
				if !reflect.DeepEqual(got, want) {
					return refuse("the signed document is genuine, but the JSON's other fields differ from it")
				}
			}
			c.printf(c.stdout, "OK: block certificate (%s) signed by %s on %s\n", c.word(form), s.Key, cert.SignedAt.UTC().Format(time.RFC3339))
			c.printf(c.stdout, "game %03d %s  block %04d  %s tickets\ndigest %s\n", cert.Block.Game, terminal(cert.GameName), cert.Block.Number,
				game.GroupDigits(cert.Block.Tickets), cert.Block.Digest)
			for _, t := range cert.Counts {
				fmt.Fprintf(c.stdout, "%10s € × %s\n", game.GroupDigits(t.Prize), game.GroupDigits(t.Generated))
			}
			if err := c.verifyDrawing(cert, pos[0], reveals, drew, refuse); err != nil {
				return err
			}
		case "vegas-desk checkpoint 1":
			if len(reveals) > 0 {
				return refuse("--reveal checks a block certificate; this is a checkpoint")
			}
			head, _ := s.Get("head")
			entry, _ := s.Get("entry")
			at, _ := s.Get("signed_at")
			id, _ := s.Get("ledger")
			c.printf(c.stdout, "OK: checkpoint signed by %s at %s\nledger %s  entry %s  head %s\ncheck a ledger against it: vegas-desk verify --head %s\n",
				s.Key, terminal(at), terminal(id), terminal(entry), terminal(head), terminal(head))
		case "vegas-desk counter ledger 1":
			desk, _ := s.Get("desk")
			id, _ := s.Get("ledger")
			c.printf(c.stdout, "OK: counter ledger seal signed by %s\nledger %s  desk %s\n", s.Key, terminal(id), terminal(desk))
		default:
			return refuse("signed text of an unknown kind %q", s.Kind)
		}
		return nil
	}
}

// verifyCounterFile verifies a counter ledger file: its seal signed by key,
// every sealed table against it, its journal.
func (c *cli) verifyCounterFile(path string, key signing.PublicKey) error {
	l, err := ledger.OpenReadOnly(path)
	if err != nil {
		return err
	}
	defer l.Close()
	if l.Kind() != "counter" {
		return badInput("verify-certificate: %s is a back-office ledger, not a counter ledger: verify it with vegas-desk verify", path)
	}
	rep, err := l.Verify(c.ctx, 0, 0, nil)
	if err != nil {
		return err
	}
	if rep.Key != key.String() {
		rep.Problems = append(rep.Problems, ledger.Problem{Where: "seal", What: fmt.Sprintf("signed by key %s, not by %s", rep.Key, key)})
	}
	for _, p := range rep.Problems {
		fmt.Fprintln(c.stdout, terminal(p.String()))
	}
	if !rep.OK() {
		c.printf(c.stderr, "vegas-desk: verify-certificate: %s: REFUSED: %d problem(s)\n", path, len(rep.Problems))
		return errRefused
	}
	c.printf(c.stdout, "OK: counter ledger of desk %s sealed by %s: %d block(s), %d journal entries\njournal head %s\n",
		terminal(l.CounterDesk()), rep.Key, rep.Blocks, rep.Entries, rep.Head)
	return nil
}

func (c *cli) checkpoint(fs *pflag.FlagSet) work {
	out := fs.String("o", "", "write the signed text to FILE (default: standard output)")
	operator := fs.String("operator", "", "operator name (default: $USER)")
	kf := addKeyFlags(fs)
	var key *signing.Key
	return work{check: func(args []string) (err error) {
		if _, err := c.positional(fs, args, 0, "no argument"); err != nil {
			return err
		}
		key, err = c.key(kf, "checkpoint")
		return err
	}, run: func(l *ledger.Ledger, _ []string) error {
		cp, err := l.Checkpoint(c.ctx, key, defaultIdentity("", *operator))
		if err != nil {
			return err
		}
		write := func(w io.Writer) error { _, err := io.WriteString(w, cp.Text); return err }
		if *out == "" {
			if err := write(c.stdout); err != nil {
				return err
			}
		} else if err := writeFile(*out, write); err != nil {
			return err
		}
		c.printf(c.stderr, "journal head %s signed (entry %d); keep the text outside the ledger: verify --head %s proves the history up to it unchanged\n",
			cp.Head, cp.Entry-1, cp.Head)
		return nil
	}}
}

func (c *cli) importClaims(fs *pflag.FlagSet) work {
	operator := fs.String("operator", "", "operator name (default: $USER)")
	asJSON := fs.Bool("json", false, "JSON output")
	return work{check: func(args []string) error {
		pos, err := c.positional(fs, args, 1, "one FILE written by vegas-desk claims --jsonl on a counter ledger (- for standard input)")
		if err != nil {
			return err
		}
		if pos[0] != "-" {
			f, err := os.Open(pos[0]) // opened again to be read, once the ledger is open
			if err != nil {
				return badInput("import-claims: %v", err)
			}
			f.Close()
		}
		return nil
	}, run: func(l *ledger.Ledger, pos []string) error {
		var in io.Reader = c.stdin
		if pos[0] != "-" {
			f, err := os.Open(pos[0])
			if err != nil {
				return badInput("import-claims: %v", err)
			}
			defer f.Close()
			in = f
		}
		rep, err := l.ImportClaims(c.ctx, in, defaultIdentity("", *operator))
		if err != nil {
			return err
		}
		if *asJSON {
			flags := []any{}
			for _, f := range rep.Flags {
				flags = append(flags, map[string]any{"entry": f.Entry, "kind": f.Kind, "serial": f.Serial, "amount": f.Amount, "what": f.What})
			}
			if err := c.json(map[string]any{"ledger": rep.Ledger, "desk": rep.Desk, "entries": rep.Entries, "payments": rep.Payments,
				"recorded": rep.Recorded, "referred": rep.Referred, "already": rep.Already, "refused_serials": rep.Refused, "head": rep.Head,
				"rejected": rep.Rejected, "flags": flags}); err != nil {
				return err
			}
		} else {
			for _, f := range rep.Flags {
				c.printf(c.stdout, "FLAG %s\n", terminal(c.importFlag(f)))
			}
			if rep.Rejected {
				c.printf(c.stdout, "counter ledger %s (desk %s): REFUSED, nothing recorded\n", terminal(rep.Ledger), terminal(rep.Desk))
			} else {
				c.printf(c.stdout, "counter ledger %s (desk %s): %d entries, %d payments: %d recorded now, %d before; %d referrals recorded now; %d refused serials at the counter\ncounter journal head %s\n",
					terminal(rep.Ledger), terminal(rep.Desk), rep.Entries, rep.Payments, rep.Recorded, rep.Already, rep.Referred, rep.Refused, rep.Head)
			}
		}
		if !rep.OK() {
			c.printf(c.stderr, "vegas-desk: import-claims: %d flag(s): see above\n", len(rep.Flags))
			return errRefused
		}
		return nil
	}}
}
