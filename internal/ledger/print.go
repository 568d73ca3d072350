package ledger

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"vegas-desk/internal/game"
)

// PrintedReason is the reason of the journal entry that takes the packs
// printed on demonstration sheets out of play (PrintPacks).
const PrintedReason = "printed for demonstration"

// Sheets are demonstration sheets being written, not kept yet: Keep makes
// them the document asked for (renames the finished file), Drop throws
// them away (removes it).
type Sheets interface {
	Keep() error
	Drop()
}

// PrintPacks has the packs of rs, all of one block, printed on
// demonstration sheets by write, which returns them not yet kept; then it
// keeps them (Keep) or drops them (Drop).
//
// A demonstration ledger's tickets are no money: write draws them as they
// are (cover false), serial and barcode in view, and they are kept.
//
// Any other ledger prints only packs in stock, one run of consecutive
// packs at a time, and takes them out of play in the same step, so that no
// printed ticket is ever payable: the packs are checked, then written
// (cover true: each ticket's serial and barcode under the scratch panel,
// not drawn), then destroyed in one journal entry (reason PrintedReason,
// from the stock only, checked again in that entry's transaction), and
// only then kept. Writing comes first because it is the long step, and
// the one an operator's mistake or a full disk stops: it then destroys
// nothing. When the destruction fails (a pack moved meanwhile, the
// database gone), the sheets are dropped and every pack stays as it was.
// Keep failing after the destruction is the one case where packs are
// destroyed without their sheets; Keep's error names what is left.
//
// It needs the back office's ledger opened for writing: a read-only one
// (OpenReadOnly) answers ErrReadOnly, a counter ErrCounterOnly, before
// anything is written.
func (l *Ledger) PrintPacks(ctx context.Context, rs []game.PackRange, who Identity, write func(cover bool) (Sheets, error)) error {
	if _, err := l.backOffice("demonstration sheets"); err != nil {
		return err
	}
	if len(rs) == 0 {
		return fmt.Errorf("print packs: %w: no pack named", ErrPackMove)
	}
	b, err := l.Block(ctx, rs[0].Game, rs[0].Block)
	if err != nil {
		return err
	}
	for _, r := range rs {
		if n := b.Tickets / b.PackSize; r.Game != b.Game || r.Block != b.Number || r.First < 0 || r.Last < r.First || r.Last >= n {
			return fmt.Errorf("print packs %s: %w: the packs of block %s, 0 to %d, one block at a time", r, ErrPackMove, b.Name(), n-1)
		}
	}
	if l.info.Demo {
		s, err := write(false)
		if err != nil {
			return err
		}
		return s.Keep()
	}
	r, ok := oneRun(rs)
	what := fmt.Sprintf("print packs %s", r)
	if !ok {
		return fmt.Errorf("print packs %s and %s: %w: a ledger that is not a demonstration ledger prints one run of "+
			"consecutive packs at a time (A-B), which one journal entry destroys; print each run on its own", rs[0], rs[len(rs)-1], ErrPackMove)
	}
	if l.info.ReadOnly {
		return fmt.Errorf("%s: %w: on a ledger that is not a demonstration ledger, printing takes the packs out of play "+
			"(a journal entry), which a read-only ledger cannot write; open it for writing (check the file's permissions), "+
			"or print from a demonstration ledger", what, ErrReadOnly)
	}
	if err := l.inStock(ctx, r); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	s, err := write(true)
	if err != nil {
		return err
	}
	err = l.MovePacks(ctx, PackMove{Game: r.Game, Block: r.Block, First: r.First, Last: r.Last, Move: "destroyed",
		Reason: PrintedReason, Only: []string{"stock"}}, who)
	if err != nil {
		s.Drop()
		return fmt.Errorf("%s: the packs could not be taken out of play, so no sheet was kept: %w", what, err)
	}
	if err := s.Keep(); err != nil {
		return fmt.Errorf("%s: the packs are destroyed (%q) but the sheets were not kept: %w", what, PrintedReason, err)
	}
	return nil
}

// oneRun is the packs of rs as one run First … Last, if they make one.
func oneRun(rs []game.PackRange) (game.PackRange, bool) {
	rs = slices.Clone(rs)
	slices.SortFunc(rs, func(a, b game.PackRange) int { return cmp.Compare(a.First, b.First) })
	run := rs[0]
	for _, r := range rs[1:] {
		if r.First > run.Last+1 {
			return run, false
		}
		run.Last = max(run.Last, r.Last)
	}
	return run, true
}

// inStock refuses packs r unless every one is in stock.
func (l *Ledger) inStock(ctx context.Context, r game.PackRange) error {
	runs, err := l.Packs(ctx, PackFilter{Game: r.Game, Block: r.Block})
	if err != nil {
		return err
	}
	for _, run := range runs {
		if run.Last < r.First || run.First > r.Last {
			continue
		}
		p := max(run.First, r.First)
		at := ""
		if run.Desk != "" {
			at = " at desk " + run.Desk
		}
		return fmt.Errorf("%w: pack %s is %s%s; a ledger that is not a demonstration ledger prints only packs in stock, "+
			"and destroys them so that no printed ticket can be paid: choose packs in stock "+
			"(vegas-desk packs list --state stock --block %d)", ErrPackMove, game.PackCode{Game: r.Game, Block: r.Block, Pack: p},
			run.State, at, r.Block)
	}
	return nil
}
