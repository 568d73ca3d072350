package backoffice

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
	"vegas-desk/internal/ledger/core"
)

// insertPacks is the number of packs of one multi-row INSERT (3
// parameters each); a batch of game.ChunkSize tickets is one statement.
const insertPacks = game.ChunkSize / game.PackSize

// BlockRow is a row of blocks.
type BlockRow struct {
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

// BlockCols are the columns of a BlockRow.
const BlockCols = "id, game, number, first_pack, tickets, pack_size, winners, payout, serial_key, digest, created_at"

// Block is the block of a row.
func (r *BlockRow) Block() core.Block {
	b := core.Block{
		ID: r.ID, Game: r.Game, Number: r.Number, Digest: hex.EncodeToString(r.Digest),
		PackSize: r.PackSize, Tickets: r.Tickets, Winners: r.Winners, Payout: r.Payout,
		CreatedAt: core.ParseTime(r.CreatedAt), FirstPack: r.FirstPack,
	}
	copy(b.Key[:], r.Key)
	return b
}

// Blocks lists the blocks, by game and number.
func (o *Store) Blocks(ctx context.Context) ([]core.Block, error) {
	bs, err := ListBlocks(ctx, o.E.Pool())
	return bs, o.E.Classify(err)
}

// ListBlocks lists the blocks, by game and number.
func ListBlocks(ctx context.Context, q core.Querier) ([]core.Block, error) {
	var rows []BlockRow
	if err := core.Select(ctx, q, &rows, "SELECT "+BlockCols+" FROM blocks ORDER BY game, number"); err != nil {
		return nil, fmt.Errorf("list blocks: %w", err)
	}
	out := make([]core.Block, len(rows))
	for i := range rows {
		out[i] = rows[i].Block()
	}
	return out, nil
}

// Block returns block number of game gameCode, or ErrNotFound.
func (o *Store) Block(ctx context.Context, gameCode, number int) (core.Block, error) {
	b, err := GetBlock(ctx, o.E.Pool(), gameCode, number)
	return b, o.E.Classify(err)
}

// GetBlock reads block number of game gameCode, or ErrNotFound.
func GetBlock(ctx context.Context, q core.Querier, gameCode, number int) (core.Block, error) {
	var r BlockRow
	err := scanRow(ctx, q, "SELECT "+BlockCols+" FROM blocks WHERE game = ? AND number = ?", []any{gameCode, number}, r.Fields()...)
	if errors.Is(err, sql.ErrNoRows) {
		return core.Block{}, fmt.Errorf("block %d/%d: %w", gameCode, number, core.ErrNotFound)
	}
	if err != nil {
		return core.Block{}, fmt.Errorf("block %d/%d: %w", gameCode, number, err)
	}
	return r.Block(), nil
}

// Games lists the game codes of the ledger with their names.
func (o *Store) Games(ctx context.Context) (map[int]string, error) {
	var rows []struct {
		Code int    `db:"code"`
		Name string `db:"name"`
	}
	if err := core.Select(ctx, o.E.Pool(), &rows, "SELECT code, name FROM games"); err != nil {
		return nil, o.E.Classify(err)
	}
	out := map[int]string{}
	for _, r := range rows {
		out[r.Code] = r.Name
	}
	return out, nil
}

// Generate streams game.GenerateBlock into the ledger in one transaction,
// as the next block number of the game. A cancel (ctx), an error or a
// crash leaves no trace: the transaction is never committed.
func (o *Store) Generate(ctx context.Context, gameCode int, seed game.Seed, opts core.GenerateOptions) (core.Block, error) {
	if o.ReadOnly {
		return core.Block{}, fmt.Errorf("generate: %w", core.ErrReadOnly)
	}
	tx, err := o.E.Bulk(ctx)
	if err != nil {
		return core.Block{}, fmt.Errorf("generate: %w", err)
	}
	defer tx.Rollback()
	b, err := o.generate(ctx, tx, gameCode, seed, opts)
	if err != nil {
		return core.Block{}, fmt.Errorf("generate a block of game %d: %w", gameCode, o.E.Classify(err))
	}
	if err := tx.Commit(); err != nil {
		return core.Block{}, fmt.Errorf("generate: commit: %w", o.E.Classify(err))
	}
	return b, nil
}

func (o *Store) generate(ctx context.Context, tx *sqlx.Tx, gameCode int, seed game.Seed, opts core.GenerateOptions) (core.Block, error) {
	var known int
	if err := core.Get(ctx, tx, &known, "SELECT count(*) FROM games WHERE code = ?", gameCode); err != nil {
		return core.Block{}, err
	}
	if known == 0 {
		return core.Block{}, fmt.Errorf("game code %d: %w: the ledger knows no such game", gameCode, core.ErrNotFound)
	}
	// A drawn seed: from the recorded commitments' reveals, checked
	// before a ticket is made.
	var reveals []core.Entry
	if len(opts.Commitments) > 0 || len(opts.Reveals) > 0 {
		var err error
		if seed, reveals, err = o.draw(ctx, tx, gameCode, o.now(), opts); err != nil {
			return core.Block{}, err
		}
	}
	var number int
	if err := core.Get(ctx, tx, &number, "SELECT coalesce(max(number), 0) + 1 FROM blocks WHERE game = ?", gameCode); err != nil {
		return core.Block{}, err
	}
	var firstPack int64
	if err := core.Get(ctx, tx, &firstPack, "SELECT coalesce(max(id), -1) + 1 FROM packs"); err != nil {
		return core.Block{}, err
	}
	stmt, err := tx.PrepareContext(ctx, tx.Rebind("INSERT INTO packs (id, hash, prizes, codes) VALUES "+
		strings.TrimSuffix(strings.Repeat("(?,?,?,?),", insertPacks), ",")))
	if err != nil {
		return core.Block{}, err
	}
	defer stmt.Close()

	// The block row comes last (its digest is known at the end); its id is
	// chosen now for the finder.
	var blockID int64
	if err := core.Get(ctx, tx, &blockID, "SELECT coalesce(max(id), 0) + 1 FROM blocks"); err != nil {
		return core.Block{}, err
	}
	args := make([]any, 4*insertPacks)
	// The batch's rows: codes, prizes and hashes of insertPacks packs, bound
	// (copied) by each Exec, so reused.
	codes := make([]byte, insertPacks*core.PackCodesSize)
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
				prizes[i] = core.PrizeByte(g.Prize)
				if g.Prize > 0 {
					finds = append(finds, findEntry(FindKey(g.Code[:]), g.Position))
				}
				if i%game.PackSize == game.PackSize-1 {
					p := i / game.PackSize
					args[4*p] = firstPack + int64(g.Position/game.PackSize)
					args[4*p+1] = b.Packs[(start+i)/game.PackSize][:]
					args[4*p+2] = prizes[p*game.PackSize : (p+1)*game.PackSize]
					args[4*p+3] = codes[p*core.PackCodesSize : (p+1)*core.PackCodesSize]
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
		return core.Block{}, err
	}
	if err := writeFinder(ctx, tx, blockID, finds); err != nil {
		return core.Block{}, err
	}
	for i := range reveals {
		reveals[i].Block = number
		if err := o.appendJournal(ctx, tx, &reveals[i]); err != nil {
			return core.Block{}, err
		}
	}
	return o.recordBlock(ctx, tx, core.Block{ID: blockID, Game: gameCode, Number: number, FirstPack: firstPack}, res, opts)
}

// writeFinder writes block blockID's finder rows from the entries its
// winners make.
func writeFinder(ctx context.Context, tx *sqlx.Tx, blockID int64, finds []uint64) error {
	slices.Sort(finds) // key order
	firsts, blobs := finderRows(finds)
	fstmt, err := tx.PrepareContext(ctx, tx.Rebind("INSERT INTO finder (id, entries) VALUES (?, ?)"))
	if err != nil {
		return err
	}
	defer fstmt.Close()
	for i := range firsts {
		if _, err := fstmt.ExecContext(ctx, core.FinderID(blockID, firsts[i]), blobs[i]); err != nil {
			return err
		}
	}
	return nil
}

// recordBlock writes block b's row, from what the generation gave (res),
// and its journal entry; with opts.Activate, its packs go on sale.
func (o *Store) recordBlock(ctx context.Context, tx *sqlx.Tx, b core.Block, res game.Result, opts core.GenerateOptions) (core.Block, error) {
	at := o.now()
	if _, err := core.Exec(ctx, tx, "INSERT INTO blocks ("+BlockCols+") VALUES (?,?,?,?,?,?,?,?,?,?,?)",
		b.ID, b.Game, b.Number, b.FirstPack, res.Tickets, game.PackSize, res.Winners, res.Payout,
		res.Key[:], res.Digest[:], core.FormatTime(at)); err != nil {
		return core.Block{}, err
	}
	b.Digest, b.PackSize, b.Tickets, b.Winners, b.Payout = hex.EncodeToString(res.Digest[:]), game.PackSize, res.Tickets, res.Winners, res.Payout
	b.CreatedAt, b.Key = core.ParseTime(core.FormatTime(at)), res.Key
	if err := o.appendJournal(ctx, tx, &core.Entry{Kind: "block", At: at, Game: b.Game, Block: b.Number,
		Amount: res.Payout, Desk: opts.Who.Desk, Operator: opts.Who.Operator, Detail: b.Digest}); err != nil {
		return core.Block{}, err
	}
	if opts.Activate {
		e := core.Entry{Kind: "packs", At: at, Game: b.Game, Block: b.Number, PackFirst: 0, PackLast: game.Packs - 1,
			State: "on-sale", Method: "generate", Operator: opts.Who.Operator}
		if err := o.appendJournal(ctx, tx, &e); err != nil {
			return core.Block{}, err
		}
		if _, err := core.Exec(ctx, tx, `WITH RECURSIVE p(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM p WHERE n < ?)
			INSERT INTO pack_states (block, pack, state, desk, entry) SELECT CAST(? AS BIGINT), n, 'on-sale', '', CAST(? AS BIGINT) FROM p`,
			game.Packs-1, b.ID, e.ID); err != nil {
			return core.Block{}, err
		}
	}
	return b, nil
}
