package game

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	mrand "math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// PackSize is the number of tickets in a pack, the unit a retailer receives
// and sells. It divides BlockSize: a block holds 10,000 packs. Every pack
// holds PackWinnersMin or PackWinnersMax winners.
const (
	PackSize       = 200
	Packs          = BlockSize / PackSize
	PackWinnersMin = Winners / Packs
	PackWinnersMax = PackWinnersMin + 1
)

// ChunkSize is the number of tickets handed to a GenerateBlock callback at
// once (the last batch of a block is never shorter).
const ChunkSize = 4000

// Seed is the 256-bit secret from which a block is generated.
type Seed [32]byte

// NewSeed draws a seed from crypto/rand.
func NewSeed() (Seed, error) {
	var s Seed
	_, err := rand.Read(s[:])
	return s, err
}

// ParseSeed reads a seed written as 64 hexadecimal digits (spaces ignored).
func ParseSeed(s string) (Seed, error) {
	var seed Seed
	h := strings.ReplaceAll(strings.TrimSpace(s), " ", "")
	b, err := hex.DecodeString(h)
	if err != nil || len(b) != len(seed) {
		return seed, fmt.Errorf("seed %q: give %d hexadecimal digits (256 bits)", s, 2*len(seed))
	}
	copy(seed[:], b)
	return seed, nil
}

// String writes the seed as 64 hexadecimal digits.
func (s Seed) String() string { return hex.EncodeToString(s[:]) }

// derive returns SHA-256(seed ‖ label ‖ n as 8 bytes big-endian): the
// independent sub-seeds of one block.
func (s *Seed) derive(label string, n uint64) [32]byte {
	h := sha256.New()
	h.Write(s[:])
	h.Write([]byte(label))
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], n)
	h.Write(b[:])
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// SerialKey derives the block's key for the secret parts of its serials.
func (s *Seed) SerialKey() SerialKey { return SerialKey(s.derive("vegas-desk/serial-key", 0)) }

// Spec says which block to generate.
type Spec struct {
	Game  int // game code, MinGameCode..MaxGameCode
	Block int // 1..MaxBlock
	Seed  Seed
}

// Generated is one ticket of a generated block.
type Generated struct {
	Position int
	Secret   int64
	Prize    int
	Ticket   Ticket
	Code     [EncodedSize]byte // Encode(&Ticket)
}

// Serial returns the ticket's serial.
func (g *Generated) Serial(game, block int) Serial {
	return Serial{Game: game, Block: block, Position: g.Position, Secret: g.Secret}
}

// Batch is a run of whole packs of a block, in block order.
type Batch struct {
	Tickets []Generated
	Packs   [][32]byte // PackHash of each pack of the batch
}

// Result sums up a generated block.
type Result struct {
	Digest  [32]byte
	Key     SerialKey
	Tickets int
	Winners int
	Payout  int
}

// PackHasher computes a pack hash: SHA-256 over the canonical bytes of the
// pack's tickets in order, each its secret part (8 bytes big-endian) and its
// 14-byte compact encoding.
type PackHasher struct {
	// The pack's bytes, hashed at once by Sum: SHA-256 over a pack's 4,400
	// bytes in one call costs half what 200 writes of 22 bytes did (verify
	// hashes every pack of a block).
	buf []byte
}

// NewPackHasher returns a PackHasher for a first pack.
func NewPackHasher() *PackHasher { return &PackHasher{buf: make([]byte, 0, PackSize*(8+EncodedSize))} }

// Add appends the next ticket of the pack.
func (p *PackHasher) Add(secret int64, code *[EncodedSize]byte) {
	p.buf = binary.BigEndian.AppendUint64(p.buf, uint64(secret))
	p.buf = append(p.buf, code[:]...)
}

// Sum returns the pack's hash and starts the next pack.
func (p *PackHasher) Sum() [32]byte {
	out := sha256.Sum256(p.buf)
	p.buf = p.buf[:0]
	return out
}

// Digest computes a block digest: SHA-256 over "VEGAS-BLOCK-3", the game
// code (2 bytes big-endian), the block number (4 bytes big-endian) and then
// the hash of each of the block's packs in order (see PackHasher). Every
// ticket's secret part and encoding is thus in the digest, and a verifier
// can name the pack of a changed ticket.
type Digest struct{ h hash.Hash }

// NewDigest starts the digest of a block.
func NewDigest(game, block int) *Digest {
	d := &Digest{sha256.New()}
	var hdr [13 + 2 + 4]byte
	copy(hdr[:], "VEGAS-BLOCK-3")
	binary.BigEndian.PutUint16(hdr[13:], uint16(game))
	binary.BigEndian.PutUint32(hdr[15:], uint32(block))
	d.h.Write(hdr[:])
	return d
}

// AddPack appends the hash of the next pack of the block.
func (d *Digest) AddPack(sum *[32]byte) { d.h.Write(sum[:]) }

// Sum returns the digest.
func (d *Digest) Sum() (out [32]byte) {
	d.h.Sum(out[:0])
	return out
}

// Check reports whether the spec names a block that can exist.
func (s Spec) Check() error {
	if s.Game < MinGameCode || s.Game > MaxGameCode {
		return fmt.Errorf("game code %d: give %d to %d", s.Game, MinGameCode, MaxGameCode)
	}
	if s.Block < 1 || s.Block > MaxBlock {
		return fmt.Errorf("block %d: give 1 to %d", s.Block, MaxBlock)
	}
	return nil
}

// Plan returns the way (an index in Catalogue) of every position of the
// block the seed makes. Winners are dealt so that each pack holds
// PackWinnersMin or PackWinnersMax of them, at shuffled places, with the
// prizes shuffled across the whole block.
func Plan(seed *Seed) []uint16 {
	rng := mrand.New(mrand.NewChaCha8(seed.derive("vegas-desk/plan", 0)))
	winners := make([]uint16, 0, Winners)
	for i, w := range Catalogue[1:] {
		for range w.Count {
			winners = append(winners, uint16(i+1))
		}
	}
	rng.Shuffle(len(winners), func(i, j int) { winners[i], winners[j] = winners[j], winners[i] })
	// Which packs hold one winner more than the others.
	packs := rng.Perm(Packs)
	extra := make([]bool, Packs)
	for _, p := range packs[:Winners%Packs] {
		extra[p] = true
	}
	plan := make([]uint16, BlockSize)
	var slots [PackSize]int
	next := 0
	for p := range Packs {
		n := PackWinnersMin
		if extra[p] {
			n++
		}
		for i := range slots {
			slots[i] = i
		}
		for i := range n { // partial Fisher–Yates: n random places in the pack
			j := i + rng.IntN(PackSize-i)
			slots[i], slots[j] = slots[j], slots[i]
			plan[p*PackSize+slots[i]] = winners[next]
			next++
		}
	}
	return plan
}

// ErrCancelled is returned by GenerateBlock when its context ends.
var ErrCancelled = errors.New("generation cancelled")

// GenerateBlock generates the block of spec and hands its tickets to emit in
// block order, in batches of ChunkSize tickets (whole packs) with their pack
// hashes. emit may keep nothing of the batch after it returns; an error from
// emit stops the generation and is returned. Both cores are used: tickets are made in parallel chunks, each
// from its own ChaCha8 stream derived from the seed, so the block is the
// same whatever the number of workers.
func GenerateBlock(ctx context.Context, spec Spec, emit func(b *Batch) error) (Result, error) {
	if err := spec.Check(); err != nil {
		return Result{}, err
	}
	res := Result{Key: spec.Seed.SerialKey()}
	plan := Plan(&spec.Seed)
	const chunks = BlockSize / ChunkSize
	workers := runtime.GOMAXPROCS(0)

	ctx, cancel := context.WithCancel(ctx)
	type job struct {
		chunk int
		out   chan *Batch
	}
	jobs := make(chan job)
	futures := make(chan chan *Batch, 2*workers)
	free := make(chan *Batch, 3*workers+1)
	var wg sync.WaitGroup
	wg.Add(workers + 1)
	go func() { // dispatcher: one future per chunk, in order
		defer wg.Done()
		defer close(jobs)
		defer close(futures)
		for c := range chunks {
			out := make(chan *Batch, 1)
			select {
			case futures <- out:
			case <-ctx.Done():
				return
			}
			select {
			case jobs <- job{c, out}:
			case <-ctx.Done():
				return
			}
		}
	}()
	for range workers {
		go func() {
			defer wg.Done()
			ph := NewPackHasher()
			for j := range jobs {
				var b *Batch
				select {
				case b = <-free:
				default:
					b = &Batch{Tickets: make([]Generated, ChunkSize), Packs: make([][32]byte, ChunkSize/PackSize)}
				}
				makeChunk(&spec.Seed, &res.Key, ph, plan, j.chunk, b)
				j.out <- b
			}
		}()
	}
	defer func() { cancel(); wg.Wait() }() // no goroutine outlives the call

	digest := NewDigest(spec.Game, spec.Block)
	for out := range futures {
		var b *Batch
		select {
		case b = <-out:
		case <-ctx.Done():
			return Result{}, fmt.Errorf("%w: %w", ErrCancelled, context.Cause(ctx))
		}
		if err := ctx.Err(); err != nil { // a cancel stops every emit after it
			return Result{}, fmt.Errorf("%w: %w", ErrCancelled, context.Cause(ctx))
		}
		for i := range b.Packs {
			digest.AddPack(&b.Packs[i])
		}
		for i := range b.Tickets {
			if p := b.Tickets[i].Prize; p > 0 {
				res.Winners++
				res.Payout += p
			}
		}
		if err := emit(b); err != nil {
			return Result{}, err
		}
		res.Tickets += len(b.Tickets)
		select {
		case free <- b:
		default:
		}
	}
	if err := ctx.Err(); err != nil {
		return Result{}, fmt.Errorf("%w: %w", ErrCancelled, err)
	}
	res.Digest = digest.Sum()
	if res.Tickets != BlockSize || res.Winners != Winners || res.Payout != Payout {
		return Result{}, fmt.Errorf("internal error: block has %d tickets, %d winners, %d €", res.Tickets, res.Winners, res.Payout)
	}
	return res, nil
}

// makeChunk fills b with the tickets of one chunk and their pack hashes.
func makeChunk(seed *Seed, key *SerialKey, ph *PackHasher, plan []uint16, chunk int, b *Batch) {
	rng := NewRand(seed.derive("vegas-desk/tickets", uint64(chunk)))
	base := chunk * ChunkSize
	for i := range b.Tickets {
		g := &b.Tickets[i]
		pos := base + i
		w := &Catalogue[plan[pos]]
		g.Position = pos
		g.Secret = key.Secret(pos)
		g.Prize = w.Prize
		Build(rng, w, &g.Ticket)
		g.Code = Encode(&g.Ticket)
		ph.Add(g.Secret, &g.Code)
		if i%PackSize == PackSize-1 {
			b.Packs[i/PackSize] = ph.Sum()
		}
	}
}

// decoyAmounts weights the amounts shown on losing zones: mostly small,
// sometimes big (the ticket must look like it could have won).
var decoyAmounts = func() []int {
	weights := [8]int{22, 20, 16, 14, 12, 8, 5, 3}
	var out []int
	for i, w := range weights {
		for range w {
			out = append(out, Amounts[i])
		}
	}
	return out
}()

func decoy(r *Rand) int { return decoyAmounts[r.IntN(len(decoyAmounts))] }

// Rand draws the small uniform integers a ticket is made of from a ChaCha8
// stream, two 32-bit draws per 64-bit output, each exactly uniform
// (Lemire's multiply-and-reject method).
type Rand struct {
	src  mrand.ChaCha8
	buf  uint64
	half bool
}

// NewRand returns a Rand on the ChaCha8 stream of seed.
func NewRand(seed [32]byte) *Rand {
	r := &Rand{}
	r.src.Seed(seed)
	return r
}

func (r *Rand) uint32() uint32 {
	if r.half {
		r.half = false
		return uint32(r.buf >> 32)
	}
	r.buf = r.src.Uint64()
	r.half = true
	return uint32(r.buf)
}

// IntN returns a uniform integer in [0, n), 0 < n < 2^32.
func (r *Rand) IntN(n int) int {
	bound := uint32(n)
	m := uint64(r.uint32()) * uint64(bound)
	if uint32(m) < bound {
		thresh := -bound % bound
		for uint32(m) < thresh {
			m = uint64(r.uint32()) * uint64(bound)
		}
	}
	return int(m >> 32)
}

// perm3 are the six orders of three things.
var perm3 = [6][3]int{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}

// amounts splits a way's winning zones by surface: the amounts of its
// winning roulette chips and jackpot lines, and of its craps, duel and
// bonus (0: that surface loses).
func (w *Way) amounts() (roul []int, craps, duel int, jack []int, bonus int) {
	for _, p := range w.Parts {
		switch p.Surface {
		case Roulette:
			roul = append(roul, p.Amount)
		case Craps:
			craps = p.Amount
		case Duel:
			duel = p.Amount
		case Jackpot:
			jack = append(jack, p.Amount)
		case Bonus:
			bonus = p.Amount
		}
	}
	return roul, craps, duel, jack, bonus
}

// Build fills t with a random ticket that wins exactly the parts of w, and
// loses on every other zone with realistic decoys.
func Build(r *Rand, w *Way, t *Ticket) {
	roul, craps, duel, jack, bonus := w.amounts()
	buildRoulette(r, roul, &t.Roulette)
	buildCraps(r, craps, &t.Craps)
	buildDuel(r, duel, &t.Duel)
	buildJackpot(r, jack, &t.Jackpot)
	t.Bonus = bonus
}

func buildRoulette(r *Rand, wins []int, s *RouletteSurface) {
	// The first 4 of a shuffled list win; bets draw from them and from the rest.
	nums := RouletteNumbers
	for i := range 4 + 3 {
		j := i + r.IntN(len(nums)-i)
		nums[i], nums[j] = nums[j], nums[i]
	}
	copy(s.Winning[:], nums[:4])
	for k, c := range perm3[r.IntN(6)] {
		if k < len(wins) {
			// nums[0..3] are shuffled, so winning number k is a random one.
			s.Bets[c] = Bet{nums[k], wins[k]}
		} else {
			s.Bets[c] = Bet{nums[4+k], decoy(r)}
		}
	}
}

var sevens, notSevens = func() (s, n [][2]int) {
	for a := 1; a <= 6; a++ {
		for b := 1; b <= 6; b++ {
			if a+b == 7 {
				s = append(s, [2]int{a, b})
			} else {
				n = append(n, [2]int{a, b})
			}
		}
	}
	return s, n
}()

func buildCraps(r *Rand, win int, s *CrapsSurface) {
	if win > 0 {
		s.Dice, s.Amount = sevens[r.IntN(len(sevens))], win
		return
	}
	s.Dice, s.Amount = notSevens[r.IntN(len(notSevens))], decoy(r)
}

func buildDuel(r *Rand, win int, s *DuelSurface) {
	if win > 0 {
		s.Bank = Card(r.IntN(int(As))) // 2..R
		s.Cards[0] = s.Bank + 1 + Card(r.IntN(int(As-s.Bank)))
		s.Cards[1] = Card(r.IntN(NumCards))
		s.Cards[2] = Card(r.IntN(NumCards))
		s.Amount = win
	} else {
		// The bank from 5 to R; your cards at or below it, a tie now and then.
		s.Bank = Five + Card(r.IntN(int(As-Five)))
		for i := range s.Cards {
			s.Cards[i] = Card(r.IntN(int(s.Bank) + 1))
		}
		s.Amount = decoy(r)
	}
	slices.Sort(s.Cards[:])
}

func buildJackpot(r *Rand, wins []int, lines *[3]Line) {
	for k, i := range perm3[r.IntN(6)] {
		l := &lines[i]
		if k < len(wins) {
			s := Symbol(r.IntN(NumSymbols))
			l.Symbols = [3]Symbol{s, s, s}
			l.Amount = wins[k]
			continue
		}
		a := Symbol(r.IntN(NumSymbols))
		b := (a + 1 + Symbol(r.IntN(NumSymbols-1))) % NumSymbols // b ≠ a
		if r.IntN(100) < 45 {
			// A near miss: two identical symbols and one other, anywhere.
			l.Symbols = [3]Symbol{a, a, a}
			l.Symbols[r.IntN(3)] = b
		} else {
			c := Symbol(r.IntN(NumSymbols))
			l.Symbols = [3]Symbol{a, b, c}
		}
		l.Amount = decoy(r)
	}
}
