package core

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"vegas-desk/internal/game"
)

// The rule of a claim, in one place: every kind of ledger asks Decide (a
// validation server's counters too), tested case by case on every kind
// (the conformance table, ledgertest.Cases).

// Limit is a payout limit in euros: the largest prize a desk pays itself;
// above it the winner is referred to the back office (OverLimit). 0 refers
// every winner, and is the zero value. NoLimit pays any prize: it is the
// back office's alone, and is always said explicitly.
type Limit int

// NoLimit is the back office's payout limit: none.
const NoLimit Limit = -1

// LimitOf is a limit of euros (0 or more).
func LimitOf(euros int) Limit { return Limit(max(euros, 0)) }

// Pays reports whether a desk with this limit pays prize itself.
func (l Limit) Pays(prize int) bool { return l == NoLimit || prize <= int(l) }

// Lower is the lower of two limits (NoLimit is above every number): an
// asked limit may lower a desk's, never raise it.
func (l Limit) Lower(o Limit) Limit {
	switch {
	case l == NoLimit:
		return o
	case o == NoLimit:
		return l
	}
	return min(l, o)
}

// Euros is the limit's amount, and false for NoLimit.
func (l Limit) Euros() (int, bool) { return int(l), l != NoLimit }

func (l Limit) String() string {
	if l == NoLimit {
		return "none (the back office's)"
	}
	return game.FormatAmount(int(l))
}

// Facts is what a verdict on one ticket needs, read in one transaction.
type Facts struct {
	Block     Block
	Position  int
	Ticket    int64 // ledger-wide number
	Secret    int64 // the serial's secret part
	Prize     int
	Code      []byte
	PackState string // "" when the pack is in stock
	Paid      *Claim // the claim no void cancels
}

// Dates are a game's dates as a ledger stores them: UTC instants in text
// (TimeFormat), "" for none.
type Dates struct {
	OnSale    string `db:"on_sale"`
	EndOfSale string `db:"end_of_sale"`
	Deadline  string `db:"deadline"`
}

// Emission is the public form of a game's dates.
func (d Dates) Emission(code int, name string, price int) Emission {
	return Emission{Game: code, Name: name, Price: price, OnSale: ParseTime(d.OnSale),
		EndOfSale: ParseTime(d.EndOfSale), Deadline: ParseTime(d.Deadline)}
}

// DefaultIdentityThreshold is the prize from which a payment records the
// winner's identity, in euros, unless the setting says otherwise.
const DefaultIdentityThreshold = 5000

// Rules are what a verdict applies beside the ticket's facts.
type Rules struct {
	Dates     Dates
	At        string // the time of the question (TimeFormat)
	Limit     Limit  // the desk's payout limit
	Threshold int    // the identity threshold, euros
	Identity  bool   // the winner's identity is given
}

// Decide gives the verdict on a ticket, in this order: before the on-sale
// date, after the deadline, a stolen pack, a pack not on sale, a loser,
// already paid, above the limit, an identity needed and not given.
func Decide(f *Facts, r Rules) Verdict {
	switch {
	case r.Dates.OnSale != "" && r.At < r.Dates.OnSale:
		return NotYetOnSale
	case r.Dates.Deadline != "" && r.At > r.Dates.Deadline:
		return Expired
	case f.PackState == "stolen":
		return Stolen
	case f.PackState != "on-sale" && f.PackState != "settled":
		return NotActivated
	case f.Prize == 0:
		return NotWinner
	case f.Paid != nil:
		return AlreadyClaimed
	case !r.Limit.Pays(f.Prize):
		return OverLimit
	case f.Prize >= r.Threshold && !r.Identity:
		return IdentityRequired
	}
	return Payable
}

// The bounds of what a journal entry records from a person: a request id,
// an operator, a reason (MaxText characters); a winner's name, identity
// document and its number (MaxIdentity).
const (
	MaxText     = 64
	MaxIdentity = 200
)

// CheckText refuses text an entry cannot hold the same way on every
// engine (invalid UTF-8, a NUL character) or longer than max characters
// (0: no bound).
func CheckText(field, s string, max int) error {
	if !utf8.ValidString(s) || strings.ContainsRune(s, 0) {
		return fmt.Errorf("%s %q: not plain text; type it again", field, s)
	}
	if max > 0 && utf8.RuneCountInString(s) > max {
		return fmt.Errorf("%s: at most %d characters, not %d; shorten it", field, max, utf8.RuneCountInString(s))
	}
	return nil
}

// Blank reports whether s is empty once every Unicode white space is
// trimmed (unicode.IsSpace: a no-break space too).
func Blank(s string) bool { return strings.TrimSpace(s) == "" }

// IdentityHash is the SHA-256 of a winner's identity that the claim entry
// records (the identity itself stays out of the journal), of its fields as
// they are: a claim hashes and keeps them normalised (PrepareClaim).
func IdentityHash(w *Winner) string {
	text := "name=" + strconv.Itoa(len(w.Name)) + ":" + w.Name + "\n" +
		"doc_type=" + strconv.Itoa(len(w.DocType)) + ":" + w.DocType + "\n" +
		"doc_number=" + strconv.Itoa(len(w.DocNumber)) + ":" + w.DocNumber + "\n"
	s := sha256.Sum256([]byte(text))
	return hex.EncodeToString(s[:])
}

// NewRequestID makes a request id for a claim: 128 random bits in hex.
func NewRequestID() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// PrepareClaim checks a claim request as every kind of ledger does before
// it asks anything, and returns its serial. own is the desk of a counter's
// login or sealed ledger ("" for the back office): it pays as that desk
// only. Texts are trimmed; a winner's identity is kept in its normal form
// (Winner.Normal), and one that is not given (Winner.Check: blank,
// invisible, no document of the list, a number out of its format, a name
// that is no name, a zone that does not read) is none; one whose zone says
// the winner is a minor or the document expired on at's day
// (Winner.CheckAt) is refused; an empty request id gets one.
func PrepareClaim(req *ClaimRequest, own string, at time.Time) (game.Serial, error) {
	s, err := game.ParseSerial(req.Serial)
	if err != nil {
		return s, err
	}
	if req.Method != MethodSerial && req.Method != MethodContents {
		return s, fmt.Errorf("claim: method %q: want %q or %q", req.Method, MethodSerial, MethodContents)
	}
	req.Who.Desk, req.Who.Operator, req.Request = strings.TrimSpace(req.Who.Desk), strings.TrimSpace(req.Who.Operator), strings.TrimSpace(req.Request)
	if own != "" && req.Who.Desk == "" {
		req.Who.Desk = own
	}
	if req.Who.Desk == "" || req.Who.Operator == "" {
		return s, fmt.Errorf("claim: desk %q, operator %q: a payment records both; name the desk and the operator", req.Who.Desk, req.Who.Operator)
	}
	if own != "" && req.Who.Desk != own {
		return s, fmt.Errorf("claim: %w: this ledger or login is desk %s's, not %s's", ErrDeskMismatch, own, req.Who.Desk)
	}
	if err := CheckWho("claim", req.Who); err != nil {
		return s, err
	}
	if err := CheckText("request id", req.Request, MaxText); err != nil {
		return s, fmt.Errorf("claim: %w", err)
	}
	if w := req.Winner; w != nil {
		t := Winner{Name: strings.TrimSpace(w.Name), DocType: strings.TrimSpace(w.DocType), DocNumber: strings.TrimSpace(w.DocNumber),
			MRZ: strings.TrimSpace(w.MRZ)}
		for _, f := range []struct {
			name, text string
		}{{"winner's name", t.Name}, {"identity document", t.DocType}, {"document number", t.DocNumber}, {"machine-readable zone", t.MRZ}} {
			if err := CheckText(f.name, f.text, MaxIdentity); err != nil {
				return s, fmt.Errorf("claim: %w", err)
			}
		}
		// An identity is kept, hashed and compared in its normal form
		// (IdentityText); one that is not given (Winner.Check) is none.
		req.Winner = nil
		if n := t.Normal(); t.Given() { // as typed: a bidirectional control is refused, not removed
			for _, f := range [][2]string{{"winner's name", n.Name}, {"identity document", n.DocType}, {"document number", n.DocNumber}} {
				if err := CheckText(f[0], f[1], MaxIdentity); err != nil {
					return s, fmt.Errorf("claim: %w", err)
				}
			}
			req.Winner = n
			if err := n.CheckAt(at); err != nil {
				return s, fmt.Errorf("claim: %w", err)
			}
		}
	}
	if req.Request == "" {
		req.Request = NewRequestID()
	}
	return s, nil
}

// CheckWho refuses a desk or an operator that an entry cannot record
// (CheckText, MaxText): what (a claim, a lookup) names the question.
func CheckWho(what string, who Identity) error {
	for _, f := range [][2]string{{"desk", who.Desk}, {"operator", who.Operator}} {
		if err := CheckText(f[0], f[1], MaxText); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
	}
	return nil
}

// CheckDeskID refuses a desk id that is not 1 to 32 letters, digits, _ or -.
// (By hand, not by a regular expression compiled in every process.)
func CheckDeskID(id string) error {
	ok := len(id) >= 1 && len(id) <= 32 && id[0] != '_' && id[0] != '-'
	for i := 0; ok && i < len(id); i++ {
		c := id[i]
		ok = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-'
	}
	if !ok {
		return fmt.Errorf("desk id %q: use 1 to 32 letters, digits, _ or -, starting with a letter or digit", id)
	}
	return nil
}
