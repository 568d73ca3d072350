package ledger

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/ledger/counter"
	"vegas-desk/internal/signing"
)

// What every kind of ledger answers, each its own way (its backend).

// Blocks lists the blocks, by game and number. A counter on a
// validation server and a sealed counter ledger see their public part: no
// serial key.
func (l *Ledger) Blocks(ctx context.Context) ([]Block, error) { return l.b.Blocks(ctx) }

// Block returns block number of game gameCode, or ErrNotFound.
func (l *Ledger) Block(ctx context.Context, gameCode, number int) (Block, error) {
	bs, err := l.b.Blocks(ctx)
	if err != nil {
		return Block{}, err
	}
	for _, b := range bs {
		if b.Game == gameCode && b.Number == number {
			return b, nil
		}
	}
	return Block{}, fmt.Errorf("block %d/%d: %w", gameCode, number, ErrNotFound)
}

// Claims lists the claims that f selects, voided ones included, in journal
// order. A counter sees its own claims only.
func (l *Ledger) Claims(ctx context.Context, f ClaimFilter) ([]Claim, error) {
	return l.b.Claims(ctx, f)
}

// Packs lists the packs f selects as runs, by game, block and pack. Packs
// in stock are listed only when f.State is "stock" (every block has 10,000
// packs), and only to the back office. A counter on a validation
// server sees its own packs only; a sealed counter ledger, the states
// sealed at its issue.
func (l *Ledger) Packs(ctx context.Context, f PackFilter) ([]PackRun, error) {
	return l.b.Packs(ctx, f)
}

// PackEntries lists the moves of packs f selects, in journal order. A
// counter on a validation server sees the moves of its own packs.
func (l *Ledger) PackEntries(ctx context.Context, f PackEntryFilter) ([]PackEntry, error) {
	return l.b.PackEntries(ctx, f)
}

// MovePacks moves packs First … Last of a block from their state, which
// the move must allow for every one of them (otherwise nothing moves),
// and records it in the journal with the time, the counter and the
// operator (who.Operator).
//
// The entry's desk is the counter concerned: the one the packs are
// delivered to (deliver), else the counter they were delivered to, which
// must be one for the whole range ("" for packs still in stock, reported
// stolen or destroyed there). m.Desk, when given for receive, activate,
// settle or return, must be that counter. Packs are delivered only to a
// desk the ledger lists (ErrNotFound otherwise): on a shared ledger always,
// on a file once it lists any desk.
//
// A counter on a validation server may only receive and activate its
// own packs, through a function that applies the same rules in the
// database; every other move is the back office's (ErrCounterOnly).
func (l *Ledger) MovePacks(ctx context.Context, m PackMove, who Identity) error {
	if err := core.PrepareMove(&m, &who); err != nil {
		return core.Invalid(err)
	}
	return l.b.MovePacks(ctx, m, who)
}

// Head returns the hash of the journal's last entry, in hex ("" for an
// empty journal).
func (l *Ledger) Head(ctx context.Context) (string, error) { return l.b.Head(ctx) }

// Verify checks the ledger: for block number of game gameCode (number 0:
// every block of the game; gameCode 0 too: every block), it decodes,
// validates and re-evaluates every ticket against the rules and its stored
// prize, counts the prizes against the table, recomputes each pack's hash
// and the block's digest; then it recomputes the journal's hash chain and
// checks each claim against its ticket. Every mismatch is a Problem naming
// its row. A sealed counter ledger checks its seal, its chain and its
// payments. progress may be nil.
func (l *Ledger) Verify(ctx context.Context, gameCode, number int, progress func(done, total int)) (VerifyReport, error) {
	return l.b.Verify(ctx, gameCode, number, progress)
}

// CheckHead reports whether the journal holds an entry whose hash is head
// (hex) unchanged at its place: the chain recomputed from the first entry
// reaches that very hash. A history rewritten before that entry (an entry
// removed, changed or added, and every later hash recomputed) fails, even
// when the rewritten chain is consistent in itself (ErrNotAnchored).
func (l *Ledger) CheckHead(ctx context.Context, head string) (Anchor, error) {
	return l.b.CheckHead(ctx, head)
}

// ExportJournal writes a sealed counter ledger's journal as JSON Lines for
// the back office's ImportClaims: a first line naming the ledger, then one
// line per entry in order, every column with its hash, and with each
// payment the winner's identity when one was recorded (personal data: the
// file is for the back office only).
func (l *Ledger) ExportJournal(ctx context.Context, w io.Writer) error {
	if c, ok := l.b.(*counter.Backend); ok {
		return c.ExportJournal(ctx, w)
	}
	return errors.New("claims --jsonl: this is the back office's ledger; a counter ledger exports its journal this way for import-claims (here, use --json or --csv)")
}

// What only the back office does: a counter on a validation server, or a sealed counter
// ledger, is refused (ErrCounterOnly) before anything is asked.

// Generate streams game.GenerateBlock into the ledger in one transaction,
// as the next block number of the game. A cancel (ctx), an error or a
// crash leaves no trace: the transaction is never committed.
func (l *Ledger) Generate(ctx context.Context, gameCode int, seed game.Seed, opts GenerateOptions) (Block, error) {
	bo, err := l.backOffice("generate")
	if err != nil {
		return Block{}, err
	}
	return bo.Generate(ctx, gameCode, seed, opts)
}

// Export writes block number of game gameCode as JSON Lines in block
// order: one game.Doc per ticket with Serial, Prize, Game, Block, Pack and
// Position set. It streams; progress may be nil.
func (l *Ledger) Export(ctx context.Context, gameCode, number int, w io.Writer, progress func(done, total int)) error {
	bo, err := l.backOffice("export")
	if err != nil {
		return err
	}
	return bo.Export(ctx, gameCode, number, w, progress)
}

// Report is a block's report: for each prize of the table, highest first,
// the table's count, the tickets generated, the active claims (count and
// sum) and the outstanding tickets with their liability.
func (l *Ledger) Report(ctx context.Context, gameCode, number int) (Report, error) {
	bo, err := l.backOffice("report")
	if err != nil {
		return Report{}, err
	}
	return bo.Report(ctx, gameCode, number)
}

// TicketAt returns the ticket at position (0 .. Tickets-1) of block number
// of game gameCode, with its status, or ErrNotFound. It is for the back
// office's screens: it records nothing and needs no secret part.
func (l *Ledger) TicketAt(ctx context.Context, gameCode, number, position int) (Ticket, error) {
	bo, err := l.backOffice("a ticket by its position")
	if err != nil {
		return Ticket{}, err
	}
	return bo.TicketAt(ctx, gameCode, number, position)
}

// Samples returns tickets of block number of game gameCode worth trying at
// the counter of a demonstration ledger (see backoffice.Store.Samples). Any
// other ledger refuses: listing unpaid winners would let anyone claim them.
func (l *Ledger) Samples(ctx context.Context, gameCode, number int) ([]Ticket, error) {
	if !l.info.Demo {
		return nil, fmt.Errorf("serials to try: %w: only a demonstration ledger lists its unpaid winners", ErrNotDemo)
	}
	bo, err := l.backOffice("serials to try")
	if err != nil {
		return nil, err
	}
	return bo.Samples(ctx, gameCode, number)
}

// UnpaidWinners lists the positions of block number of game gameCode's
// winning tickets not paid yet, in block order, and their prizes in euros
// (vegas-desk load --winners). Any ledger but a demonstration ledger
// refuses, as Samples does.
func (l *Ledger) UnpaidWinners(ctx context.Context, gameCode, number int) (positions, prizes []int, err error) {
	if !l.info.Demo {
		return nil, nil, fmt.Errorf("unpaid winners: %w: only a demonstration ledger lists its unpaid winners", ErrNotDemo)
	}
	bo, ok := l.b.(interface {
		UnpaidWinners(ctx context.Context, gameCode, number int) ([]int, []int, error)
	})
	if !ok {
		return nil, nil, l.b.Refuse("unpaid winners")
	}
	return bo.UnpaidWinners(ctx, gameCode, number)
}

// Games lists the game codes of the ledger with their names.
func (l *Ledger) Games(ctx context.Context) (map[int]string, error) {
	bo, err := l.backOffice("games")
	if err != nil {
		return nil, err
	}
	return bo.Games(ctx)
}

// Void cancels the payment number number with a reason: it appends a void
// entry naming the desk and the operator; the claim entry stays as it was.
// The ticket can then be claimed again, unless another payment of it not
// voided stands (a double payment). Only the back office voids.
func (l *Ledger) Void(ctx context.Context, number int64, reason string, who Identity) (Claim, error) {
	bo, err := l.backOffice("void")
	if err != nil {
		return Claim{}, err
	}
	return bo.Void(ctx, number, reason, who)
}

// ClaimByNumber returns payment number number, or ErrNotFound.
func (l *Ledger) ClaimByNumber(ctx context.Context, number int64) (Claim, error) {
	bo, err := l.backOffice("a payment by its number")
	if err != nil {
		return Claim{}, err
	}
	return bo.ClaimByNumber(ctx, number)
}

// Attempts lists the refused attempts since a time (zero = all).
func (l *Ledger) Attempts(ctx context.Context, since time.Time) ([]Attempt, error) {
	bo, err := l.backOffice("refused attempts")
	if err != nil {
		return nil, err
	}
	return bo.Attempts(ctx, since)
}

// Referrals lists the open referrals, one per ticket, oldest first: the
// referred tickets that no payment pays now.
func (l *Ledger) Referrals(ctx context.Context) ([]Referral, error) {
	bo, err := l.backOffice("referrals")
	if err != nil {
		return nil, err
	}
	return bo.Referrals(ctx)
}

// Cases lists the double payments (Case), open and closed, in the order
// they were recorded.
func (l *Ledger) Cases(ctx context.Context) ([]Case, error) {
	bo, err := l.backOffice("double payments")
	if err != nil {
		return nil, err
	}
	return bo.Cases(ctx)
}

// CloseCase closes the double payment whose second payment is number by
// a decision, recorded in the journal; both payments stay as they are.
func (l *Ledger) CloseCase(ctx context.Context, number int64, decision string, who Identity) (Case, error) {
	bo, err := l.backOffice("close a double payment")
	if err != nil {
		return Case{}, err
	}
	return bo.CloseCase(ctx, number, decision, who)
}

// Identities returns the winners' identities recorded with payments, by
// the payment's journal entry (Claim.Entry). They are personal data: only
// the back office reads them, and exports leave them out unless asked.
func (l *Ledger) Identities(ctx context.Context) (map[int64]Winner, error) {
	bo, err := l.backOffice("winners' identities")
	if err != nil {
		return nil, err
	}
	return bo.Identities(ctx)
}

// Desks lists the counters.
func (l *Ledger) Desks(ctx context.Context) ([]Desk, error) {
	bo, err := l.backOffice("list the desks")
	if err != nil {
		return nil, err
	}
	return bo.Desks(ctx)
}

// AddDesk adds a counter with its payout limit: a row of the ledger. A
// counter asks a validation server (vegas-desk serve) with a desk file
// (desks add --out).
func (l *Ledger) AddDesk(ctx context.Context, id string, limit int, who Identity) (Desk, error) {
	bo, err := l.backOffice("add a desk")
	if err != nil {
		return Desk{}, err
	}
	return bo.AddDesk(ctx, id, limit, who)
}

// AddTestDesk adds a load test's i-th desk, _load-i (TestDesk): a name
// that AddDesk refuses, so no real desk can have it.
func (l *Ledger) AddTestDesk(ctx context.Context, i, limit int, who Identity) (Desk, error) {
	bo, err := l.backOffice("add a desk")
	if err != nil {
		return Desk{}, err
	}
	return bo.AddTestDesk(ctx, i, limit, who)
}

// DisableDesk stops a counter: a validation server refuses its next
// question (it reads the desk's row at each one).
func (l *Ledger) DisableDesk(ctx context.Context, id string, who Identity) error {
	bo, err := l.backOffice("disable a desk")
	if err != nil {
		return err
	}
	return bo.DisableDesk(ctx, id, who)
}

// EnableDesk lets a disabled counter work again.
func (l *Ledger) EnableDesk(ctx context.Context, id string, who Identity) error {
	bo, err := l.backOffice("enable a desk")
	if err != nil {
		return err
	}
	return bo.EnableDesk(ctx, id, who)
}

// UnlockDesk ends a counter's lock-out; the refused serials before it no
// longer count.
func (l *Ledger) UnlockDesk(ctx context.Context, id string, who Identity) error {
	bo, err := l.backOffice("unlock a desk")
	if err != nil {
		return err
	}
	return bo.UnlockDesk(ctx, id, who)
}

// SetDeskLimit changes a counter's payout limit.
func (l *Ledger) SetDeskLimit(ctx context.Context, id string, limit int, who Identity) error {
	bo, err := l.backOffice("set a desk's limit")
	if err != nil {
		return err
	}
	return bo.SetDeskLimit(ctx, id, limit, who)
}

// Emission returns game code's dates.
func (l *Ledger) Emission(ctx context.Context, code int) (Emission, error) {
	bo, err := l.backOffice("emission")
	if err != nil {
		return Emission{}, err
	}
	return bo.Emission(ctx, code)
}

// SetEmission sets game code's dates to em's (a zero date unsets it). A
// deadline left zero while an end of sale is given becomes the end of sale
// plus the claim_days setting. The dates must come in order.
func (l *Ledger) SetEmission(ctx context.Context, code int, em Emission, who Identity) (Emission, error) {
	bo, err := l.backOffice("set the emission's dates")
	if err != nil {
		return Emission{}, err
	}
	return bo.SetEmission(ctx, code, em, who)
}

// Setting returns a setting's value.
func (l *Ledger) Setting(ctx context.Context, key string) (int, error) {
	bo, err := l.backOffice("settings")
	if err != nil {
		return 0, err
	}
	return bo.Setting(ctx, key)
}

// SetSetting changes a setting, in the journal.
func (l *Ledger) SetSetting(ctx context.Context, key string, value int, who Identity) error {
	bo, err := l.backOffice("settings")
	if err != nil {
		return err
	}
	return bo.SetSetting(ctx, key, value, who)
}

// Settlement returns desk's settlement for game gameCode from the day of
// from to the day of to, both included, in their location (time.Local for
// the counter's days). Only the back office settles.
func (l *Ledger) Settlement(ctx context.Context, desk string, gameCode int, from, to time.Time) (SettlementFacts, error) {
	bo, err := l.backOffice("settlement")
	if err != nil {
		return SettlementFacts{}, err
	}
	return bo.Settlement(ctx, desk, gameCode, from, to)
}

// Checkpoint signs the journal's head with the back office's key and
// records the signed text as a 'checkpoint' entry. Kept outside the
// ledger, the text lets a later verify --head prove the history up to that
// entry unchanged.
func (l *Ledger) Checkpoint(ctx context.Context, key *signing.Key, who Identity) (Checkpoint, error) {
	bo, err := l.backOffice("checkpoint")
	if err != nil {
		return Checkpoint{}, err
	}
	return bo.Checkpoint(ctx, key, who)
}

// RecordCommitment records a party's commitment file f in the journal,
// signed with key, before the generation it is to draw (see
// backoffice.Store.RecordCommitment): a secret file, or a commitment
// recorded before, is refused.
func (l *Ledger) RecordCommitment(ctx context.Context, f game.SeedFile, key *signing.Key, who Identity) (CommitmentRecord, error) {
	bo, err := l.backOffice("seed record")
	if err != nil {
		return CommitmentRecord{}, err
	}
	return bo.RecordCommitment(ctx, f, key, who)
}

// Certificate verifies block number of game gameCode and signs its
// certificate with key (see backoffice.Store.Certificate). A ledger that
// does not verify is refused: nothing is signed.
func (l *Ledger) Certificate(ctx context.Context, gameCode, number int, key *signing.Key) (Certificate, error) {
	bo, err := l.backOffice("certificate")
	if err != nil {
		return Certificate{}, err
	}
	return bo.Certificate(ctx, gameCode, number, key)
}

// ImportClaims records the payments of a counter ledger's export
// (ExportJournal) in this back office's ledger, in one transaction (see
// backoffice.Store.ImportClaims).
func (l *Ledger) ImportClaims(ctx context.Context, r io.Reader, who Identity) (ImportReport, error) {
	bo, err := l.backOffice("import a counter's claims")
	if err != nil {
		return ImportReport{}, err
	}
	return bo.ImportClaims(ctx, r, who)
}

// IssueCounter writes a new sealed counter ledger for spec.Desk at path,
// which must not exist, from this back office's ledger (either engine), and
// records the issue in the journal (see counter.Issue).
func (l *Ledger) IssueCounter(ctx context.Context, path string, spec CounterSpec) (CounterIssue, error) {
	o, err := l.office("issue a counter ledger")
	if err != nil {
		return CounterIssue{}, err
	}
	return counter.Issue(ctx, o, path, spec)
}
