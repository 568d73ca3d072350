package ui

import (
	"context"
	"slices"
	"sort"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger"
)

// A first run on a demonstration ledger: a block to try, and the serials
// to try in it.

// firstRun offers a demonstration block when the ledger has none.
func (d *desk) firstRun() {
	if d.ledger == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	bs, err := d.ledger.Blocks(ctx)
	if err != nil || len(bs) > 0 {
		return
	}
	msg := widget.NewLabel(lang.L("This ledger holds no block yet. Generate a demonstration block of {{.Tickets}} tickets (game {{.Game}}) to try the counter?",
		map[string]any{"Game": DefaultGame, "Tickets": game.GroupDigits(game.BlockSize)}))
	msg.Wrapping = fyne.TextWrapWord
	dlg := d.ask(lang.L("Welcome to vegas-desk"), msg, lang.L("Generate"), lang.L("Not now"), func(ok bool) {
		if !ok {
			return
		}
		d.blocks.startGenerate(func(_ ledger.Block, err error) {
			if err == nil && d.ledger != nil && d.ledger.Demo() {
				d.showSamples()
			}
		})
	})
	dlg.Resize(fyne.NewSize(560, dlg.MinSize().Height))
}

// samples returns the serials to try of block bl (ledger.Samples): a
// loser and each tier's first unpaid winner, the smallest prizes first.
func samples(ctx context.Context, l *ledger.Ledger, bl ledger.Block) ([]ledger.Ticket, error) {
	ts, err := l.Samples(ctx, bl.Game, bl.Number)
	if err != nil {
		return nil, err
	}
	sort.SliceStable(ts, func(i, j int) bool { return ts[i].Prize < ts[j].Prize })
	return ts, nil
}

// showSamples shows serials to try at the counter, for the block chosen
// among the ledger's blocks (the last one first): a loser, and each
// prize's first ticket not yet paid. They are read in a goroutine.
func (d *desk) showSamples() {
	if !d.needLedger() {
		return
	}
	if !d.ledger.Demo() {
		d.showError(ledger.ErrNotDemo)
		return
	}
	l := d.ledger
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	bs, err := l.Blocks(ctx)
	cancel()
	if err != nil {
		d.showError(err)
		return
	}
	if len(bs) == 0 {
		d.inform(lang.L("Serials to try"), lang.L("Generate a block first."))
		return
	}
	names := make([]string, len(bs))
	for i, b := range bs {
		names[i] = lang.L("Block") + " " + b.Name()
	}
	list := container.NewVBox()
	var dlg dialog.Dialog
	var fit func() // sizes the dialog to the list
	pick := d.newSelect(names, nil)
	seq := 0 // only the last block chosen is shown
	pick.OnChanged = func(name string) {
		i := slices.Index(names, name)
		if i < 0 {
			return
		}
		seq++
		mine := seq
		list.Objects = []fyne.CanvasObject{widget.NewLabel("…")}
		list.Refresh()
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			ts, err := samples(ctx, l, bs[i])
			onMain(func() {
				if mine != seq || d.closing || d.ledger != l {
					return
				}
				d.fillSamples(dlg, list, ts, err)
				fit()
			})
		}()
	}
	// The list scrolls, in a dialog as tall as it needs, up to the
	// window's height: Fermer is under the list, never on a row of it.
	scroll := container.NewVScroll(list)
	box := container.NewBorder(container.NewVBox(pick,
		widget.NewLabel(lang.L("Type or paste one of these serials at the counter, or check it from here:"))), nil, nil, nil, scroll)
	dlg = d.ask(lang.L("Serials to try"), box, "", lang.L("Close"), nil)
	fit = func() {
		need := dlg.MinSize().Height - scroll.MinSize().Height + list.MinSize().Height
		room := d.win.Canvas().Size().Height - 4*theme.Padding()
		dlg.Resize(fyne.NewSize(max(680, dlg.MinSize().Width), min(need, room)))
	}
	fit()
	pick.SetSelectedIndex(len(bs) - 1)
}

// fillSamples lists the serials ts in the samples dialog, or err.
func (d *desk) fillSamples(dlg dialog.Dialog, list *fyne.Container, ts []ledger.Ticket, err error) {
	list.Objects = nil
	if err != nil {
		list.Add(widget.NewLabel(errorText(err)))
	}
	for _, t := range ts {
		e := d.newEntry()
		e.SetText(t.Serial.String())
		e.TextStyle.Monospace = true
		label := lang.L("loser")
		if t.Prize > 0 {
			label = lang.L("winner") + " " + game.FormatAmount(t.Prize)
		}
		serial := t.Serial.String()
		try := d.button(lang.L("Check"), nil, func() {
			dlg.Hide()
			d.tabs.SelectIndex(tabCounter)
			d.counter.check(serial)
		})
		name := widget.NewLabel(label)
		list.Add(container.NewBorder(nil, nil, container.NewGridWrap(fyne.NewSize(150, name.MinSize().Height), name), try, e))
	}
	list.Refresh()
}
