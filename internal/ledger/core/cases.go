package core

import (
	"time"
)

// Double payments. A sealed counter ledger pays offline: the back office
// may have paid the same ticket meanwhile, or another counter. Every
// payment a counter made is a fact (the cash left its drawer): the import
// records it as a claim whatever else happened to the ticket, and a
// payment of a ticket that another payment not voided pays already is a
// double payment (the claim's reason ReasonDoublePayment, its ref the
// payment before it). It is kept as an open case — the amount to recover,
// both payments, who made them — until a recorded decision closes it (an
// 'import' entry, reason ReasonCaseClosed, ref the double payment, detail
// the decision). A ticket with any payment not voided is never payable
// again: voiding one of two payments leaves the ticket paid by the other.
const (
	ReasonDoublePayment = "double-payment"
	ReasonCaseClosed    = "case-closed"
)

// Case is a double payment: Second paid a ticket that First paid already.
// Amount, Second's, is the money to recover; both payments count in their
// counters' cash (what a counter paid out is what it is owed).
type Case struct {
	Number        int64 // the case's number: Second's payment number
	Serial        string
	Amount        int
	First, Second Claim
	// Closed: a decision closed it, with its words, when, by whom.
	Closed     bool
	Decision   string
	ClosedAt   time.Time
	ClosedBy   string // operator
	ClosedDesk string
}

// CasesOf are the cases among cases in which a payment of desk made from
// since until before until takes part.
func CasesOf(cases []Case, desk string, since, until time.Time) []Case {
	var out []Case
	for _, c := range cases {
		for _, p := range []Claim{c.First, c.Second} {
			if p.Desk == desk && !p.At.Before(since) && p.At.Before(until) {
				out = append(out, c)
				break
			}
		}
	}
	return out
}
