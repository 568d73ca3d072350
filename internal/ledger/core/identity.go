package core

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"vegas-desk/internal/mrz"
)

// What a winner's identity is, in one place (issue 23: a name, a document
// and a number made of characters that print nothing were paid). Every
// kind of ledger asks Given and keeps Winner.Normal's form, and the
// conformance table's identities (conformance/identities.txt) are asked
// of every kind.
//
// A field is normalised: every character that prints nothing (Unicode's
// categories C*, those left unassigned, the default ignorable code points
// and the fillers that are letters or symbols by category) removed, every
// space (categories Z*, and the white space of unicode.IsSpace) made one
// ASCII space between words, then NFKC (a full-width letter is the letter,
// a no-break space a space, an accent typed apart is the accented letter),
// then the same removal again (NFKC can make spaces and fillers). Plain
// text typed once with single spaces is unchanged: its hash is the one it
// always had.
//
// An identity is given (issue 29, documents.go) when, typed without a
// bidirectional control, its normalised name is at least MinNameLetters
// letters of one script (no modifier letter, no mark alone, no
// placeholder), its document is one of Documents and its number (upper
// case, spaces removed: NormalDocNumber) is in that document's format.
const MinNameLetters = 2

// fillers are characters that print nothing yet are letters or symbols by
// category, beside the default ignorable code points: the Hangul fillers,
// the Braille blank, the Khmer inherent vowels, the Mongolian vowel
// separator, the combining grapheme joiner.
var fillers = []rune{0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x180E, 0x2800, 0x3164, 0xFFA0}

// IdentitySpace reports whether r is a space in an identity's text.
func IdentitySpace(r rune) bool {
	return unicode.IsSpace(r) || unicode.In(r, unicode.Z)
}

// IdentityInvisible reports whether r prints nothing and is removed from
// an identity's text (a space is not: IdentitySpace).
func IdentityInvisible(r rune) bool {
	switch {
	case IdentitySpace(r):
		return false
	case unicode.In(r, unicode.C, unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector):
		return true
	case !unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S):
		return true // unassigned (Cn)
	}
	for _, f := range fillers {
		if r == f {
			return true
		}
	}
	return false
}

// IdentityText is one field of a winner's identity as a ledger keeps it
// and hashes it: normalised (above). The same person typed with or
// without a zero-width joiner is the same text.
func IdentityText(s string) string {
	return cleanIdentity(norm.NFKC.String(cleanIdentity(s)))
}

// cleanIdentity removes the invisible characters of s and makes each run
// of spaces one space between words.
func cleanIdentity(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		switch {
		case IdentitySpace(r):
			space = b.Len() > 0
		case IdentityInvisible(r):
		default:
			if space {
				b.WriteByte(' ')
				space = false
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Normal is w with each field normalised (IdentityText), the document
// named by its type (DocumentOf) and its number as kept (NormalDocNumber);
// nil for nil. With a zone (MRZ) that reads, the name ("GIVEN NAMES
// SURNAME", as the zone spells them), the document and its number are the
// zone's, whatever was typed beside it, and the zone is kept one line a
// line in capitals.
func (w *Winner) Normal() *Winner {
	if w == nil {
		return nil
	}
	if strings.TrimSpace(w.MRZ) != "" {
		z, err := mrz.Parse(w.MRZ)
		if err == nil {
			if d, err := documentOfZone(z); err == nil {
				return &Winner{Name: strings.TrimSpace(z.GivenNames + " " + z.Surname), DocType: d.Type, DocNumber: z.Number, MRZ: z.Text()}
			}
		}
	}
	n := &Winner{Name: IdentityText(w.Name), DocType: IdentityText(w.DocType), DocNumber: NormalDocNumber(IdentityText(w.DocNumber)),
		MRZ: strings.TrimSpace(w.MRZ)}
	if d, ok := DocumentOf(n.DocType); ok {
		n.DocType = d.Type
	}
	return n
}

// Given reports whether the winner's identity is given (Check).
func (w *Winner) Given() bool { return w.Check() == nil }

// bidiControls are the characters that reorder text: a name typed with
// one is kept other than it was shown.
var bidiControls = []rune{0x061C, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069}

// The ways an identity is not given, for the messages that say which.
var (
	ErrIdentityName   = errors.New("winner's name")
	ErrIdentityDoc    = errors.New("identity document")
	ErrIdentityNumber = errors.New("document number")
	// ErrIdentityMRZ: a document that carries a machine-readable zone
	// without it, or a zone that does not read (a check digit, its
	// format, a document not of the list).
	ErrIdentityMRZ = errors.New("machine-readable zone")
)

// What a zone says that no payment takes (CheckAt): the winner is under
// 18 (gambling is forbidden to minors in France), the document expired.
var (
	ErrMinor           = errors.New("winner under 18")
	ErrDocumentExpired = errors.New("identity document expired")
)

// MinAge is the age from which a prize is paid: gambling is forbidden to
// minors in France (code de la sécurité intérieure, L. 320-8).
const MinAge = 18

// Legible says why an identity kept in a ledger is blank or invisible
// (nil when it is not): a name of fewer than two letters, a document type
// without a letter, a number of fewer than four letters or digits, once
// normalised (issue 23's rule). verify holds the identities kept to it:
// the payments made before Check's rule hold theirs to no more.
func (w *Winner) Legible() error {
	n := &Winner{Name: IdentityText(w.Name), DocType: IdentityText(w.DocType), DocNumber: IdentityText(w.DocNumber)}
	switch {
	case countRunes(n.Name, unicode.IsLetter) < MinNameLetters:
		return fmt.Errorf("%w %q: fewer than %d letters", ErrIdentityName, n.Name, MinNameLetters)
	case countRunes(n.DocType, unicode.IsLetter) < 1:
		return fmt.Errorf("%w %q: no letter", ErrIdentityDoc, n.DocType)
	case countRunes(n.DocNumber, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) < 4:
		return fmt.Errorf("%w %q: fewer than 4 letters or digits", ErrIdentityNumber, n.DocNumber)
	}
	return nil
}

func countRunes(s string, is func(rune) bool) int {
	n := 0
	for _, r := range s {
		if is(r) {
			n++
		}
	}
	return n
}

// Check says why w is not a given identity (nil when it is): the first
// field that falls short, wrapping ErrIdentityName, ErrIdentityDoc,
// ErrIdentityMRZ or ErrIdentityNumber. A document that carries a
// machine-readable zone (Document.MRZ) is given by its zone (w.MRZ),
// whose check digits hold; one without (a driving licence) is typed.
// Check asks nothing of dates: CheckAt does, at the payment.
func (w *Winner) Check() error { return w.check(true) }

// CheckKept is Check of an identity a ledger keeps: its name, document
// and number, without the zone, which is never kept (a counter's
// payments the back office imports), the formats of before issue 44
// accepted.
func (w *Winner) CheckKept() error { return w.check(false) }

func (w *Winner) check(asked bool) error {
	if w == nil {
		return fmt.Errorf("%w: none given", ErrIdentityName)
	}
	for _, f := range []struct {
		err  error
		text string
	}{{ErrIdentityName, w.Name}, {ErrIdentityDoc, w.DocType}, {ErrIdentityNumber, w.DocNumber}} {
		if i := strings.IndexFunc(f.text, func(r rune) bool { return contains(bidiControls, r) }); i >= 0 {
			return fmt.Errorf("%w %q: holds a bidirectional control (U+%04X), which shows the text other than it is kept; type it again", f.err, f.text, []rune(f.text[i:])[0])
		}
	}
	if asked && strings.TrimSpace(w.MRZ) != "" {
		return w.checkZone()
	}
	n := w.Normal()
	if why := checkName(n.Name); why != "" {
		return fmt.Errorf("%w %q: %s; type the name as the document prints it", ErrIdentityName, n.Name, why)
	}
	d, ok := DocumentOf(n.DocType)
	switch {
	case !ok:
		return fmt.Errorf("%w %q: give one of the documents a cashier may accept: %s", ErrIdentityDoc, n.DocType, DocumentTypes())
	case asked && d.MRZ:
		return fmt.Errorf("%w: a %s carries one, at the foot of the document (lines of capitals, digits and <): read it with the MRZ reader or type it, rather than the name and number", ErrIdentityMRZ, d.Type)
	case asked && !d.Valid(n.DocNumber), !asked && !d.validKept(n.DocNumber):
		return fmt.Errorf("%w %q: a %s's number is %s; type the number printed on the document", ErrIdentityNumber, n.DocNumber, d.Type, strings.Join(d.Formats, ", or "))
	}
	return nil
}

// checkZone is Check of an identity given by its zone.
func (w *Winner) checkZone() error {
	z, err := mrz.Parse(w.MRZ)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrIdentityMRZ, err)
	}
	d, err := documentOfZone(z)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrIdentityMRZ, err)
	}
	n := w.Normal()
	if why := checkName(n.Name); why != "" {
		return fmt.Errorf("%w %q (read from the zone): %s", ErrIdentityName, n.Name, why)
	}
	if !d.Valid(n.DocNumber) {
		return fmt.Errorf("%w %q (read from the zone): no %s's number (%s), or an example's", ErrIdentityNumber, n.DocNumber, d.Type, strings.Join(d.Formats, ", or "))
	}
	return nil
}

// CheckAt says why a payment at at does not take w (nil when it does):
// its zone says the winner is under MinAge on at's day (ErrMinor) or the
// document expired before it (ErrDocumentExpired). An identity without a
// zone, or whose zone does not read (Check), says nothing of either.
func (w *Winner) CheckAt(at time.Time) error {
	if w == nil || strings.TrimSpace(w.MRZ) == "" {
		return nil
	}
	z, err := mrz.Parse(w.MRZ)
	if err != nil {
		return nil
	}
	if age := z.AgeAt(at); age < MinAge {
		return fmt.Errorf("%w: born on %s, the winner is %d on %s: a prize is never paid to a minor (gambling is forbidden under %d); do not pay",
			ErrMinor, z.BirthDate(at).Format("02/01/2006"), age, at.Format("02/01/2006"), MinAge)
	}
	if exp := z.ExpiryDate(at); exp.Before(civil(at)) {
		return fmt.Errorf("%w: valid until %s, expired on %s: ask for a valid identity document", ErrDocumentExpired, exp.Format("02/01/2006"), at.Format("02/01/2006"))
	}
	return nil
}

// civil is at's day, as a UTC midnight.
func civil(at time.Time) time.Time {
	y, m, d := at.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// IdentityClass is a regular expression's bracket expression of every
// character is reports (NUL and the surrogates left out: no text holds
// them), for the PostgreSQL mirror: "[a-z…]", or "[^a-z…]" when negate.
func IdentityClass(is func(rune) bool, negate bool) string {
	var b strings.Builder
	b.WriteByte('[')
	if negate {
		b.WriteByte('^')
	}
	start := rune(-1)
	put := func(r rune) {
		if strings.ContainsRune(`-]^\[`, r) {
			b.WriteByte('\\') // a literal in an ARE's bracket expression
		}
		b.WriteRune(r)
	}
	flush := func(end rune) {
		put(start)
		if end > start {
			b.WriteByte('-')
			put(end)
		}
		start = -1
	}
	for r := rune(1); r <= unicode.MaxRune+1; r++ {
		in := r <= unicode.MaxRune && !(r >= 0xD800 && r <= 0xDFFF) && is(r)
		switch {
		case in && start < 0:
			start = r
		case !in && start >= 0:
			flush(r - 1)
		}
	}
	b.WriteByte(']')
	return b.String()
}

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
