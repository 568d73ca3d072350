package backoffice

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/core"
)

// The ledger stores tickets by pack (core.PrizeByte), and its winners'
// finder: rows of (key, position) entries sorted by key, a key being the
// first 4 bytes of a ticket's encoding. See schema.sql.

// FinderChunk is the number of entries of a finder row (a row may be
// longer, never splitting one key).
const FinderChunk = 1000

// finderEntry is the size of one finder entry: key (4 bytes) and position
// (3 bytes), big-endian.
const finderEntry = 7

// FindKey is the finder's key of an encoding: its first 4 bytes.
func FindKey(code []byte) uint32 { return binary.BigEndian.Uint32(code[:4]) }

// findEntry packs a finder entry into an integer that sorts like its bytes.
func findEntry(key uint32, pos int) uint64 { return uint64(key)<<24 | uint64(pos) }

// finderRows cuts a block's sorted entries into finder rows: first keys and
// their entry blobs.
func finderRows(entries []uint64) (firsts []uint32, blobs [][]byte) {
	for start := 0; start < len(entries); {
		end := min(start+FinderChunk, len(entries))
		for end < len(entries) && entries[end]>>24 == entries[end-1]>>24 {
			end++
		}
		blob := make([]byte, 0, (end-start)*finderEntry)
		for _, e := range entries[start:end] {
			blob = binary.BigEndian.AppendUint32(blob, uint32(e>>24))
			blob = append(blob, byte(e>>16), byte(e>>8), byte(e))
		}
		firsts, blobs = append(firsts, uint32(entries[start]>>24)), append(blobs, blob)
		start = end
	}
	return firsts, blobs
}

// FindPositions returns the positions of block b's winners whose encoding
// starts with key, in order.
func FindPositions(ctx context.Context, q core.Querier, b core.Block, key uint32) ([]int, error) {
	var blob []byte
	err := core.Get(ctx, q, &blob, "SELECT entries FROM finder WHERE id BETWEEN ? AND ? ORDER BY id DESC LIMIT 1",
		core.FinderID(b.ID, 0), core.FinderID(b.ID, key))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("finder of block %s: %w", b.Name(), err)
	}
	n := len(blob) / finderEntry
	var k [4]byte
	binary.BigEndian.PutUint32(k[:], key)
	i := sort.Search(n, func(i int) bool { return bytes.Compare(blob[i*finderEntry:i*finderEntry+4], k[:]) >= 0 })
	var out []int
	for ; i < n && bytes.Equal(blob[i*finderEntry:i*finderEntry+4], k[:]); i++ {
		e := blob[i*finderEntry+4:]
		out = append(out, int(e[0])<<16|int(e[1])<<8|int(e[2]))
	}
	return out, nil
}

// StoredTicket reads the encoding and prize byte of position pos of block b.
func StoredTicket(ctx context.Context, q core.Querier, b core.Block, pos int) (code []byte, prize byte, err error) {
	var row struct {
		Code  []byte `db:"code"`
		Prize []byte `db:"prize"`
	}
	off := pos % game.PackSize
	err = core.Get(ctx, q, &row, "SELECT substr(codes, ?, ?) AS code, substr(prizes, ?, 1) AS prize FROM packs WHERE id = ?",
		off*game.EncodedSize+1, game.EncodedSize, off+1, b.PackID(pos))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, 0, fmt.Errorf("block %s pack %d: missing (run verify)", b.Name(), pos/game.PackSize)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("block %s ticket %d: %w", b.Name(), pos, err)
	}
	if len(row.Prize) != 1 {
		return nil, 0, fmt.Errorf("block %s ticket %d: no prize byte (run verify)", b.Name(), pos)
	}
	return row.Code, row.Prize[0], nil
}

// ScanPrizes calls f with the position of the first ticket of each pack of
// block b and the pack's prize bytes, in block order, until f returns false.
func ScanPrizes(ctx context.Context, q core.Querier, b core.Block, f func(first int, prizes []byte) bool) error {
	rows, err := core.Query(ctx, q, "SELECT id, prizes FROM packs WHERE id >= ? AND id < ? ORDER BY id",
		b.FirstPack, b.FirstPack+int64(b.Tickets/game.PackSize))
	if err != nil {
		return err
	}
	defer rows.Close()
	var id int64
	var prizes sql.RawBytes
	for rows.Next() {
		if err := rows.Scan(&id, &prizes); err != nil {
			return err
		}
		if !f(int(id-b.FirstPack)*game.PackSize, prizes) {
			return nil
		}
	}
	return rows.Err()
}
