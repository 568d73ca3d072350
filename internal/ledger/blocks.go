package ledger

import (
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jmoiron/sqlx"

	"vegas-desk/internal/game"
)

// insertPacks is the number of packs of one multi-row INSERT (3
// parameters each); a batch of game.ChunkSize tickets is one statement.
const insertPacks = game.ChunkSize / game.PackSize

// blockRow is a row of blocks.
type blockRow struct {
	ID        int64  `db:"id"`
	Game      int    `db:"game"`
	Number    int    `db:"number"`
	FirstPack int64  `db:"first_pack"`
	Tickets   int    `db:"tickets"`
	PackSize  int    `db:"pack_size"`
	Winners   int    `db:"winners"`
	Payout    int    `db:"payout"`
	Key       []byte `db:"serial_key"`
	Digest    []byte `db:"digest"`
	CreatedAt string `db:"created_at"`
}

const blockCols = "id, game, number, first_pack, tickets, pack_size, winners, payout, serial_key, digest, created_at"

func (r *blockRow) block() Block {
	b := Block{
		ID: r.ID, Game: r.Game, Number: r.Number, Digest: hex.EncodeToString(r.Digest),
		PackSize: r.PackSize, Tickets: r.Tickets, Winners: r.Winners, Payout: r.Payout,
		CreatedAt: parseTime(r.CreatedAt), first: r.FirstPack * int64(r.PackSize), firstPack: r.FirstPack,
	}
	copy(b.key[:], r.Key)
	return b
}

// Name is "531/1": game code and block number.
func (b Block) Name() string { return fmt.Sprintf("%d/%d", b.Game, b.Number) }

// Blocks lists the blocks, by game and number. A counter's login on a
// shared ledger sees their public part: no serial key.
func (l *Ledger) Blocks(ctx context.Context) ([]Block, error) {
	if l.desk != "" {
		var rows []blockRow
		if err := sel(ctx, l.r, &rows, "SELECT 0 AS id, game, number, 0 AS first_pack, tickets, pack_size, winners, payout, ''::bytea AS serial_key, digest, created_at FROM vegas.blocks_public()"); err != nil {
			return nil, fmt.Errorf("list blocks: %w", l.classify(err))
		}
		out := make([]Block, len(rows))
		for i := range rows {
			out[i] = rows[i].block()
		}
		return out, nil
	}
	if l.counter != nil {
		bs, err := counterBlocks(ctx, l.r)
		return bs, l.classify(err)
	}
	bs, err := listBlocks(ctx, l.r)
	return bs, l.classify(err)
}

// listBlocks lists the blocks, by game and number.
func listBlocks(ctx context.Context, q querier) ([]Block, error) {
	var rows []blockRow
	if err := sel(ctx, q, &rows, "SELECT "+blockCols+" FROM blocks ORDER BY game, number"); err != nil {
		return nil, fmt.Errorf("list blocks: %w", err)
	}
	out := make([]Block, len(rows))
	for i := range rows {
		out[i] = rows[i].block()
	}
	return out, nil
}

// Block returns block number of game gameCode, or ErrNotFound.
func (l *Ledger) Block(ctx context.Context, gameCode, number int) (Block, error) {
	if l.desk != "" || l.counter != nil {
		bs, err := l.Blocks(ctx)
		if err != nil {
			return Block{}, err
		}
		for _, b := range bs {
			if b.Game == gameCode && b.Number == number {
				return b, nil
			}
		}
		return Block{}, fmt.Errorf("block %d/%d: %w", gameCode, number, ErrNotFound)
	}
	return getBlock(ctx, l.r, gameCode, number)
}

func getBlock(ctx context.Context, q querier, gameCode, number int) (Block, error) {
	var r blockRow
	err := get(ctx, q, &r, "SELECT "+blockCols+" FROM blocks WHERE game = ? AND number = ?", gameCode, number)
	if errors.Is(err, sql.ErrNoRows) {
		return Block{}, fmt.Errorf("block %d/%d: %w", gameCode, number, ErrNotFound)
	}
	if err != nil {
		return Block{}, fmt.Errorf("block %d/%d: %w", gameCode, number, err)
	}
	return r.block(), nil
}

// Games lists the game codes of the ledger with their names.
func (l *Ledger) Games(ctx context.Context) (map[int]string, error) {
	if err := l.backOffice("games"); err != nil {
		return nil, err
	}
	var rows []struct {
		Code int    `db:"code"`
		Name string `db:"name"`
	}
	if err := sel(ctx, l.r, &rows, "SELECT code, name FROM games"); err != nil {
		return nil, l.classify(err)
	}
	out := map[int]string{}
	for _, r := range rows {
		out[r.Code] = r.Name
	}
	return out, nil
}

// GenerateOptions tunes Generate.
type GenerateOptions struct {
	// Activate puts every pack of the block on sale at once, for
	// demonstrations; otherwise the packs start in stock.
	Activate bool
	// Who generates, for the journal.
	Who Identity
	// Progress, if not nil, is called with (done, game.BlockSize) from the
	// generating goroutine.
	Progress func(done, total int)
}

// Generate streams game.GenerateBlock into the ledger in one transaction,
// as the next block number of the game. A cancel (ctx), an error or a
// crash leaves no trace: the transaction is never committed.
func (l *Ledger) Generate(ctx context.Context, gameCode int, seed game.Seed, opts GenerateOptions) (Block, error) {
	if err := l.backOffice("generate"); err != nil {
		return Block{}, err
	}
	tx, err := l.begin(ctx)
	if err != nil {
		return Block{}, fmt.Errorf("generate: %w", err)
	}
	defer tx.Rollback()
	b, err := l.generate(ctx, tx, gameCode, seed, opts)
	if err != nil {
		return Block{}, fmt.Errorf("generate a block of game %d: %w", gameCode, l.classify(err))
	}
	if err := tx.Commit(); err != nil {
		return Block{}, fmt.Errorf("generate: commit: %w", l.classify(err))
	}
	return b, nil
}

func (l *Ledger) generate(ctx context.Context, tx *sqlx.Tx, gameCode int, seed game.Seed, opts GenerateOptions) (Block, error) {
	var known int
	if err := get(ctx, tx, &known, "SELECT count(*) FROM games WHERE code = ?", gameCode); err != nil {
		return Block{}, err
	}
	if known == 0 {
		return Block{}, fmt.Errorf("game code %d: %w: the ledger knows no such game", gameCode, ErrNotFound)
	}
	var number int
	if err := get(ctx, tx, &number, "SELECT coalesce(max(number), 0) + 1 FROM blocks WHERE game = ?", gameCode); err != nil {
		return Block{}, err
	}
	var firstPack int64
	if err := get(ctx, tx, &firstPack, "SELECT coalesce(max(id), -1) + 1 FROM packs"); err != nil {
		return Block{}, err
	}
	stmt, err := tx.PrepareContext(ctx, tx.Rebind("INSERT INTO packs (id, hash, prizes, codes) VALUES "+
		strings.TrimSuffix(strings.Repeat("(?,?,?,?),", insertPacks), ",")))
	if err != nil {
		return Block{}, err
	}
	defer stmt.Close()

	// The block row comes last (its digest is known at the end); its id is
	// chosen now for the finder.
	var blockID int64
	if err := get(ctx, tx, &blockID, "SELECT coalesce(max(id), 0) + 1 FROM blocks"); err != nil {
		return Block{}, err
	}
	args := make([]any, 4*insertPacks)
	// The batch's rows: codes, prizes and hashes of insertPacks packs, bound
	// (copied) by each Exec, so reused.
	codes := make([]byte, insertPacks*packCodesSize)
	prizes := make([]byte, insertPacks*game.PackSize)
	finds := make([]uint64, 0, game.Winners)
	done := 0
	spec := game.Spec{Game: gameCode, Block: number, Seed: seed}
	res, err := game.GenerateBlock(ctx, spec, func(b *game.Batch) error {
		batch := b.Tickets
		if len(batch)%(insertPacks*game.PackSize) != 0 || batch[0].Position%game.PackSize != 0 {
			return fmt.Errorf("batch of %d tickets from position %d: want whole statements of %d packs", len(batch), batch[0].Position, insertPacks)
		}
		for start := 0; start < len(batch); start += insertPacks * game.PackSize {
			rows := batch[start : start+insertPacks*game.PackSize]
			for i := range rows {
				g := &rows[i]
				copy(codes[i*game.EncodedSize:], g.Code[:])
				prizes[i] = prizeByte(g.Prize)
				if g.Prize > 0 {
					finds = append(finds, findEntry(findKey(g.Code[:]), g.Position))
				}
				if i%game.PackSize == game.PackSize-1 {
					p := i / game.PackSize
					args[4*p] = firstPack + int64(g.Position/game.PackSize)
					args[4*p+1] = b.Packs[(start+i)/game.PackSize][:]
					args[4*p+2] = prizes[p*game.PackSize : (p+1)*game.PackSize]
					args[4*p+3] = codes[p*packCodesSize : (p+1)*packCodesSize]
				}
			}
			if _, err := stmt.ExecContext(ctx, args...); err != nil {
				return err
			}
		}
		done += len(batch)
		if opts.Progress != nil {
			opts.Progress(done, game.BlockSize)
		}
		return nil
	})
	if err != nil {
		return Block{}, err
	}
	// The finder of the block, in key order.
	slices.Sort(finds)
	firsts, blobs := finderRows(finds)
	fstmt, err := tx.PrepareContext(ctx, tx.Rebind("INSERT INTO finder (id, entries) VALUES (?, ?)"))
	if err != nil {
		return Block{}, err
	}
	defer fstmt.Close()
	for i := range firsts {
		if _, err := fstmt.ExecContext(ctx, finderID(blockID, firsts[i]), blobs[i]); err != nil {
			return Block{}, err
		}
	}
	at := l.now()
	if _, err := execute(ctx, tx, "INSERT INTO blocks ("+blockCols+") VALUES (?,?,?,?,?,?,?,?,?,?,?)",
		blockID, gameCode, number, firstPack, res.Tickets, game.PackSize, res.Winners, res.Payout,
		res.Key[:], res.Digest[:], formatTime(at)); err != nil {
		return Block{}, err
	}
	b := Block{ID: blockID, Game: gameCode, Number: number, Digest: hex.EncodeToString(res.Digest[:]),
		PackSize: game.PackSize, Tickets: res.Tickets, Winners: res.Winners, Payout: res.Payout,
		CreatedAt: parseTime(formatTime(at)), first: firstPack * game.PackSize, firstPack: firstPack, key: res.Key}
	if err := l.appendJournal(ctx, tx, &entry{Kind: "block", At: at, Game: gameCode, Block: number,
		Amount: res.Payout, Desk: opts.Who.Desk, Operator: opts.Who.Operator, Detail: b.Digest}); err != nil {
		return Block{}, err
	}
	if opts.Activate {
		e := entry{Kind: "packs", At: at, Game: gameCode, Block: number, PackFirst: 0, PackLast: game.Packs - 1,
			State: "on-sale", Method: "generate", Operator: opts.Who.Operator}
		if err := l.appendJournal(ctx, tx, &e); err != nil {
			return Block{}, err
		}
		if _, err := execute(ctx, tx, `WITH RECURSIVE p(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM p WHERE n < ?)
			INSERT INTO pack_states (block, pack, state, desk, entry) SELECT CAST(? AS BIGINT), n, 'on-sale', '', CAST(? AS BIGINT) FROM p`,
			game.Packs-1, blockID, e.ID); err != nil {
			return Block{}, err
		}
	}
	return b, nil
}
