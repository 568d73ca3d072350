package counter

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"strings"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/backoffice"
	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/signing"
)

// Verify checks a counter ledger: its seal (the signature, and every
// sealed table against it), its journal's chain from the issue, and every
// payment against its sealed ticket, the tickets kept paid and the
// winners' identities kept.
func (b *Backend) Verify(ctx context.Context, _, _ int, progress func(done, total int)) (core.VerifyReport, error) {
	var rep core.VerifyReport
	tx, err := b.file.R.BeginTxx(ctx, nil)
	if err != nil {
		return rep, err
	}
	defer tx.Rollback()
	blocks, err := blocks(ctx, tx)
	if err != nil {
		return rep, err
	}
	for _, b := range blocks {
		rep.Blocks++
		rep.Tickets += b.Tickets
	}
	s, err := signing.Verify([]byte(b.seal), nil)
	if err != nil {
		rep.Add("seal", "%v", err)
	} else {
		rep.Key = s.Key.String()
	}
	body, err := sealBody(ctx, tx)
	if err != nil {
		return rep, fmt.Errorf("verify: %w", err)
	}
	if signedBody, _, _ := strings.Cut(b.seal, "public_key="); signedBody != body {
		rep.Add("seal", "the sealed tables differ from what the back office signed: %s", firstDiff(signedBody, body))
	}
	if progress != nil {
		progress(rep.Tickets, rep.Tickets)
	}
	var entries []core.Entry
	if err := core.Select(ctx, tx, &entries, "SELECT "+core.EntryCols+" FROM journal ORDER BY id"); err != nil {
		return rep, err
	}
	paid, head := checkJournal(ctx, tx, entries, core.SealDigest(b.seal), &rep)
	rep.Head = hex.EncodeToString(head)
	var kept []struct {
		Ticket int64 `db:"ticket"`
		Claim  int64 `db:"claim"`
	}
	if err := core.Select(ctx, tx, &kept, "SELECT ticket, claim FROM paid ORDER BY ticket"); err != nil {
		return rep, err
	}
	for _, p := range kept {
		if paid[p.Ticket] != p.Claim {
			rep.Add(fmt.Sprintf("ticket %d", p.Ticket), "the ledger keeps it paid by entry %d; the journal says %d", p.Claim, paid[p.Ticket])
		}
		delete(paid, p.Ticket)
	}
	for t, c := range paid {
		rep.Add(fmt.Sprintf("ticket %d", t), "entry %d pays it, but the ledger does not keep it paid", c)
	}
	identityOf := func(d string) string { _, id := core.ParseClaimDetail(d); return id }
	if err := backoffice.CheckIdentities(ctx, tx, &rep, identityOf, true); err != nil {
		return rep, fmt.Errorf("verify: %w", err)
	}
	if err := verifyStorage(ctx, tx, &rep); err != nil {
		return rep, fmt.Errorf("verify: %w", err)
	}
	return rep, nil
}

// checkJournal checks a counter ledger's entries: numbered and chained
// from the issue of the seal of this digest, and each payment of a sealed
// ticket, once. It returns the tickets paid (by entry) and the last hash.
func checkJournal(ctx context.Context, tx core.Querier, entries []core.Entry, digest string, rep *core.VerifyReport) (map[int64]int64, []byte) {
	var prev []byte
	paid := map[int64]int64{}
	lastNum := map[string]int64{}
	for i := range entries {
		e := &entries[i]
		rep.Entries++
		where := fmt.Sprintf("journal entry %d", e.ID)
		if e.ID != int64(i+1) {
			rep.Add(where, "is entry %d of the file: an entry was removed", i+1)
		}
		if !bytes.Equal(e.ChainHash(prev), e.Hash) {
			rep.Add(where, "hash does not match its contents and the previous entry: the entry or the one before it was changed")
		}
		prev = e.Hash
		if lastNum[e.Kind]+1 != e.Number {
			rep.Add(where, "is number %d of its kind (%s), want %d: an entry was removed or renumbered", e.Number, e.Kind, lastNum[e.Kind]+1)
		}
		lastNum[e.Kind] = e.Number
		switch {
		case i == 0 && (e.Kind != "issue" || e.Detail != digest):
			rep.Add(where, "the journal does not start with the issue of this seal")
		case i > 0 && e.Kind == "issue":
			rep.Add(where, "a second issue entry")
		case e.Kind == "claim":
			// A payment keeps no secret part (forgetSecrets): its ticket is
			// checked here by its position, its serial and prize by the
			// back office at the import.
			b, err := blockOf(ctx, tx, e.Game, e.Block)
			if err != nil || e.Serial != game.PublicSerial(e.Game, e.Block, e.Position) || e.Position < 0 || e.Position >= b.Tickets ||
				!e.Ticket.Valid || e.Ticket.Int64 != b.TicketNumber(e.Position) || e.Amount <= 0 {
				rep.Add(where, "pays %q (ticket %d, %d €), which is no ticket of the ledger", e.Serial, e.Ticket.Int64, e.Amount)
				continue
			}
			if proof, _ := core.ParseClaimDetail(e.Detail); len(proof) != 64 {
				rep.Add(where, "keeps no proof of the serial it paid")
			}
			if first, dup := paid[e.Ticket.Int64]; dup {
				rep.Add(where, "pays ticket %s again, already paid by entry %d", e.Serial, first)
			}
			paid[e.Ticket.Int64] = e.ID
		}
	}
	return paid, prev
}

// firstDiff names the first line where two texts differ.
func firstDiff(want, got string) string {
	a, b := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(a), len(b)) {
		var x, y string
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			return fmt.Sprintf("signed %q, found %q", x, y)
		}
	}
	return "no line differs"
}

// verifyStorage adds to rep the rows stored with another class than the
// app writes.
func verifyStorage(ctx context.Context, q core.Querier, rep *core.VerifyReport) error {
	ps, err := engine{}.Storage(ctx, q, false, core.MaxProblems)
	for _, p := range ps {
		rep.Add(p.Where, "%s", p.What)
	}
	return err
}
