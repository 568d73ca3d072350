package postgres

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/core"
)

// The rule's constants, in the SQL: postgres.sql names each one {{name}},
// and Schema writes Go's value there, so that the counters' functions,
// which must decide inside the database, decide with the rule's own
// numbers (and the conformance table runs every verdict both ways).

// Constants are postgres.sql's constants, by name, as SQL.
func Constants() map[string]string {
	prizes := make([]string, len(game.PrizeTable))
	for i, t := range game.PrizeTable {
		prizes[i] = strconv.Itoa(t.Prize)
	}
	return map[string]string{
		// vegas.prize_of: a stored prize byte b > 0 is the b-th prize.
		"prizes": "ARRAY[" + strings.Join(prizes, ", ") + "]",
		// The identity threshold until the setting says otherwise.
		"identity_threshold": strconv.Itoa(core.DefaultIdentityThreshold),
		// The bounds of what an entry records from a person.
		"max_text":     strconv.Itoa(core.MaxText),
		"max_identity": strconv.Itoa(core.MaxIdentity),
		// What Blank trims: every Unicode white space.
		"spaces": sqlString(core.Spaces()),
		// A winner's identity (core's identity.go): what prints nothing,
		// a run of spaces, what is no letter, what is neither a letter
		// nor a digit, and the least of each field.
		"identity_invisible":  sqlString(core.IdentityClass(core.IdentityInvisible, false)),
		"identity_spaces":     sqlString(core.IdentityClass(core.IdentitySpace, false) + "+"),
		"identity_nonletters": sqlString(core.IdentityClass(unicode.IsLetter, true)),
		"identity_nonalnum":   sqlString(core.IdentityClass(func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }, true)),
		"min_name_letters":    strconv.Itoa(core.MinNameLetters),
		"min_doc_letters":     strconv.Itoa(core.MinDocLetters),
		"min_doc_number":      strconv.Itoa(core.MinDocNumber),
		// The moves a counter makes itself: from and to.
		"receive_from":  sqlString(core.PackMoves["receive"].From[0]),
		"receive_to":    sqlString(core.PackMoves["receive"].To),
		"activate_from": sqlString(core.PackMoves["activate"].From[0]),
		"activate_to":   sqlString(core.PackMoves["activate"].To),
	}
}

// sqlString is s as a PostgreSQL escape string literal, every character
// past ASCII's printable ones as \uXXXX or \UXXXXXXXX.
func sqlString(s string) string {
	var b strings.Builder
	b.WriteString("E'")
	for _, r := range s {
		switch {
		case r == '\'' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r >= 0x20 && r < 0x7f:
			b.WriteRune(r)
		case r <= 0xffff:
			fmt.Fprintf(&b, "\\u%04X", r)
		default:
			fmt.Fprintf(&b, "\\U%08X", r)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// Schema is postgres.sql, counters.sql and questions.sql for the database
// dbname, their constants written.
func Schema(dbname string) string {
	c := Constants()
	names := make([]string, 0, len(c))
	for k := range c {
		names = append(names, k)
	}
	sort.Strings(names)
	pairs := []string{"{{db}}", dbname}
	for _, k := range names {
		pairs = append(pairs, "{{"+k+"}}", c[k])
	}
	return strings.NewReplacer(pairs...).Replace(postgresSQL + "\n" + countersSQL + "\n" + questionsSQL)
}
