package ledger

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"vegas-desk/internal/game"
)

// A check of typed-in contents: the questions themselves (Lookup, Claim,
// FindByContents) are core's (core.Asker), which the Ledger holds.

// CheckContents applies the rules to typed-in contents (game.Check) and
// looks for the ledger's ticket that shows them: winning contents by
// their contents, and when they find nothing and a serial is given, by
// the serial. The contents are not a genuine ticket of this ledger when
// no genuine ticket can show them, when they win and no ticket of the
// ledger shows them, when the serial given names another ticket, or a
// ticket that shows other contents. The app's contents form and the check
// command both say this.
func (l *Ledger) CheckContents(ctx context.Context, in game.Input, who Identity, limit Limit) (ContentsCheck, error) {
	c := ContentsCheck{Verdict: game.Check(&in.Ticket, in.Prize)}
	if !c.Genuine && in.Serial == "" {
		return c, nil
	}
	var t Ticket
	err := error(&Refusal{Verdict: UnknownContents})
	if c.Prize > 0 && c.Genuine {
		t, err = l.FindByContents(ctx, &in.Ticket, who, limit)
	}
	if notFound(err) && in.Serial != "" {
		t, err = l.Lookup(ctx, in.Serial, who, limit)
		if err == nil && !sameContents(t.Ticket, in.Ticket) {
			c.Genuine, c.OtherContents = false, true
			c.Reasons = append(c.Reasons, fmt.Sprintf("the ledger's ticket %s shows other contents", t.Serial))
		}
	}
	switch {
	case err == nil:
		c.Ticket = &t
		if s, perr := game.ParseSerial(in.Serial); in.Serial != "" && (perr != nil || s != t.Serial) && !c.OtherContents {
			c.Genuine, c.OtherSerial = false, true
			c.Reasons = append(c.Reasons, fmt.Sprintf("the given serial %s is not the serial of the ledger's ticket with these contents (%s)", in.Serial, t.Serial))
		}
	case notFound(err):
		if c.Prize > 0 || in.Serial != "" {
			c.Genuine, c.NotInLedger = false, true
			c.Reasons = append(c.Reasons, "no ticket of the ledger shows these contents")
		}
	default:
		return c, err
	}
	return c, nil
}

func notFound(err error) bool {
	return errors.Is(err, ErrUnknownContents) || errors.Is(err, ErrUnknownSerial)
}

// sameContents compares two tickets as a check reads them: the duel's
// cards in any order.
func sameContents(a, b game.Ticket) bool {
	slices.Sort(a.Duel.Cards[:])
	slices.Sort(b.Duel.Cards[:])
	return a == b
}
