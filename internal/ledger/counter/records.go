package counter

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/core"
)

// Sealed records: what a counter ledger holds of its blocks' tickets. Each
// is found, and opened, only by what the ticket shows under its scratch
// layer: its full serial, or its whole contents.
//
// Serial record, one per ticket (26 bytes):
//
//	h_0  = SHA-256("vegas-desk/seal/serial" ‖ BE16 game ‖ BE16 block ‖ BE32 position ‖ BE64 secret)
//	h_i  = SHA-256(h_{i-1}),  i = 1 … SerialIterations-1
//	index = h_last[0:12]
//	pad   = SHA-256("vegas-desk/seal/serial-pad" ‖ h_last)[0:14]
//	record = index ‖ (game.Encode(ticket) XOR pad)
//
// Contents record, one per winning ticket (24 bytes), from its encoding
// (the duel's cards ascending, as game.Encode of a generated ticket):
//
//	h_0  = SHA-256("vegas-desk/seal/contents" ‖ BE16 game ‖ BE16 block ‖ encoding)
//	h_i  = SHA-256(h_{i-1}),  i = 1 … ContentsIterations-1
//	index = h_last[0:12]
//	pad_j = SHA-256("vegas-desk/seal/contents-pad" ‖ h_last ‖ BE32 j)[0:12]
//	record = index ‖ ((BE32 position ‖ BE64 secret) XOR pad_j)
//
// where j counts the block's earlier winners with the same contents (0 but
// for a coincidence the generator makes with probability below 2^-30 per
// block). No prize is stored: it is game.Prize of the decoded ticket.
//
// A block's records are sorted by index and cut into rows of about
// sealRowBytes, never between two records of one 4-byte prefix; a row's
// id is the block's id × 2^32 + the first record's prefix, so that a lookup
// reads one row and binary-searches it.
//
// The cost of learning a ticket's prize or serial from these records
// without its serial or contents is in docs/trust-model.md: at
// least 2^56 SHA-256 evaluations.
const (
	SerialIterations   = 16  // K_s
	ContentsIterations = 128 // K_c
	// MaxBlocks is the most blocks a counter ledger holds (the bound on
	// the contents records assumes no more).
	MaxBlocks = 8

	sealIndexSize      = 12
	serialRecordSize   = sealIndexSize + game.EncodedSize
	contentsRecordSize = sealIndexSize + 4 + 8
	// sealRowBytes fills a 16 KiB page with one row (SQLite keeps up to
	// 16,349 bytes of a row in its page): 615 serial or 666 contents
	// records. Rows of 512 records left a fifth of each page empty.
	sealRowBytes = 16000
)

const (
	serialLabel      = "vegas-desk/seal/serial"
	serialPadLabel   = "vegas-desk/seal/serial-pad"
	contentsLabel    = "vegas-desk/seal/contents"
	contentsPadLabel = "vegas-desk/seal/contents-pad"
)

// iterate applies SHA-256 n-1 more times to h.
func iterate(h [32]byte, n int) [32]byte {
	for range n - 1 {
		h = sha256.Sum256(h[:])
	}
	return h
}

// serialHash is h_last of a serial record.
func serialHash(gameCode, block, pos int, secret int64) [32]byte {
	var in [len(serialLabel) + 2 + 2 + 4 + 8]byte
	n := copy(in[:], serialLabel)
	binary.BigEndian.PutUint16(in[n:], uint16(gameCode))
	binary.BigEndian.PutUint16(in[n+2:], uint16(block))
	binary.BigEndian.PutUint32(in[n+4:], uint32(pos))
	binary.BigEndian.PutUint64(in[n+8:], uint64(secret))
	return iterate(sha256.Sum256(in[:]), SerialIterations)
}

// serialPad is the pad of a serial record whose h_last is h.
func serialPad(h *[32]byte) [32]byte {
	var in [len(serialPadLabel) + 32]byte
	n := copy(in[:], serialPadLabel)
	copy(in[n:], h[:])
	return sha256.Sum256(in[:])
}

// serialRecord seals the ticket at pos of a block, whose secret part is
// secret and encoding code.
func serialRecord(gameCode, block, pos int, secret int64, code *[game.EncodedSize]byte) (rec [serialRecordSize]byte) {
	h := serialHash(gameCode, block, pos, secret)
	pad := serialPad(&h)
	copy(rec[:sealIndexSize], h[:])
	for i := range game.EncodedSize {
		rec[sealIndexSize+i] = code[i] ^ pad[i]
	}
	return rec
}

// contentsHash is h_last of a contents record.
func contentsHash(gameCode, block int, code []byte) [32]byte {
	var in [len(contentsLabel) + 2 + 2 + game.EncodedSize]byte
	n := copy(in[:], contentsLabel)
	binary.BigEndian.PutUint16(in[n:], uint16(gameCode))
	binary.BigEndian.PutUint16(in[n+2:], uint16(block))
	copy(in[n+4:], code)
	return iterate(sha256.Sum256(in[:]), ContentsIterations)
}

// contentsPad is pad_j of a contents record whose h_last is h.
func contentsPad(h *[32]byte, j int) [32]byte {
	var in [len(contentsPadLabel) + 32 + 4]byte
	n := copy(in[:], contentsPadLabel)
	copy(in[n:], h[:])
	binary.BigEndian.PutUint32(in[n+32:], uint32(j))
	return sha256.Sum256(in[:])
}

// contentsPayload is the position and secret part sealed in a contents
// record, XORed with pad.
func contentsPayload(pos int, secret int64, pad *[32]byte) (p [contentsRecordSize - sealIndexSize]byte) {
	binary.BigEndian.PutUint32(p[:], uint32(pos))
	binary.BigEndian.PutUint64(p[4:], uint64(secret))
	for i := range p {
		p[i] ^= pad[i]
	}
	return p
}

// openContents reads the position and secret part of a contents record's
// payload with pad.
func openContents(payload []byte, pad *[32]byte) (pos int, secret int64) {
	var p [contentsRecordSize - sealIndexSize]byte
	for i := range p {
		p[i] = payload[i] ^ pad[i]
	}
	return int(binary.BigEndian.Uint32(p[:])), int64(binary.BigEndian.Uint64(p[4:]))
}

// sealRow is one row of serials or contents.
type sealRow struct {
	id      int64
	records []byte
}

// sealedBlock is what sealing a block makes: its rows, and (for the
// tests) the position of each record in stored order.
type sealedBlock struct {
	serials, contents          []sealRow
	serialOrder, contentsOrder []int32
}

// sealBlock seals the tickets of a block: codes holds the encodings of
// every ticket in position order, prizes their prize bytes (0 = loser).
// The work is shared by the cores.
func sealBlock(ctx context.Context, b core.Block, key *game.SerialKey, codes, prizes []byte, progress func(done, total int)) (sealedBlock, error) {
	n := b.Tickets
	if len(codes) != n*game.EncodedSize || len(prizes) != n {
		return sealedBlock{}, fmt.Errorf("seal block %s: %d codes and %d prizes for %d tickets", b.Name(), len(codes)/game.EncodedSize, len(prizes), n)
	}
	// The winners, in position order; each one's rank is where its contents
	// record goes.
	var winners []int32
	for pos, pb := range prizes {
		if pb != 0 {
			winners = append(winners, int32(pos))
		}
	}
	serials := make([]byte, n*serialRecordSize)
	secrets := make([]int64, n)
	contentsH := make([][32]byte, len(winners))

	const chunk = 4096
	var next, done atomic.Int64
	var wg sync.WaitGroup
	var cancelled atomic.Bool
	work := func(f func(lo, hi int), total int) {
		next.Store(0)
		for range runtime.GOMAXPROCS(0) {
			wg.Go(func() {
				for !cancelled.Load() {
					lo := int(next.Add(chunk)) - chunk
					if lo >= total {
						return
					}
					f(lo, min(lo+chunk, total))
					if ctx.Err() != nil {
						cancelled.Store(true)
					}
				}
			})
		}
		wg.Wait()
	}
	total := n + len(winners)
	report := func(k int) {
		if progress != nil {
			progress(int(done.Add(int64(k))), total)
		}
	}
	work(func(lo, hi int) {
		var code [game.EncodedSize]byte
		for pos := lo; pos < hi; pos++ {
			secrets[pos] = key.Secret(pos)
			copy(code[:], codes[pos*game.EncodedSize:])
			rec := serialRecord(b.Game, b.Number, pos, secrets[pos], &code)
			copy(serials[pos*serialRecordSize:], rec[:])
		}
		report(hi - lo)
	}, n)
	work(func(lo, hi int) {
		for i := lo; i < hi; i++ {
			pos := int(winners[i])
			contentsH[i] = contentsHash(b.Game, b.Number, codes[pos*game.EncodedSize:(pos+1)*game.EncodedSize])
		}
		report(hi - lo)
	}, len(winners))
	if cancelled.Load() || ctx.Err() != nil {
		return sealedBlock{}, fmt.Errorf("seal block %s: %w", b.Name(), context.Cause(ctx))
	}

	// Serial records by index.
	serialOrder := sortByIndex(n, func(i int) []byte { return serials[i*serialRecordSize : i*serialRecordSize+sealIndexSize] })
	sortedSerials := make([]byte, 0, len(serials))
	for _, i := range serialOrder {
		sortedSerials = append(sortedSerials, serials[int(i)*serialRecordSize:(int(i)+1)*serialRecordSize]...)
	}
	serials = nil
	// Contents records by index; among equal indexes, in position order
	// (the stable sort keeps it), each with its own pad.
	order := sortByIndex(len(winners), func(i int) []byte { return contentsH[i][:sealIndexSize] })
	sortedContents := make([]byte, 0, len(winners)*contentsRecordSize)
	for k, i := range order {
		j := 0
		for k-j > 0 && contentsH[order[k-j-1]] == contentsH[i] {
			j++
		}
		h := &contentsH[i]
		pad := contentsPad(h, j)
		pos := int(winners[i])
		payload := contentsPayload(pos, secrets[pos], &pad)
		sortedContents = append(sortedContents, h[:sealIndexSize]...)
		sortedContents = append(sortedContents, payload[:]...)
	}
	for k, i := range order {
		order[k] = winners[i]
	}
	return sealedBlock{
		serials:       cutRows(b.ID, sortedSerials, serialRecordSize),
		contents:      cutRows(b.ID, sortedContents, contentsRecordSize),
		serialOrder:   serialOrder,
		contentsOrder: order,
	}, nil
}

// sortByIndex returns 0 … n-1 ordered by index(i), stably: a counting sort
// on the first two bytes, then a sort of each bucket.
func sortByIndex(n int, index func(i int) []byte) []int32 {
	var count [1<<16 + 1]int
	for i := range n {
		k := index(i)
		count[int(k[0])<<8|int(k[1])+1]++
	}
	for i := 1; i < len(count); i++ {
		count[i] += count[i-1]
	}
	starts := count
	order := make([]int32, n)
	for i := range n {
		k := index(i)
		b := int(k[0])<<8 | int(k[1])
		order[count[b]] = int32(i)
		count[b]++
	}
	for b := range 1 << 16 {
		bucket := order[starts[b]:starts[b+1]]
		if len(bucket) > 1 {
			slices.SortStableFunc(bucket, func(x, y int32) int { return bytes.Compare(index(int(x)), index(int(y))) })
		}
	}
	return order
}

// cutRows cuts a block's sorted records into rows.
func cutRows(blockID int64, records []byte, size int) []sealRow {
	n := len(records) / size
	prefix := func(i int) uint32 { return binary.BigEndian.Uint32(records[i*size:]) }
	var rows []sealRow
	for start := 0; start < n; {
		end := min(start+sealRowBytes/size, n)
		for end < n && prefix(end) == prefix(end-1) {
			end++
		}
		rows = append(rows, sealRow{id: core.FinderID(blockID, prefix(start)), records: records[start*size : end*size]})
		start = end
	}
	return rows
}

// findRecords returns the records of block id blockID's rows of table
// (serials or contents) whose index is index, in stored order.
func findRecords(ctx context.Context, q core.Querier, table string, blockID int64, index []byte, size int) ([][]byte, error) {
	prefix := binary.BigEndian.Uint32(index)
	var blob []byte
	err := core.Get(ctx, q, &blob, "SELECT records FROM "+table+" WHERE id BETWEEN ? AND ? ORDER BY id DESC LIMIT 1",
		core.FinderID(blockID, 0), core.FinderID(blockID, prefix))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	n := len(blob) / size
	i := sort.Search(n, func(i int) bool { return bytes.Compare(blob[i*size:i*size+sealIndexSize], index) >= 0 })
	var out [][]byte
	for ; i < n && bytes.Equal(blob[i*size:i*size+sealIndexSize], index); i++ {
		out = append(out, blob[i*size:(i+1)*size])
	}
	return out, nil
}

// rowsDigest is SHA-256 over a table's rows of one block in id order: each
// row's id (8 bytes big-endian), length (4 bytes) and records.
func rowsDigest(rows []sealRow) [32]byte {
	h := sha256.New()
	var hdr [12]byte
	for _, r := range rows {
		putRowHeader(hdr[:], r.id, len(r.records))
		h.Write(hdr[:])
		h.Write(r.records)
	}
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// putRowHeader writes a row's id and length as rowsDigest hashes them.
func putRowHeader(hdr []byte, id int64, n int) {
	binary.BigEndian.PutUint64(hdr, uint64(id))
	binary.BigEndian.PutUint32(hdr[8:], uint32(n))
}
