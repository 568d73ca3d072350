package backoffice

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
	"time"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/core"
)

// Verify checks the ledger: for block number of game gameCode (number 0:
// every block of the game; gameCode 0 too: every block), it decodes,
// validates and re-evaluates every ticket against the rules and its stored
// prize, counts the prizes against the table, recomputes each pack's hash
// and the block's digest; then it recomputes the journal's hash chain and
// checks each claim against its ticket. Every mismatch is a Problem naming
// its row. progress may be nil.
func (o *Store) Verify(ctx context.Context, gameCode, number int, progress func(done, total int)) (core.VerifyReport, error) {
	var rep core.VerifyReport
	tx, err := o.E.Read(ctx)
	if err != nil {
		return rep, err
	}
	defer tx.Rollback()
	var blocks []core.Block
	if number != 0 {
		b, err := GetBlock(ctx, tx, gameCode, number)
		if err != nil {
			return rep, fmt.Errorf("verify: %w", err)
		}
		blocks = append(blocks, b)
	} else {
		all, err := ListBlocks(ctx, tx)
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
	if err := o.verifyJournal(ctx, tx, &rep); err != nil {
		return rep, fmt.Errorf("verify: %w", o.E.Classify(err))
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

// verifyBlock checks block b's tickets, chunk by chunk (readChunks),
// each chunk's packs in parallel (checkChunk), then the block as a whole:
// its packs in order, its digest, its prize table, its finder.
func verifyBlock(ctx context.Context, tx core.Querier, b core.Block, rep *core.VerifyReport, progress func(int)) error {
	bw := "block " + b.Name()
	packs := b.Tickets / game.PackSize
	if b.PackSize != game.PackSize || b.Tickets%game.PackSize != 0 {
		rep.Add(bw, "%d tickets in packs of %d, want packs of %d", b.Tickets, b.PackSize, game.PackSize)
	}
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	chunks, free, readErr := readChunks(rctx, tx, b, packs)
	var tally blockTally
	digest := game.NewDigest(b.Game, b.Number)
	next := 0 // expected pack
	tickets := 0
	for c := range chunks {
		for _, p := range tally.checkChunk(b, c) {
			rep.Add(p.Where, "%s", p.What)
		}
		for k := range c.ids {
			pack := int(c.ids[k] - b.FirstPack)
			if pack != next {
				rep.Add(packWhere(b, next), "missing: the next row is pack %d", pack)
				next = pack
			}
			digest.AddPack(&c.sums[k])
			next++
		}
		tickets += len(c.ids) * game.PackSize
		rep.Tickets += len(c.ids) * game.PackSize
		progress(tickets)
		free <- c
	}
	if err := <-readErr; err != nil {
		return err
	}
	if next != packs {
		rep.Add(bw, "has %d pack rows, want %d", next, packs)
	}
	if got := hex.EncodeToString(func() []byte { s := digest.Sum(); return s[:] }()); got != b.Digest {
		rep.Add(bw, "digest %s does not match the recorded %s: tickets were changed", got, b.Digest)
	}
	tally.checkTable(b, rep)
	return verifyFinder(ctx, tx, b, tally.finds, rep)
}

func packWhere(b core.Block, pack int) string { return fmt.Sprintf("block %s pack %d", b.Name(), pack) }

// readChunks reads block b's pack rows in chunks of vchunkPacks, in a
// goroutine, into the chunks free gives back; the error ends it.
func readChunks(ctx context.Context, tx core.Querier, b core.Block, packs int) (<-chan *vchunk, chan<- *vchunk, <-chan error) {
	chunks := make(chan *vchunk, 2)
	free := make(chan *vchunk, 3)
	for range 3 {
		free <- &vchunk{sums: make([][32]byte, vchunkPacks)}
	}
	readErr := make(chan error, 1)
	go func() {
		defer close(chunks)
		rows, err := core.Query(ctx, tx, "SELECT id, hash, prizes, codes FROM packs WHERE id >= ? AND id < ? ORDER BY id",
			b.FirstPack, b.FirstPack+int64(packs))
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
				case <-ctx.Done():
					readErr <- ctx.Err()
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
	return chunks, free, readErr
}

// blockTally is what a block's tickets add up to: the tickets by prize
// byte, and the finder entries its winners make.
type blockTally struct {
	mu     sync.Mutex
	counts [256]int
	finds  []uint64
}

// checkChunk checks the packs of chunk c, a share of them per worker, and
// returns the problems found (c.sums gets each pack's hash).
func (tl *blockTally) checkChunk(b core.Block, c *vchunk) []core.Problem {
	workers := runtime.GOMAXPROCS(0)
	n := len(c.ids)
	var wg sync.WaitGroup
	local := make([][]core.Problem, workers)
	for w := range workers {
		lo, hi := w*n/workers, (w+1)*n/workers
		wg.Go(func() { local[w] = tl.checkPacks(b, c, lo, hi) })
	}
	wg.Wait()
	return slices.Concat(local...)
}

// checkPacks checks packs lo … hi-1 of chunk c: each ticket decoded,
// valid, winning what its prize byte says; each pack's hash.
func (tl *blockTally) checkPacks(b core.Block, c *vchunk, lo, hi int) []core.Problem {
	var out []core.Problem
	add := func(where, format string, args ...any) {
		out = append(out, core.Problem{Where: where, What: fmt.Sprintf(format, args...)})
	}
	where := func(pos int) string { return fmt.Sprintf("block %s ticket %d", b.Name(), pos) }
	var cnt [256]int
	var fs []uint64
	ph := game.NewPackHasher()
	var code, zero [game.EncodedSize]byte
	for k := lo; k < hi; k++ {
		pack := int(c.ids[k] - b.FirstPack)
		codes, prizes := c.codes[k], c.prizes[k]
		if len(codes) != core.PackCodesSize || len(prizes) != game.PackSize {
			add(packWhere(b, pack), "holds %d bytes of codes and %d prize bytes, want %d and %d", len(codes), len(prizes), core.PackCodesSize, game.PackSize)
		}
		for i := range game.PackSize {
			pos := pack*game.PackSize + i
			code = zero
			if (i+1)*game.EncodedSize <= len(codes) {
				copy(code[:], codes[i*game.EncodedSize:])
			}
			ph.Add(b.Key.Secret(pos), &code)
			if i >= len(prizes) || (i+1)*game.EncodedSize > len(codes) {
				continue
			}
			pb := prizes[i]
			cnt[pb]++
			stored, ok := core.PrizeOf(pb)
			if !ok {
				add(where(pos), "prize byte %d is not a tier of the prize table", pb)
			}
			if pb != 0 {
				fs = append(fs, findEntry(FindKey(code[:]), pos))
			}
			t, err := game.Decode(code[:])
			if err != nil {
				add(where(pos), "does not decode: %v", err)
				continue
			}
			if err := game.Validate(&t); err != nil {
				add(where(pos), "breaks the rules: %v", err)
			}
			if p := game.Prize(&t); ok && p != stored {
				add(where(pos), "contents win %d €, the ledger says %d €", p, stored)
			}
		}
		c.sums[k] = ph.Sum()
		if !bytes.Equal(c.sums[k][:], c.hashes[k]) {
			add(packWhere(b, pack), "pack hash does not match: a ticket of positions %d–%d was changed", pack*game.PackSize, (pack+1)*game.PackSize-1)
		}
	}
	tl.mu.Lock()
	for i, v := range cnt {
		tl.counts[i] += v
	}
	tl.finds = append(tl.finds, fs...)
	tl.mu.Unlock()
	return out
}

// checkTable checks the block's prizes against the prize table and its
// row.
func (tl *blockTally) checkTable(b core.Block, rep *core.VerifyReport) {
	bw := "block " + b.Name()
	winners, payout := 0, 0
	for pb, n := range tl.counts {
		if p, ok := core.PrizeOf(byte(pb)); ok && p > 0 {
			winners += n
			payout += p * n
		}
	}
	for i, tier := range game.PrizeTable {
		if n := tl.counts[i+1]; n != tier.Count {
			rep.Add(bw, "%d tickets win %d €, the prize table says %d", n, tier.Prize, tier.Count)
		}
	}
	if winners != b.Winners || payout != b.Payout {
		rep.Add(bw, "%d winners paying %d €, the block row says %d winners, %d €", winners, payout, b.Winners, b.Payout)
	}
}

// verifyFinder compares block b's finder rows with the entries its stored
// winners make.
func verifyFinder(ctx context.Context, tx core.Querier, b core.Block, want []uint64, rep *core.VerifyReport) error {
	slices.Sort(want)
	fw := fmt.Sprintf("block %s finder", b.Name())
	rows, err := core.Query(ctx, tx, "SELECT id - ?, entries FROM finder WHERE id >= ? AND id < ? ORDER BY id",
		core.FinderID(b.ID, 0), core.FinderID(b.ID, 0), core.FinderID(b.ID+1, 0))
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
			rep.Add(fw, "the row of key %d is damaged: %d bytes", first, len(blob))
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
		rep.Add(fw, "%d entries do not match the %d winning tickets: find by contents may miss tickets", len(got), len(want))
	}
	return nil
}

// verifyJournal recomputes the hash chain, checks every entry against the
// records it names, and replays the journal to the state it leads to:
// the tickets paid, the packs' states, the desks, the games' dates and the
// settings, which must be what the ledger keeps, stored as the ledger
// writes them.
func (o *Store) verifyJournal(ctx context.Context, tx core.Querier, rep *core.VerifyReport) error {
	var entries []core.Entry
	if err := core.Select(ctx, tx, &entries, "SELECT "+core.EntryCols+" FROM journal ORDER BY id"); err != nil {
		return err
	}
	all, err := ListBlocks(ctx, tx)
	if err != nil {
		return err
	}
	st := core.NewReplay(all, prizes{ctx, tx})
	for i := range entries {
		st.Apply(&entries[i], rep)
	}
	waiting, oldest, err := o.E.Waiting(ctx, tx)
	if err != nil {
		return err
	}
	for i := range waiting {
		st.ApplyWaiting(&waiting[i], rep)
	}
	rep.Waiting = len(waiting)
	if len(waiting) > 0 && time.Since(oldest) > core.MaxWaiting {
		rep.Add("journal", "%d entries wait to be chained, the oldest since %s (more than %s): the chain is held up; find what holds the chainer's lock",
			len(waiting), oldest.Local().Format("2006-01-02 15:04:05"), core.MaxWaiting)
	}
	st.Finish(rep)
	kept, err := readKept(ctx, tx, o.E.Paid())
	if err != nil {
		return err
	}
	st.Compare(kept, rep)
	if err := CheckIdentities(ctx, tx, rep, func(d string) string { return d }, false); err != nil {
		return err
	}
	if err := checkSkeletons(ctx, tx, rep); err != nil {
		return err
	}
	ps, err := o.E.Storage(ctx, tx, false, core.MaxProblems)
	for _, p := range ps {
		rep.Add(p.Where, "%s", p.What)
	}
	return err
}

// VerifyJournal is Verify without the blocks' tickets: the journal and
// what the ledger keeps (the tests of the journal, which need no more).
func (o *Store) VerifyJournal(ctx context.Context) (core.VerifyReport, error) {
	var rep core.VerifyReport
	tx, err := o.E.Read(ctx)
	if err != nil {
		return rep, err
	}
	defer tx.Rollback()
	return rep, o.E.Classify(o.verifyJournal(ctx, tx, &rep))
}

// readKept reads what the ledger keeps beside its journal, its paid rows
// from paidRows (Engine.Paid).
func readKept(ctx context.Context, q core.Querier, paidRows string) (core.Kept, error) {
	k := core.Kept{Paid: map[int64]int64{}, Games: map[int]core.Dates{}, Settings: map[string]string{}}
	var paid []struct {
		Ticket int64 `db:"ticket"`
		Claim  int64 `db:"claim"`
	}
	if err := core.Select(ctx, q, &paid, "SELECT ticket, claim FROM "+paidRows+" p"); err != nil {
		return k, err
	}
	for _, p := range paid {
		k.Paid[p.Ticket] = p.Claim
	}
	if err := core.Select(ctx, q, &k.Packs, "SELECT block, pack, state, desk, entry FROM pack_states"); err != nil {
		return k, err
	}
	if err := core.Select(ctx, q, &k.Desks, "SELECT id, payout_limit, disabled, locked_until, unlocked_at FROM desks"); err != nil {
		return k, err
	}
	certs, err := deskCerts(ctx, q)
	if err != nil {
		return k, err
	}
	k.Certs = map[core.DeskCertKey]string{}
	for _, c := range certs {
		k.Certs[core.DeskCertKey{Desk: c.Desk, Serial: c.Serial}] = c.NotAfter
	}
	var games []struct {
		Code int `db:"code"`
		core.Dates
	}
	if err := core.Select(ctx, q, &games, "SELECT code, on_sale, end_of_sale, deadline FROM games"); err != nil {
		return k, err
	}
	for _, g := range games {
		k.Games[g.Code] = g.Dates
	}
	var settings []struct {
		Key   string `db:"key"`
		Value string `db:"value"`
	}
	if err := core.Select(ctx, q, &settings, "SELECT key, value FROM settings"); err != nil {
		return k, err
	}
	for _, s := range settings {
		k.Settings[s.Key] = s.Value
	}
	return k, nil
}

// checkSkeletons reports the identities whose kept skeleton is not their
// name's (core.NameSkeleton): look-alikes would no longer meet. The key
// before issue 44 (core.LegacyNameSkeleton), which the identities kept
// then hold, is their name's too: readers give the key of now
// (Store.Identities).
func checkSkeletons(ctx context.Context, q core.Querier, rep *core.VerifyReport) error {
	var rows []struct {
		Claim    int64  `db:"claim"`
		Name     string `db:"name"`
		Skeleton string `db:"skeleton"`
	}
	if err := core.Select(ctx, q, &rows, "SELECT claim, name, skeleton FROM identities ORDER BY claim"); err != nil {
		return err
	}
	for _, r := range rows {
		if want := core.NameSkeleton(r.Name); r.Skeleton != want && r.Skeleton != core.LegacyNameSkeleton(r.Name) {
			rep.Add(fmt.Sprintf("journal entry %d", r.Claim), "keeps the skeleton %q beside the winner's name, whose skeleton is %q", r.Skeleton, want)
		}
	}
	return nil
}

// CheckIdentities reports the winners' identities that are not what a
// payment recorded: blank (a payment from the identity threshold that
// names nobody), kept for an entry that is no payment, or other than the
// identity its entry hashed (identityOf reads that hash from the entry's
// detail). A back office's payment can hash an identity it does not keep
// (an import flagged identity-missing); a counter's cannot (all true).
func CheckIdentities(ctx context.Context, q core.Querier, rep *core.VerifyReport, identityOf func(detail string) string, all bool) error {
	var rows []struct {
		Claim     int64          `db:"claim"`
		Name      sql.NullString `db:"name"`
		DocType   string         `db:"doc_type"`
		DocNumber string         `db:"doc_number"`
		Kind      string         `db:"kind"`
		Detail    string         `db:"detail"`
	}
	// Both ways round: every identity with its entry, and (all) every
	// payment with its identity.
	query := `SELECT i.claim, i.name, i.doc_type, i.doc_number, coalesce(j.kind, '') AS kind, coalesce(j.detail, '') AS detail
		FROM identities i LEFT JOIN journal j ON j.id = i.claim`
	if all {
		query += ` UNION ALL SELECT j.id, NULL, '', '', j.kind, j.detail FROM journal j
		WHERE j.kind = 'claim' AND NOT EXISTS (SELECT 1 FROM identities i WHERE i.claim = j.id)`
	}
	if err := core.Select(ctx, q, &rows, query+" ORDER BY 1"); err != nil {
		return err
	}
	for _, r := range rows {
		where := fmt.Sprintf("journal entry %d", r.Claim)
		w := core.Winner{Name: r.Name.String, DocType: r.DocType, DocNumber: r.DocNumber}
		switch hash := identityOf(r.Detail); {
		case !r.Name.Valid:
			if hash != "" {
				rep.Add(where, "pays a winner whose identity the ledger does not keep")
			}
		case r.Kind != "claim":
			rep.Add(where, "keeps a winner's identity, but it is no payment")
		case w.Legible() != nil:
			rep.Add(where, "records a winner's identity that is blank or invisible (%q, %q, %q: %v)", w.Name, w.DocType, w.DocNumber, w.Legible())
		case core.IdentityHash(&w) != hash:
			rep.Add(where, "keeps a winner's identity other than the one the payment recorded")
		}
	}
	return nil
}
