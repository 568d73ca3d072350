package backoffice

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/core"
)

// VoidsBetween lists desk's payments voided from since until before until.
func (o *Store) VoidsBetween(ctx context.Context, desk string, since, until time.Time) ([]core.Claim, error) {
	var rows []ClaimRow
	if err := core.Select(ctx, o.E.Pool(), &rows, ClaimSelect+" WHERE c.kind = 'claim' AND c.desk = ? AND v.at >= ? AND v.at < ? ORDER BY v.id",
		desk, core.FormatTime(since), core.FormatTime(until)); err != nil {
		return nil, fmt.Errorf("list voids: %w", o.E.Classify(err))
	}
	out := make([]core.Claim, len(rows))
	for i := range rows {
		out[i] = rows[i].Claim()
	}
	return out, nil
}

// Settlement returns desk's settlement for game gameCode from the day of
// from to the day of to, both included, in their location (time.Local for
// the counter's days). Only the back office settles.
func (o *Store) Settlement(ctx context.Context, desk string, gameCode int, from, to time.Time) (core.SettlementFacts, error) {
	desk = strings.TrimSpace(desk)
	if desk == "" {
		return core.SettlementFacts{}, errors.New("settlement: name the desk")
	}
	first, _ := core.DayBounds(from)
	last, end := core.DayBounds(to)
	if last.Before(first) {
		return core.SettlementFacts{}, errors.New("settlement: the period ends before it starts: give --since before --until")
	}
	g, err := o.Game(ctx, gameCode)
	if err != nil {
		return core.SettlementFacts{}, err
	}
	s := core.SettlementFacts{Desk: desk, Game: gameCode, From: first, To: last, PackSize: game.PackSize, Price: g.Price}
	moves, err := o.PackEntries(ctx, core.PackEntryFilter{Desk: desk, Since: first, Until: end, Moves: []string{"activate"}})
	if err != nil {
		return core.SettlementFacts{}, err
	}
	var ofGame []core.PackEntry
	for _, m := range moves {
		if m.Game == gameCode {
			ofGame = append(ofGame, m)
		}
	}
	s.Packs = core.PacksOf(ofGame)
	cs, err := o.Claims(ctx, core.ClaimFilter{Game: gameCode, Desk: desk, Since: first, Until: end})
	if err != nil {
		return core.SettlementFacts{}, err
	}
	for _, c := range cs {
		if !c.Voided {
			s.Payments = append(s.Payments, c)
			s.PrizeCount++
			s.PrizeSum += c.Amount
		}
	}
	cases, err := o.Cases(ctx)
	if err != nil {
		return core.SettlementFacts{}, err
	}
	s.Cases = core.CasesOf(cases, desk, first, end)
	if s.Rate, err = o.Setting(ctx, core.SettingCommission); err != nil {
		return core.SettlementFacts{}, err
	}
	s.PrintedAt = o.now()
	return s, nil
}
