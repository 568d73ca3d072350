package core

import (
	"fmt"
	"time"

	"vegas-desk/internal/game"
)

// A block and where its tickets are: the ledger-wide number of each
// ticket, its pack's row, its stored prize. What a question reads of a
// ticket is found with these (package backoffice, package postgres).

// Block is one generated block of a game.
type Block struct {
	ID       int64
	Game     int    // game code
	Number   int    // block number within the game, from 1
	Digest   string // hex SHA-256 of game.Digest
	PackSize int
	Tickets  int
	Winners  int
	Payout   int // euros
	// CreatedAt is when the block was generated.
	CreatedAt time.Time

	// FirstPack is the packs row (the ledger-wide number) of pack 0; the
	// block's tickets are numbered FirstPack × PackSize on, ledger-wide.
	FirstPack int64
	// Key derives the secret parts of the block's serials; a counter's
	// login and a sealed counter ledger never hold it (zero).
	Key game.SerialKey `json:"-"`
}

// Name is "531/1": game code and block number.
func (b Block) Name() string { return fmt.Sprintf("%d/%d", b.Game, b.Number) }

// First is the ledger-wide number of the ticket at position 0.
func (b Block) First() int64 { return b.FirstPack * int64(b.PackSize) }

// TicketNumber is the ledger-wide number of the ticket at position pos.
func (b Block) TicketNumber(pos int) int64 { return b.First() + int64(pos) }

// Holds reports whether s is the serial of one of b's tickets, its
// secret part right.
func (b Block) Holds(s game.Serial) bool {
	return s.Position >= 0 && s.Position < b.Tickets && b.Key.Secret(s.Position) == s.Secret
}

// PackID is the packs row of the ticket at position pos.
func (b Block) PackID(pos int) int64 { return b.FirstPack + int64(pos/game.PackSize) }

// Serial is the serial of the ticket at position pos (the secret part from
// Key).
func (b Block) Serial(pos int) game.Serial {
	return game.Serial{Game: b.Game, Block: b.Number, Position: pos, Secret: b.Key.Secret(pos)}
}

// The ledger stores tickets by pack: one row of packs holds the 200
// encodings of a pack concatenated (codes) and one prize byte per ticket
// (prizes). See schema.sql.

// PackCodesSize is the length of a pack's codes.
const PackCodesSize = game.PackSize * game.EncodedSize

// PrizeByte is the stored prize of a ticket: 0 for a loser, else 1 + the
// index of the prize in game.PrizeTable. prize must be 0 or a prize of the
// table.
func PrizeByte(prize int) byte { return byte(game.TierOf(prize) + 1) }

// PrizeOf is the prize in euros of a stored prize byte, and whether the
// byte is one PrizeByte makes.
func PrizeOf(b byte) (int, bool) {
	switch {
	case b == 0:
		return 0, true
	case int(b) <= len(game.PrizeTable):
		return game.PrizeTable[b-1].Prize, true
	}
	return 0, false
}

// FinderID is the row of block id's chunk whose first key is first: the
// rows a block's tickets are found by (the finder of its winners'
// contents, a sealed ledger's records) are keyed so, a block's in one
// range of ids.
func FinderID(block int64, first uint32) int64 { return block<<32 | int64(first) }
