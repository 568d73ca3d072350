package ledger

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/core"
)

// The questions a counter asks: a lookup, a claim, a search by contents.
// Each reads as one story: the ledger checks what is asked (core), the
// backend answers with core's rule, the ledger answers.

// Lookup finds a ticket by its full serial, with what a claim of it at
// this desk would answer now (its Verdict): the desk's stored payout limit
// (a served counter's, a sealed ledger's, a desk of the ledger's desks),
// which limit may lower, never raise (NoLimit asks nothing). The serial is
// parsed first (game.ErrCheckDigit or game.ErrSerialFormat, before the
// ledger is read); then an unknown serial or a wrong secret part both
// answer a *Refusal with UnknownSerial (errors.Is ErrUnknownSerial),
// recorded as refused with who unless the ledger is read-only; so is a
// ticket of a stolen pack, for the back office, though it is returned. A
// counter on a validation server that was locked out answers Locked.
func (l *Ledger) Lookup(ctx context.Context, serial string, who Identity, limit Limit) (Ticket, error) {
	s, err := game.ParseSerial(serial)
	if err != nil {
		return Ticket{}, core.Invalid(err)
	}
	who = trimmed(who, l.info.Desk)
	if err := core.CheckWho("lookup", who); err != nil {
		return Ticket{}, core.Invalid(err)
	}
	return l.q.Lookup(ctx, s, who, limit, l.clock())
}

// clock is the time of what the ledger writes and asks: the zero time when
// nobody set Now (a backend's own clock).
func (l *Ledger) clock() time.Time {
	if l.Now == nil {
		return time.Time{}
	}
	return l.Now()
}

// now is the time, for what the ledger says itself (papers' times).
func (l *Ledger) now() time.Time {
	if l.Now == nil {
		return time.Now()
	}
	return l.Now()
}

// trimmed is who with its texts trimmed, its desk own when own is set (a
// counter on a validation server or ledger asks as its desk).
func trimmed(who Identity, own string) Identity {
	who.Desk, who.Operator = strings.TrimSpace(who.Desk), strings.TrimSpace(who.Operator)
	if own != "" {
		who.Desk = own
	}
	return who
}

// Claim pays a winning ticket once and records it in the journal, with the
// time, who, the amount, the method and the request id. A refusal is a
// *Refusal (errors.Is ErrUnknownSerial, ErrNotWinner, ErrAlreadyClaimed —
// naming the first payment —, ErrNotActivated, ErrStolen, ErrExpired,
// ErrNotYetOnSale, ErrOverLimit — a referral to the back office is
// recorded —, ErrIdentityRequired, ErrLocked), and is recorded too. The
// check and the payment are one step, so counters claiming one ticket at
// once pay it exactly once. The payout limit is the desk's stored one,
// which req.Limit may lower (see Lookup).
//
// A request id names one ticket at one desk: a retry with the same id
// answers what the first answer was (the payment, or ErrVoided with the
// payment voided since), and a retry of another ticket is refused
// (ErrRequestReused). So a claim whose answer was lost (a timeout, a
// dropped connection) is asked again safely, and is, by a counter on a
// validation server, whose client (package remote) follows the policy
// protocol.Retry: within 31 s it is answered or ErrUnreachable. The
// policy runs there only: a ledger the process reads itself (a file,
// PostgreSQL — the server's own) answers each question once,
// unavailable when it cannot (its context ended, PostgreSQL away, a flush
// failed), and the counter asks again.
func (l *Ledger) Claim(ctx context.Context, req ClaimRequest) (Claim, error) {
	s, err := core.PrepareClaim(&req, l.info.Desk, l.now())
	if err != nil {
		return Claim{}, core.Invalid(err)
	}
	return l.q.Claim(ctx, s, req, l.clock())
}

// FindByContents returns the ledger's ticket with exactly these contents
// (the duel's cards in any order), with its verdict at this desk (see
// Lookup), or a *Refusal with UnknownContents, recorded. Losing contents
// are not searched: only winning tickets are indexed, and there is nothing
// to pay, so it answers ErrNotWinner. Should two tickets of the ledger show
// the same winning contents, the first one not yet paid is returned.
func (l *Ledger) FindByContents(ctx context.Context, t *game.Ticket, who Identity, limit Limit) (Ticket, error) {
	c := *t
	slices.Sort(c.Duel.Cards[:]) // generated tickets show them ascending
	if err := game.Validate(&c); err != nil {
		return Ticket{}, core.Invalid(fmt.Errorf("find by contents: %w", err))
	}
	if game.Prize(&c) == 0 {
		return Ticket{}, core.Invalid(fmt.Errorf("find by contents: %w: these contents lose, there is nothing to pay", ErrNotWinner))
	}
	code := game.Encode(&c)
	who = trimmed(who, l.info.Desk)
	if err := core.CheckWho("find by contents", who); err != nil {
		return Ticket{}, core.Invalid(err)
	}
	found, err := l.q.Find(ctx, code[:], who, limit, l.clock())
	if err != nil {
		return Ticket{}, err
	}
	return core.FoundTicket(found)
}

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
