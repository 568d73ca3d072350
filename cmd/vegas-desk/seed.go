package main

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"golang.org/x/text/language"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/platform"
	"vegas-desk/internal/signing"
)

// A block no single party chose: seed commit (each party's secret and its
// commitment), seed record (a commitment into the journal, signed), and
// the seed files generate --commitments --reveal and verify-certificate
// --reveal read. docs/ceremony.md tells who does what, when.

func (c *cli) seedCommit(fs *pflag.FlagSet) work {
	role := fs.String("role", "", "operator or auditor (required)")
	code := fs.Int("game", defaultGame, "game code of the block the secret is to draw")
	out := fs.String("o", "", "the secret file to write (0600, never replaced): keep it to yourself until the generation")
	public := fs.String("public", "", "write the commitment file, to hand to the back office, to FILE (default: standard output)")
	return work{run: func(_ *ledger.Ledger, args []string) error {
		if _, err := c.positional(fs, args, 0, "no argument"); err != nil {
			return err
		}
		if *out == "" {
			return badInput("seed commit: -o FILE is required: where to keep the secret until the generation (a removable drive, a safe)")
		}
		r, err := game.ParseRole(*role)
		if err != nil {
			return badInput("seed commit: --role %q: want operator or auditor", *role)
		}
		if *code < game.MinGameCode || *code > game.MaxGameCode {
			return badInput("seed commit: --game %d: want a game code, %d to %d", *code, game.MinGameCode, game.MaxGameCode)
		}
		f, err := game.NewSecretFile(r, *code)
		if err != nil {
			return err
		}
		if err := writeNewFile(*out, []byte(f.Text())); err != nil {
			if errors.Is(err, os.ErrExist) {
				return badInput("seed commit: %s exists: a secret file is never replaced; choose another name", *out)
			}
			return failf("seed commit: %w", err)
		}
		pub := f.Public().Text()
		if *public == "" {
			fmt.Fprint(c.stdout, pub)
		} else if err := writeFile(*public, func(w io.Writer) error { _, err := io.WriteString(w, pub); return err }); err != nil {
			return err
		}
		c.printf(c.stderr, "secret written to %s: keep it to yourself, and hand it over only at the generation, once both commitments are recorded\n", *out)
		c.printf(c.stderr, "commitment %s (%s, game %d): hand the commitment file to the back office, which records it (seed record) before the generation\n",
			f.Commitment, c.role(r), f.Game)
		return nil
	}}
}

func (c *cli) seedRecord(fs *pflag.FlagSet) work {
	operator := fs.String("operator", "", "operator name (default: $USER)")
	asJSON := fs.Bool("json", false, "JSON output")
	kf := addKeyFlags(fs)
	var f game.SeedFile
	var key *signing.Key
	return work{check: func(args []string) (err error) {
		pos, err := c.positional(fs, args, 1, "one FILE: a commitment file that seed commit wrote")
		if err != nil {
			return err
		}
		f, err = readSeedFile(pos[0])
		if err != nil {
			return err
		}
		if f.Secret != nil {
			return badInput("seed record: %s is a secret file: it stays with its holder until the generation; record its commitment file (seed commit's standard output, or --public)", pos[0])
		}
		key, err = c.key(kf, "seed record")
		if err != nil {
			return err
		}
		// The first step of a drawn block: on a new ledger, it makes the
		// ledger, as generate does.
		return nil
	}, run: func(l *ledger.Ledger, _ []string) error {
		rec, err := l.RecordCommitment(c.ctx, f, key, defaultIdentity("", *operator))
		if err != nil {
			return err
		}
		if *asJSON {
			return c.json(map[string]any{"commitment": rec.Commitment.String(), "role": rec.Role, "game": rec.Game, "entry": rec.Entry,
				"recorded_at": rec.RecordedAt, "document": rec.Text})
		}
		c.printf(c.stdout, "commitment %s (%s, game %d) recorded: journal entry %d, %s, signed by %s\n",
			rec.Commitment, c.role(rec.Role), rec.Game, rec.Entry, c.moment(rec.RecordedAt), key.Public())
		return nil
	}}
}

// role is a party's name in the command line's language.
func (c *cli) role(r game.Role) string {
	if c.lang == language.French {
		switch r {
		case game.Operator:
			return "opérateur"
		case game.Auditor:
			return "contrôleur"
		}
	}
	return string(r)
}

// readSeedFile reads a secret or commitment file.
func readSeedFile(path string) (game.SeedFile, error) {
	fh, err := os.Open(path)
	if err != nil {
		return game.SeedFile{}, badInput("%v", err)
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, game.MaxSeedFile+1))
	if err != nil {
		return game.SeedFile{}, badInput("%s: %v", path, err)
	}
	f, err := game.ParseSeedFile(data)
	if err != nil {
		return game.SeedFile{}, badInput("%s: %v: give a file that vegas-desk seed commit wrote, unchanged", path, err)
	}
	return f, nil
}

// seedFiles reads --reveal's comma-separated secret files: two, one of
// each party.
func seedFiles(flag, list string) ([]game.SeedFile, error) {
	var out []game.SeedFile
	for _, p := range strings.Split(list, ",") {
		f, err := readSeedFile(strings.TrimSpace(p))
		if err != nil {
			return nil, err
		}
		if f.Secret == nil {
			return nil, badInput("--%s %s: a commitment file, which holds no secret: give the secret file seed commit wrote (-o)", flag, p)
		}
		out = append(out, f)
	}
	if len(out) != 2 || out[0].Role == out[1].Role {
		return nil, badInput("--%s: give two secret files, the operator's and the auditor's (got %d%s): a seed one party drew alone is no drawing", flag, len(out), sameRole(out))
	}
	return out, nil
}

func sameRole(fs []game.SeedFile) string {
	if len(fs) == 2 {
		return ", both " + string(fs[0].Role)
	}
	return ""
}

// commitmentList reads --commitments: two commitments, each 64 hex digits
// or a commitment file.
func commitmentList(list string) ([]game.Commitment, error) {
	var out []game.Commitment
	for _, p := range strings.Split(list, ",") {
		p = strings.TrimSpace(p)
		if cm, err := game.ParseCommitment(p); err == nil {
			out = append(out, cm)
			continue
		}
		f, err := readSeedFile(p)
		if err != nil {
			return nil, err
		}
		out = append(out, f.Commitment)
	}
	if len(out) != 2 || out[0] == out[1] {
		return nil, badInput("--commitments: give the two recorded commitments, the operator's and the auditor's (got %d distinct)", len(uniqueCommitments(out)))
	}
	return out, nil
}

func uniqueCommitments(cs []game.Commitment) map[game.Commitment]bool {
	m := map[game.Commitment]bool{}
	for _, c := range cs {
		m[c] = true
	}
	return m
}

// writeNewFile writes data to a new file at path, owner-only, on disk
// once it returns; an existing file is never replaced (os.ErrExist), and
// a failure leaves no file.
func writeNewFile(path string, data []byte) error {
	f, err := stageFile(path, func(w io.Writer) error { _, err := w.Write(data); return err })
	if err != nil {
		return err
	}
	defer f.Drop()
	if err := os.Link(f.tmp, path); err != nil {
		if _, serr := os.Lstat(path); serr == nil {
			return fmt.Errorf("%s: %w", path, os.ErrExist)
		}
		return err
	}
	return platform.SyncDir(filepath.Dir(path))
}

// drawingJSON is a certificate's drawing in its JSON.
func drawingJSON(d *ledger.Drawing) any {
	if d == nil {
		return nil
	}
	var parties []any
	for _, p := range d.Parties {
		parties = append(parties, map[string]any{"role": p.Role, "commitment": p.Commitment.String(),
			"recorded_at": ledgerTime(p.RecordedAt), "reveal_hash": hex.EncodeToString(p.RevealHash[:])})
	}
	return map[string]any{"generation_began": ledgerTime(d.Began), "parties": parties}
}

// drawingWords are core.CheckDrawing's problems, in French.
var drawingWords = []rewrite{
	{lazyRE(`^the seed was drawn from (\d+) commitment\(s\) \((.*)\), not from one of the operator and one of the auditor: no single party may choose it$`),
		`la graine a été tirée de ${1} engagement(s) (${2}), pas d'un de l'opérateur et d'un du contrôleur : aucune partie ne doit pouvoir la choisir seule`},
	{lazyRE(`^the two commitments are the same \((\w+)\)$`), `les deux engagements sont le même (${1})`},
	{lazyRE(`^the (\w+)'s commitment (\w+) was recorded at (\S+), not before the generation began \((\S+)\): whoever knew the other secret could choose it$`),
		`l'engagement (${1}) ${2} a été enregistré à ${3}, pas avant le début de la génération (${4}) : qui connaissait l'autre secret pouvait choisir la graine`},
	{lazyRE(`^the (\w+)'s reveal hash is missing$`), `l'empreinte du secret révélé (${1}) manque`},
}

// seedWords are the ledger's and the game's refusals of a drawing, in
// French.
var seedWords = []rewrite{
	{lazyRE(`^generate a block of game (\d+): the reveals do not open the commitments: the (\w+)'s secret \(game (\d+)\) commits to (\w+), not to (\w+)$`),
		`génération d'un bloc du jeu ${1} : les secrets révélés n'ouvrent pas les engagements : le secret (${2}, jeu ${3}) s'engage sur ${4}, pas sur ${5}`},
	{lazyRE(`^generate a block of game (\d+): the reveals do not open the commitments: the (\w+)'s secret commits to (\w+), which is not one of the commitments given$`),
		`génération d'un bloc du jeu ${1} : les secrets révélés n'ouvrent pas les engagements : le secret (${2}) s'engage sur ${3}, qui n'est pas l'un des engagements donnés`},
	{lazyRE(`^generate a block of game (\d+): the reveals do not open the commitments: the (\w+)'s secret is of game (\d+), not of game (\d+)$`),
		`génération d'un bloc du jeu ${1} : les secrets révélés n'ouvrent pas les engagements : le secret (${2}) est du jeu ${3}, pas du jeu ${4}`},
	{lazyRE(`^generate a block of game (\d+): the commitment cannot draw this block: the (\w+)'s commitment (\w+) was never recorded: record it \(seed record\) before the generation, then generate$`),
		`génération d'un bloc du jeu ${1} : l'engagement ne peut pas tirer ce bloc : l'engagement (${2}) ${3} n'a jamais été enregistré : enregistrez-le (seed record) avant la génération, puis générez`},
	{lazyRE(`^generate a block of game (\d+): the commitment cannot draw this block: commitment (\w+) was recorded as the (\w+)'s of game (\d+) \(journal entry (\d+)\), not the (\w+)'s of game (\d+)$`),
		`génération d'un bloc du jeu ${1} : l'engagement ne peut pas tirer ce bloc : l'engagement ${2} a été enregistré comme celui de ${3} du jeu ${4} (entrée ${5} du journal), pas comme celui de ${6} du jeu ${7}`},
	{lazyRE(`^generate a block of game (\d+): the commitment cannot draw this block: the (\w+)'s commitment (\w+) was recorded at (\S+), not before the generation began \((\S+)\)$`),
		`génération d'un bloc du jeu ${1} : l'engagement ne peut pas tirer ce bloc : l'engagement (${2}) ${3} a été enregistré à ${4}, pas avant le début de la génération (${5})`},
	{lazyRE(`^generate a block of game (\d+): the commitment cannot draw this block: the (\w+)'s commitment (\w+) drew block (\d+/\d+) already \(journal entry (\d+)\): a commitment draws one block; make new secrets \(seed commit\) and record their commitments$`),
		`génération d'un bloc du jeu ${1} : l'engagement ne peut pas tirer ce bloc : l'engagement (${2}) ${3} a déjà tiré le bloc ${4} (entrée ${5} du journal) : un engagement tire un seul bloc ; faites de nouveaux secrets (seed commit) et enregistrez leurs engagements`},
	{lazyRE(`^record commitment (\w+): the commitment cannot draw this block: recorded already, journal entry (\d+) \((\S+)\): a commitment is recorded once and draws one block; make a new secret \(seed commit\)$`),
		`enregistrement de l'engagement ${1} : déjà enregistré, entrée ${2} du journal (${3}) : un engagement est enregistré une fois et tire un seul bloc ; faites un nouveau secret (seed commit)`},
	{lazyRE(`^record commitment: game code (\d+): not found: the ledger knows no such game$`),
		`enregistrement de l'engagement : code de jeu ${1} : introuvable : le registre ne connaît pas ce jeu`},
}

// ledgerTime is a time as the JSON outputs write it.
func ledgerTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// verifyDrawing checks how a block certificate's seed was drawn: a seed
// the operator chose alone is said so; a drawn one must come from one
// commitment of each party, recorded before the generation began, neither
// drawing another block of the certificates given before (drew); with
// reveals, each must open its party's commitment and hash to its reveal
// hash, and the block generated again from the seed they draw must be the
// certificate's, digest and counts.
func (c *cli) verifyDrawing(cert ledger.Certificate, path string, reveals []game.SeedFile, drew map[game.Commitment]string, refuse func(string, ...any) error) error {
	d := cert.Drawing
	if d == nil {
		if len(reveals) > 0 {
			return refuse("the block's seed was chosen by the operator alone: there are no commitments for --reveal to open")
		}
		c.printf(c.stdout, "seed chosen by the operator alone: a demonstration or a test block; no third party took part in drawing it\n")
		return nil
	}
	if ps := core.CheckDrawing(d); len(ps) > 0 {
		if c.lang == language.French {
			for i := range ps {
				ps[i], _ = rewritten(drawingWords, ps[i])
			}
		}
		return refuse("%s", strings.Join(ps, "; "))
	}
	for _, p := range d.Parties {
		if other, ok := drew[p.Commitment]; ok {
			return refuse("the %s's commitment %s drew %s too: a commitment draws one block", c.role(p.Role), p.Commitment, other)
		}
		drew[p.Commitment] = c.tr("block %s of %s", cert.Block.Name(), path)
	}
	c.printf(c.stdout, "seed drawn from two commitments; the generation began %s\n", c.moment(d.Began))
	for _, p := range d.Parties {
		c.printf(c.stdout, "  %-10s commitment %s recorded %s\n", c.role(p.Role), p.Commitment, c.moment(p.RecordedAt))
		c.printf(c.stdout, "  %-10s reveal hash %s\n", "", hex.EncodeToString(p.RevealHash[:]))
	}
	if len(reveals) == 0 {
		c.printf(c.stdout, "the seed itself is checked with --reveal OPERATOR-SECRET,AUDITOR-SECRET (after the claim deadline)\n")
		return nil
	}
	var commitments []game.Commitment
	for _, r := range reveals {
		i := slices.IndexFunc(d.Parties, func(p ledger.DrawParty) bool { return p.Role == r.Role })
		p := d.Parties[i]
		if err := game.Match(p.Commitment, r); err != nil {
			return refuse("the %s's secret does not open the certificate's %s commitment %s (it commits to %s): it is not the secret that drew this block",
				c.role(r.Role), c.role(r.Role), p.Commitment, r.Commitment)
		}
		if h := game.RevealHash(*r.Secret); h != p.RevealHash {
			return refuse("the %s's secret hashes to %x, the certificate's reveal hash is %x", c.role(r.Role), h, p.RevealHash)
		}
		c.printf(c.stdout, "  %-10s secret opens its commitment; its hash is the certificate's\n", c.role(r.Role))
		commitments = append(commitments, p.Commitment)
	}
	seed, err := game.DrawSeed(cert.Block.Game, commitments, reveals)
	if err != nil {
		return refuse("%v", err)
	}
	res, err := game.GenerateBlock(c.ctx, game.Spec{Game: cert.Block.Game, Block: cert.Block.Number, Seed: seed}, func(*game.Batch) error { return nil })
	if err != nil {
		return err
	}
	if got := hex.EncodeToString(res.Digest[:]); got != cert.Block.Digest || res.Tickets != cert.Block.Tickets ||
		res.Winners != cert.Block.Winners || res.Payout != cert.Block.Payout {
		return refuse("the block generated from the seed the reveals draw has digest %s (%d tickets, %d winners, %d €), the certificate's is %s (%d, %d, %d €): the block was not generated from this drawing",
			got, res.Tickets, res.Winners, res.Payout, cert.Block.Digest, cert.Block.Tickets, cert.Block.Winners, cert.Block.Payout)
	}
	c.printf(c.stdout, "OK: the reveals draw the seed, and the seed generates this block again: digest %s, the certificate's\n", cert.Block.Digest)
	return nil
}
