package backoffice

import (
	"context"
	"fmt"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/core"
)

// TicketAt returns the ticket at position (0 .. Tickets-1) of block number
// of game gameCode, with its status, or ErrNotFound. It is for the back
// office's screens: it records nothing and needs no secret part.
func (o *Store) TicketAt(ctx context.Context, gameCode, number, position int) (core.Ticket, error) {
	tx, err := o.E.Read(ctx)
	if err != nil {
		return core.Ticket{}, err
	}
	defer tx.Rollback()
	b, err := GetBlock(ctx, tx, gameCode, number)
	if err != nil {
		return core.Ticket{}, err
	}
	if position < 0 || position >= b.Tickets {
		return core.Ticket{}, fmt.Errorf("block %s position %d: %w: positions go from 0 to %d", b.Name(), position, core.ErrNotFound, b.Tickets-1)
	}
	return o.ticketAt(ctx, tx, b, position)
}

// ticketAt reads the ticket at position pos of block b, with its verdict
// for the back office (no limit, the identity given).
func (o *Store) ticketAt(ctx context.Context, q core.Querier, b core.Block, pos int) (core.Ticket, error) {
	paid := func(ctx context.Context, q core.Querier, _, ticket int64) (*core.Claim, error) {
		return o.PaidClaim(ctx, q, ticket)
	}
	f, err := Tables{Paid: paid}.FactsOf(ctx, q, b, pos, b.Key.Secret(pos))
	if err != nil {
		return core.Ticket{}, err
	}
	rules, err := ReadRules(ctx, q, b.Game, core.NoLimit, core.NoLimit, o.now())
	if err != nil {
		return core.Ticket{}, err
	}
	rules.Identity = true
	return core.TicketOf(f, core.Decide(f, rules), rules.Dates)
}

// Samples returns tickets of block number of game gameCode worth trying at
// the counter of a demonstration ledger: its first loser, then for each
// prize of the table, highest first, the block's first ticket with that
// prize not yet paid (tiers the block lacks, or whose tickets are all paid,
// are left out). Any other ledger refuses: listing unpaid winners would let
// anyone claim them.
func (o *Store) Samples(ctx context.Context, gameCode, number int) ([]core.Ticket, error) {
	if !o.Demo {
		return nil, fmt.Errorf("serials to try: %w: only a demonstration ledger lists its unpaid winners", core.ErrNotDemo)
	}
	tx, err := o.E.Read(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	b, err := GetBlock(ctx, tx, gameCode, number)
	if err != nil {
		return nil, fmt.Errorf("samples: %w", err)
	}
	var paid []int64
	if err := core.Select(ctx, tx, &paid, "SELECT ticket FROM paid WHERE ticket >= ? AND ticket < ?", b.First(), b.First()+int64(b.Tickets)); err != nil {
		return nil, fmt.Errorf("samples: %w", err)
	}
	isPaid := map[int]bool{}
	for _, t := range paid {
		isPaid[int(t-b.First())] = true
	}
	var first [len(game.PrizeTable) + 1]int // by prize byte; -1 = none yet
	for i := range first {
		first[i] = -1
	}
	missing := len(first)
	err = ScanPrizes(ctx, tx, b, func(start int, prizes []byte) bool {
		for i, pb := range prizes {
			if int(pb) < len(first) && first[pb] < 0 && !isPaid[start+i] {
				first[pb] = start + i
				missing--
			}
		}
		return missing > 0
	})
	if err != nil {
		return nil, fmt.Errorf("samples: %w", err)
	}
	var out []core.Ticket
	for _, pos := range first {
		if pos < 0 {
			continue
		}
		t, err := o.ticketAt(ctx, tx, b, pos)
		if err != nil {
			return nil, fmt.Errorf("samples: %w", err)
		}
		out = append(out, t)
	}
	return out, nil
}

// prizes reads stored prizes for a replay of the journal.
type prizes struct {
	ctx context.Context
	q   core.Querier
}

func (p prizes) Prize(b core.Block, pos int) (int, error) {
	_, pb, err := StoredTicket(p.ctx, p.q, b, pos)
	if err != nil {
		return 0, err
	}
	prize, _ := core.PrizeOf(pb)
	return prize, nil
}

// UnpaidWinners lists the positions of block number of game gameCode's
// winning tickets not paid yet, in block order, with their prizes in euros:
// what a load test of a demonstration ledger claims, each once (vegas-desk
// load --winners). Any other ledger refuses, as Samples does.
func (o *Store) UnpaidWinners(ctx context.Context, gameCode, number int) (positions, prizes []int, err error) {
	if !o.Demo {
		return nil, nil, fmt.Errorf("unpaid winners: %w: only a demonstration ledger lists its unpaid winners", core.ErrNotDemo)
	}
	tx, err := o.E.Read(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer tx.Rollback()
	b, err := GetBlock(ctx, tx, gameCode, number)
	if err != nil {
		return nil, nil, fmt.Errorf("unpaid winners: %w", err)
	}
	var paid []int64
	if err := core.Select(ctx, tx, &paid, "SELECT ticket FROM paid WHERE ticket >= ? AND ticket < ?", b.First(), b.First()+int64(b.Tickets)); err != nil {
		return nil, nil, fmt.Errorf("unpaid winners: %w", o.E.Classify(err))
	}
	isPaid := make(map[int]bool, len(paid))
	for _, t := range paid {
		isPaid[int(t-b.First())] = true
	}
	err = ScanPrizes(ctx, tx, b, func(start int, bytes []byte) bool {
		for i, pb := range bytes {
			if prize, ok := core.PrizeOf(pb); ok && prize > 0 && !isPaid[start+i] {
				positions, prizes = append(positions, start+i), append(prizes, prize)
			}
		}
		return true
	})
	if err != nil {
		return nil, nil, fmt.Errorf("unpaid winners: %w", o.E.Classify(err))
	}
	return positions, prizes, nil
}
