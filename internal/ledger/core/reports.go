package core

import "time"

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
	// file (a register, a message) and give it to a later verify (--head):
	// the chain must still hold that entry unchanged.
	Head     string
	Problems []Problem
	// Waiting counts the entries recorded and not yet chained (a shared
	// ledger's, which records first and chains after): a few, briefly,
	// under load; one older than MaxWaiting is a problem.
	Waiting int
	// Key is, for a sealed counter ledger, the public key (hex) that signed
	// its seal: the back office's, which the caller compares with the one
	// it trusts.
	Key string
}

// MaxWaiting is how long an entry may wait to be chained before verify
// reports it: the chain is held up (a chain takes milliseconds, and the
// back office's longest write seconds).
const MaxWaiting = time.Minute

// OK reports whether everything matched.
func (r VerifyReport) OK() bool { return len(r.Problems) == 0 }
