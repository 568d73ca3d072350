package paper

import (
	"fmt"
	"io"
	"time"

	"github.com/boombuler/barcode/code128"

	"vegas-desk/internal/game"
)

// Labels are pack labels, one a pack, to stick on its wrapping: each names
// the pack by its code with its check digit, its game and block, and its
// tickets' positions, over the Code 128 barcode of the code's 12 digits
// that a counter scans to receive or activate the pack.
type Labels struct {
	GameName string // "VEGAS"
	Packs    []Pack // in print order
	// Roll prints one label a page, the page the size of a label of a
	// roll (LabelRoll); otherwise A4 sheets of LabelColumns × LabelRows
	// labels (LabelSheet), across then down.
	Roll bool
	// PrintedAt is the PDF's date (the Unix epoch when zero).
	PrintedAt time.Time
}

// Label sizes, in millimetres: the A4 sheets of 3 × 8 labels of 70 ×
// 37 mm that fill the page edge to edge (e.g. Avery 3474), and a roll of
// 62 × 29 mm labels (e.g. Brother DK-11209).
const (
	LabelColumns = 3
	LabelRows    = 8
)

var (
	LabelSheet = [2]float64{210.0 / LabelColumns, 297.0 / LabelRows}
	LabelRoll  = [2]float64{62, 29}
)

// The barcode: a module is 4 dots at 300 dpi (0.339 mm), so that it falls
// on whole dots at 300 and 600 dpi, with a quiet zone of 10 modules each
// side, as Code 128 asks.
const (
	moduleMM   = 25.4 * 4 / 300
	quietZone  = 10
	barsHeight = 10.0
)

// WriteLabels writes the labels of l.Packs.
func WriteLabels(w io.Writer, l Labels) error {
	if len(l.Packs) == 0 {
		return fmt.Errorf("pack labels: no pack to label")
	}
	m := meta{title: fmt.Sprintf("Étiquettes de carnets — %s — %s", orDash(l.GameName), count(len(l.Packs), "carnet")), date: docDate(l.PrintedAt)}
	size := LabelSheet
	page := [2]float64{210, 297}
	if l.Roll {
		size, page = LabelRoll, LabelRoll
	}
	d := newDoc(m, page[0], page[1], 0)
	d.pdf.SetMargins(0, 0, 0)
	d.pdf.SetAutoPageBreak(false, 0)
	perPage := LabelColumns * LabelRows
	if l.Roll {
		perPage = 1
	}
	for i, p := range l.Packs {
		k := i % perPage
		if k == 0 {
			d.pdf.AddPage()
		}
		x, y := float64(k%LabelColumns)*size[0], float64(k/LabelColumns)*size[1]
		if err := l.label(d, p, x, y, size[0], size[1]); err != nil {
			return fmt.Errorf("label of pack %s: %w", p, err)
		}
	}
	if err := d.pdf.Error(); err != nil {
		return err
	}
	return d.pdf.Output(w)
}

// label draws one label in the box (x, y, w, h): the game and block, the
// pack code large, the tickets' positions, and the barcode, centred.
func (l *Labels) label(d *doc, p Pack, x, y, w, h float64) error {
	code := game.PackCode{Game: p.Game, Block: p.Block, Pack: p.Pack}
	bc, err := code128.Encode(code.Compact())
	if err != nil {
		return err
	}
	modules := bc.Bounds().Dx()
	barsW := float64(modules) * moduleMM
	if barsW+2*quietZone*moduleMM > w {
		return fmt.Errorf("the barcode needs %.0f mm, the label has %.0f", barsW+2*quietZone*moduleMM, w)
	}
	first := code.First()
	lines := []struct {
		text  string
		mono  bool
		size  float64 // points
		lineH float64 // mm
	}{
		{fmt.Sprintf("%s — jeu %03d — bloc %04d", orDash(l.GameName), p.Game, p.Block), false, 7.5, 3.4},
		{code.String(), true, 13, 5.6},
		{fmt.Sprintf("Tickets %07d à %07d (%d)", first, first+game.PackSize-1, game.PackSize), false, 7, 3.2},
	}
	textH := 0.0
	for _, ln := range lines {
		textH += ln.lineH
	}
	gap := 1.2
	top := y + (h-textH-gap-barsHeight)/2
	d.pdf.SetXY(x, top)
	for _, ln := range lines {
		if ln.mono {
			d.mono("B", ln.size)
		} else {
			d.font("", ln.size)
		}
		d.pdf.SetX(x)
		d.cell(w, ln.lineH, d.fit(ln.text, w-4), "C")
		d.pdf.Ln(ln.lineH)
	}
	bx, by := x+(w-barsW)/2, top+textH+gap
	d.pdf.SetFillColor(0, 0, 0)
	for i := 0; i < modules; {
		if r, _, _, _ := bc.At(i, 0).RGBA(); r != 0 {
			i++
			continue
		}
		n := 1
		for i+n < modules {
			if r, _, _, _ := bc.At(i+n, 0).RGBA(); r != 0 {
				break
			}
			n++
		}
		d.pdf.Rect(bx+float64(i)*moduleMM, by, float64(n)*moduleMM, barsHeight, "F")
		i += n
	}
	return nil
}
