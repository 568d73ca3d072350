package game

import (
	"encoding/json"
	"strconv"
)

// Doc is a ticket in the interchange format of rules.md: what a user types
// in for a check by contents, and one line of an audit export. The keys and
// value spellings of the five surfaces are fixed; Game, Block, Pack and
// Position are the keys the project's export adds.
type Doc struct {
	Serial   string  `json:"serial,omitempty"`
	Game     int     `json:"game,omitempty"`
	Block    int     `json:"block,omitempty"`
	Pack     *int    `json:"pack,omitempty"`
	Position *int    `json:"position,omitempty"`
	Roulette DocRoul `json:"roulette"`
	Craps    DocCrap `json:"craps"`
	Duel     DocDuel `json:"duel"`
	Jackpot  []DocLn `json:"jackpot"`
	Bonus    int     `json:"bonus"`
	Prize    *int    `json:"prize,omitempty"`
}

// DocRoul is the ROULETTE surface of a Doc.
type DocRoul struct {
	Winning []int    `json:"winning"`
	Bets    []DocBet `json:"bets"`
}

// DocBet is one chip of VOS MISES in a Doc.
type DocBet struct {
	Number int `json:"number"`
	Amount int `json:"amount"`
}

// DocCrap is the CRAPS surface of a Doc.
type DocCrap struct {
	Dice   []int `json:"dice"`
	Amount int   `json:"amount"`
}

// DocDuel is the DUEL surface of a Doc.
type DocDuel struct {
	Cards  []string `json:"cards"`
	Bank   string   `json:"bank"`
	Amount int      `json:"amount"`
}

// DocLn is one JACKPOT line of a Doc.
type DocLn struct {
	Symbols []string `json:"symbols"`
	Amount  int      `json:"amount"`
}

// NewDoc returns the interchange form of t with its prize by the rules.
func NewDoc(t *Ticket) Doc {
	d := Doc{
		Craps: DocCrap{Amount: t.Craps.Amount},
		Duel:  DocDuel{Bank: t.Duel.Bank.String(), Amount: t.Duel.Amount},
		Bonus: t.Bonus,
	}
	d.Roulette.Winning = append([]int(nil), t.Roulette.Winning[:]...)
	d.Craps.Dice = append([]int(nil), t.Craps.Dice[:]...)
	for _, b := range t.Roulette.Bets {
		d.Roulette.Bets = append(d.Roulette.Bets, DocBet(b))
	}
	for _, c := range t.Duel.Cards {
		d.Duel.Cards = append(d.Duel.Cards, c.String())
	}
	for _, l := range t.Jackpot {
		ln := DocLn{Amount: l.Amount}
		for _, s := range l.Symbols {
			ln.Symbols = append(ln.Symbols, s.String())
		}
		d.Jackpot = append(d.Jackpot, ln)
	}
	p := Prize(t)
	d.Prize = &p
	return d
}

// AppendJSON appends d as encoding/json writes it (json.Marshal: the same
// keys in the same order, the same omissions and escapes), without its
// reflection: an export writes two million of them.
func (d *Doc) AppendJSON(b []byte) []byte {
	num := func(key string, v int) { b = strconv.AppendInt(append(b, key...), int64(v), 10) }
	ints := func(key string, vs []int) {
		b = append(b, key...)
		if vs == nil {
			b = append(b, "null"...)
			return
		}
		b = append(b, '[')
		for i, v := range vs {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(v), 10)
		}
		b = append(b, ']')
	}
	strs := func(key string, vs []string) {
		b = append(b, key...)
		if vs == nil {
			b = append(b, "null"...)
			return
		}
		b = append(b, '[')
		for i, v := range vs {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, v)
		}
		b = append(b, ']')
	}
	b = append(b, '{')
	sep := "" // before the first key written, none
	if d.Serial != "" {
		b = appendJSONString(append(b, `"serial":`...), d.Serial)
		sep = ","
	}
	if d.Game != 0 {
		num(sep+`"game":`, d.Game)
		sep = ","
	}
	if d.Block != 0 {
		num(sep+`"block":`, d.Block)
		sep = ","
	}
	if d.Pack != nil {
		num(sep+`"pack":`, *d.Pack)
		sep = ","
	}
	if d.Position != nil {
		num(sep+`"position":`, *d.Position)
		sep = ","
	}
	ints(sep+`"roulette":{"winning":`, d.Roulette.Winning)
	b = append(b, `,"bets":`...)
	if d.Roulette.Bets == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, bet := range d.Roulette.Bets {
			if i > 0 {
				b = append(b, ',')
			}
			num(`{"number":`, bet.Number)
			num(`,"amount":`, bet.Amount)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	ints(`},"craps":{"dice":`, d.Craps.Dice)
	num(`,"amount":`, d.Craps.Amount)
	strs(`},"duel":{"cards":`, d.Duel.Cards)
	b = appendJSONString(append(b, `,"bank":`...), d.Duel.Bank)
	num(`,"amount":`, d.Duel.Amount)
	b = append(b, `},"jackpot":`...)
	if d.Jackpot == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, ln := range d.Jackpot {
			if i > 0 {
				b = append(b, ',')
			}
			strs(`{"symbols":`, ln.Symbols)
			num(`,"amount":`, ln.Amount)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	num(`,"bonus":`, d.Bonus)
	if d.Prize != nil {
		num(`,"prize":`, *d.Prize)
	}
	return append(b, '}')
}

// appendJSONString appends s quoted as encoding/json quotes it: plain
// printable ASCII as it is, anything else through encoding/json.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
