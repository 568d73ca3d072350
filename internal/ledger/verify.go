package ledger

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"runtime"
	"slices"
	"sync"

	"vegas-desk/internal/game"
)

// maxProblems bounds a report on a badly damaged ledger.
const maxProblems = 1000

func (r *VerifyReport) add(where, format string, args ...any) {
	if len(r.Problems) == maxProblems {
		r.Problems = append(r.Problems, Problem{"ledger", "too many problems; the rest are not listed"})
	}
	if len(r.Problems) > maxProblems {
		return
	}
	r.Problems = append(r.Problems, Problem{where, fmt.Sprintf(format, args...)})
}

// Verify checks the ledger: for block number of game gameCode (number 0:
// every block of the game; gameCode 0 too: every block), it decodes,
// validates and re-evaluates every ticket against the rules and its stored
// prize, counts the prizes against the table, recomputes each pack's hash
// and the block's digest; then it recomputes the journal's hash chain and
// checks each claim against its ticket. Every mismatch is a Problem naming
// its row. progress may be nil.
func (l *Ledger) Verify(ctx context.Context, gameCode, number int, progress func(done, total int)) (VerifyReport, error) {
	var rep VerifyReport
	if l.counter != nil {
		return l.verifyCounter(ctx, progress)
	}
	if err := l.backOffice("verify"); err != nil {
		return rep, err
	}
	tx, err := l.read(ctx)
	if err != nil {
		return rep, err
	}
	defer tx.Rollback()
	var blocks []Block
	if number != 0 {
		b, err := getBlock(ctx, tx, gameCode, number)
		if err != nil {
			return rep, fmt.Errorf("verify: %w", err)
		}
		blocks = append(blocks, b)
	} else {
		all, err := listBlocks(ctx, tx)
		if err != nil {
			return rep, err
		}
		for _, b := range all {
			if gameCode == 0 || b.Game == gameCode {
				blocks = append(blocks, b)
			}
		}
	}
	total := 0
	for _, b := range blocks {
		total += b.Tickets
	}
	done := 0
	for _, b := range blocks {
		err := verifyBlock(ctx, tx, b, &rep, func(n int) {
			if progress != nil {
				progress(done+n, total)
			}
		})
		if err != nil {
			return rep, fmt.Errorf("verify block %s: %w", b.Name(), err)
		}
		done += b.Tickets
		rep.Blocks++
	}
	if err := verifyJournal(ctx, tx, &rep); err != nil {
		return rep, fmt.Errorf("verify journal: %w", l.classify(err))
	}
	if err := l.verifyStorage(ctx, tx, &rep); err != nil {
		return rep, fmt.Errorf("verify: %w", l.classify(err))
	}
	return rep, nil
}

// vchunk is a run of consecutive pack rows, as stored.
type vchunk struct {
	ids    []int64
	hashes [][]byte
	prizes [][]byte
	codes  [][]byte
	sums   [][32]byte // the packs' hashes as recomputed
}

// vchunkPacks is the number of packs of a chunk.
const vchunkPacks = 40

func verifyBlock(ctx context.Context, tx querier, b Block, rep *VerifyReport, progress func(int)) error {
	bw := "block " + b.Name()
	where := func(pos int) string { return fmt.Sprintf("block %s ticket %d", b.Name(), pos) }
	packWhere := func(pack int) string { return fmt.Sprintf("block %s pack %d", b.Name(), pack) }
	packs := b.Tickets / game.PackSize
	if b.PackSize != game.PackSize || b.Tickets%game.PackSize != 0 {
		rep.add(bw, "%d tickets in packs of %d, want packs of %d", b.Tickets, b.PackSize, game.PackSize)
	}

	// A reader goroutine fills chunks while the workers check the last one.
	chunks := make(chan *vchunk, 2)
	free := make(chan *vchunk, 3)
	for range 3 {
		free <- &vchunk{sums: make([][32]byte, vchunkPacks)}
	}
	readErr := make(chan error, 1)
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		defer close(chunks)
		rows, err := queryRows(rctx, tx, "SELECT id, hash, prizes, codes FROM packs WHERE id >= ? AND id < ? ORDER BY id",
			b.firstPack, b.firstPack+int64(packs))
		if err != nil {
			readErr <- err
			return
		}
		defer rows.Close()
		var c *vchunk
		var hash, prizes, codes sql.RawBytes
		for rows.Next() {
			if c == nil {
				select {
				case c = <-free:
				case <-rctx.Done():
					readErr <- rctx.Err()
					return
				}
				c.ids, c.hashes, c.prizes, c.codes = c.ids[:0], c.hashes[:0], c.prizes[:0], c.codes[:0]
			}
			var id int64
			if err := rows.Scan(&id, &hash, &prizes, &codes); err != nil {
				readErr <- err
				return
			}
			c.ids = append(c.ids, id)
			c.hashes = append(c.hashes, bytes.Clone(hash))
			c.prizes = append(c.prizes, bytes.Clone(prizes))
			c.codes = append(c.codes, bytes.Clone(codes))
			if len(c.ids) == vchunkPacks {
				chunks <- c
				c = nil
			}
		}
		if c != nil {
			chunks <- c
		}
		readErr <- rows.Err()
	}()

	workers := runtime.GOMAXPROCS(0)
	var counts [256]int // tickets by prize byte
	var finds []uint64  // the finder entries the stored tickets make
	var mu sync.Mutex
	digest := game.NewDigest(b.Game, b.Number)
	next := 0 // expected pack
	tickets := 0
	var zero [game.EncodedSize]byte
	for c := range chunks {
		n := len(c.ids)
		var wg sync.WaitGroup
		local := make([][]Problem, workers)
		for w := range workers {
			lo, hi := w*n/workers, (w+1)*n/workers
			wg.Go(func() {
				var cnt [256]int
				var fs []uint64
				ph := game.NewPackHasher()
				var code [game.EncodedSize]byte
				for k := lo; k < hi; k++ {
					pack := int(c.ids[k] - b.firstPack)
					codes, prizes := c.codes[k], c.prizes[k]
					if len(codes) != packCodesSize || len(prizes) != game.PackSize {
						local[w] = append(local[w], Problem{packWhere(pack), fmt.Sprintf("holds %d bytes of codes and %d prize bytes, want %d and %d",
							len(codes), len(prizes), packCodesSize, game.PackSize)})
					}
					for i := range game.PackSize {
						pos := pack*game.PackSize + i
						code = zero
						if (i+1)*game.EncodedSize <= len(codes) {
							copy(code[:], codes[i*game.EncodedSize:])
						}
						ph.Add(b.key.Secret(pos), &code)
						if i >= len(prizes) || (i+1)*game.EncodedSize > len(codes) {
							continue
						}
						pb := prizes[i]
						cnt[pb]++
						stored, ok := prizeOf(pb)
						if !ok {
							local[w] = append(local[w], Problem{where(pos), fmt.Sprintf("prize byte %d is not a tier of the prize table", pb)})
						}
						if pb != 0 {
							fs = append(fs, findEntry(findKey(code[:]), pos))
						}
						t, err := game.Decode(code[:])
						if err != nil {
							local[w] = append(local[w], Problem{where(pos), fmt.Sprintf("does not decode: %v", err)})
							continue
						}
						if err := game.Validate(&t); err != nil {
							local[w] = append(local[w], Problem{where(pos), fmt.Sprintf("breaks the rules: %v", err)})
						}
						if p := game.Prize(&t); ok && p != stored {
							local[w] = append(local[w], Problem{where(pos), fmt.Sprintf("contents win %d €, the ledger says %d €", p, stored)})
						}
					}
					c.sums[k] = ph.Sum()
					if !bytes.Equal(c.sums[k][:], c.hashes[k]) {
						local[w] = append(local[w], Problem{packWhere(pack), fmt.Sprintf("pack hash does not match: a ticket of positions %d–%d was changed",
							pack*game.PackSize, (pack+1)*game.PackSize-1)})
					}
				}
				mu.Lock()
				for i, v := range cnt {
					counts[i] += v
				}
				finds = append(finds, fs...)
				mu.Unlock()
			})
		}
		wg.Wait()
		for _, ps := range local {
			for _, p := range ps {
				rep.add(p.Where, "%s", p.What)
			}
		}
		for k := range n {
			pack := int(c.ids[k] - b.firstPack)
			if pack != next {
				rep.add(packWhere(next), "missing: the next row is pack %d", pack)
				next = pack
			}
			digest.AddPack(&c.sums[k])
			next++
		}
		tickets += n * game.PackSize
		rep.Tickets += n * game.PackSize
		progress(tickets)
		free <- c
	}
	if err := <-readErr; err != nil {
		return err
	}
	if next != packs {
		rep.add(bw, "has %d pack rows, want %d", next, packs)
	}
	if got := hex.EncodeToString(func() []byte { s := digest.Sum(); return s[:] }()); got != b.Digest {
		rep.add(bw, "digest %s does not match the recorded %s: tickets were changed", got, b.Digest)
	}
	winners, payout := 0, 0
	for pb, n := range counts {
		if p, ok := prizeOf(byte(pb)); ok && p > 0 {
			winners += n
			payout += p * n
		}
	}
	for i, tier := range game.PrizeTable {
		if n := counts[i+1]; n != tier.Count {
			rep.add(bw, "%d tickets win %d €, the prize table says %d", n, tier.Prize, tier.Count)
		}
	}
	if winners != b.Winners || payout != b.Payout {
		rep.add(bw, "%d winners paying %d €, the block row says %d winners, %d €", winners, payout, b.Winners, b.Payout)
	}
	return verifyFinder(ctx, tx, b, finds, rep)
}

// verifyFinder compares block b's finder rows with the entries its stored
// winners make.
func verifyFinder(ctx context.Context, tx querier, b Block, want []uint64, rep *VerifyReport) error {
	slices.Sort(want)
	fw := fmt.Sprintf("block %s finder", b.Name())
	rows, err := queryRows(ctx, tx, "SELECT id - ?, entries FROM finder WHERE id >= ? AND id < ? ORDER BY id",
		finderID(b.ID, 0), finderID(b.ID, 0), finderID(b.ID+1, 0))
	if err != nil {
		return err
	}
	defer rows.Close()
	var got []uint64
	for rows.Next() {
		var first int64
		var blob sql.RawBytes
		if err := rows.Scan(&first, &blob); err != nil {
			return err
		}
		if len(blob) == 0 || len(blob)%finderEntry != 0 || int64(binary.BigEndian.Uint32(blob)) != first {
			rep.add(fw, "the row of key %d is damaged: %d bytes", first, len(blob))
			continue
		}
		for e := blob; len(e) > 0; e = e[finderEntry:] {
			got = append(got, findEntry(binary.BigEndian.Uint32(e), int(e[4])<<16|int(e[5])<<8|int(e[6])))
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if !slices.Equal(got, want) {
		rep.add(fw, "%d entries do not match the %d winning tickets: find by contents may miss tickets", len(got), len(want))
	}
	return nil
}

// verifyJournal recomputes the hash chain, checks every entry against the
// records it names, and replays the journal to the state it leads to:
// the tickets paid, the packs' states, the desks, the games' dates and the
// settings, which must be what the ledger keeps.
func verifyJournal(ctx context.Context, tx querier, rep *VerifyReport) error {
	var entries []entry
	if err := sel(ctx, tx, &entries, "SELECT "+entryCols+" FROM journal ORDER BY id"); err != nil {
		return err
	}
	all, err := listBlocks(ctx, tx)
	if err != nil {
		return err
	}
	st := newReplay(all)
	for i := range entries {
		st.apply(ctx, tx, &entries[i], rep)
	}
	for ticket, ids := range st.active {
		if len(ids) > 1 {
			rep.add(fmt.Sprintf("payment %d", st.numbers[ids[1]]), "pays ticket %d, already paid by payment %d and not voided", ticket, st.numbers[ids[0]])
		}
	}
	rep.Head = hex.EncodeToString(st.prev)
	for key, b := range st.blocks {
		if !st.seenBlock[key] {
			rep.add("block "+b.Name(), "no journal entry records its generation")
		}
	}
	return st.compare(ctx, tx, rep)
}
