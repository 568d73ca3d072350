package wire

import (
	"time"

	"vegas-desk/internal/ledger/core"
)

// PackEntry is one move of packs.
type PackEntry struct {
	At       time.Time `json:"at"`
	Block    int       `json:"block"`
	Desk     string    `json:"desk"`
	Entry    int64     `json:"entry"`
	First    int       `json:"first"`
	Game     int       `json:"game"`
	Last     int       `json:"last"`
	Move     string    `json:"move"`
	Operator string    `json:"operator"`
	Reason   string    `json:"reason"`
	State    string    `json:"state"`
}

// PackEntryOf is the JSON form of e.
func PackEntryOf(e core.PackEntry) PackEntry {
	return PackEntry{At: e.At, Block: e.Block, Desk: e.Desk, Entry: e.Entry, First: e.First, Game: e.Game, Last: e.Last,
		Move: e.Move, Operator: e.Operator, Reason: e.Reason, State: e.State}
}

// Core is the move w describes.
func (w PackEntry) Core() core.PackEntry {
	return core.PackEntry{Entry: w.Entry, At: w.At, Game: w.Game, Block: w.Block, First: w.First, Last: w.Last,
		State: w.State, Desk: w.Desk, Operator: w.Operator, Move: w.Move, Reason: w.Reason}
}

// Referral is a prize above a counter's limit sent to the back office.
type Referral struct {
	Amount   int       `json:"amount"`
	At       time.Time `json:"at"`
	Block    int       `json:"block"`
	Desk     string    `json:"desk"`
	Entry    int64     `json:"entry"`
	Game     int       `json:"game"`
	Last     time.Time `json:"last"`
	Number   int64     `json:"number"`
	Operator string    `json:"operator"`
	Position int       `json:"position"`
	Serial   string    `json:"serial"`
	Tries    int       `json:"tries"`
}

// ReferralOf is the JSON form of r.
func ReferralOf(r core.Referral) Referral {
	return Referral{Amount: r.Amount, At: r.At, Block: r.Block, Desk: r.Desk, Entry: r.Entry, Game: r.Game, Last: r.Last,
		Number: r.Number, Operator: r.Operator, Position: r.Position, Serial: r.Serial, Tries: r.Tries}
}

// Core is the referral w describes.
func (w Referral) Core() core.Referral {
	return core.Referral{Entry: w.Entry, Number: w.Number, At: w.At, Serial: w.Serial, Game: w.Game, Block: w.Block,
		Position: w.Position, Amount: w.Amount, Desk: w.Desk, Operator: w.Operator, Tries: w.Tries, Last: w.Last}
}

// Block is a block's public part (no serial key).
type Block struct {
	CreatedAt time.Time `json:"created_at"`
	Digest    string    `json:"digest"`
	FirstPack int64     `json:"first_pack"`
	Game      int       `json:"game"`
	ID        int64     `json:"id"`
	Number    int       `json:"number"`
	PackSize  int       `json:"pack_size"`
	Payout    int       `json:"payout"`
	Tickets   int       `json:"tickets"`
	Winners   int       `json:"winners"`
}

// BlockOf is the public JSON form of b.
func BlockOf(b core.Block) Block {
	return Block{CreatedAt: b.CreatedAt, Digest: b.Digest, FirstPack: b.FirstPack, Game: b.Game, ID: b.ID, Number: b.Number,
		PackSize: b.PackSize, Payout: b.Payout, Tickets: b.Tickets, Winners: b.Winners}
}

// Core is the block w describes, without its key.
func (w Block) Core() core.Block {
	return core.Block{ID: w.ID, Game: w.Game, Number: w.Number, Digest: w.Digest, PackSize: w.PackSize, Tickets: w.Tickets,
		Winners: w.Winners, Payout: w.Payout, CreatedAt: w.CreatedAt, FirstPack: w.FirstPack}
}

// Game is a game's name, price and dates (instants in the ledger's text).
type Game struct {
	Code      int    `json:"code"`
	Deadline  string `json:"deadline"`
	EndOfSale string `json:"end_of_sale"`
	Name      string `json:"name"`
	OnSale    string `json:"on_sale"`
	Price     int    `json:"price"`
}

// GameOf is the JSON form of g.
func GameOf(g core.Game) Game {
	return Game{Code: g.Code, Deadline: g.Deadline, EndOfSale: g.EndOfSale, Name: g.Name, OnSale: g.OnSale, Price: g.Price}
}

// Core is the game w describes.
func (w Game) Core() core.Game {
	return core.Game{Code: w.Code, Name: w.Name, Price: w.Price, Dates: core.Dates{OnSale: w.OnSale, EndOfSale: w.EndOfSale, Deadline: w.Deadline}}
}

// Hello is what the server says of itself and of the asking desk.
type Hello struct {
	Demo   bool   `json:"demo"`
	Desk   string `json:"desk"`
	Ledger string `json:"ledger"`
	// Limit is the desk's payout limit, in euros.
	Limit int `json:"limit"`
}

// Head is the journal's head.
type Head struct {
	Head string `json:"head"`
}

// Error is an answer that is not one: a stable code, a message for
// people, and the refusal when the question was refused (code "refused";
// the codes are package protocol's).
type Error struct {
	Code    string   `json:"code"`
	Message string   `json:"message"`
	Refusal *Refusal `json:"refusal,omitempty"`
}
