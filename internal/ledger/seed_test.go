package ledger

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
	"time"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/signing"
)

// seedKey signs the commitments and certificates of these tests.
var seedKey = signing.KeyFromSeed(bytes.Repeat([]byte{5}, 32))

// secretOf is a secret file of role r for game 531 whose secret is n
// repeated.
func secretOf(r game.Role, n byte) game.SeedFile {
	s := game.Secret(bytes.Repeat([]byte{n}, 32))
	return game.SeedFile{Role: r, Game: 531, Commitment: game.Commit(r, 531, s), Secret: &s}
}

func recordAll(t *testing.T, l *Ledger, fs ...game.SeedFile) {
	t.Helper()
	for _, f := range fs {
		if _, err := l.RecordCommitment(context.Background(), f.Public(), seedKey, Identity{Operator: "anne"}); err != nil {
			t.Fatal(err)
		}
	}
}

// The same two reveals draw the same block on SQLite and on PostgreSQL,
// the block game.GenerateBlock makes from the seed game.DrawSeed derives;
// the ledger keeps the commitments and the reveals' hashes, never the
// seed; the certificate shows the drawing; a commitment draws one block.
func TestDrawnBlockBothEngines(t *testing.T) {
	ctx := context.Background()
	op, au := secretOf(game.Operator, 1), secretOf(game.Auditor, 2)
	cs := []game.Commitment{op.Commitment, au.Commitment}
	seed, err := game.DrawSeed(531, cs, []game.SeedFile{op, au})
	if err != nil {
		t.Fatal(err)
	}
	res, err := game.GenerateBlock(ctx, game.Spec{Game: 531, Block: 1, Seed: seed}, func(*game.Batch) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	want := hex.EncodeToString(res.Digest[:])
	digests := map[string]string{}
	forEngines(t, func(t *testing.T, e engineCase) {
		l := mustOpen(t, e.empty(t))
		recordAll(t, l, op, au)
		// The reveals in the other order: the seed is the same.
		b, err := l.Generate(ctx, 531, game.Seed{}, GenerateOptions{Commitments: []game.Commitment{au.Commitment, op.Commitment},
			Reveals: []game.SeedFile{au, op}, Who: Identity{Operator: "anne"}})
		if err != nil {
			t.Fatal(err)
		}
		digests[e.name] = b.Digest
		if b.Digest != want {
			t.Errorf("digest %s, game.GenerateBlock of the drawn seed gives %s", b.Digest, want)
		}
		rep, err := l.Verify(ctx, 0, 0, nil)
		if err != nil || !rep.OK() {
			t.Fatalf("verify: %+v %v", rep, err)
		}
		// The seed is nowhere in the journal.
		var n int
		if err := rdb(l).GetContext(ctx, &n, rdb(l).Rebind("SELECT count(*) FROM journal WHERE detail LIKE ? OR request LIKE ? OR reason LIKE ?"),
			"%"+seed.String()+"%", "%"+seed.String()+"%", "%"+seed.String()+"%"); err != nil || n != 0 {
			t.Errorf("the seed is in %d journal entries (%v)", n, err)
		}

		cert, err := l.Certificate(ctx, 531, 1, seedKey)
		if err != nil {
			t.Fatal(err)
		}
		d := cert.Drawing
		if d == nil || len(d.Parties) != 2 || d.Parties[0].Role != game.Operator || d.Parties[0].Commitment != op.Commitment ||
			d.Parties[1].Commitment != au.Commitment || d.Parties[0].RevealHash != game.RevealHash(*op.Secret) ||
			!d.Parties[1].RecordedAt.Before(d.Began) || d.Began.After(b.CreatedAt) {
			t.Fatalf("drawing %+v", d)
		}
		for _, line := range []string{"seed=drawn\n", "commitment=operator " + op.Commitment.String() + " ",
			"reveal_hash=auditor " + hex.EncodeToString(d.Parties[1].RevealHash[:]) + "\n"} {
			if !strings.Contains(cert.Text, line) {
				t.Errorf("no %q in the certificate:\n%s", line, cert.Text)
			}
		}
		s, err := signing.Verify([]byte(cert.Text), seedKey.Public())
		if err != nil {
			t.Fatal(err)
		}
		back, err := core.ParseCertificate(s)
		read := d.Parties[1]
		read.Entry = 0 // the certificate names the commitment, not its entry
		if err != nil || back.Drawing == nil || len(core.CheckDrawing(back.Drawing)) != 0 || back.Drawing.Parties[1] != read || !back.Drawing.Began.Equal(d.Began) {
			t.Errorf("the certificate reads back %+v, %v; problems %v", back.Drawing, err, core.CheckDrawing(back.Drawing))
		}

		// The same commitments again: refused, nothing written.
		before := entriesOf(t, l)
		_, err = l.Generate(ctx, 531, game.Seed{}, GenerateOptions{Commitments: cs, Reveals: []game.SeedFile{op, au}})
		if !errors.Is(err, core.ErrCommitment) || !strings.Contains(err.Error(), "drew block 531/1 already") {
			t.Errorf("a reused commitment: %v", err)
		}
		if after := entriesOf(t, l); after != before {
			t.Errorf("a refused generation wrote %d entries", after-before)
		}

		// A reveal entry forged into the journal, drawing another block
		// from the operator's commitment: verify names it.
		var ref int64
		if err := rdb(l).GetContext(ctx, &ref, "SELECT id FROM journal WHERE method = 'commitment' AND state = 'operator'"); err != nil {
			t.Fatal(err)
		}
		if err := appendEntry(l, &entry{Kind: "checkpoint", Method: "reveal", Game: 531, Block: 2, State: "operator",
			Request: op.Commitment.String(), Ref: sql.NullInt64{Int64: ref, Valid: true}, Detail: strings.Repeat("0", 64)}); err != nil {
			t.Fatal(err)
		}
		rep, err = journalOnly(l)
		if err != nil || rep.OK() || !strings.Contains(rep.Problems[0].String(), "which drew a block already") {
			t.Errorf("verify of a reused commitment: %+v %v", rep.Problems, err)
		}
	})
	if digests["sqlite"] != digests["postgres"] {
		t.Errorf("the same reveals drew %s on SQLite, %s on PostgreSQL", digests["sqlite"], digests["postgres"])
	}
}

func entriesOf(t *testing.T, l *Ledger) int {
	t.Helper()
	var n int
	if err := rdb(l).GetContext(context.Background(), &n, "SELECT count(*) FROM journal"); err != nil {
		t.Fatal(err)
	}
	return n
}

// Every drawing the ledger must not make is refused before a ticket is
// made, and leaves the ledger as it was.
func TestDrawRefusals(t *testing.T) {
	ctx := context.Background()
	op, au := secretOf(game.Operator, 1), secretOf(game.Auditor, 2)
	op2 := secretOf(game.Operator, 3)
	cs := []game.Commitment{op.Commitment, au.Commitment}
	forEngines(t, func(t *testing.T, e engineCase) {
		l := mustOpen(t, e.fresh(t))
		// A commitment recorded "later": the clock of the recording is an
		// hour ahead of the generation's.
		late := secretOf(game.Auditor, 4)
		t0 := time.Date(2025, 5, 1, 12, 0, 0, 0, time.UTC)
		l.Now = func() time.Time { return t0.Add(time.Hour) }
		recordAll(t, l, late)
		l.Now = func() time.Time { return t0 }
		recordAll(t, l, op, au)
		// The auditor's commitment recorded again as the operator's.
		swapped := op2.Public()
		swapped.Commitment = secretOf(game.Auditor, 5).Commitment
		recordAll(t, l, swapped)
		l.Now = func() time.Time { return t0.Add(30 * time.Minute) } // the generations begin

		if _, err := l.RecordCommitment(ctx, op, seedKey, Identity{}); err == nil || !strings.Contains(err.Error(), "secret file") {
			t.Errorf("a secret file recorded: %v", err)
		}
		if _, err := l.RecordCommitment(ctx, op.Public(), seedKey, Identity{}); !errors.Is(err, core.ErrCommitment) || !strings.Contains(err.Error(), "recorded already") {
			t.Errorf("a commitment recorded twice: %v", err)
		}
		au5 := secretOf(game.Auditor, 5)
		before := entriesOf(t, l)
		for _, c := range []struct {
			name string
			cs   []game.Commitment
			rs   []game.SeedFile
			is   error
			want string
		}{
			{"one reveal only", cs[:1], []game.SeedFile{op}, game.ErrReveal, "two commitments and their two reveals"},
			{"the operator's twice", []game.Commitment{op.Commitment, op2.Commitment}, []game.SeedFile{op, op2}, game.ErrReveal, "two reveals of the operator"},
			{"a reveal that does not match", cs, []game.SeedFile{op2, au}, game.ErrReveal, "not one of the commitments given"},
			{"a commitment file for a reveal", cs, []game.SeedFile{op, au.Public()}, game.ErrReveal, "holds no secret"},
			{"a commitment never recorded", []game.Commitment{op.Commitment, secretOf(game.Auditor, 9).Commitment},
				[]game.SeedFile{op, secretOf(game.Auditor, 9)}, core.ErrCommitment, "was never recorded"},
			{"recorded after the generation began", []game.Commitment{op.Commitment, late.Commitment}, []game.SeedFile{op, late},
				core.ErrCommitment, "not before the generation began"},
			{"recorded as another role's", []game.Commitment{op.Commitment, au5.Commitment}, []game.SeedFile{op, au5},
				core.ErrCommitment, "recorded as the operator's"},
		} {
			t.Run(c.name, func(t *testing.T) {
				_, err := l.Generate(ctx, 531, game.Seed{}, GenerateOptions{Commitments: c.cs, Reveals: c.rs})
				if !errors.Is(err, c.is) || !strings.Contains(err.Error(), c.want) {
					t.Errorf("got %v, want %v saying %q", err, c.is, c.want)
				}
			})
		}
		if after := entriesOf(t, l); after != before {
			t.Errorf("the refused generations wrote %d entries", after-before)
		}
		if bs, err := l.Blocks(ctx); err != nil || len(bs) != 1 {
			t.Errorf("blocks %d %v, want the fixture's one", len(bs), err)
		}
	})
}
