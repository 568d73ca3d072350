package ledger

import (
	"cmp"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jmoiron/sqlx"

	"vegas-desk/internal/game"
)

// insertRows is the number of tickets of one multi-row INSERT (3 parameters
// each); game.ChunkSize is a multiple of it.
const insertRows = 500

// findRow is a row of finder.
type findRow struct {
	key int32
	id  int64
}

// findKey is the finder's key of an encoding: its first 4 bytes.
func findKey(code *[game.EncodedSize]byte) int32 { return int32(binary.BigEndian.Uint32(code[:4])) }

// blockRow is a row of blocks.
type blockRow struct {
	ID        int64  `db:"id"`
	Game      int    `db:"game"`
	Number    int    `db:"number"`
	First     int64  `db:"first_ticket"`
	Tickets   int    `db:"tickets"`
	PackSize  int    `db:"pack_size"`
	Winners   int    `db:"winners"`
	Payout    int    `db:"payout"`
	Key       []byte `db:"serial_key"`
	Digest    []byte `db:"digest"`
	CreatedAt string `db:"created_at"`
}

const blockCols = "id, game, number, first_ticket, tickets, pack_size, winners, payout, serial_key, digest, created_at"

func (r *blockRow) block() Block {
	b := Block{
		ID: r.ID, Game: r.Game, Number: r.Number, Digest: hex.EncodeToString(r.Digest),
		PackSize: r.PackSize, Tickets: r.Tickets, Winners: r.Winners, Payout: r.Payout,
		CreatedAt: parseTime(r.CreatedAt), first: r.First,
	}
	copy(b.key[:], r.Key)
	return b
}

// Name is "531/1": game code and block number.
func (b Block) Name() string { return fmt.Sprintf("%d/%d", b.Game, b.Number) }

// Blocks lists the blocks, by game and number.
func (l *Ledger) Blocks(ctx context.Context) ([]Block, error) {
	var rows []blockRow
	if err := l.r.SelectContext(ctx, &rows, "SELECT "+blockCols+" FROM blocks ORDER BY game, number"); err != nil {
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
	return getBlock(ctx, l.r, gameCode, number)
}

func getBlock(ctx context.Context, q sqlx.QueryerContext, gameCode, number int) (Block, error) {
	var r blockRow
	err := sqlx.GetContext(ctx, q, &r, "SELECT "+blockCols+" FROM blocks WHERE game = ? AND number = ?", gameCode, number)
	if errors.Is(err, sql.ErrNoRows) {
		return Block{}, fmt.Errorf("block %d/%d: %w", gameCode, number, ErrNotFound)
	}
	if err != nil {
		return Block{}, fmt.Errorf("block %d/%d: %w", gameCode, number, err)
	}
	return r.block(), nil
}

// blockOfTicket returns the block holding ticket row id.
func blockOfTicket(ctx context.Context, q sqlx.QueryerContext, id int64) (Block, error) {
	var r blockRow
	err := sqlx.GetContext(ctx, q, &r, "SELECT "+blockCols+" FROM blocks WHERE first_ticket <= ? ORDER BY first_ticket DESC LIMIT 1", id)
	if err != nil {
		return Block{}, fmt.Errorf("block of ticket row %d: %w", id, err)
	}
	return r.block(), nil
}

// Games lists the game codes of the ledger with their names.
func (l *Ledger) Games(ctx context.Context) (map[int]string, error) {
	rows, err := l.r.QueryContext(ctx, "SELECT code, name FROM games")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int]string{}
	for rows.Next() {
		var c int
		var n string
		if err := rows.Scan(&c, &n); err != nil {
			return nil, err
		}
		out[c] = n
	}
	return out, rows.Err()
}

// Generate streams game.GenerateBlock into the ledger in one transaction,
// as the next block number of the game. progress may be nil; it is called
// with (done, game.BlockSize) from the generating goroutine. A cancel (ctx),
// an error or a crash leaves no trace: the transaction is never committed.
func (l *Ledger) Generate(ctx context.Context, gameCode int, seed game.Seed, progress func(done, total int)) (Block, error) {
	tx, err := l.begin(ctx)
	if err != nil {
		return Block{}, fmt.Errorf("generate: %w", err)
	}
	defer tx.Rollback()
	b, err := l.generate(ctx, tx, gameCode, seed, progress)
	if err != nil {
		return Block{}, fmt.Errorf("generate a block of game %d: %w", gameCode, err)
	}
	if err := tx.Commit(); err != nil {
		return Block{}, fmt.Errorf("generate: commit: %w", err)
	}
	return b, nil
}

func (l *Ledger) generate(ctx context.Context, tx *sqlx.Tx, gameCode int, seed game.Seed, progress func(done, total int)) (Block, error) {
	var known int
	if err := tx.GetContext(ctx, &known, "SELECT count(*) FROM games WHERE code = ?", gameCode); err != nil {
		return Block{}, err
	}
	if known == 0 {
		return Block{}, fmt.Errorf("game code %d: %w: the ledger knows no such game", gameCode, ErrNotFound)
	}
	var number int
	if err := tx.GetContext(ctx, &number, "SELECT coalesce(max(number), 0) + 1 FROM blocks WHERE game = ?", gameCode); err != nil {
		return Block{}, err
	}
	var first int64
	if err := tx.GetContext(ctx, &first, "SELECT coalesce(max(id), -1) + 1 FROM tickets"); err != nil {
		return Block{}, err
	}
	stmt, err := tx.PrepareContext(ctx, "INSERT OR FAIL INTO tickets (id, prize, code) VALUES "+
		strings.TrimSuffix(strings.Repeat("(?,?,?),", insertRows), ","))
	if err != nil {
		return Block{}, err
	}
	defer stmt.Close()
	packs, err := tx.PrepareContext(ctx, "INSERT INTO packs (block, pack, hash) VALUES (?, ?, ?)")
	if err != nil {
		return Block{}, err
	}
	defer packs.Close()

	// The block row comes last (its digest is known at the end); its id is
	// chosen now for the packs.
	var blockID int64
	if err := tx.GetContext(ctx, &blockID, "SELECT coalesce(max(id), 0) + 1 FROM blocks"); err != nil {
		return Block{}, err
	}
	args := make([]any, 3*insertRows)
	finds := make([]findRow, 0, game.Winners)
	done := 0
	h := sha256.New()
	var sec [4]byte
	var sum [32]byte
	spec := game.Spec{Game: gameCode, Block: number, Seed: seed}
	res, err := game.GenerateBlock(ctx, spec, func(batch []game.Generated) error {
		for start := 0; start < len(batch); start += insertRows {
			rows := batch[start : start+insertRows]
			for i := range rows {
				g := &rows[i]
				args[3*i] = first + int64(g.Position)
				args[3*i+1] = g.Prize
				args[3*i+2] = g.Code[:]
				if g.Prize > 0 {
					finds = append(finds, findRow{findKey(&g.Code), first + int64(g.Position)})
				}
				binary.BigEndian.PutUint32(sec[:], uint32(g.Secret))
				h.Write(sec[:])
				h.Write(g.Code[:])
				if g.Position%game.PackSize == game.PackSize-1 {
					if _, err := packs.ExecContext(ctx, blockID, g.Position/game.PackSize, h.Sum(sum[:0])); err != nil {
						return err
					}
					h.Reset()
				}
			}
			if _, err := stmt.ExecContext(ctx, args...); err != nil {
				return err
			}
		}
		done += len(batch)
		if progress != nil {
			progress(done, game.BlockSize)
		}
		return nil
	})
	if err != nil {
		return Block{}, err
	}
	// The finder of the block, in key order: appended at the end of its
	// tree, so its pages are full.
	slices.SortFunc(finds, func(a, b findRow) int {
		if c := cmp.Compare(a.key, b.key); c != 0 {
			return c
		}
		return cmp.Compare(a.id, b.id)
	})
	fstmt, err := tx.PrepareContext(ctx, "INSERT OR FAIL INTO finder (block, key, id) VALUES "+
		strings.TrimSuffix(strings.Repeat("(?,?,?),", insertRows), ","))
	if err != nil {
		return Block{}, err
	}
	defer fstmt.Close()
	for len(finds) > 0 {
		n := min(len(finds), insertRows)
		if n < insertRows {
			fstmt.Close()
			if fstmt, err = tx.PrepareContext(ctx, "INSERT OR FAIL INTO finder (block, key, id) VALUES "+
				strings.TrimSuffix(strings.Repeat("(?,?,?),", n), ",")); err != nil {
				return Block{}, err
			}
		}
		for i, f := range finds[:n] {
			args[3*i], args[3*i+1], args[3*i+2] = blockID, f.key, f.id
		}
		if _, err := fstmt.ExecContext(ctx, args[:3*n]...); err != nil {
			return Block{}, err
		}
		finds = finds[n:]
	}
	at := l.now()
	if _, err := tx.ExecContext(ctx, "INSERT INTO blocks ("+blockCols+") VALUES (?,?,?,?,?,?,?,?,?,?,?)",
		blockID, gameCode, number, first, res.Tickets, game.PackSize, res.Winners, res.Payout,
		res.Key[:], res.Digest[:], formatTime(at)); err != nil {
		return Block{}, err
	}
	b := Block{ID: blockID, Game: gameCode, Number: number, Digest: hex.EncodeToString(res.Digest[:]),
		PackSize: game.PackSize, Tickets: res.Tickets, Winners: res.Winners, Payout: res.Payout,
		CreatedAt: parseTime(formatTime(at)), first: first, key: res.Key}
	if _, err := appendJournal(ctx, tx, &entry{Kind: "block", At: at, Game: gameCode, Block: number,
		Amount: res.Payout, Detail: b.Digest}); err != nil {
		return Block{}, err
	}
	return b, nil
}
