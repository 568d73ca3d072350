package core

import (
	"errors"
	"fmt"
	"time"
	"vegas-desk/internal/game"
)

// Errors a caller must tell apart.
var (
	// ErrNotLedger: not a vegas-desk ledger (another application's file, not
	// SQLite at all, or a ledger whose schema was altered). It is left
	// untouched.
	ErrNotLedger = errors.New("not a vegas-desk ledger")
	// ErrTooNew: written by a newer vegas-desk. Left untouched.
	ErrTooNew = errors.New("ledger written by a newer version of vegas-desk")
	// ErrTooOld: schema version 1, a development format this version does
	// not open. Left untouched.
	ErrTooOld = errors.New("ledger of an earlier development format")
	// ErrNoLedger: a PostgreSQL database without a ledger, opened to read.
	ErrNoLedger = errors.New("no ledger there")
	// ErrNotDemo: a demonstration was asked of a ledger that is not one.
	ErrNotDemo = errors.New("not a demonstration ledger")
	// ErrNotFound: no such block, claim or ticket with these contents.
	ErrNotFound = errors.New("not found")
	// ErrReadOnly: a write on a ledger opened with OpenReadOnly.
	ErrReadOnly = errors.New("ledger opened read-only")
	// ErrUnreachable: the shared ledger's server cannot be reached or the
	// connection was lost. Nothing was half-written; for a claim, whether it
	// was recorded is known only by asking again with the same request id.
	ErrUnreachable = errors.New("ledger unreachable")
	// ErrNotDurable: the ledger could not make durable what an answer
	// would say is paid — a sync of its file failed, or PostgreSQL did not
	// confirm the flush (its synchronous standby gone, the wait cancelled).
	// Nothing is known to be paid: a counter asks again with the same
	// request id, which stays refused so until the payment is durable.
	// A file whose sync failed answers nothing more until it is reopened
	// (after a failed fsync its state on disk is unknown).
	ErrNotDurable = errors.New("the ledger could not make its writes durable")
	// ErrCounterOnly: a back-office action asked through a counter on a validation server.
	ErrCounterOnly = errors.New("not allowed to a counter")
	// ErrDeskMismatch: a counter on a validation server acting as another desk.
	ErrDeskMismatch = errors.New("desk is not this login's")
	// ErrDeskDisabled: the back office disabled this counter.
	ErrDeskDisabled = errors.New("desk disabled")
	// ErrDeskUnknown: the ledger lists no desk of the desk file's id.
	ErrDeskUnknown = errors.New("unknown desk")
	// ErrDeskRevoked: the desk file's certificate is not one its desk accepts now.
	ErrDeskRevoked = errors.New("desk certificate revoked")
	// ErrReplaced: a restore replaced the ledger (Gate.Replaced): another
	// ledger of its id serves its desks now.
	ErrReplaced = errors.New("ledger replaced by a restore")
	// ErrOtherLedger: the server serves another ledger than the desk file's.
	ErrOtherLedger = errors.New("another ledger")
	// ErrPassword: the shared ledger's server refused the login's password,
	// or none was given (none in the URL, PGPASSWORD or ~/.pgpass).
	ErrPassword = errors.New("password refused")
	// ErrInvalid: what was asked is not a question the ledger takes (a
	// serial mistyped, a text too long, an unknown method or state): the
	// asker's to correct, not the ledger's failure (Invalid).
	ErrInvalid = errors.New("invalid question")
)

// Invalid is err, a check of what was asked that failed, marked
// errors.Is ErrInvalid; its message and what it wraps are kept.
func Invalid(err error) error {
	if err == nil {
		return nil
	}
	return invalid{err}
}

type invalid struct{ error }

func (e invalid) Unwrap() error        { return e.error }
func (e invalid) Is(target error) bool { return target == ErrInvalid }

// Verdict is what a claim of a ticket at a desk answers, or would answer.
type Verdict string

// The verdicts, in the order they are checked (see decide).
const (
	Payable          Verdict = "payable"           // pay it
	Paid             Verdict = "paid"              // the claim was recorded
	UnknownSerial    Verdict = "unknown-serial"    // no such ticket, or a wrong secret part
	UnknownContents  Verdict = "unknown-contents"  // no winner of the ledger shows these contents
	Locked           Verdict = "locked"            // too many refused serials: the desk is locked out
	NotYetOnSale     Verdict = "not-yet-on-sale"   // before the emission's on-sale date
	Expired          Verdict = "expired"           // after the claim deadline (forclos)
	Stolen           Verdict = "stolen"            // its pack was reported stolen: keep the ticket
	NotActivated     Verdict = "not-activated"     // its pack is not on sale
	NotWinner        Verdict = "not-winner"        // a loser: nothing to pay
	AlreadyClaimed   Verdict = "already-claimed"   // paid before, by Claim
	OverLimit        Verdict = "over-limit"        // above this desk's limit: the back office pays it
	IdentityRequired Verdict = "identity-required" // from the identity threshold: record the winner's identity
	Voided           Verdict = "voided"            // a retry of a request whose payment was voided since
)

// Sentinels of the refusals, for errors.Is.
var (
	ErrUnknownSerial    = errors.New("unknown serial")
	ErrUnknownContents  = errors.New("no ticket with these contents")
	ErrLocked           = errors.New("desk locked out")
	ErrNotYetOnSale     = errors.New("not yet on sale")
	ErrExpired          = errors.New("claim deadline passed")
	ErrStolen           = errors.New("pack reported stolen")
	ErrNotActivated     = errors.New("pack not on sale")
	ErrNotWinner        = errors.New("not a winning ticket")
	ErrAlreadyClaimed   = errors.New("already claimed")
	ErrOverLimit        = errors.New("above the payout limit")
	ErrIdentityRequired = errors.New("winner's identity required")
	ErrVoided           = errors.New("the payment of this request was voided")
	// ErrRequestReused: a request id the desk used for another ticket. A
	// request id names one ticket at one desk.
	ErrRequestReused = errors.New("request id already used for another ticket")
)

var verdictErr = map[Verdict]error{
	UnknownSerial: ErrUnknownSerial, UnknownContents: ErrUnknownContents, Locked: ErrLocked,
	NotYetOnSale: ErrNotYetOnSale, Expired: ErrExpired, Stolen: ErrStolen, NotActivated: ErrNotActivated,
	NotWinner: ErrNotWinner, AlreadyClaimed: ErrAlreadyClaimed, OverLimit: ErrOverLimit,
	IdentityRequired: ErrIdentityRequired, Voided: ErrVoided,
}

// Refusal is a claim or lookup refused: its verdict and what goes with it.
// errors.Is(err, ErrAlreadyClaimed) and the like tell the verdicts apart.
type Refusal struct {
	Verdict Verdict
	Serial  string
	// First is the claim that paid the ticket (AlreadyClaimed); a counter
	// on a validation server is shown another desk's payment by its date
	// only (its other fields zero).
	First *Claim
	// Amount is the prize (OverLimit, IdentityRequired).
	Amount int
	// Until is the end of a lock-out (Locked), the on-sale date
	// (NotYetOnSale) or the deadline (Expired).
	Until time.Time
	// Entry is the journal entry that recorded the refusal (or the referral
	// of OverLimit); 0 when nothing was recorded.
	Entry int64
}

func (r *Refusal) Error() string {
	s := r.Serial
	switch r.Verdict {
	case UnknownSerial:
		return fmt.Sprintf("serial %s: unknown serial: no ticket of the ledger has this serial; check it against the ticket", s)
	case UnknownContents:
		return "no ticket of the ledger shows these contents; check every zone against the ticket"
	case Locked:
		return fmt.Sprintf("desk locked out until %s after too many unknown serials; the back office can unlock it", r.Until.Local().Format("15:04"))
	case NotYetOnSale:
		return fmt.Sprintf("serial %s: not yet on sale: the emission goes on sale on %s", s, r.Until.Local().Format("2006-01-02"))
	case Expired:
		return fmt.Sprintf("serial %s: claim deadline passed on %s (forclos): do not pay", s, r.Until.Local().Format("2006-01-02"))
	case Stolen:
		return fmt.Sprintf("serial %s: its pack was reported stolen: keep the ticket and call the back office", s)
	case NotActivated:
		return fmt.Sprintf("serial %s: its pack is not on sale: do not pay", s)
	case NotWinner:
		return fmt.Sprintf("serial %s: this ticket loses, there is nothing to pay", s)
	case AlreadyClaimed:
		if c := r.First; c != nil && c.Desk == "" {
			// Another desk's payment, shown to a counter by its date only.
			return fmt.Sprintf("serial %s: already claimed: already paid on %s; do not pay again", s, c.At.Local().Format("2006-01-02"))
		}
		if c := r.First; c != nil {
			return fmt.Sprintf("serial %s: already claimed: payment n° %d of %s on %s at desk %q by %q; do not pay again", s, c.Number,
				game.FormatAmount(c.Amount), c.At.Local().Format("2006-01-02 15:04:05"), c.Desk, c.Operator)
		}
		return fmt.Sprintf("serial %s: already claimed", s)
	case OverLimit:
		return fmt.Sprintf("serial %s: %s is above this desk's payout limit: the back office pays it (referral recorded)", s, game.FormatAmount(r.Amount))
	case IdentityRequired:
		return fmt.Sprintf("serial %s: %s: a payment from the identity threshold records the winner's name and identity document", s, game.FormatAmount(r.Amount))
	case Voided:
		if c := r.First; c != nil {
			return fmt.Sprintf("serial %s: request %s: payment n° %d was voided on %s (%q): do not pay; a new claim needs a new request", s, c.Request, c.Number,
				c.VoidedAt.Local().Format("2006-01-02 15:04:05"), c.VoidReason)
		}
		return fmt.Sprintf("serial %s: the payment of this request was voided", s)
	}
	return fmt.Sprintf("serial %s: refused (%s)", s, r.Verdict)
}

// Is makes errors.Is(err, ErrAlreadyClaimed) and the like true.
func (r *Refusal) Is(target error) bool { return verdictErr[r.Verdict] == target }
