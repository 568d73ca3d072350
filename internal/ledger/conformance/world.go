package conformance

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/core"
)

// The world the table runs in, built once by ledgertest (its Conformance
// fixture): a directory holding the back office's SQLite ledger
// (ledger.db), the sealed counter ledgers of D1 and D0 (D1.db, D0.db), and
// world.json (World).

// Desks are the world's desks and their payout limits: D0 refers every
// winner, D2 paid tickets before.
var Desks = []struct {
	ID    string
	Limit int
}{{"D0", 0}, {"D1", 100}, {"D2", 1000}}

// Counters are the desks that ask through a validation server and have a
// sealed counter ledger.
var Counters = []string{"D0", "D1"}

// Threshold is the world's identity threshold, in euros.
const Threshold = 100

// World lists the tickets the cases name, by their Ticket.Spec.
type World struct {
	Tickets map[string]WorldTicket `json:"tickets"`
}

// WorldTicket is one ticket of the world: its serial, position and
// contents; Unknown is contents of the same prize that no ticket of the
// block shows (for !contents), when a case asks for them.
type WorldTicket struct {
	Serial   string    `json:"serial"`
	Position int       `json:"position"`
	Doc      game.Doc  `json:"doc"`
	Unknown  *game.Doc `json:"unknown,omitempty"`
}

// ReadWorld reads the world.json of dir.
func ReadWorld(dir string) (World, error) {
	var w World
	data, err := os.ReadFile(filepath.Join(dir, "world.json"))
	if err == nil {
		err = json.Unmarshal(data, &w)
	}
	return w, err
}

// Serial is the serial a case gives for t: the ticket's, or with a wrong
// secret part (!secret), or with its check digit mistyped (!check).
func (w World) Serial(t Ticket) string {
	wt := w.Tickets[t.Spec]
	s, err := game.ParseSerial(wt.Serial)
	if err != nil {
		panic(fmt.Sprintf("world ticket %s: %v", t.Spec, err))
	}
	switch t.Mod {
	case "secret":
		s.Secret = (s.Secret + 1) % game.SecretModulus
	case "check":
		text := []byte(wt.Serial)
		last := len(text) - 1
		text[last] = '0' + (text[last]-'0'+1)%10
		return string(text)
	}
	return s.String()
}

// Contents are the contents a case gives for t (by contents): the
// ticket's, or contents no ticket shows (!contents), without a serial.
func (w World) Contents(t Ticket) game.Doc {
	wt := w.Tickets[t.Spec]
	d := wt.Doc
	if t.Mod == "contents" {
		d = *wt.Unknown
	}
	d.Serial, d.Game, d.Block, d.Pack, d.Position = "", 0, 0, nil, nil
	return d
}

// Ticket is the game.Ticket of Contents.
func (w World) Ticket(t Ticket) game.Ticket {
	d := w.Contents(t)
	data, err := json.Marshal(d)
	if err != nil {
		panic(err)
	}
	in, err := game.ParseDoc(data)
	if err != nil {
		panic(fmt.Sprintf("world ticket %s: %v", t.Spec, err))
	}
	return in.Ticket
}

// OpenEmission is the emission's dates in the open phase: on sale since
// 1 January 2025, sales until 1 December 2099, claims until the 31st.
func OpenEmission() core.Emission {
	return core.Emission{Game: 531, OnSale: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC),
		EndOfSale: time.Date(2099, 12, 1, 0, 0, 0, 0, time.UTC), Deadline: time.Date(2099, 12, 31, 0, 0, 0, 0, time.UTC)}
}

// EmissionAt is the emission's dates that put now in phase: a ledger that
// can be told puts its game in the phase this way.
func EmissionAt(phase string, now time.Time) core.Emission {
	em := OpenEmission()
	switch phase {
	case BeforeSale:
		em.OnSale = now.AddDate(1, 0, 0)
	case AfterDeadline:
		em.EndOfSale, em.Deadline = now.AddDate(0, 0, -2), now.AddDate(0, 0, -1)
	}
	return em
}

// ClockAt is a time in phase of the open emission: a sealed counter
// ledger, whose dates are sealed, is asked at that time.
func ClockAt(phase string) time.Time {
	em := OpenEmission()
	switch phase {
	case BeforeSale:
		return em.OnSale.AddDate(0, 0, -1)
	case AfterDeadline:
		return em.Deadline.AddDate(0, 0, 1)
	}
	return time.Now()
}
