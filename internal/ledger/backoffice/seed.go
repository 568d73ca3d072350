package backoffice

import (
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/signing"
)

// A block no single party chose (game.DrawSeed): the operator's and the
// auditor's commitments are recorded in the journal before the generation
// ('checkpoint' entries, method "commitment": a signed text, as a
// checkpoint is; request = the commitment in hex, state = the role, game),
// and the generation that draws from them records, before its 'block'
// entry, one 'checkpoint' entry of method "reveal" per party (request =
// the commitment, ref = its 'commitment' entry, state = the role, game,
// block, detail = the reveal's hash in hex, at = when the generation
// began). Both kinds have desk '', so that journal_by_request finds them.
// The seed itself is never stored.

const (
	methodCommitment = "commitment"
	methodReveal     = "reveal"
)

// RecordCommitment records commitment file f (the commitment alone: a
// secret file is refused, its secret is handed over at the generation
// only), signed with key, as a 'checkpoint' entry. A commitment recorded
// before is refused.
func (o *Store) RecordCommitment(ctx context.Context, f game.SeedFile, key *signing.Key, who core.Identity) (core.CommitmentRecord, error) {
	if f.Secret != nil {
		return core.CommitmentRecord{}, fmt.Errorf("record commitment: this is the %s's secret file, which stays with the %s until the generation: record its commitment (the text seed commit printed)", f.Role, f.Role)
	}
	if _, err := game.ParseRole(string(f.Role)); err != nil {
		return core.CommitmentRecord{}, fmt.Errorf("record commitment: %w", err)
	}
	if err := core.CheckText("operator", who.Operator, core.MaxText); err != nil {
		return core.CommitmentRecord{}, err
	}
	tx, err := o.write(ctx)
	if err != nil {
		return core.CommitmentRecord{}, err
	}
	defer tx.Rollback()
	var known int
	if err := core.Get(ctx, tx, &known, "SELECT count(*) FROM games WHERE code = ?", f.Game); err != nil {
		return core.CommitmentRecord{}, o.E.Classify(err)
	}
	if known == 0 {
		return core.CommitmentRecord{}, fmt.Errorf("record commitment: game code %d: %w: the ledger knows no such game", f.Game, core.ErrNotFound)
	}
	if e, ok, err := findSeedEntry(ctx, tx, methodCommitment, f.Commitment); err != nil {
		return core.CommitmentRecord{}, o.E.Classify(err)
	} else if ok {
		return core.CommitmentRecord{}, fmt.Errorf("record commitment %s: %w: recorded already, journal entry %d (%s): a commitment is recorded once and draws one block; make a new secret (seed commit)",
			f.Commitment, core.ErrCommitment, e.ID, e.AtText)
	}
	at := core.ParseTime(core.FormatTime(o.now()))
	text := key.Sign(fmt.Sprintf("vegas-desk seed commitment record 1\nledger=%s\ngame=%d\nrole=%s\ncommitment=%s\nrecorded_at=%s\n",
		o.ID, f.Game, f.Role, f.Commitment, signing.Quote(core.FormatTime(at))))
	e := core.Entry{Kind: "checkpoint", Method: methodCommitment, At: at, Game: f.Game, State: string(f.Role),
		Request: f.Commitment.String(), Operator: who.Operator, Detail: text}
	if err := o.appendJournal(ctx, tx, &e); err != nil {
		return core.CommitmentRecord{}, err
	}
	if err := tx.Commit(); err != nil {
		return core.CommitmentRecord{}, o.E.Classify(err)
	}
	return core.CommitmentRecord{Text: text, Entry: e.ID, Role: f.Role, Game: f.Game, Commitment: f.Commitment, RecordedAt: at}, nil
}

// findSeedEntry finds the entry of method ("commitment" or "reveal") of
// commitment c (by journal_by_request: an empty desk, request c).
func findSeedEntry(ctx context.Context, q core.Querier, method string, c game.Commitment) (core.Entry, bool, error) {
	var e core.Entry
	err := core.Get(ctx, q, &e, "SELECT "+core.EntryCols+" FROM journal WHERE desk = '' AND request = ? AND kind = 'checkpoint' AND method = ? ORDER BY id LIMIT 1",
		c.String(), method)
	if errors.Is(err, sql.ErrNoRows) {
		return e, false, nil
	}
	return e, err == nil, err
}

// draw checks a drawn generation's commitments and reveals (opts) for a
// generation of game gameCode that began at began, and returns the seed
// they draw and the 'reveal' entries to record with the block: each
// reveal opens its commitment (game.DrawSeed), one of each role; each
// commitment was recorded, as that role's and game's, before began; none
// was used by another block.
func (o *Store) draw(ctx context.Context, tx *sqlx.Tx, gameCode int, began time.Time, opts core.GenerateOptions) (game.Seed, []core.Entry, error) {
	seed, err := game.DrawSeed(gameCode, opts.Commitments, opts.Reveals)
	if err != nil {
		return game.Seed{}, nil, err
	}
	var entries []core.Entry
	for _, role := range []game.Role{game.Operator, game.Auditor} {
		var r game.SeedFile
		for _, x := range opts.Reveals {
			if x.Role == role {
				r = x
			}
		}
		c, ok, err := findSeedEntry(ctx, tx, methodCommitment, r.Commitment)
		switch {
		case err != nil:
			return game.Seed{}, nil, err
		case !ok:
			return game.Seed{}, nil, fmt.Errorf("%w: the %s's commitment %s was never recorded: record it (seed record) before the generation, then generate", core.ErrCommitment, role, r.Commitment)
		case c.State != string(role) || c.Game != gameCode:
			return game.Seed{}, nil, fmt.Errorf("%w: commitment %s was recorded as the %s's of game %d (journal entry %d), not the %s's of game %d", core.ErrCommitment, r.Commitment, c.State, c.Game, c.ID, role, gameCode)
		case !core.ParseTime(c.AtText).Before(began):
			return game.Seed{}, nil, fmt.Errorf("%w: the %s's commitment %s was recorded at %s, not before the generation began (%s)", core.ErrCommitment, role, r.Commitment, c.AtText, core.FormatTime(began))
		}
		if u, used, err := findSeedEntry(ctx, tx, methodReveal, r.Commitment); err != nil {
			return game.Seed{}, nil, err
		} else if used {
			return game.Seed{}, nil, fmt.Errorf("%w: the %s's commitment %s drew block %d/%d already (journal entry %d): a commitment draws one block; make new secrets (seed commit) and record their commitments", core.ErrCommitment, role, r.Commitment, u.Game, u.Block, u.ID)
		}
		h := game.RevealHash(*r.Secret)
		entries = append(entries, core.Entry{Kind: "checkpoint", Method: methodReveal, At: began, Game: gameCode, State: string(role),
			Request: r.Commitment.String(), Ref: sql.NullInt64{Int64: c.ID, Valid: true}, Operator: opts.Who.Operator, Detail: hex.EncodeToString(h[:])})
	}
	return seed, entries, nil
}

// Drawing reads how block number of game gameCode was drawn: its 'reveal'
// entries and the commitments they name; nil when the seed was the
// operator's alone (no 'reveal' entry).
func Drawing(ctx context.Context, q core.Querier, gameCode, number int) (*core.Drawing, error) {
	var rs []core.Entry
	if err := core.Select(ctx, q, &rs, "SELECT "+core.EntryCols+" FROM journal WHERE desk = '' AND kind = 'checkpoint' AND method = ? AND game = ? AND block = ? ORDER BY id",
		methodReveal, gameCode, number); err != nil {
		return nil, err
	}
	if len(rs) == 0 {
		return nil, nil
	}
	d := &core.Drawing{Began: core.ParseTime(rs[0].AtText)}
	for _, r := range rs {
		p := core.DrawParty{Role: game.Role(r.State), Entry: r.Ref.Int64}
		var err error
		if p.Commitment, err = game.ParseCommitment(r.Request); err != nil {
			return nil, fmt.Errorf("journal entry %d: %w", r.ID, err)
		}
		if h, err := hex.DecodeString(r.Detail); err != nil || len(h) != len(p.RevealHash) {
			return nil, fmt.Errorf("journal entry %d: reveal hash %q: not 64 hexadecimal digits", r.ID, r.Detail)
		} else {
			copy(p.RevealHash[:], h)
		}
		var at string
		if err := core.Get(ctx, q, &at, "SELECT at FROM journal WHERE id = ?", r.Ref.Int64); err != nil {
			return nil, fmt.Errorf("journal entry %d: its commitment's entry %d: %w", r.ID, r.Ref.Int64, err)
		}
		p.RecordedAt = core.ParseTime(at)
		d.Parties = append(d.Parties, p)
	}
	return d, nil
}

// DrawingLines are the lines of a block certificate that say how its seed
// was drawn (see Store.Certificate): "seed=operator-alone", or
// "seed=drawn", the generation's start and one commitment and one reveal
// hash line per party.
func DrawingLines(d *core.Drawing) string {
	if d == nil {
		return "seed=operator-alone\n"
	}
	var s strings.Builder
	fmt.Fprintf(&s, "seed=drawn\ngeneration_began=%s\n", signing.Quote(core.FormatTime(d.Began)))
	for _, p := range d.Parties {
		fmt.Fprintf(&s, "commitment=%s %s %s\n", p.Role, p.Commitment, core.FormatTime(p.RecordedAt))
	}
	for _, p := range d.Parties {
		fmt.Fprintf(&s, "reveal_hash=%s %s\n", p.Role, hex.EncodeToString(p.RevealHash[:]))
	}
	return s.String()
}
