package ledger

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"

	"vegas-desk/internal/game"
)

// Report is a block's report: for each prize of the table, highest first,
// the table's count, the tickets generated, the active claims (count and
// sum) and the outstanding tickets with their liability.
func (l *Ledger) Report(ctx context.Context, gameCode, number int) (Report, error) {
	tx, err := l.read(ctx)
	if err != nil {
		return Report{}, err
	}
	defer tx.Rollback()
	b, err := getBlock(ctx, tx, gameCode, number)
	if err != nil {
		return Report{}, fmt.Errorf("report: %w", err)
	}
	generated := map[int]int{}
	rows, err := tx.QueryContext(ctx, "SELECT prize, count(*) FROM tickets WHERE id >= ? AND id < ? AND prize > 0 GROUP BY prize",
		b.first, b.first+int64(b.Tickets))
	if err != nil {
		return Report{}, fmt.Errorf("report: %w", err)
	}
	for rows.Next() {
		var p, n int
		if err := rows.Scan(&p, &n); err != nil {
			rows.Close()
			return Report{}, err
		}
		generated[p] = n
	}
	rows.Close()
	type agg struct{ N, Sum int }
	claimed := map[int]agg{}
	rows, err = tx.QueryContext(ctx, `SELECT c.amount, count(*), sum(c.amount) FROM journal c
		WHERE c.kind = 'claim' AND c.game = ? AND c.block = ?
		AND NOT EXISTS (SELECT 1 FROM journal v WHERE v.kind = 'void' AND v.claim = c.id)
		GROUP BY c.amount`, gameCode, number)
	if err != nil {
		return Report{}, fmt.Errorf("report: %w", err)
	}
	for rows.Next() {
		var p, n, s int
		if err := rows.Scan(&p, &n, &s); err != nil {
			rows.Close()
			return Report{}, err
		}
		claimed[p] = agg{n, s}
	}
	rows.Close()
	r := Report{Block: b}
	for _, tier := range game.PrizeTable {
		c := claimed[tier.Prize]
		line := TierLine{Prize: tier.Prize, Table: tier.Count, Generated: generated[tier.Prize],
			Claimed: c.N, ClaimedSum: c.Sum}
		line.Outstanding = line.Generated - line.Claimed
		line.Liability = line.Outstanding * line.Prize
		r.Tiers = append(r.Tiers, line)
		r.Total.Table += line.Table
		r.Total.Generated += line.Generated
		r.Total.Claimed += line.Claimed
		r.Total.ClaimedSum += line.ClaimedSum
		r.Total.Outstanding += line.Outstanding
		r.Total.Liability += line.Liability
		r.Total.Prize += line.Prize * line.Table
	}
	return r, nil
}

// DailyReport sums the active claims that f selects per day (local time)
// and desk, by day then desk.
func (l *Ledger) DailyReport(ctx context.Context, f ClaimFilter) ([]DayDesk, error) {
	claims, err := l.Claims(ctx, f)
	if err != nil {
		return nil, err
	}
	idx := map[[2]string]int{}
	var out []DayDesk
	for _, c := range claims {
		if c.Voided {
			continue
		}
		k := [2]string{c.At.Local().Format("2006-01-02"), c.Desk}
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, DayDesk{Day: k[0], Desk: k[1]})
		}
		out[i].Count++
		out[i].Sum += c.Amount
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Day != out[j].Day {
			return out[i].Day < out[j].Day
		}
		return out[i].Desk < out[j].Desk
	})
	return out, nil
}

// Export writes block number of game gameCode as JSON Lines in block
// order: one game.Doc per ticket with Serial, Prize, Game, Block, Pack and
// Position set. It streams; progress may be nil.
func (l *Ledger) Export(ctx context.Context, gameCode, number int, w io.Writer, progress func(done, total int)) error {
	tx, err := l.read(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	b, err := getBlock(ctx, tx, gameCode, number)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	rows, err := tx.QueryContext(ctx, "SELECT id, prize, code FROM tickets WHERE id >= ? AND id < ? ORDER BY id",
		b.first, b.first+int64(b.Tickets))
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	defer rows.Close()
	bw := bufio.NewWriterSize(w, 1<<16)
	enc := json.NewEncoder(bw)
	done := 0
	var (
		id    int64
		prize int
		code  []byte
	)
	for rows.Next() {
		if err := rows.Scan(&id, &prize, &code); err != nil {
			return fmt.Errorf("export: %w", err)
		}
		pos := int(id - b.first)
		t, err := game.Decode(code)
		if err != nil {
			return fmt.Errorf("export: block %s ticket %d: %w (run verify)", b.Name(), pos, err)
		}
		d := game.NewDoc(&t)
		pack := pos / game.PackSize
		d.Serial = game.Serial{Game: b.Game, Block: b.Number, Position: pos, Secret: b.key.Secret(pos)}.String()
		d.Game, d.Block, d.Pack, d.Position, d.Prize = b.Game, b.Number, &pack, &pos, &prize
		if err := enc.Encode(&d); err != nil {
			return fmt.Errorf("export: %w", err)
		}
		done++
		if progress != nil && done%game.ChunkSize == 0 {
			progress(done, b.Tickets)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if done != b.Tickets {
		return fmt.Errorf("export: block %s has %d ticket rows, want %d (run verify)", b.Name(), done, b.Tickets)
	}
	return bw.Flush()
}
