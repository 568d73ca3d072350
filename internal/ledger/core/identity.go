package core

import (
	"errors"
	"fmt"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// What a winner's identity is, in one place (issue 23: a name, a document
// and a number made of characters that print nothing were paid). Every
// kind of ledger asks Given and keeps IdentityText's form, and the
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
// An identity is given when its normalised name holds at least
// MinNameLetters letters (category L), its document type MinDocLetters,
// and its document number MinDocNumber letters or decimal digits.
const (
	MinNameLetters = 2
	MinDocLetters  = 1
	MinDocNumber   = 4
)

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

// Normal is w with each field normalised (IdentityText); nil for nil.
func (w *Winner) Normal() *Winner {
	if w == nil {
		return nil
	}
	return &Winner{Name: IdentityText(w.Name), DocType: IdentityText(w.DocType), DocNumber: IdentityText(w.DocNumber)}
}

// Given reports whether the winner's identity is given: once normalised,
// a name of at least two letters, a document type with a letter, and a
// document number of at least four letters or digits.
func (w *Winner) Given() bool { return w.Check() == nil }

// The ways an identity is not given, for the messages that say which.
var (
	ErrIdentityName   = errors.New("winner's name")
	ErrIdentityDoc    = errors.New("identity document")
	ErrIdentityNumber = errors.New("document number")
)

// Check says why w is not a given identity (nil when it is): the first
// field that falls short, wrapping ErrIdentityName, ErrIdentityDoc or
// ErrIdentityNumber.
func (w *Winner) Check() error {
	if w == nil {
		return fmt.Errorf("%w: none given", ErrIdentityName)
	}
	n := w.Normal()
	switch {
	case countRunes(n.Name, unicode.IsLetter) < MinNameLetters:
		return fmt.Errorf("%w %q: at least %d letters (characters that print nothing do not count); type the name on the document", ErrIdentityName, n.Name, MinNameLetters)
	case countRunes(n.DocType, unicode.IsLetter) < MinDocLetters:
		return fmt.Errorf("%w %q: name its type (identity card, passport…) with at least %d letter", ErrIdentityDoc, n.DocType, MinDocLetters)
	case countRunes(n.DocNumber, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) < MinDocNumber:
		return fmt.Errorf("%w %q: at least %d letters or digits; type the number printed on the document", ErrIdentityNumber, n.DocNumber, MinDocNumber)
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
