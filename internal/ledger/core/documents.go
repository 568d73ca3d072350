package core

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/mtibben/confusables"
	"golang.org/x/text/unicode/norm"

	"vegas-desk/internal/mrz"
)

// What a cashier copies from an identity document (issue 29: names,
// document types and numbers made of modifier letters, placeholders like
// "xx" or "0000", a right-to-left override, were paid 50,000 €): the
// document's type from a fixed list, the French documents a cashier may
// accept, its number in that document's format, and the name in letters
// of one script.

// Document is an identity document a cashier may accept: Type is what a
// ledger keeps (and hashes), Formats what its number looks like. MRZ says
// it carries a machine-readable zone (issue 44): its identity is read
// from the zone, never typed (Winner.Check).
type Document struct {
	Type    string
	Label   string   // its full name, in English (the app translates it)
	Aliases []string // other names a command line may give it (lower case)
	Formats []string // its number's formats, in words
	MRZ     bool
	valid   func(n string) bool
	// kept is a number's format kept before issue 44 (nil when none): the
	// identities kept then still are identities (Winner.CheckKept).
	kept func(n string) bool
}

// Documents are the documents a cashier may accept, in the order the app
// offers them. Their numbers (upper case, spaces removed):
//
//   - CNI: before 2021, 12 characters — the year and month of issue (4
//     digits), the issuing office (3 letters or digits: département and
//     office, "2A"/"2B" for Corsica), a sequence (5 digits); since August
//     2021 (the card of the ICAO format), 9 letters or digits; both read
//     from the card's zone (2 lines of 36 before 2021, 3 of 30 since);
//   - passeport: 9 characters, 2 digits, 2 letters, 5 digits (its zone: 2
//     lines of 44);
//   - titre de séjour: the card's number, 9 letters or digits, read from
//     its zone (3 lines of 30); the holder's foreigner number (numéro
//     étranger, AGDREF, 10 digits) was typed before issue 44;
//   - permis de conduire: the pink paper licence (before 16 September
//     2013), 12 letters or digits; the card of the 2013 European model, 9
//     characters, 2 digits, 2 letters, 5 digits; typed, having no zone.
var Documents = []Document{
	{Type: "CNI", Label: "identity card (CNI)", Aliases: []string{"carte d'identité", "carte nationale d'identité", "identity card"},
		Formats: []string{"9 letters or digits (since 2021)", "12 characters: 4 digits, 3 letters or digits, 5 digits (before 2021)"},
		MRZ:     true,
		valid: func(n string) bool {
			return shaped(n, "#########") || shaped(n, "0000###00000")
		}},
	{Type: "passeport", Label: "passport", Aliases: []string{"passport"},
		Formats: []string{"2 digits, 2 letters, 5 digits"}, MRZ: true,
		valid: func(n string) bool { return shaped(n, "00AA00000") }},
	{Type: "titre de séjour", Label: "residence permit", Aliases: []string{"titre de sejour", "residence permit"},
		Formats: []string{"9 letters or digits"}, MRZ: true,
		valid: func(n string) bool { return shaped(n, "#########") },
		kept:  func(n string) bool { return shaped(n, "0000000000") }},
	{Type: "permis de conduire", Label: "driving licence", Aliases: []string{"permis", "driving licence", "driving license"},
		Formats: []string{"2 digits, 2 letters, 5 digits (since 2013)", "12 letters or digits (before 2013)"},
		valid: func(n string) bool {
			return shaped(n, "00AA00000") || shaped(n, "############")
		}},
}

// documentOfZone is the document a zone read is: a French identity card
// (ID), residence permit (another card of 3 lines) or passport.
func documentOfZone(z mrz.Document) (Document, error) {
	t := ""
	switch {
	case z.Issuer != "FRA":
		return Document{}, fmt.Errorf("issued by %q: the documents a cashier may accept are French (%s); a driving licence is typed", z.Issuer, DocumentTypes())
	case z.Format == mrz.TD3:
		t = "passeport"
	case z.Code == "ID":
		t = "CNI"
	case z.Format == mrz.TD1:
		t = "titre de séjour"
	}
	d, _ := DocumentOf(t)
	return d, nil
}

// shaped reports whether n has the shape of pattern: 0 a digit, A a
// letter, # either (ASCII, upper case).
func shaped(n, pattern string) bool {
	if len(n) != len(pattern) {
		return false
	}
	for i := range len(n) {
		digit, letter := n[i] >= '0' && n[i] <= '9', n[i] >= 'A' && n[i] <= 'Z'
		switch pattern[i] {
		case '0':
			if !digit {
				return false
			}
		case 'A':
			if !letter {
				return false
			}
		default:
			if !digit && !letter {
				return false
			}
		}
	}
	return true
}

// DocumentOf is the document named t (its type or an alias, in any case).
func DocumentOf(t string) (Document, bool) {
	t = strings.ToLower(strings.TrimSpace(t))
	for _, d := range Documents {
		if t == strings.ToLower(d.Type) {
			return d, true
		}
		for _, a := range d.Aliases {
			if t == a {
				return d, true
			}
		}
	}
	return Document{}, false
}

// DocumentTypes lists the documents' types: "CNI, passeport, …".
func DocumentTypes() string {
	var ts []string
	for _, d := range Documents {
		ts = append(ts, d.Type)
	}
	return strings.Join(ts, ", ")
}

// Valid reports whether n (a normal document number: NormalDocNumber) is
// a number of the document: its format, and not a placeholder (one
// character repeated but for one, digits in a row but for one, a number
// the documentation or a specimen shows).
func (d Document) Valid(n string) bool {
	return d.valid(n) && !placeholderNumber(n)
}

// validKept is Valid with the formats kept before issue 44.
func (d Document) validKept(n string) bool {
	return (d.valid(n) || d.kept != nil && d.kept(n)) && !placeholderNumber(n)
}

// NormalDocNumber is a document number as kept: its ASCII letters in
// upper case, its spaces removed (typed as printed, in groups).
func NormalDocNumber(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == ' ':
			return -1
		case r >= 'a' && r <= 'z':
			return r - 'a' + 'A'
		}
		return r
	}, s)
}

// exampleNumbers are the numbers shown as examples (this README and help,
// ICAO's Utopia specimens, the French card's specimen): no winner's.
var exampleNumbers = []string{"12AB34567", "13AA00002", "X4RTBPFW4", "L898902C3", "D23145890"}

// placeholderNumber reports whether n is no document's: one character but
// for one at most (000000001), characters in a row up or down but for one
// step at most (123456789, 0123456780), or an example's number.
func placeholderNumber(n string) bool {
	if len(n) < 2 || contains(exampleNumbers, n) {
		return true
	}
	most, up, down := 0, 0, 0
	for i := range len(n) {
		most = max(most, strings.Count(n, n[i:i+1]))
		if i > 0 && n[i] == n[i-1]+1 || i > 0 && n[i-1] == '9' && n[i] == '0' {
			up++
		}
		if i > 0 && n[i] == n[i-1]-1 || i > 0 && n[i-1] == '0' && n[i] == '9' {
			down++
		}
	}
	return most >= len(n)-1 || up >= len(n)-2 || down >= len(n)-2
}

// Name's characters: letters (no modifier letter, no letter that looks
// like punctuation), the marks of a letter, and between letters a space,
// a hyphen or an apostrophe.
var (
	// letterLike are letters by category that print as punctuation: the
	// click letters ǀ ǁ ǂ ǃ, the saltillo Ꞌ ꞌ.
	letterLike  = []rune{0x01C0, 0x01C1, 0x01C2, 0x01C3, 0xA78B, 0xA78C}
	nameJoiners = "-'’ "
	// placeholders are what a cashier types for a name not given.
	// (Compared without accents, in lower case, word by word: a name all
	// of whose words are placeholders is one, "Nom Prénom", "Test Test".)
	placeholders = []string{"inconnu", "inconnue", "nom", "prenom", "prenoms", "test", "essai", "anonyme", "anonymous",
		"neant", "aucun", "na", "nc", "nd", "sans", "xxx", "xxxx", "unknown", "none", "name", "surname", "firstname",
		"personne", "client", "cliente", "gagnant", "gagnante", "joueur", "joueuse", "monsieur", "madame", "mr", "mme",
		"toto", "titi", "tata", "foo", "bar", "abc", "azerty", "qwerty", "specimen", "demo", "exemple", "example"}
)

// MaxMarks is the most nonspacing marks a name's letter carries (issue
// 44: a name of 40 marks a letter was paid): two, as Vietnamese's ệ (a
// letter's usual marks compose with it under NFKC and count none).
const MaxMarks = 2

// checkName says what a name (normalised) holds that no name copied from
// an identity document does, or "".
func checkName(name string) string {
	var scripts []string
	letters, marks, prev := 0, 0, ' '
	for i, r := range name {
		if unicode.In(r, unicode.Mn, unicode.Me) {
			if marks++; marks > MaxMarks {
				return fmt.Sprintf("more than %d marks on one letter", MaxMarks)
			}
		} else if !unicode.Is(unicode.M, r) {
			marks = 0
		}
		switch {
		case strings.ContainsRune(nameJoiners, r):
			if i == 0 || strings.ContainsRune(nameJoiners, prev) {
				return fmt.Sprintf("%q must stand between letters", r)
			}
		case unicode.Is(unicode.M, r):
			if !unicode.IsLetter(prev) && !unicode.Is(unicode.M, prev) {
				return fmt.Sprintf("a mark alone (U+%04X)", r)
			}
		case unicode.Is(unicode.Lm, r):
			return fmt.Sprintf("a modifier letter (%q U+%04X), not a letter of a name", r, r)
		case unicode.IsLetter(r) && !isLetterLike(r):
			letters++
			s := scriptOf(r)
			if s == "" {
				return fmt.Sprintf("%q (U+%04X), a sign of no script, not a letter of a name", r, r)
			}
			if !contains(scripts, s) {
				scripts = append(scripts, s)
			}
		default:
			return fmt.Sprintf("%q (U+%04X), which is not a letter of a name", r, r)
		}
		prev = r
	}
	switch {
	case strings.ContainsRune(nameJoiners, prev) && name != "":
		return fmt.Sprintf("%q must stand between letters", prev)
	case letters < MinNameLetters:
		return fmt.Sprintf("at least %d letters (characters that print nothing do not count)", MinNameLetters)
	case !oneScript(scripts):
		return fmt.Sprintf("letters of several scripts (%s): a name is written in one", strings.Join(scripts, ", "))
	case placeholderName(name):
		return "a placeholder, not a name"
	}
	return ""
}

func isLetterLike(r rune) bool { return contains(letterLike, r) }

func contains[T comparable](xs []T, x T) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// scriptOf is the name of r's script (Unicode's Script property).
func scriptOf(r rune) string {
	for name, t := range unicode.Scripts {
		if name != "Common" && name != "Inherited" && unicode.Is(t, r) {
			return name
		}
	}
	return ""
}

// oneScript reports whether scripts are one script's, Japanese's (Han,
// Hiragana, Katakana) or Korean's (Han, Hangul), as TR39's single-script
// test with its augmented sets.
func oneScript(scripts []string) bool {
	if len(scripts) <= 1 {
		return true
	}
	for _, set := range [][]string{{"Han", "Hiragana", "Katakana"}, {"Han", "Hangul"}} {
		all := true
		for _, s := range scripts {
			all = all && contains(set, s)
		}
		if all {
			return true
		}
	}
	return false
}

// placeholderName reports whether a name is one letter repeated ("xx",
// "X X"), letters of one each ("X Y"), or words typed for a name not
// given ("Nom Prénom", "Inconnu Inconnu", "Test Test"), in any case and
// with or without accents.
func placeholderName(name string) bool {
	folded := strings.ToLower(strings.Map(func(r rune) rune {
		if strings.ContainsRune(nameJoiners, r) || unicode.Is(unicode.Mn, r) {
			return -1
		}
		return r
	}, norm.NFD.String(name)))
	first := []rune(folded)[0]
	if strings.Count(folded, string(first)) == len([]rune(folded)) {
		return true
	}
	words := strings.FieldsFunc(strings.ToLower(norm.NFD.String(name)), func(r rune) bool { return strings.ContainsRune(nameJoiners, r) })
	all, single := true, true
	for _, w := range words {
		w = strings.Map(func(r rune) rune {
			if unicode.Is(unicode.Mn, r) {
				return -1
			}
			return r
		}, w)
		all = all && contains(placeholders, w)
		rs := []rune(w)
		single = single && len(rs) == 1 && unicode.ToUpper(rs[0]) != unicode.ToLower(rs[0])
	}
	return all || single
}

// NameSkeleton is the key that a name and its look-alikes in any script
// share (issue 44): Unicode TR39's skeleton (the confusables table), taken
// of the name in capitals, then of that in lower case, again and again
// until it changes no more (a few rounds at most: TestNameSkeletonFixed).
// Capitals first: the skeleton of a Cyrillic, Greek or Cherokee capital is
// the Latin capital it looks like, while its lower case maps to a small
// capital (Cyrillic "т" to "ᴛ") or nothing; French documents print names in
// capitals, so "ТНЕО ТОМАЅ", "THEO TOMAS" and "Theo Tomas" get one key,
// "theo tornas". It is for finding look-alikes, never for showing.
func NameSkeleton(name string) string {
	k := norm.NFKD.String(IdentityText(name))
	for range maxSkeletonRounds {
		next := skeletonRound(k)
		if next == k {
			break
		}
		k = next
	}
	return k
}

// skeletonRound is one round of NameSkeleton.
func skeletonRound(k string) string {
	return confusables.Skeleton(strings.ToLower(confusables.Skeleton(strings.ToUpper(k))))
}

// maxSkeletonRounds bounds NameSkeleton's rounds; every letter and mark
// of Unicode reaches its key in fewer (TestNameSkeletonFixed).
const maxSkeletonRounds = 8

// LegacyNameSkeleton is the key NameSkeleton gave before issue 44 (the
// skeleton of the name in lower case), which kept capitals of other
// scripts apart from the Latin ones. The identities kept before it hold
// it; verify accepts it beside the key of now.
func LegacyNameSkeleton(name string) string {
	return confusables.Skeleton(strings.ToLower(IdentityText(name)))
}
