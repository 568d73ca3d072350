package ledger

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"runtime"
	"sync"

	"github.com/jmoiron/sqlx"

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
		all, err := l.blocksTx(ctx, tx)
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
		return rep, fmt.Errorf("verify journal: %w", err)
	}
	return rep, nil
}

func (l *Ledger) blocksTx(ctx context.Context, tx *sqlx.Tx) ([]Block, error) {
	var rows []blockRow
	if err := tx.SelectContext(ctx, &rows, "SELECT "+blockCols+" FROM blocks ORDER BY game, number"); err != nil {
		return nil, err
	}
	out := make([]Block, len(rows))
	for i := range rows {
		out[i] = rows[i].block()
	}
	return out, nil
}

// vchunk is a run of consecutive ticket rows.
type vchunk struct {
	ids     []int64
	prizes  []int
	codes   [][game.EncodedSize]byte
	lens    []int // code length as stored
	secrets []int
}

const vchunkSize = 8000

func verifyBlock(ctx context.Context, tx *sqlx.Tx, b Block, rep *VerifyReport, progress func(int)) error {
	where := func(pos int) string { return fmt.Sprintf("block %s ticket %d", b.Name(), pos) }
	packHashes := map[int][]byte{}
	rows, err := tx.QueryContext(ctx, "SELECT pack, hash FROM packs WHERE block = ?", b.ID)
	if err != nil {
		return err
	}
	for rows.Next() {
		var p int
		var h []byte
		if err := rows.Scan(&p, &h); err != nil {
			rows.Close()
			return err
		}
		packHashes[p] = h
	}
	rows.Close()

	// A reader goroutine fills chunks while the workers check the last one.
	chunks := make(chan *vchunk, 2)
	free := make(chan *vchunk, 3)
	for range 3 {
		free <- &vchunk{ids: make([]int64, 0, vchunkSize), prizes: make([]int, 0, vchunkSize),
			codes: make([][game.EncodedSize]byte, 0, vchunkSize), lens: make([]int, 0, vchunkSize),
			secrets: make([]int, vchunkSize)}
	}
	readErr := make(chan error, 1)
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		defer close(chunks)
		rows, err := tx.QueryContext(rctx, "SELECT id, prize, code FROM tickets WHERE id >= ? AND id < ? ORDER BY id",
			b.first, b.first+int64(b.Tickets))
		if err != nil {
			readErr <- err
			return
		}
		defer rows.Close()
		var c *vchunk
		var code sql.RawBytes
		for rows.Next() {
			if c == nil {
				select {
				case c = <-free:
				case <-rctx.Done():
					readErr <- rctx.Err()
					return
				}
				c.ids, c.prizes, c.codes, c.lens = c.ids[:0], c.prizes[:0], c.codes[:0], c.lens[:0]
			}
			var id int64
			var prize int
			if err := rows.Scan(&id, &prize, &code); err != nil {
				readErr <- err
				return
			}
			var fixed [game.EncodedSize]byte
			copy(fixed[:], code)
			c.ids, c.prizes, c.codes, c.lens = append(c.ids, id), append(c.prizes, prize), append(c.codes, fixed), append(c.lens, len(code))
			if len(c.ids) == vchunkSize {
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
	counts := map[int]int{}
	var mu sync.Mutex
	digest := game.NewDigest(b.Game, b.Number)
	h := sha256.New()
	var sec [4]byte
	next := 0 // expected position
	for c := range chunks {
		n := len(c.ids)
		var wg sync.WaitGroup
		local := make([][]Problem, workers)
		for w := range workers {
			lo, hi := w*n/workers, (w+1)*n/workers
			wg.Go(func() {
				cnt := map[int]int{}
				for i := lo; i < hi; i++ {
					pos := int(c.ids[i] - b.first)
					c.secrets[i] = b.key.Secret(pos)
					if c.lens[i] != game.EncodedSize {
						local[w] = append(local[w], Problem{where(pos), fmt.Sprintf("encoding is %d bytes, want %d", c.lens[i], game.EncodedSize)})
						continue
					}
					t, err := game.Decode(c.codes[i][:])
					if err != nil {
						local[w] = append(local[w], Problem{where(pos), fmt.Sprintf("does not decode: %v", err)})
						continue
					}
					if err := game.Validate(&t); err != nil {
						local[w] = append(local[w], Problem{where(pos), fmt.Sprintf("breaks the rules: %v", err)})
					}
					p := game.Prize(&t)
					if p != c.prizes[i] {
						local[w] = append(local[w], Problem{where(pos), fmt.Sprintf("contents win %d €, the ledger says %d €", p, c.prizes[i])})
					}
					cnt[c.prizes[i]]++
				}
				mu.Lock()
				for k, v := range cnt {
					counts[k] += v
				}
				mu.Unlock()
			})
		}
		wg.Wait()
		for _, ps := range local {
			for _, p := range ps {
				rep.add(p.Where, "%s", p.What)
			}
		}
		for i := range n {
			pos := int(c.ids[i] - b.first)
			if pos != next {
				rep.add(where(next), "missing: the next row is ticket %d", pos)
				next = pos
			}
			digest.Add(c.secrets[i], &c.codes[i])
			binary.BigEndian.PutUint32(sec[:], uint32(c.secrets[i]))
			h.Write(sec[:])
			h.Write(c.codes[i][:])
			if pos%game.PackSize == game.PackSize-1 {
				pack := pos / game.PackSize
				if sum := h.Sum(nil); !bytes.Equal(sum, packHashes[pack]) {
					rep.add(fmt.Sprintf("block %s pack %d", b.Name(), pack), "pack hash does not match: a ticket of positions %d–%d was changed", pack*game.PackSize, pos)
				}
				h.Reset()
			}
			next++
		}
		rep.Tickets += n
		progress(next)
		free <- c
	}
	if err := <-readErr; err != nil {
		return err
	}
	bw := "block " + b.Name()
	if next != b.Tickets {
		rep.add(bw, "has %d ticket rows, want %d", next, b.Tickets)
	}
	if got := hex.EncodeToString(func() []byte { s := digest.Sum(); return s[:] }()); got != b.Digest {
		rep.add(bw, "digest %s does not match the recorded %s: tickets were changed", got, b.Digest)
	}
	winners, payout := 0, 0
	for p, n := range counts {
		if p > 0 {
			winners += n
			payout += p * n
		}
	}
	for _, tier := range game.PrizeTable {
		if counts[tier.Prize] != tier.Count {
			rep.add(bw, "%d tickets win %d €, the prize table says %d", counts[tier.Prize], tier.Prize, tier.Count)
		}
	}
	if winners != b.Winners || payout != b.Payout {
		rep.add(bw, "%d winners paying %d €, the block row says %d winners, %d €", winners, payout, b.Winners, b.Payout)
	}
	return nil
}

func verifyJournal(ctx context.Context, tx *sqlx.Tx, rep *VerifyReport) error {
	var entries []entry
	if err := tx.SelectContext(ctx, &entries, "SELECT "+entryCols+" FROM journal ORDER BY id"); err != nil {
		return err
	}
	blocks := map[[2]int]Block{}
	var rows []blockRow
	if err := tx.SelectContext(ctx, &rows, "SELECT "+blockCols+" FROM blocks"); err != nil {
		return err
	}
	for i := range rows {
		b := rows[i].block()
		blocks[[2]int{b.Game, b.Number}] = b
	}
	seenBlock := map[[2]int]bool{}
	kinds := map[int64]string{}
	var prev []byte
	for i := range entries {
		e := &entries[i]
		rep.Entries++
		where := fmt.Sprintf("journal entry %d", e.ID)
		if e.Kind == "claim" {
			where = fmt.Sprintf("claim %d", e.ID)
		}
		if want := int64(i + 1); e.ID != want {
			rep.add(fmt.Sprintf("journal entry %d", want), "missing: the next entry is %d", e.ID)
		}
		if !bytes.Equal(e.hash(prev), e.Hash) {
			rep.add(where, "hash does not match its contents and the previous entry: the entry or the one before it was changed")
		}
		prev = e.Hash
		kinds[e.ID] = e.Kind
		key := [2]int{e.Game, e.Block}
		switch e.Kind {
		case "block":
			b, ok := blocks[key]
			switch {
			case !ok:
				rep.add(where, "records block %d/%d, which the ledger does not hold", e.Game, e.Block)
			case b.Digest != e.Detail:
				rep.add("block "+b.Name(), "digest %s differs from the one recorded in journal entry %d (%s)", b.Digest, e.ID, e.Detail)
			}
			seenBlock[key] = true
		case "claim":
			b, ok := blocks[key]
			if !ok {
				rep.add(where, "pays a ticket of block %d/%d, which the ledger does not hold", e.Game, e.Block)
				continue
			}
			s := game.Serial{Game: b.Game, Block: b.Number, Position: e.Position}
			if e.Position >= 0 && e.Position < b.Tickets {
				s.Secret = b.key.Secret(e.Position)
			}
			if s.String() != e.Serial || !e.Ticket.Valid || e.Ticket.Int64 != b.first+int64(e.Position) {
				rep.add(where, "serial %s and ticket row do not name ticket %d of block %s", e.Serial, e.Position, b.Name())
				continue
			}
			var prize int
			if err := tx.GetContext(ctx, &prize, "SELECT prize FROM tickets WHERE id = ?", e.Ticket.Int64); err != nil {
				rep.add(where, "its ticket row cannot be read: %v", err)
				continue
			}
			if prize == 0 || prize != e.Amount {
				rep.add(where, "paid %d €, the ticket wins %d €", e.Amount, prize)
			}
		case "void":
			if !e.Claim.Valid || kinds[e.Claim.Int64] != "claim" {
				rep.add(where, "voids entry %d, which is not an earlier claim", e.Claim.Int64)
			}
		}
	}
	for key, b := range blocks {
		if !seenBlock[key] {
			rep.add("block "+b.Name(), "no journal entry records its generation")
		}
	}
	return nil
}
