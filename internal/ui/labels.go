package ui

// Carnets' labels: which packs' labels the dialog offers, and the dialog.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/widget"

	"vegas-desk/internal/game"
	"vegas-desk/internal/paper"
)

// maxLabels is the most labels the labels dialog offers by default: ten
// sheets of 24. More are typed as ranges.
const maxLabels = 240

// labelsDefault is what the labels dialog offers: the run selected in the
// list, else the packs listed when they are few, as ranges of block (g, b).
func (p *packsScreen) labelsDefault(g, b int) string {
	runs := p.runs
	if p.selected >= 0 && p.selected < len(runs) {
		runs = runs[p.selected : p.selected+1]
	}
	var out []string
	n := 0
	for _, r := range runs {
		if r.Game != g || r.Block != b {
			return ""
		}
		n += r.Last - r.First + 1
		if r.First == r.Last {
			out = append(out, strconv.Itoa(r.First))
		} else {
			out = append(out, fmt.Sprintf("%d-%d", r.First, r.Last))
		}
	}
	if n > maxLabels {
		return ""
	}
	return strings.Join(out, ", ")
}

// askLabels offers labels of packs, one a pack (its code, its barcode, its
// tickets), on A4 sheets of 3 × 8 or one a page for a roll: the packs typed
// (numbers and ranges of the block, or codes), at first the run selected in
// the list, or those listed when they are few.
func (p *packsScreen) askLabels() {
	if !p.d.needLedger() {
		return
	}
	g, b := p.blockOf()
	if b == 0 && len(p.runs) > 0 {
		g, b = p.runs[0].Game, p.runs[0].Block
	}
	if b == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	em, err := p.d.ledger.Emission(ctx, g)
	cancel()
	if err != nil {
		p.d.showError(err)
		return
	}
	var packs []paper.Pack
	field := p.d.newDialogEntry()
	field.SetPlaceHolder("120-139, 150")
	field.SetText(p.labelsDefault(g, b))
	field.Validator = func(v string) error {
		packs = nil
		ranges, err := game.ParsePacks(strings.FieldsFunc(v, func(r rune) bool { return r == ' ' || r == ',' || r == ';' }), g, b)
		if err != nil {
			return errors.New(lang.L("Type pack numbers (with their block), ranges A-B, or scan the packs' codes."))
		}
		for _, r := range ranges {
			for n := r.First; n <= r.Last; n++ {
				packs = append(packs, paper.Pack{Game: r.Game, Block: r.Block, Pack: n})
			}
		}
		if len(packs) > maxLabels {
			return errors.New(lang.L("{{.Packs}}: at most {{.Max}} labels at once.", map[string]any{"Packs": packCount(len(packs)), "Max": maxLabels}))
		}
		return nil
	}
	sheet, roll := lang.L("A4 sheets of 3 × 8 labels (70 × 37 mm)"), lang.L("A roll: one 62 × 29 mm label a page")
	format := widget.NewRadioGroup([]string{sheet, roll}, nil)
	format.SetSelected(sheet)
	form := widget.NewForm(
		widget.NewFormItem(lang.L("Packs of block {{.Block}}", map[string]any{"Block": fmt.Sprintf("%d/%d", g, b)}), field),
		widget.NewFormItem(lang.L("Format"), format))
	dlg := p.d.ask(lang.L("Labels"), form, lang.L("Make the labels"), lang.L("Back"), func(ok bool) {
		if !ok {
			return
		}
		l := paper.Labels{GameName: em.Name, Packs: packs, Roll: format.Selected == roll, PrintedAt: time.Now()}
		p.d.offerPDF(lang.L("Labels of {{.Packs}}", map[string]any{"Packs": packCount(len(packs))}), "etiquettes.pdf",
			func(w io.Writer) error { return paper.WriteLabels(w, l) })
	})
	dlg.Resize(fyne.NewSize(560, dlg.MinSize().Height))
	p.d.win.Canvas().Focus(field)
}
