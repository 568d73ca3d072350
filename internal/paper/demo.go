package paper

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/go-pdf/fpdf"

	"vegas-desk/internal/game"
)

// DemoSheets are demonstration tickets to print, four to an A4 page, to
// cut out along the marks.
type DemoSheets struct {
	Game, Block int
	Positions   []int // the tickets' positions in the block, in print order
	// Image draws the ticket at Positions[i]. It is called once for each
	// ticket, in order; its picture is printed whole, in its proportions.
	Image func(i int) (image.Image, error)
	// PrintedAt is the PDF's date (the Unix epoch when zero).
	PrintedAt time.Time
}

// Layout of a demonstration sheet, in millimetres: a caption line, then two
// rows of two boxes, a ticket centred in each. Cut marks stand off from a
// ticket's corners and run markLen outwards: the margins (beyond what
// printers cannot reach), the space under the caption and the gap between
// boxes leave them room, and neighbours' marks do not meet.
const (
	demoMargin  = 12.0
	captionLine = 6.0
	markOff     = 1.5
	markLen     = 3.5
	demoCaption = captionLine + markOff + markLen + 1
	demoGap     = 2*(markOff+markLen) + 2
	boxW        = (210 - 2*demoMargin - demoGap) / 2
	boxH        = (297 - 2*demoMargin - demoCaption - demoGap) / 2
)

// WriteDemoSheets writes the demonstration sheets: A4 pages of four
// tickets (2 × 2) with cut marks, each page captioned with its block,
// packs and positions.
func WriteDemoSheets(w io.Writer, s DemoSheets) error {
	if s.Image == nil {
		return errors.New("demonstration sheets: no function to draw the tickets")
	}
	sheets := (len(s.Positions) + 3) / 4
	d := newDoc(meta{title: fmt.Sprintf("Tickets de démonstration — jeu %03d — bloc %04d", s.Game, s.Block),
		date: docDate(s.PrintedAt)}, 210, 297, 0)
	d.pdf.SetMargins(demoMargin, demoMargin, demoMargin)
	d.pdf.SetAutoPageBreak(false, 0)
	for i, pos := range s.Positions {
		k := i % 4
		if k == 0 {
			d.pdf.AddPage()
			s.caption(d, i/4+1, sheets, s.Positions[i:min(i+4, len(s.Positions))])
		}
		img, err := s.Image(i)
		if err != nil {
			return fmt.Errorf("ticket at position %d: %w", pos, err)
		}
		if err := placeTicket(d, fmt.Sprint("ticket-", i), img, k); err != nil {
			return fmt.Errorf("ticket at position %d: %w", pos, err)
		}
	}
	if err := d.pdf.Error(); err != nil {
		return err
	}
	return d.pdf.Output(w)
}

// caption prints a sheet's line: game and block, packs, positions, sheet
// number.
func (s *DemoSheets) caption(d *doc, sheet, sheets int, positions []int) {
	var packs []string
	for _, p := range positions {
		packs = append(packs, fmt.Sprintf("%04d", p/game.PackSize))
	}
	slices.Sort(packs)
	packs = slices.Compact(packs)
	noun := "carnet"
	if len(packs) > 1 {
		noun = "carnets"
	}
	noun2 := "position"
	if len(positions) > 1 {
		noun2 = "positions"
	}
	right := fmt.Sprintf("feuille %d/%d", sheet, sheets)
	left := fmt.Sprintf("Tickets de démonstration — jeu %03d, bloc %04d — %s %s — %s %s",
		s.Game, s.Block, noun, strings.Join(packs, ", "), noun2, positionList(positions))
	d.font("", 9)
	rw := d.width(right) + 4
	d.cell(d.textWidth()-rw, captionLine, d.fit(left, d.textWidth()-rw), "L")
	d.cell(rw, captionLine, right, "R")
}

// placeTicket draws img, as large as it fits in its proportions, in box k
// (0 to 3, row by row) of the page, with cut marks at its corners.
func placeTicket(d *doc, name string, img image.Image, k int) error {
	b := img.Bounds()
	if b.Empty() {
		return errors.New("empty picture")
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return err
	}
	opt := fpdf.ImageOptions{ImageType: "PNG"}
	d.pdf.RegisterImageOptionsReader(name, opt, &buf)
	if err := d.pdf.Error(); err != nil {
		return err
	}
	scale := min(boxW/float64(b.Dx()), boxH/float64(b.Dy()))
	w, h := float64(b.Dx())*scale, float64(b.Dy())*scale
	x := demoMargin + float64(k%2)*(boxW+demoGap) + (boxW-w)/2
	y := demoMargin + demoCaption + float64(k/2)*(boxH+demoGap) + (boxH-h)/2
	d.pdf.ImageOptions(name, x, y, w, h, false, opt, 0, "")

	d.pdf.SetLineWidth(0.2)
	for _, c := range [4][4]float64{{x, y, -1, -1}, {x + w, y, 1, -1}, {x, y + h, -1, 1}, {x + w, y + h, 1, 1}} {
		cx, cy, dx, dy := c[0], c[1], c[2], c[3]
		d.pdf.Line(cx+dx*markOff, cy, cx+dx*(markOff+markLen), cy)
		d.pdf.Line(cx, cy+dy*markOff, cx, cy+dy*(markOff+markLen))
	}
	return nil
}
