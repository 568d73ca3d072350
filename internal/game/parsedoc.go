package game

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Reading a ticket in the interchange format (ParseDoc), strictly, with
// every fault named by its field; checking it against the rules (Check).

// FieldError is one fault in typed-in contents. Field is the path of the
// faulty value in the interchange format ("roulette.bets[1].number"), Value
// its text as given ("" when missing) and Problem says what is wrong and
// what is expected.
type FieldError struct {
	Field   string
	Value   string
	Kind    Kind // what kind of fault, for a screen to say it in its language
	Problem string
}

// Kind sorts the faults of typed-in contents.
type Kind uint8

// The kinds of fault.
const (
	KindSyntax     Kind = iota + 1 // not one JSON object
	KindUnknownKey                 // a key the format does not have
	KindMissing                    // a key the ticket needs is absent
	KindType                       // a value of the wrong JSON type
	KindCount                      // a list of the wrong length
	KindValue                      // a value the game never shows there
	KindRepeat                     // a roulette number twice in one zone
	KindSerial                     // a serial that does not parse
)

func (e *FieldError) Error() string {
	if e.Value == "" {
		return e.Field + ": " + e.Problem
	}
	return e.Field + ": " + e.Value + " " + e.Problem
}

// Errors lists every fault found in typed-in contents, in document order.
type Errors []*FieldError

func (es Errors) Error() string {
	msgs := make([]string, len(es))
	for i, e := range es {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "\n")
}

// Input is a ticket read from the interchange format.
type Input struct {
	Ticket Ticket
	Serial string // as given, "" when absent
	Prize  *int   // the stated prize, nil when absent
}

// exportKeys are the top-level keys the project's own export adds; a check
// accepts and ignores them.
var exportKeys = map[string]bool{"game": true, "block": true, "pack": true, "position": true}

// ParseDoc reads one ticket in the interchange format, strictly, and reports
// every fault at once, as Errors in document order, each naming its field.
// It reads the JSON itself (syntax, types, list lengths, missing and unknown
// keys; the keys of the project's export are accepted) and builds a Ticket,
// whose values Validate then checks: the rules of the game are stated once.
// A fault's Value is the value as it was given.
func ParseDoc(data []byte) (Input, error) {
	var in Input
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var root any
	if err := dec.Decode(&root); err != nil {
		return in, Errors{{Field: "ticket", Kind: KindSyntax, Problem: "is not JSON: " + jsonProblem(err, data)}}
	}
	if _, err := dec.Token(); err != io.EOF {
		return in, Errors{{Field: "ticket", Kind: KindSyntax, Problem: "has text after the JSON object; give one ticket"}}
	}
	p := &parser{given: map[string]string{}}
	obj, ok := p.object("ticket", root)
	if !ok {
		return in, p.errs
	}
	p.keys("", obj, []string{"serial", "roulette", "craps", "duel", "jackpot", "bonus", "prize"}, exportKeys)
	t := &in.Ticket
	if v, ok := obj["serial"]; ok {
		if s, ok := v.(string); !ok {
			p.fail("serial", v, KindType, "is not a string; give the serial as printed, e.g. "+strconv.Quote(exampleSerial.String()))
		} else if _, err := ParseSerial(s); err != nil {
			p.fail("serial", v, KindSerial, strings.TrimPrefix(err.Error(), "serial "+strconv.Quote(s)+": "))
		} else {
			in.Serial = s
		}
	}
	if r, ok := p.member(obj, "", "roulette"); ok {
		p.roulette(r, &t.Roulette)
	}
	if c, ok := p.member(obj, "", "craps"); ok {
		p.craps(c, &t.Craps)
	}
	if d, ok := p.member(obj, "", "duel"); ok {
		p.duel(d, &t.Duel)
	}
	if lines, ok := p.array(obj, "", "jackpot", 3, "give 3 lines"); ok {
		for i, v := range lines {
			p.line(fmt.Sprintf("jackpot[%d]", i), v, &t.Jackpot[i])
		}
	}
	if v, ok := obj["bonus"]; ok {
		p.int("bonus", v, &t.Bonus)
	} else {
		p.fail("bonus", nil, KindMissing, "is missing; give 0 or one of "+amountList())
	}
	if v, ok := obj["prize"]; ok {
		var n int
		if p.int("prize", v, &n) {
			in.Prize = &n
		}
	}
	p.validate(t)
	if len(p.errs) > 0 {
		return in, p.errs
	}
	return in, nil
}

// exampleSerial is the serial the messages show as an example.
var exampleSerial = Serial{Game: 531, Block: 1, Position: 456789, Secret: 1234_5678_9012_3456}

func jsonProblem(err error, data []byte) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%v at byte %d", se, se.Offset)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return "empty input; give one ticket as a JSON object"
	}
	return err.Error()
}

// parser collects the faults of the JSON while walking it, and what was
// given for each value it put in the ticket.
type parser struct {
	errs  Errors
	given map[string]string // by field path, the value as given
}

func (p *parser) fail(field string, v any, kind Kind, problem string) {
	p.errs = append(p.errs, &FieldError{Field: field, Value: show(v), Kind: kind, Problem: problem})
}

// validate adds the faults Validate finds in t, except on fields the walk
// already faulted (or inside them: their values were not read), with the
// values as given, and puts every fault in document order.
func (p *parser) validate(t *Ticket) {
	walked := len(p.errs)
	var es Errors
	errors.As(Validate(t), &es)
	for _, e := range es {
		if p.faulted(e.Field, walked) {
			continue
		}
		if v, ok := p.given[e.Field]; ok {
			e.Value = v
		}
		p.errs = append(p.errs, e)
	}
	sort.SliceStable(p.errs, func(i, j int) bool { return docRank(p.errs[i].Field) < docRank(p.errs[j].Field) })
}

// faulted says whether one of the first n faults is on field or on a field
// that holds it.
func (p *parser) faulted(field string, n int) bool {
	for _, e := range p.errs[:n] {
		if field == e.Field || strings.HasPrefix(field, e.Field+".") || strings.HasPrefix(field, e.Field+"[") {
			return true
		}
	}
	return false
}

// docFields lists the field paths of the format in document order (made
// on first use, not in every process).
var docFields = sync.OnceValue(func() map[string]int {
	var paths []string
	add := func(format string, args ...any) { paths = append(paths, fmt.Sprintf(format, args...)) }
	add("serial")
	add("roulette")
	add("roulette.winning")
	for i := range 4 {
		add("roulette.winning[%d]", i)
	}
	add("roulette.bets")
	for i := range 3 {
		add("roulette.bets[%d]", i)
		add("roulette.bets[%d].number", i)
		add("roulette.bets[%d].amount", i)
	}
	add("craps")
	add("craps.dice")
	add("craps.dice[0]")
	add("craps.dice[1]")
	add("craps.amount")
	add("duel")
	add("duel.cards")
	for i := range 3 {
		add("duel.cards[%d]", i)
	}
	add("duel.bank")
	add("duel.amount")
	add("jackpot")
	for i := range 3 {
		add("jackpot[%d]", i)
		add("jackpot[%d].symbols", i)
		for j := range 3 {
			add("jackpot[%d].symbols[%d]", i, j)
		}
		add("jackpot[%d].amount", i)
	}
	add("bonus")
	add("prize")
	m := make(map[string]int, len(paths))
	for i, f := range paths {
		m[f] = i + 1
	}
	return m
})

// docRank is the place of a fault on field in document order: the place of
// the field, or of the nearest field that holds it (an unknown key sits at
// the start of its object); 0 for the whole ticket and unknown top-level
// keys.
func docRank(field string) int {
	for f := field; f != ""; {
		if r, ok := docFields()[f]; ok {
			return r
		}
		i := strings.LastIndexAny(f, ".[")
		if i < 0 {
			break
		}
		f = f[:i]
	}
	return 0
}

// show renders a JSON value as it was given, for an error message.
func show(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return strconv.Quote(v)
	case json.Number:
		return v.String()
	case map[string]any:
		return "{…}"
	case []any:
		return "[…]"
	}
	return fmt.Sprint(v)
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func (p *parser) object(field string, v any) (map[string]any, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		p.fail(field, v, KindType, "is not an object")
	}
	return m, ok
}

// keys reports every key of obj that is neither in want nor in extra.
func (p *parser) keys(path string, obj map[string]any, want []string, extra map[string]bool) {
	var unknown []string
	for k := range obj {
		if !extra[k] && !contains(want, k) {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	for _, k := range unknown {
		if !plainKey(k) {
			k = strconv.Quote(k)
		}
		p.fail(join(path, k), nil, KindUnknownKey, "is not a key of the ticket format; expected "+strings.Join(want, ", "))
	}
}

// plainKey reports whether k can be shown in a field path as it is.
func plainKey(k string) bool {
	for _, r := range k {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return k != ""
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// member returns the object under key, reporting it missing or mistyped.
func (p *parser) member(obj map[string]any, path, key string) (map[string]any, bool) {
	v, ok := obj[key]
	if !ok {
		p.fail(join(path, key), nil, KindMissing, "is missing")
		return nil, false
	}
	return p.object(join(path, key), v)
}

// array returns the array under key, reporting it missing, mistyped or of
// the wrong length.
func (p *parser) array(obj map[string]any, path, key string, n int, hint string) ([]any, bool) {
	f := join(path, key)
	v, ok := obj[key]
	if !ok {
		p.fail(f, nil, KindMissing, "is missing; "+hint)
		return nil, false
	}
	a, ok := v.([]any)
	if !ok {
		p.fail(f, v, KindType, "is not a list; "+hint)
		return nil, false
	}
	if len(a) != n {
		p.fail(f, nil, KindCount, fmt.Sprintf("has %d entries; %s", len(a), hint))
		return nil, false
	}
	return a, true
}

// int reads a whole number into dst, reporting any other JSON value.
func (p *parser) int(field string, v any, dst *int) bool {
	num, ok := v.(json.Number)
	if !ok {
		p.fail(field, v, KindType, "is not a number")
		return false
	}
	n, err := strconv.Atoi(num.String())
	if err != nil || n > 1_000_000_000 || n < -1_000_000_000 {
		p.fail(field, v, KindType, "is not a whole number of reasonable size")
		return false
	}
	*dst = n
	p.given[field] = show(v)
	return true
}

func (p *parser) amount(field string, obj map[string]any, dst *int) {
	if v, ok := obj["amount"]; ok {
		p.int(field, v, dst)
	} else {
		p.fail(field, nil, KindMissing, "is missing; give one of "+amountList())
	}
}

func amountList() string {
	s := make([]string, len(Amounts))
	for i, a := range Amounts {
		s[i] = strconv.Itoa(a)
	}
	return strings.Join(s, ", ") + " (euros)"
}

func (p *parser) roulette(obj map[string]any, r *RouletteSurface) {
	p.keys("roulette", obj, []string{"winning", "bets"}, nil)
	if a, ok := p.array(obj, "roulette", "winning", 4, "NUMÉROS GAGNANTS shows 4 numbers"); ok {
		for i, v := range a {
			p.int(fmt.Sprintf("roulette.winning[%d]", i), v, &r.Winning[i])
		}
	}
	if a, ok := p.array(obj, "roulette", "bets", 3, "VOS MISES shows 3 chips"); ok {
		for i, v := range a {
			f := fmt.Sprintf("roulette.bets[%d]", i)
			b, ok := p.object(f, v)
			if !ok {
				continue
			}
			p.keys(f, b, []string{"number", "amount"}, nil)
			if nv, ok := b["number"]; ok {
				p.int(f+".number", nv, &r.Bets[i].Number)
			} else {
				p.fail(f+".number", nil, KindMissing, "is missing")
			}
			p.amount(f+".amount", b, &r.Bets[i].Amount)
		}
	}
}

func (p *parser) craps(obj map[string]any, c *CrapsSurface) {
	p.keys("craps", obj, []string{"dice", "amount"}, nil)
	if a, ok := p.array(obj, "craps", "dice", 2, "give the 2 dice faces"); ok {
		for i, v := range a {
			p.int(fmt.Sprintf("craps.dice[%d]", i), v, &c.Dice[i])
		}
	}
	p.amount("craps.amount", obj, &c.Amount)
}

// Values a typed-in ticket may hold that the game does not have, for
// Validate to report: a card or a symbol name the game does not know.
const (
	unknownCard   Card   = 0xff
	unknownSymbol Symbol = 0xff
)

// card reads a card value: a string, or 2 to 10 typed as a number.
func (p *parser) card(field string, v any, dst *Card) {
	var s string
	switch v := v.(type) {
	case string:
		s = strings.ToUpper(strings.TrimSpace(v))
	case json.Number:
		s = v.String()
	default:
		p.fail(field, v, KindType, "is not a card value; give one of 2 3 4 5 6 7 8 9 10 V D R AS, as a string")
		return
	}
	c, ok := ParseCard(s)
	if !ok {
		c = unknownCard
	}
	*dst = c
	p.given[field] = show(v)
}

func (p *parser) duel(obj map[string]any, d *DuelSurface) {
	p.keys("duel", obj, []string{"cards", "bank", "amount"}, nil)
	if a, ok := p.array(obj, "duel", "cards", 3, "VOS CARTES shows 3 cards"); ok {
		for i, v := range a {
			p.card(fmt.Sprintf("duel.cards[%d]", i), v, &d.Cards[i])
		}
	}
	if v, ok := obj["bank"]; ok {
		p.card("duel.bank", v, &d.Bank)
	} else {
		p.fail("duel.bank", nil, KindMissing, "is missing; give the bank's card, 2 to R")
	}
	p.amount("duel.amount", obj, &d.Amount)
}

func (p *parser) line(field string, v any, l *Line) {
	obj, ok := p.object(field, v)
	if !ok {
		return
	}
	p.keys(field, obj, []string{"symbols", "amount"}, nil)
	if a, ok := p.array(obj, field, "symbols", 3, "a line shows 3 symbols"); ok {
		for i, v := range a {
			f := fmt.Sprintf("%s.symbols[%d]", field, i)
			s, ok := v.(string)
			if !ok {
				p.fail(f, v, KindType, "is not a string; give one of "+strings.Join(symbolNames[:], " "))
				continue
			}
			sym, ok := ParseSymbol(foldSymbol(s))
			if !ok {
				sym = unknownSymbol
			}
			l.Symbols[i] = sym
			p.given[f] = show(v)
		}
	}
	p.amount(field+".amount", obj, &l.Amount)
}

// foldSymbol uppercases a typed symbol and drops its accents ("Trèfle" is TREFLE).
func foldSymbol(s string) string {
	r := strings.NewReplacer("È", "E", "É", "E", "Ê", "E", "À", "A", "Â", "A")
	return r.Replace(strings.ToUpper(strings.TrimSpace(s)))
}

// Verdict is the result of checking a ticket's contents.
type Verdict struct {
	Prize   int   // by the rules
	Wins    []Win // the winning zones
	Genuine bool  // false when no block can hold this ticket
	Reasons []string
}

// Check applies the rules to valid contents and says whether a genuine
// ticket can show them: its prize must be 0 or one of the eight prizes, and
// equal the stated prize when one is given.
func Check(t *Ticket, stated *int) Verdict {
	v := Verdict{Genuine: true}
	v.Prize, v.Wins = Evaluate(t)
	if !IsPrize(v.Prize) {
		v.Genuine = false
		parts := make([]string, len(v.Wins))
		for i, w := range v.Wins {
			parts[i] = strconv.Itoa(w.Amount)
		}
		v.Reasons = append(v.Reasons, fmt.Sprintf("the zones add up to %s € (%s), which is not a prize of the game: no genuine ticket shows it",
			GroupDigits(v.Prize), strings.Join(parts, " + ")))
	}
	if stated != nil && *stated != v.Prize {
		v.Genuine = false
		v.Reasons = append(v.Reasons, fmt.Sprintf("the stated prize %s € differs from the rules' %s €",
			GroupDigits(*stated), GroupDigits(v.Prize)))
	}
	return v
}
