// Package ledger is the vegas-desk ledger: blocks, tickets, claims and the
// refused attempts in one SQLite file. It is the only package that speaks SQL;
// every rule comes from internal/game.
package ledger

import (
	"errors"
	"fmt"
	"os"
	"os/user"
	"time"

	"vegas-desk/internal/game"
)

// Errors a caller must tell apart.
var (
	// ErrNotLedger: the file is not a vegas-desk ledger (another
	// application's SQLite file, or not SQLite at all). The file is left
	// untouched.
	ErrNotLedger = errors.New("not a vegas-desk ledger")
	// ErrTooNew: the ledger was written by a newer vegas-desk (its
	// user_version is greater than ours). The file is left untouched.
	ErrTooNew = errors.New("ledger written by a newer version of vegas-desk")
	// ErrNotFound: no such block, claim or ticket with these contents.
	ErrNotFound = errors.New("not found")
	// ErrUnknownSerial: the serial is not in the ledger. It is also the
	// answer for a wrong secret part, which so reveals nothing; the attempt
	// is recorded as refused.
	ErrUnknownSerial = errors.New("unknown serial")
	// ErrNotWinner: a losing ticket; there is nothing to pay. FindByContents
	// also answers it for losing contents (it does not search them).
	ErrNotWinner = errors.New("not a winning ticket")
	// ErrAlreadyClaimed is wrapped by *AlreadyClaimedError.
	ErrAlreadyClaimed = errors.New("already claimed")
	// ErrReadOnly: a write on a ledger opened with OpenReadOnly.
	ErrReadOnly = errors.New("ledger opened read-only")
)

// AlreadyClaimedError refuses a second claim of a ticket; First is the
// active claim.
type AlreadyClaimedError struct{ First Claim }

func (e *AlreadyClaimedError) Error() string {
	c := e.First
	return fmt.Sprintf("already claimed: paid %d € on %s at desk %q by operator %q (claim %d)",
		c.Amount, c.At.Local().Format("2006-01-02 15:04:05"), c.Desk, c.Operator, c.ID)
}

// Is makes errors.Is(err, ErrAlreadyClaimed) true.
func (e *AlreadyClaimedError) Is(target error) bool { return target == ErrAlreadyClaimed }

// Block is one generated block of a game.
type Block struct {
	ID       int64
	Game     int    // game code
	Number   int    // block number within the game, from 1
	Digest   string // hex SHA-256 of game.Digest
	PackSize int
	Tickets  int
	Winners  int
	Payout   int // euros
	// CreatedAt is when the block was generated.
	CreatedAt time.Time

	first     int64 // global ticket number of position 0: firstPack * PackSize
	firstPack int64 // packs row of pack 0
	key       game.SerialKey
}

// Status is the state of a ticket in the ledger.
type Status int

// Ticket statuses.
const (
	StatusLoser  Status = iota // nothing to pay
	StatusUnpaid               // a winner not yet paid
	StatusPaid                 // a winner with an active claim
)

func (s Status) String() string {
	switch s {
	case StatusLoser:
		return "loser"
	case StatusUnpaid:
		return "unpaid"
	case StatusPaid:
		return "paid"
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// Ticket is one ticket of the ledger.
type Ticket struct {
	Serial   game.Serial
	Block    Block
	Pack     int
	Position int
	Ticket   game.Ticket
	Prize    int // euros, 0 for a loser
	Status   Status
	// Claim is the active (non-voided) claim when the ticket is paid.
	Claim *Claim
}

// Identity says who acts: the desk (the counter or machine) and the operator.
type Identity struct{ Desk, Operator string }

// DefaultIdentity is who acts when nobody said: the desk is the host name,
// the operator $USER, else the name of the account the process runs as.
// The command line and the app both start from it; a field it cannot
// find stays empty, and a claim is refused without either.
func DefaultIdentity() Identity {
	desk, _ := os.Hostname()
	operator := os.Getenv("USER")
	if operator == "" {
		if u, err := user.Current(); err == nil {
			operator = u.Username
		}
	}
	return Identity{Desk: desk, Operator: operator}
}

// How a ticket was identified for a claim.
const (
	MethodSerial   = "serial"
	MethodContents = "contents"
)

// Claim is one payment of a winning ticket, an entry of the journal. A void
// is another entry; Voided and the Void fields show it on the claim.
type Claim struct {
	ID       int64 // journal entry id
	Serial   string
	Game     int
	Block    int // block number
	Position int
	Amount   int // euros
	Desk     string
	Operator string
	Method   string // MethodSerial or MethodContents
	At       time.Time

	Voided     bool
	VoidReason string
	VoidedBy   string // operator of the void
	VoidedAt   time.Time
}

// ClaimFilter selects claims; a zero field selects all.
type ClaimFilter struct {
	Game, Block  int       // 0 = all
	Since, Until time.Time // zero = open; Since inclusive, Until exclusive
	Desk         string
}

// TierLine is one line of a block report: for one prize, the count of the
// prize table, the tickets generated, the claims (count and sum), the
// tickets still to pay and what they would cost.
type TierLine struct {
	Prize, Table, Generated, Claimed, ClaimedSum, Outstanding, Liability int
}

// Report is a block's report, highest prize first; Total adds the tiers
// (its Prize is the block's payout).
type Report struct {
	Block Block
	Tiers []TierLine
	Total TierLine
}

// DayDesk is one line of the daily report: active claims of a day (local
// time) at a desk.
type DayDesk struct {
	Day, Desk  string
	Count, Sum int
}

// Problem is one mismatch found by Verify. Where names the row: "block
// 531/1 ticket 123456", "block 531/1 pack 17", "claim 17", "journal entry 9".
type Problem struct{ Where, What string }

func (p Problem) String() string { return p.Where + ": " + p.What }

// VerifyReport sums up a verification.
type VerifyReport struct {
	Blocks, Tickets, Entries int
	// Head is the hash of the journal's last entry, in hex. Anyone who can
	// write the file can rebuild the chain; write Head down outside the
	// file (a register, a message) and compare it at the next verify to
	// see that nothing was added, changed or removed since.
	Head     string
	Problems []Problem
}

// OK reports whether everything matched.
func (r VerifyReport) OK() bool { return len(r.Problems) == 0 }
