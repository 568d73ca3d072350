package ui

import (
	"context"
	"errors"
	"fmt"
	"image/color"
	"io"
	"os"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger"
	"vegas-desk/internal/platform"
	"vegas-desk/internal/ticketart"
)

// blocksScreen is Blocs: the blocks with their digests, generation, a
// block's reconciliation per tier with a chart, verify and export.
type blocksScreen struct {
	d       *desk
	content fyne.CanvasObject

	list   *keyList
	blocks []ledger.Block
	sel    int // index in blocks, -1 for none
	seq    int // counts the reports asked for; only the last one is shown

	title  *widget.Label
	digest *widget.Label
	copy   *keyButton      // copies the digest
	report *fyne.Container // a header, a line per tier and the total
	cells  [][]*canvas.Text
	chart  *tierChart
	rep    ledger.Report

	verify, export *keyButton
	task           *task // the last long task started, for tests
}

var reportColumns = []string{"Prize", "Table", "Generated", "Claimed", "Claimed sum", "Outstanding", "Liability"}

func newBlocksScreen(d *desk) *blocksScreen {
	b := &blocksScreen{d: d, sel: -1}
	b.list = d.newList(
		func() int { return len(b.blocks) },
		func() fyne.CanvasObject {
			t := widget.NewLabel("")
			t.TextStyle.Bold = true
			s := widget.NewLabel("")
			s.TextStyle.Monospace = true
			s.Truncation = fyne.TextTruncateEllipsis
			return container.NewVBox(t, s)
		},
		func(id widget.ListItemID, o fyne.CanvasObject) {
			bl := b.blocks[id]
			box := o.(*fyne.Container)
			box.Objects[0].(*widget.Label).SetText(fmt.Sprintf("%s %d/%d · %s · %s %s", lang.L("Block"), bl.Game, bl.Number,
				bl.CreatedAt.Local().Format("02/01/2006 15:04"), game.GroupDigits(bl.Tickets), lang.L("tickets")))
			box.Objects[1].(*widget.Label).SetText(bl.Digest)
		})
	b.list.OnSelected = func(id widget.ListItemID) { b.sel = id; b.showReport() }

	gen := d.button(lang.L("Generate a block"), theme.ContentAddIcon(), b.generate)
	gen.Importance = widget.HighImportance
	b.verify = d.button(lang.L("Verify"), theme.ConfirmIcon(), b.runVerify)
	b.export = d.button(lang.L("Export JSON Lines…"), theme.DocumentSaveIcon(), b.askExport)
	b.verify.Disable()
	b.export.Disable()

	b.title = widget.NewLabel(lang.L("Choose a block."))
	b.title.TextStyle.Bold = true
	// The digest in the foreground colour, selectable, with a button that
	// copies it: it is written down or sent to an auditor.
	b.digest = widget.NewLabel("")
	b.digest.TextStyle.Monospace = true
	b.digest.Selectable = true
	b.digest.Truncation = fyne.TextTruncateEllipsis
	b.copy = d.button("", theme.ContentCopyIcon(), func() { b.d.app.Clipboard().SetContent(b.digest.Text) })
	b.copy.Disable()
	// Every tier and the total, always all in view: a grid of labels, not
	// a scrolling table.
	b.report = container.NewGridWithColumns(len(reportColumns))
	for row := range len(game.PrizeTable) + 2 {
		var line []*canvas.Text
		for col := range reportColumns {
			l := canvas.NewText("", theme.Color(theme.ColorNameForeground))
			l.Alignment = fyne.TextAlignTrailing
			l.TextStyle.Bold = row == 0 || row == len(game.PrizeTable)+1
			if row == 0 {
				l.Text = lang.L(reportColumns[col])
			}
			line = append(line, l)
			b.report.Add(l)
		}
		b.cells = append(b.cells, line)
	}
	b.chart = newTierChart()

	left := container.NewBorder(container.NewVBox(container.NewHBox(gen), widget.NewSeparator()), nil, nil, nil, b.list)
	legend := container.NewHBox(swatch(colPaid), widget.NewLabel(lang.L("paid")), swatch(colOutstanding), widget.NewLabel(lang.L("outstanding")))
	right := container.NewBorder(
		container.NewVBox(b.title, container.NewBorder(nil, nil, nil, b.copy, b.digest), container.NewHBox(b.verify, b.export),
			widget.NewSeparator(), b.report, widget.NewSeparator(), legend), nil, nil, nil,
		b.chart)
	split := container.NewHSplit(container.NewPadded(left), container.NewPadded(right))
	split.Offset = 0.34
	b.content = split
	return b
}

func swatch(c color.Color) fyne.CanvasObject {
	r := canvas.NewRectangle(c)
	r.SetMinSize(fyne.NewSize(18, 18))
	r.CornerRadius = 3
	return container.NewCenter(r)
}

// fillReport writes the report's lines, or empties them before a report
// is read.
func (b *blocksScreen) fillReport() {
	lines := append(b.rep.Tiers, b.rep.Total)
	for row, cells := range b.cells[1:] {
		for col, l := range cells {
			text := ""
			if len(b.rep.Tiers) > 0 && row < len(lines) {
				text = reportCell(lines[row], col, row == len(lines)-1)
			}
			l.Text = text
			l.Refresh()
		}
	}
}

func reportCell(l ledger.TierLine, col int, total bool) string {
	switch col {
	case 0:
		if total {
			return lang.L("Total")
		}
		return game.FormatAmount(l.Prize)
	case 1:
		return game.GroupDigits(l.Table)
	case 2:
		return game.GroupDigits(l.Generated)
	case 3:
		return game.GroupDigits(l.Claimed)
	case 4:
		return game.FormatAmount(l.ClaimedSum)
	case 5:
		return game.GroupDigits(l.Outstanding)
	case 6:
		return game.FormatAmount(l.Liability)
	}
	return ""
}

// reload lists the blocks again.
func (b *blocksScreen) reload() {
	if b.d.ledger == nil {
		b.blocks = nil
		b.list.Refresh()
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	bs, err := b.d.ledger.Blocks(ctx)
	if err != nil {
		b.d.showError(err)
		return
	}
	b.blocks = bs
	b.list.Refresh()
	if b.sel >= 0 && b.sel < len(bs) {
		b.showReport()
	}
}

// unselect forgets the selected block: its report, title, digest and chart,
// and disables Verify and Export.
func (b *blocksScreen) unselect() {
	b.sel = -1
	b.seq++ // a report being read is dropped
	b.list.UnselectAll()
	b.rep = ledger.Report{}
	b.title.SetText(lang.L("Choose a block."))
	b.digest.SetText("")
	b.copy.Disable()
	b.fillReport()
	b.chart.set(ledger.Report{})
	b.verify.Disable()
	b.export.Disable()
}

// showReport shows the reconciliation of the selected block. The report
// reads the whole block, so it is read in a goroutine; "…" is shown until
// it arrives, and a report that arrives after another choice is dropped.
func (b *blocksScreen) showReport() {
	if b.sel < 0 || b.sel >= len(b.blocks) || b.d.ledger == nil {
		return
	}
	bl, l := b.blocks[b.sel], b.d.ledger
	b.seq++
	seq := b.seq
	title := fmt.Sprintf("%s %d/%d · %s %s · %s %s", lang.L("Block"), bl.Game, bl.Number,
		game.GroupDigits(bl.Winners), lang.L("winners"), game.FormatAmount(bl.Payout), lang.L("of prizes"))
	b.title.SetText(title + " · …")
	b.digest.SetText(bl.Digest)
	b.copy.Enable()
	b.rep = ledger.Report{}
	b.fillReport()
	b.chart.set(b.rep)
	b.verify.Enable()
	b.export.Enable()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		rep, err := l.Report(ctx, bl.Game, bl.Number)
		onMain(func() {
			if seq != b.seq || b.d.closing {
				return // another block was chosen, or the ledger changed
			}
			if err != nil {
				b.title.SetText(title)
				b.d.showError(err)
				return
			}
			b.rep = rep
			b.title.SetText(title)
			b.fillReport()
			b.chart.set(rep)
		})
	}()
}

// generate asks for a confirmation, then generates the game's next block.
func (b *blocksScreen) generate() {
	if !b.d.needLedger() {
		return
	}
	text := lang.L("Generate a new block of {{.Tickets}} tickets for game {{.Game}}? It takes a few seconds.",
		map[string]any{"Game": DefaultGame, "Tickets": game.GroupDigits(game.BlockSize)})
	if b.d.ledger.Demo() {
		// startGenerate puts a demonstration ledger's blocks on sale: say so.
		text += "\n" + lang.L("This is a demonstration ledger: its {{.Packs}} are put on sale at once, at no counter, so that any of its tickets can be checked and paid.",
			map[string]any{"Packs": packCount(game.Packs)})
	}
	msg := widget.NewLabel(text)
	msg.Wrapping = fyne.TextWrapWord
	dlg := b.d.ask(lang.L("Generate a block"), msg, lang.L("Generate"), lang.L("Cancel"), func(ok bool) {
		if ok {
			b.startGenerate(nil)
		}
	})
	dlg.Resize(fyne.NewSize(560, dlg.MinSize().Height))
}

// startGenerate generates a block in a goroutine; then runs after it, on
// the app goroutine, when it is not nil.
func (b *blocksScreen) startGenerate(then func(ledger.Block, error)) *task {
	l := b.d.ledger
	var blk ledger.Block
	b.task = b.d.startTask(lang.L("Generating a block"), func(ctx context.Context, progress func(int, int)) error {
		seed, err := game.NewSeed()
		if err != nil {
			return err
		}
		// A demonstration ledger's blocks go on sale at once.
		blk, err = l.Generate(ctx, DefaultGame, seed, ledger.GenerateOptions{Activate: l.Demo(), Who: b.d.identity(), Progress: progress})
		return err
	}, func(err error) {
		switch {
		case cancelled(err):
			b.d.inform(lang.L("Generation cancelled"), lang.L("Nothing was written to the ledger."))
		case err != nil:
			b.d.showError(err)
		}
		b.reload()
		if err == nil {
			for i, x := range b.blocks {
				if x.ID == blk.ID {
					b.list.Select(i)
				}
			}
		}
		if then != nil {
			then(blk, err)
		}
	})
	return b.task
}

// runVerify verifies the selected block with progress.
func (b *blocksScreen) runVerify() {
	if b.sel < 0 || b.sel >= len(b.blocks) {
		return
	}
	bl, l := b.blocks[b.sel], b.d.ledger
	var rep ledger.VerifyReport
	b.task = b.d.startTask(lang.L("Verifying the block"), func(ctx context.Context, progress func(int, int)) error {
		var err error
		rep, err = l.Verify(ctx, bl.Game, bl.Number, progress)
		return err
	}, func(err error) {
		switch {
		case cancelled(err):
			b.d.inform(lang.L("Verification cancelled"), lang.L("The verification was stopped before the end."))
			return
		case err != nil:
			b.d.showError(err)
			return
		}
		if !rep.OK() {
			var s []string
			for i, p := range rep.Problems {
				if i == 30 {
					s = append(s, fmt.Sprintf("… (%d)", len(rep.Problems)))
					break
				}
				s = append(s, p.String())
			}
			b.d.showError(errors.New(lang.L("The ledger does not match:") + "\n" + strings.Join(s, "\n")))
			return
		}
		b.showVerified(rep)
	})
}

// showVerified says that everything matched, and shows the journal's head
// hash with a button that copies it: written down outside the file, it
// proves at the next verification that nothing was changed since.
func (b *blocksScreen) showVerified(rep ledger.VerifyReport) {
	msg := widget.NewLabel(lang.L("Everything matches: {{.Tickets}} tickets, {{.Entries}} journal entries.",
		map[string]any{"Tickets": game.GroupDigits(rep.Tickets), "Entries": rep.Entries}))
	box := container.NewVBox(msg)
	if rep.Head != "" {
		note := widget.NewLabel(lang.L("Write down the journal head outside this computer (a register, a message); the next verification must show it, or a later one."))
		note.Wrapping = fyne.TextWrapWord
		head := widget.NewLabel(rep.Head)
		head.TextStyle.Monospace = true
		head.Selectable = true
		copyHead := b.d.button(lang.L("Copy"), theme.ContentCopyIcon(), func() { b.d.app.Clipboard().SetContent(rep.Head) })
		box.Add(widget.NewLabelWithStyle(lang.L("Journal head"), fyne.TextAlignLeading, fyne.TextStyle{Bold: true}))
		box.Add(container.NewBorder(nil, nil, nil, copyHead, head))
		box.Add(note)
	}
	dlg := b.d.ask(lang.L("Verification"), box, "", lang.L("Close"), nil)
	dlg.Resize(fyne.NewSize(760, dlg.MinSize().Height))
}

// askExport asks for a file, then exports the selected block to it.
func (b *blocksScreen) askExport() {
	if b.sel < 0 || b.sel >= len(b.blocks) {
		return
	}
	bl := b.blocks[b.sel]
	fd := dialog.NewFileSave(func(w fyne.URIWriteCloser, err error) {
		if err != nil {
			b.d.showError(err)
			return
		}
		if w != nil {
			b.startExport(bl, w)
		}
	}, b.d.win)
	fd.SetFileName(fmt.Sprintf("bloc-%d-%d.jsonl", bl.Game, bl.Number))
	fd.Show()
}

// startExport exports block bl to w in a goroutine. w is closed at the end;
// when the export fails or is cancelled, the partial file is deleted.
func (b *blocksScreen) startExport(bl ledger.Block, w fyne.URIWriteCloser) *task {
	l := b.d.ledger
	b.task = b.d.startTask(lang.L("Exporting the block"), func(ctx context.Context, progress func(int, int)) error {
		return exportTo(w, func(w io.Writer) error { return l.Export(ctx, bl.Game, bl.Number, w, progress) })
	}, func(err error) {
		switch {
		case cancelled(err):
			b.d.inform(lang.L("Export cancelled"), lang.L("The partial file was deleted."))
		case err != nil:
			b.d.showError(err)
		default:
			b.d.inform(lang.L("Export"), lang.L("Block exported to {{.Path}}", map[string]any{"Path": w.URI().Path()}))
		}
	})
	return b.task
}

// exportTo runs write on w and closes w, returning the first error of the
// two. On an error the file is deleted, so that no partial export is left
// that could pass for a whole one. A file is made its owner's alone (0600,
// whatever the umask) before anything is written to it: an export holds
// every serial of a block, a paper real serials and amounts.
func exportTo(w fyne.URIWriteCloser, write func(io.Writer) error) error {
	var err error
	if w.URI().Scheme() == "file" {
		err = os.Chmod(w.URI().Path(), 0o600)
		if err == nil {
			err = platform.OwnerOnly(w.URI().Path()) // Windows: 0600 means nothing there
		}
	}
	if err == nil {
		err = write(w)
	}
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		if derr := storage.Delete(w.URI()); derr != nil {
			fyne.LogError("delete the partial export", derr)
		}
	}
	return err
}

// cancelled says whether err comes from a cancelled task.
func cancelled(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, game.ErrCancelled)
}

var (
	colPaid        = color.NRGBA{0x1f, 0xa8, 0x5a, 0xff}
	colOutstanding = color.NRGBA{0xff, 0xb7, 0x1f, 0xff}
)

// tierChart draws, for each tier of a block, a bar split into the claimed
// and the outstanding tickets, and a last bar for the money.
type tierChart struct {
	widget.BaseWidget
	rep ledger.Report
}

func newTierChart() *tierChart {
	c := &tierChart{}
	c.ExtendBaseWidget(c)
	return c
}

func (c *tierChart) set(r ledger.Report) {
	c.rep = r
	c.Refresh()
}

func (c *tierChart) CreateRenderer() fyne.WidgetRenderer { return &chartRenderer{c: c} }

type chartRenderer struct {
	c    *tierChart
	size fyne.Size
	objs []fyne.CanvasObject
}

func (r *chartRenderer) Destroy()                     {}
func (r *chartRenderer) Objects() []fyne.CanvasObject { return r.objs }
func (r *chartRenderer) MinSize() fyne.Size           { return fyne.NewSize(300, 160) }
func (r *chartRenderer) Layout(s fyne.Size)           { r.size = s; r.draw() }
func (r *chartRenderer) Refresh()                     { r.draw(); canvas.Refresh(r.c) }

func (r *chartRenderer) draw() {
	r.objs = r.objs[:0]
	rep := r.c.rep
	rows := len(rep.Tiers)
	if rows == 0 || r.size.Width <= 0 {
		return
	}
	rows++ // the money
	fg := theme.Color(theme.ColorNameForeground)
	labelW := float32(110)
	rowH := r.size.Height / float32(rows)
	barW := r.size.Width - labelW - 10
	bar := func(i int, label string, paid, total int, note string) {
		y := float32(i) * rowH
		h := rowH * 0.66
		t := canvas.NewText(label, fg)
		t.TextSize = min(14, h*0.8)
		t.TextStyle.Bold = true
		t.Alignment = fyne.TextAlignTrailing
		t.Move(fyne.NewPos(0, y+(h-t.TextSize)/2-2))
		t.Resize(fyne.NewSize(labelW-8, t.TextSize+4))
		bg := canvas.NewRectangle(colOutstanding)
		bg.CornerRadius = 4
		bg.Move(fyne.NewPos(labelW, y))
		bg.Resize(fyne.NewSize(barW, h))
		frac := float32(0)
		if total > 0 {
			frac = float32(paid) / float32(total)
		}
		p := canvas.NewRectangle(colPaid)
		p.CornerRadius = 4
		p.Move(fyne.NewPos(labelW, y))
		p.Resize(fyne.NewSize(barW*frac, h))
		n := canvas.NewText(note, ticketart.Ink)
		n.TextSize = min(12, h*0.7)
		n.Move(fyne.NewPos(labelW+6, y+(h-n.TextSize)/2-2))
		r.objs = append(r.objs, t, bg, p, n)
	}
	for i, l := range rep.Tiers {
		bar(i, game.FormatAmount(l.Prize), l.Claimed, l.Generated,
			fmt.Sprintf("%s / %s", game.GroupDigits(l.Claimed), game.GroupDigits(l.Generated)))
	}
	tot := rep.Total
	bar(rows-1, lang.L("Total €"), tot.ClaimedSum, tot.ClaimedSum+tot.Liability,
		fmt.Sprintf("%s %s · %s %s", game.FormatAmount(tot.ClaimedSum), lang.L("paid"), game.FormatAmount(tot.Liability), lang.L("outstanding")))
}
