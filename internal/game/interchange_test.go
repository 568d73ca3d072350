package game

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// rulesExample is the example of rules.md's interchange format.
const rulesExample = `{
  "roulette": {
    "winning": [4, 12, 27, 33],
    "bets": [{"number": 12, "amount": 6}, {"number": 5, "amount": 3}, {"number": 36, "amount": 50}]
  },
  "craps": {"dice": [3, 4], "amount": 15},
  "duel": {"cards": ["2", "9", "V"], "bank": "10", "amount": 9},
  "jackpot": [
    {"symbols": ["CERISE", "CERISE", "CERISE"], "amount": 6},
    {"symbols": ["7", "BAR", "7"], "amount": 50},
    {"symbols": ["CLOCHE", "TREFLE", "BAR"], "amount": 3}
  ],
  "bonus": 0,
  "prize": 36
}`

func TestParseDocRulesExample(t *testing.T) {
	in, err := ParseDoc([]byte(rulesExample))
	if err != nil {
		t.Fatal(err)
	}
	want := Ticket{
		Roulette: RouletteSurface{[4]int{4, 12, 27, 33}, [3]Bet{{12, 6}, {5, 3}, {36, 50}}},
		Craps:    CrapsSurface{[2]int{3, 4}, 15},
		Duel:     DuelSurface{[3]Card{Two, Nine, Valet}, Ten, 9},
		Jackpot:  [3]Line{{[3]Symbol{Cerise, Cerise, Cerise}, 6}, {[3]Symbol{Sept, Bar, Sept}, 50}, {[3]Symbol{Cloche, Trefle, Bar}, 3}},
	}
	if in.Ticket != want {
		t.Errorf("ticket = %+v\nwant %+v", in.Ticket, want)
	}
	if in.Prize == nil || *in.Prize != 36 {
		t.Errorf("stated prize = %v, want 36", in.Prize)
	}
	v := Check(&in.Ticket, in.Prize)
	// 6 (roulette 12) + 15 (craps 3+4) + 9 (duel V > 10) + 6 (jackpot line 1)
	// = 36 €: the example shows the format, but 36 € is not a prize of the
	// table, so no genuine ticket shows these contents.
	if v.Prize != 36 || v.Genuine || len(v.Wins) != 4 || len(v.Reasons) != 1 {
		t.Errorf("verdict = %+v, want 36 € from 4 zones, not genuine", v)
	}
}

func TestDocRoundTrip(t *testing.T) {
	in, err := ParseDoc([]byte(rulesExample))
	if err != nil {
		t.Fatal(err)
	}
	d := NewDoc(&in.Ticket)
	pos := 17
	d.Serial, d.Game, d.Block, d.Pack, d.Position = Serial{531, 2, 17, 123456}.String(), 531, 2, new(int), &pos
	data, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseDoc(data)
	if err != nil {
		t.Fatalf("export line %s: %v", data, err)
	}
	if back.Ticket != in.Ticket || *back.Prize != 36 || back.Serial != d.Serial {
		t.Errorf("round trip: %+v", back)
	}
	for _, key := range []string{`"serial":`, `"roulette":`, `"winning":`, `"bets":`, `"number":`, `"amount":`, `"craps":`, `"dice":`, `"duel":`, `"cards":["2","9","V"]`, `"bank":"10"`, `"jackpot":`, `"symbols":["CERISE"`, `"bonus":0`, `"prize":36`, `"block":2`, `"pack":0`, `"position":17`} {
		if !strings.Contains(string(data), key) {
			t.Errorf("export %s lacks %s", data, key)
		}
	}
}

// Each constraint of the regulation and rules.md gives an error naming the
// field path and the value.
func TestParseDocErrors(t *testing.T) {
	good := exampleSerial.String()
	mistyped := good[:len(good)-1] + string('0'+(good[len(good)-1]-'0'+1)%10)
	tests := []struct {
		name string
		edit func(string) string
		want []string
	}{
		{"4.2.2 a number off the roulette", r(`{"number": 5, "amount": 3}`, `{"number": 15, "amount": 3}`),
			[]string{"roulette.bets[1].number: 15 is not a roulette number"}},
		{"4.2.2 zero is off the roulette", r(`[4, 12, 27, 33]`, `[0, 12, 27, 33]`),
			[]string{"roulette.winning[0]: 0 is not a roulette number"}},
		{"4.2.2 no repeat in NUMÉROS GAGNANTS", r(`[4, 12, 27, 33]`, `[4, 12, 27, 12]`),
			[]string{"roulette.winning[3]: 12 repeats roulette.winning[1]"}},
		{"4.2.2 no repeat in VOS MISES", r(`{"number": 5, "amount": 3}`, `{"number": 12, "amount": 3}`),
			[]string{"roulette.bets[1].number: 12 repeats roulette.bets[0].number"}},
		{"4.2.2 four winning numbers", r(`[4, 12, 27, 33]`, `[4, 12, 27]`),
			[]string{"roulette.winning: has 3 entries; NUMÉROS GAGNANTS shows 4 numbers"}},
		{"4.2.1 three chips", r(`, {"number": 36, "amount": 50}]`, `]`),
			[]string{"roulette.bets: has 2 entries; VOS MISES shows 3 chips"}},
		{"4.3.2 dice 1 to 6", r(`[3, 4]`, `[0, 7]`),
			[]string{"craps.dice[0]: 0 is not a die face", "craps.dice[1]: 7 is not a die face"}},
		{"4.4.2 card values", r(`["2", "9", "V"]`, `["1", "9", "C"]`),
			[]string{`duel.cards[0]: "1" is not a card value`, `duel.cards[2]: "C" is not a card value`}},
		{"4.4.3 the bank is never AS", r(`"bank": "10"`, `"bank": "AS"`),
			[]string{`duel.bank: "AS" cannot be the bank's card`}},
		{"4.5.2 three symbols of the game's set", r(`["CLOCHE", "TREFLE", "BAR"]`, `["CLOCHE", "POMME", "BAR"]`),
			[]string{`jackpot[2].symbols[1]: "POMME" is not a jackpot symbol`}},
		{"4.5.1 three lines", r(`,
    {"symbols": ["CLOCHE", "TREFLE", "BAR"], "amount": 3}`, ``),
			[]string{"jackpot: has 2 entries; give 3 lines"}},
		{"amounts from the prize list", r(`"amount": 15}`, `"amount": 12}`),
			[]string{"craps.amount: 12 is not an amount of the game"}},
		{"zone amounts are never 0", r(`{"number": 36, "amount": 50}`, `{"number": 36, "amount": 0}`),
			[]string{"roulette.bets[2].amount: 0 is not an amount of the game"}},
		{"bonus from the list", r(`"bonus": 0`, `"bonus": 7`),
			[]string{"bonus: 7 is not an amount of the game"}},
		{"unknown key named", r(`"bonus": 0`, `"bonus": 0, "colour": "red"`),
			[]string{"colour: is not a key of the ticket format"}},
		{"unknown nested key named", r(`"dice": [3, 4]`, `"dice": [3, 4], "pips": 7`),
			[]string{"craps.pips: is not a key of the ticket format"}},
		{"missing surface", r(`"craps": {"dice": [3, 4], "amount": 15},`, ``),
			[]string{"craps: is missing"}},
		{"wrong type", r(`[3, 4]`, `["3", 4]`),
			[]string{`craps.dice[0]: "3" is not a number`}},
		{"fractional number", r(`"bonus": 0`, `"bonus": 1.5`),
			[]string{`bonus: 1.5 is not a whole number`}},
		{"bad serial", r(`"bonus": 0`, `"bonus": 0, "serial": "`+mistyped+`"`),
			[]string{`serial: "` + mistyped + `" check digit does not match: a digit was mistyped`}},
		{"not JSON", func(string) string { return `{"roulette": ` }, []string{"ticket: is not JSON"}},
		{"not an object", func(string) string { return `[1, 2]` }, []string{"ticket: […] is not an object"}},
		{"two objects", func(s string) string { return s + s }, []string{"ticket: has text after the JSON object"}},
		{"faults of the JSON and of the rules in document order", func(s string) string {
			s = strings.Replace(s, `[4, 12, 27, 33]`, `[15, 12, 27, 33]`, 1)
			s = strings.Replace(s, `, {"number": 36, "amount": 50}]`, `]`, 1)
			s = strings.Replace(s, `["2", "9", "V"]`, `["2", "9", "C"]`, 1)
			return strings.Replace(s, `"bank": "10", `, ``, 1)
		}, []string{"roulette.winning[0]: 15 is not a roulette number", "roulette.bets: has 2 entries",
			`duel.cards[2]: "C" is not a card value`, "duel.bank: is missing"}},
		{"no fault of the rules inside a faulty list", r(`[3, 4]`, `[3, "x"]`),
			[]string{`craps.dice[1]: "x" is not a number`}},
		{"every fault reported", func(s string) string {
			s = strings.Replace(s, `[3, 4]`, `[9, 4]`, 1)
			s = strings.Replace(s, `"bank": "10"`, `"bank": "AS"`, 1)
			return strings.Replace(s, `"bonus": 0`, `"bonus": 2`, 1)
		}, []string{"craps.dice[0]: 9", `duel.bank: "AS"`, "bonus: 2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := tt.edit(rulesExample)
			_, err := ParseDoc([]byte(doc))
			var es Errors
			if !errors.As(err, &es) {
				t.Fatalf("err = %v, want Errors", err)
			}
			if len(es) != len(tt.want) {
				t.Errorf("%d errors, want %d:\n%v", len(es), len(tt.want), err)
			}
			for i, want := range tt.want {
				if i < len(es) && !strings.HasPrefix(es[i].Error(), want) {
					t.Errorf("error %d = %q, want prefix %q", i, es[i], want)
				}
			}
		})
	}
}

// Each fault has a kind, for a screen to say it in its own language.
func TestParseDocKinds(t *testing.T) {
	tests := []struct {
		edit func(string) string
		want Kind
	}{
		{r(`[4, 12, 27, 33]`, `[4, 12, 27, 12]`), KindRepeat},
		{r(`{"number": 5, "amount": 3}`, `{"number": 15, "amount": 3}`), KindValue},
		{r(`"craps": {"dice": [3, 4], "amount": 15},`, ``), KindMissing},
		{r(`[3, 4]`, `["3", 4]`), KindType},
		{r(`[4, 12, 27, 33]`, `[4, 12, 27]`), KindCount},
		{r(`"bonus": 0`, `"bonus": 0, "colour": 1`), KindUnknownKey},
		{r(`"bonus": 0`, `"bonus": 0, "serial": "531"`), KindSerial},
		{func(string) string { return "{" }, KindSyntax},
	}
	for _, tt := range tests {
		_, err := ParseDoc([]byte(tt.edit(rulesExample)))
		var es Errors
		if !errors.As(err, &es) || len(es) != 1 || es[0].Kind != tt.want {
			t.Errorf("%v: want one fault of kind %d", err, tt.want)
		}
	}
}

func r(old, new string) func(string) string {
	return func(s string) string {
		if !strings.Contains(s, old) {
			panic("test edit does not apply: " + old)
		}
		return strings.Replace(s, old, new, 1)
	}
}

func TestParseDocLenient(t *testing.T) {
	doc := strings.NewReplacer(`"V"`, `"v"`, `"bank": "10"`, `"bank": 10`, `"TREFLE"`, `"Trèfle"`).Replace(rulesExample)
	in, err := ParseDoc([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if in.Ticket.Duel.Cards[2] != Valet || in.Ticket.Duel.Bank != Ten || in.Ticket.Jackpot[2].Symbols[1] != Trefle {
		t.Errorf("lenient spellings not read: %+v", in.Ticket)
	}
}

// A ticket whose prize is not 0 or one of the eight prizes cannot be genuine,
// nor one whose stated prize differs (rules.md).
func TestCheckGenuine(t *testing.T) {
	tk := losing()
	tk.Roulette.Bets[0] = Bet{4, 3}
	tk.Bonus = 9 // 3 + 9 = 12 €
	v := Check(&tk, nil)
	if v.Genuine || v.Prize != 12 || len(v.Reasons) != 1 || !strings.Contains(v.Reasons[0], "12 € (3 + 9)") {
		t.Errorf("12 € ticket: %+v", v)
	}
	tk.Bonus = 0
	stated := 50
	v = Check(&tk, &stated)
	if v.Genuine || v.Prize != 3 || len(v.Reasons) != 1 || !strings.Contains(v.Reasons[0], "stated prize 50 € differs from the rules' 3 €") {
		t.Errorf("stated 50 €: %+v", v)
	}
	stated = 3
	if v := Check(&tk, &stated); !v.Genuine || len(v.Reasons) != 0 {
		t.Errorf("genuine 3 € ticket: %+v", v)
	}
	tk = losing()
	if v := Check(&tk, nil); !v.Genuine || v.Prize != 0 {
		t.Errorf("loser: %+v", v)
	}
}

func FuzzParseDoc(f *testing.F) {
	f.Add([]byte(rulesExample))
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"roulette": {"winning": [1,2,4,5], "bets": [{}, null, 3]}, "jackpot": [{"symbols": [1,2,3]}]}`))
	f.Add([]byte(`{"duel": {"cards": [10, "AS", true], "bank": null}, "bonus": 1e99}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := ParseDoc(data)
		if err != nil {
			var es Errors
			if !errors.As(err, &es) || len(es) == 0 {
				t.Fatalf("error %v is not a non-empty Errors", err)
			}
			for _, e := range es {
				if e.Field == "" || e.Problem == "" || e.Kind == 0 {
					t.Fatalf("error %q does not name its field, kind and problem", e)
				}
			}
			return
		}
		if err := Validate(&in.Ticket); err != nil {
			t.Fatalf("ParseDoc accepted a ticket Validate refuses: %v", err)
		}
		code := Encode(&in.Ticket)
		back, err := Decode(code[:])
		if err != nil || back != in.Ticket {
			t.Fatalf("encoding round trip: %+v, %v", back, err)
		}
		Check(&in.Ticket, in.Prize)
	})
}

// The parser states no rule of its own: on contents it reads, its faults
// are Validate's, with the values as given.
func TestParseDocReportsValidate(t *testing.T) {
	tk := losing()
	tk.Roulette.Winning[1] = tk.Roulette.Winning[0]
	tk.Roulette.Bets[2] = Bet{15, 12}
	tk.Craps.Dice[0] = 7
	tk.Duel.Bank = As
	tk.Jackpot[0].Amount = 0
	tk.Bonus = 2
	var want Errors
	if !errors.As(Validate(&tk), &want) {
		t.Fatal("Validate accepts the ticket")
	}
	data, err := json.Marshal(NewDoc(&tk))
	if err != nil {
		t.Fatal(err)
	}
	_, err = ParseDoc(data)
	var got Errors
	if !errors.As(err, &got) || len(got) != len(want) {
		t.Fatalf("ParseDoc: %v\nValidate: %v", err, want)
	}
	for i := range want {
		if got[i].Field != want[i].Field || got[i].Kind != want[i].Kind || got[i].Problem != want[i].Problem {
			t.Errorf("fault %d: ParseDoc %q (kind %d), Validate %q (kind %d)", i, got[i], got[i].Kind, want[i], want[i].Kind)
		}
	}
	for i, e := range got {
		if e.Field == "duel.bank" && (e.Value != `"AS"` || want[i].Value != "AS") {
			t.Errorf("duel.bank: ParseDoc shows %s, Validate %s; want the value as given, \"AS\"", e.Value, want[i].Value)
		}
	}
}

// AppendJSON writes exactly what encoding/json writes: for tickets of every
// way of the catalogue, with and without the export's keys, and for
// strings json escapes.
func TestDocAppendJSON(t *testing.T) {
	r := NewRand([32]byte{5})
	for i := range Catalogue {
		for k := range 20 {
			var tk Ticket
			Build(r, &Catalogue[i], &tk)
			d := NewDoc(&tk)
			if k%2 == 0 {
				pack, pos := k, 200*k+i
				d.Serial, d.Game, d.Block, d.Pack, d.Position = Serial{531, 1, pos, int64(k) * 7919}.String(), 531, 1, &pack, &pos
			}
			if k == 3 {
				d.Prize = nil
				d.Roulette.Bets, d.Jackpot, d.Duel.Cards = nil, nil, nil
			}
			if k == 5 {
				d.Serial, d.Duel.Bank = `<a&"b\c>é`+"\x01", "\u2028"
			}
			want, err := json.Marshal(d)
			if err != nil {
				t.Fatal(err)
			}
			if got := d.AppendJSON(nil); !bytes.Equal(got, want) {
				t.Fatalf("way %d ticket %d:\n got %s\nwant %s", i, k, got, want)
			}
		}
	}
}
