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
//
// A ticket's picture is its game's card, the same for every ticket (the
// stock, the header, the silver panel), with the ticket's own parts laid
// over it (ticketart.Printed): the document holds the card once and each
// ticket's parts once, which keeps a pack of 200 tickets to a few
// megabytes.
type DemoSheets struct {
	Game, Block int
	Positions   []int // the tickets' positions in the block, in print order
	// Card is the picture every ticket shares, printed whole in its
	// proportions, as large as a quarter of the page allows (DemoTicketWidth
	// wide, when it has a ticket's proportions).
	Card image.Image
	// Ticket reads the ticket at Positions[i] and returns what draws it:
	// the parts of its picture that differ from Card, each placed by its
	// bounds in Card's. Ticket is called once for each ticket, in order,
	// from one goroutine (not the caller's of WriteDemoSheets); the drawing
	// runs on any, several at once.
	Ticket func(i int) (draw func() []image.Image, err error)
	// PrintedAt is the PDF's date (the Unix epoch when zero).
	PrintedAt time.Time
	// Destroyed says the tickets are of a ledger that is not a
	// demonstration ledger, whose packs printing destroys: each page says
	// they are specimens, not payable. (The tickets' pictures must then
	// cover their serials: ticketart's CoverSerial.)
	Destroyed bool
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

// DemoTicketWidth is the width, in millimetres, a picture of a ticket's
// proportions (wider than a quarter of the page is) is printed at: to
// print it at 300 dpi, draw it DemoTicketWidth / 25.4 × 300 pixels wide.
const DemoTicketWidth = boxW

// WriteDemoSheets writes the demonstration sheets: A4 pages of four
// tickets (2 × 2) with cut marks, each page captioned with its block,
// packs and positions.
func WriteDemoSheets(w io.Writer, s DemoSheets) error {
	if s.Card == nil || s.Ticket == nil {
		return errors.New("demonstration sheets: no card or no function to draw the tickets")
	}
	if s.Card.Bounds().Empty() {
		return errors.New("demonstration sheets: an empty card")
	}
	sheets := (len(s.Positions) + 3) / 4
	d := newDoc(meta{title: fmt.Sprintf("Tickets de démonstration — jeu %03d — bloc %04d", s.Game, s.Block),
		date: docDate(s.PrintedAt)}, 210, 297, 0)
	d.pdf.SetMargins(demoMargin, demoMargin, demoMargin)
	d.pdf.SetAutoPageBreak(false, 0)
	var card bytes.Buffer
	if err := png.Encode(&card, s.Card); err != nil {
		return fmt.Errorf("demonstration sheets: the card: %w", err)
	}
	d.pdf.RegisterImageOptionsReader("card", fpdf.ImageOptions{ImageType: "PNG"}, &card)
	stop := make(chan struct{})
	defer close(stop)
	next := encodeTickets(len(s.Positions), s.Ticket, stop)
	for i, pos := range s.Positions {
		k := i % 4
		if k == 0 {
			d.pdf.AddPage()
			s.caption(d, i/4+1, sheets, s.Positions[i:min(i+4, len(s.Positions))])
		}
		t := next(i)
		if t.err != nil {
			return fmt.Errorf("ticket at position %d: %w", pos, t.err)
		}
		if err := placeTicket(d, fmt.Sprint("ticket-", i), s.Card.Bounds(), t.parts, k); err != nil {
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
		packs = append(packs, Pack{s.Game, s.Block, p / game.PackSize}.String())
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
	what := "Tickets de démonstration"
	if s.Destroyed {
		what = "Spécimens non payables"
		noun += " détruit"
		if len(packs) > 1 {
			noun += "s"
		}
	}
	left := fmt.Sprintf("%s — jeu %03d, bloc %04d — %s %s — %s %s",
		what, s.Game, s.Block, noun, strings.Join(packs, ", "), noun2, positionList(positions))
	d.font("", 9)
	rw := d.width(right) + 4
	d.cell(d.textWidth()-rw, captionLine, d.fit(left, d.textWidth()-rw), "L")
	d.cell(rw, captionLine, right, "R")
}

// placeTicket draws the card, whose bounds are card, as large as it fits in
// its proportions in box k (0 to 3, row by row) of the page, the ticket's
// parts over it, and cut marks at its corners.
func placeTicket(d *doc, name string, card image.Rectangle, parts []encodedPart, k int) error {
	scale := min(boxW/float64(card.Dx()), boxH/float64(card.Dy())) // mm a pixel
	w, h := float64(card.Dx())*scale, float64(card.Dy())*scale
	x := demoMargin + float64(k%2)*(boxW+demoGap) + (boxW-w)/2
	y := demoMargin + demoCaption + float64(k/2)*(boxH+demoGap) + (boxH-h)/2
	opt := fpdf.ImageOptions{ImageType: "PNG"}
	d.pdf.ImageOptions("card", x, y, w, h, false, opt, 0, "")
	for i, part := range parts {
		b := part.at
		if !b.In(card) {
			return fmt.Errorf("a part at %v, outside the card %v", b, card)
		}
		pname := fmt.Sprintf("%s-%d", name, i)
		d.pdf.RegisterImageOptionsReader(pname, opt, bytes.NewReader(part.png))
		d.pdf.ImageOptions(pname, x+float64(b.Min.X-card.Min.X)*scale, y+float64(b.Min.Y-card.Min.Y)*scale,
			float64(b.Dx())*scale, float64(b.Dy())*scale, false, opt, 0, "")
	}

	d.pdf.SetLineWidth(0.2)
	for _, c := range [4][4]float64{{x, y, -1, -1}, {x + w, y, 1, -1}, {x, y + h, -1, 1}, {x + w, y + h, 1, 1}} {
		cx, cy, dx, dy := c[0], c[1], c[2], c[3]
		d.pdf.Line(cx+dx*markOff, cy, cx+dx*(markOff+markLen), cy)
		d.pdf.Line(cx, cy+dy*markOff, cx, cy+dy*(markOff+markLen))
	}
	return d.pdf.Error()
}
