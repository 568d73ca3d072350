package ui

import (
	"fmt"
	"image"
	"image/color"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/widget"
	"github.com/boombuler/barcode"
	"github.com/boombuler/barcode/code128"

	"vegas-desk/internal/game"
)

// The ticket is drawn on a design grid of ticketW × ticketH units, scaled to
// the widget's size with its proportions kept.
const (
	ticketW = 1000
	ticketH = 720
)

// Colours of the ticket, chosen to read well in print and on a screen.
var (
	colInk        = color.NRGBA{0x1b, 0x12, 0x30, 0xff}
	colPaper      = color.NRGBA{0xff, 0xfb, 0xf0, 0xff}
	colGold       = color.NRGBA{0xff, 0xc8, 0x2e, 0xff}
	colGoldDeep   = color.NRGBA{0xe0, 0x9b, 0x00, 0xff}
	colNight1     = color.NRGBA{0x2a, 0x0b, 0x4a, 0xff}
	colNight2     = color.NRGBA{0x0d, 0x06, 0x24, 0xff}
	colFelt       = color.NRGBA{0x0b, 0x6e, 0x3c, 0xff}
	colCrapsRed   = color.NRGBA{0xb3, 0x1b, 0x2c, 0xff}
	colDuelBlue   = color.NRGBA{0x1a, 0x4a, 0xa8, 0xff}
	colJackpot    = color.NRGBA{0x6b, 0x1f, 0x9e, 0xff}
	colBonus      = color.NRGBA{0xe0, 0x5a, 0x0b, 0xff}
	colWhite      = color.NRGBA{0xff, 0xff, 0xff, 0xff}
	colWordsLight = color.NRGBA{0xff, 0xff, 0xff, 0xd8}
	colRed        = color.NRGBA{0xd0, 0x10, 0x2a, 0xff}
	colBlack      = color.NRGBA{0x10, 0x10, 0x10, 0xff}
	colDimmed     = color.NRGBA{0x00, 0x00, 0x00, 0x55}
	colScratch1   = color.NRGBA{0xc9, 0xcd, 0xd6, 0xff}
	colScratch2   = color.NRGBA{0x8d, 0x93, 0xa3, 0xff}
)

// TicketPicture draws a whole VEGAS ticket as a player sees it once
// scratched: the five surfaces with their figures and the French words
// printed under them, the serial with its Code 128 barcode, and the winning
// zones marked. With no ticket it shows an unscratched ticket.
type TicketPicture struct {
	widget.BaseWidget

	ticket *game.Ticket
	serial *game.Serial
}

// NewTicketPicture returns a picture showing no ticket yet.
func NewTicketPicture() *TicketPicture {
	p := &TicketPicture{}
	p.ExtendBaseWidget(p)
	return p
}

// SetTicket shows t, with its serial when s is not nil. A nil t shows an
// unscratched ticket.
func (p *TicketPicture) SetTicket(t *game.Ticket, s *game.Serial) {
	if t != nil {
		c := *t
		t = &c
	}
	if s != nil {
		c := *s
		s = &c
	}
	p.ticket, p.serial = t, s
	p.Refresh()
}

// CreateRenderer implements fyne.Widget.
func (p *TicketPicture) CreateRenderer() fyne.WidgetRenderer {
	return &pictureRenderer{p: p}
}

// MinSize keeps the ticket readable.
func (p *TicketPicture) MinSize() fyne.Size {
	return fyne.NewSize(ticketW*0.62, ticketH*0.62)
}

type pictureRenderer struct {
	p       *TicketPicture
	size    fyne.Size
	objects []fyne.CanvasObject
}

func (r *pictureRenderer) Destroy() {}

func (r *pictureRenderer) Layout(size fyne.Size) {
	r.size = size
	r.objects = drawTicket(r.p.ticket, r.p.serial, size)
}

func (r *pictureRenderer) MinSize() fyne.Size { return r.p.MinSize() }

func (r *pictureRenderer) Objects() []fyne.CanvasObject { return r.objects }

func (r *pictureRenderer) Refresh() {
	r.objects = drawTicket(r.p.ticket, r.p.serial, r.size)
	for _, o := range r.objects {
		o.Refresh()
	}
}

// pen places canvas objects given in design units.
type pen struct {
	s, ox, oy float32
	objs      []fyne.CanvasObject
}

func (d *pen) pos(x, y float32) fyne.Position { return fyne.NewPos(d.ox+x*d.s, d.oy+y*d.s) }
func (d *pen) sz(w, h float32) fyne.Size      { return fyne.NewSize(w*d.s, h*d.s) }

func (d *pen) add(o fyne.CanvasObject, x, y, w, h float32) {
	o.Move(d.pos(x, y))
	o.Resize(d.sz(w, h))
	d.objs = append(d.objs, o)
}

func (d *pen) rect(x, y, w, h float32, fill, stroke color.Color, strokeW, radius float32) *canvas.Rectangle {
	r := canvas.NewRectangle(fill)
	r.StrokeColor = stroke
	r.StrokeWidth = strokeW * d.s
	r.CornerRadius = radius * d.s
	d.add(r, x, y, w, h)
	return r
}

func (d *pen) circle(cx, cy, rad float32, fill, stroke color.Color, strokeW float32) {
	c := canvas.NewCircle(fill)
	c.StrokeColor = stroke
	c.StrokeWidth = strokeW * d.s
	d.add(c, cx-rad, cy-rad, 2*rad, 2*rad)
}

// text writes s centred (align 0), left (-1) or right (1) in the box that
// starts at x and is w wide, with its top at y.
func (d *pen) text(x, y, w float32, s string, size float32, c color.Color, bold bool, align int) {
	t := canvas.NewText(s, c)
	t.TextSize = size * d.s
	t.TextStyle = fyne.TextStyle{Bold: bold}
	switch {
	case align < 0:
		t.Alignment = fyne.TextAlignLeading
	case align > 0:
		t.Alignment = fyne.TextAlignTrailing
	default:
		t.Alignment = fyne.TextAlignCenter
	}
	d.add(t, x, y, w, size*1.3)
}

// words writes the French words under a figure, on two lines when they do
// not fit in w.
func (d *pen) words(x, y, w float32, s string, size float32, c color.Color) {
	lines := fitLines(s, w, size)
	for i, l := range lines {
		d.text(x, y+float32(i)*size*1.15, w, l, size, c, false, 0)
	}
}

// fitLines splits s at spaces into at most two lines that fit in w design
// units at the given text size.
func fitLines(s string, w, size float32) []string {
	if fyne.MeasureText(s, size, fyne.TextStyle{}).Width <= w {
		return []string{s}
	}
	f := strings.Fields(s)
	best, bestW := []string{s}, float32(1e9)
	for i := 1; i < len(f); i++ {
		a, b := strings.Join(f[:i], " "), strings.Join(f[i:], " ")
		wa := fyne.MeasureText(a, size, fyne.TextStyle{}).Width
		wb := fyne.MeasureText(b, size, fyne.TextStyle{}).Width
		if m := max(wa, wb); m < bestW {
			best, bestW = []string{a, b}, m
		}
	}
	return best
}

// drawTicket returns the canvas objects of the ticket scaled into size.
func drawTicket(t *game.Ticket, s *game.Serial, size fyne.Size) []fyne.CanvasObject {
	if size.Width <= 0 || size.Height <= 0 {
		return nil
	}
	sc := min(size.Width/ticketW, size.Height/ticketH)
	d := &pen{s: sc, ox: (size.Width - ticketW*sc) / 2, oy: (size.Height - ticketH*sc) / 2}

	// Card stock, border and header.
	bg := canvas.NewLinearGradient(colNight1, colNight2, 160)
	d.add(bg, 0, 0, ticketW, ticketH)
	d.rect(6, 6, ticketW-12, ticketH-12, color.Transparent, colGold, 4, 14)
	d.rect(14, 14, ticketW-28, ticketH-28, color.Transparent, colGoldDeep, 1, 10)
	for i := 0; i < 17; i++ { // marquee lights along the header
		d.circle(40+float32(i)*57.5, 26, 4, colGold, nil, 0)
	}
	d.text(30, 32, 300, "VEGAS", 48, colGold, true, -1)
	d.text(30, 94, 400, "GRATTEZ · GAGNEZ · JUSQU'À 50 000 €", 13, colWordsLight, true, -1)
	code := "531"
	if s != nil {
		code = fmt.Sprintf("%03d", s.Game)
	}
	d.text(600, 40, 370, "JEU N° "+code+" · 3 €", 18, colWhite, true, 1)

	if t == nil {
		drawUnscratched(d)
		drawSerial(d, nil)
		return d.objs
	}

	prize, wins := game.Evaluate(t)
	won := func(sf game.Surface, idx int) bool {
		for _, w := range wins {
			if w.Surface == sf && (idx < 0 || w.Index == idx) {
				return true
			}
		}
		return false
	}
	if prize > 0 {
		d.rect(600, 70, 370, 34, colGold, nil, 0, 17)
		d.text(600, 75, 370, "GAIN TOTAL "+game.FormatAmount(prize), 19, colInk, true, 0)
	}

	drawRoulette(d, &t.Roulette, won)
	drawCraps(d, &t.Craps, won(game.Craps, -1))
	drawDuel(d, &t.Duel, won(game.Duel, -1))
	drawJackpot(d, &t.Jackpot, won)
	drawBonus(d, t.Bonus, won(game.Bonus, -1))
	drawSerial(d, s)
	return d.objs
}

// panel draws a surface's frame and title; a winning surface gets a gold
// frame and a GAGNANT tab.
func panel(d *pen, x, y, w, h float32, fill color.Color, title string, win bool) {
	stroke, sw := color.Color(color.NRGBA{0xff, 0xff, 0xff, 0x40}), float32(1.5)
	if win {
		stroke, sw = colGold, 5
	}
	d.rect(x, y, w, h, fill, stroke, sw, 12)
	d.text(x+14, y+8, w-28, title, 17, colWhite, true, -1)
	if win {
		d.rect(x+w-118, y-10, 106, 26, colGold, colGoldDeep, 1.5, 13)
		d.text(x+w-118, y-6, 106, "GAGNANT", 14, colInk, true, 0)
	}
}

func drawAmount(d *pen, x, y, w float32, amount int, win bool) {
	c, wc := color.Color(colWhite), color.Color(colWordsLight)
	if win {
		pw := min(w-4, 140)
		d.rect(x+w/2-pw/2, y-3, pw, 30, colGold, nil, 0, 15)
		c = colInk
	}
	d.text(x, y, w, game.FormatAmount(amount), 20, c, true, 0)
	d.words(x, y+29, w, game.AmountWords(amount), 10, wc)
}

func drawRoulette(d *pen, r *game.RouletteSurface, won func(game.Surface, int) bool) {
	const x, y, w, h = 24, 128, 560, 268
	panel(d, x, y, w, h, colFelt, "ROULETTE", won(game.Roulette, -1))
	matched := map[int]bool{}
	for i, b := range r.Bets {
		if won(game.Roulette, i) {
			matched[b.Number] = true
		}
	}
	d.text(x+14, y+36, 250, "NUMÉROS GAGNANTS", 11, colGold, true, -1)
	for i, n := range r.Winning {
		cx := x + 80 + float32(i)*133
		stroke, sw := color.Color(colWhite), float32(2)
		if matched[n] {
			stroke, sw = colGold, 5
		}
		d.circle(cx, y+82, 27, rouletteColour(n), stroke, sw)
		d.text(cx-30, y+68, 60, fmt.Sprint(n), 22, colWhite, true, 0)
		d.words(cx-66, y+114, 132, game.Words(n), 10, colWordsLight)
	}
	d.rect(x+14, y+146, w-28, 1, color.NRGBA{0xff, 0xff, 0xff, 0x50}, nil, 0, 0)
	d.text(x+14, y+152, 250, "VOS MISES", 11, colGold, true, -1)
	for i, b := range r.Bets {
		cx := x + 100 + float32(i)*180
		win := won(game.Roulette, i)
		if win {
			d.rect(cx-84, y+166, 172, 96, color.NRGBA{0xff, 0xc8, 0x2e, 0x38}, colGold, 3, 10)
		}
		// A casino chip: rim, dashes and a centre.
		d.circle(cx-45, y+193, 24, colChip(i), colWhite, 4)
		d.circle(cx-45, y+193, 15, colWhite, nil, 0)
		d.text(cx-64, y+183, 38, fmt.Sprint(b.Number), 16, colInk, true, 0)
		d.words(cx-88, y+221, 90, game.Words(b.Number), 9, colWordsLight)
		d.text(cx-10, y+166, 96, "MISE", 9, colWordsLight, true, 0)
		drawAmount(d, cx-10, y+180, 96, b.Amount, win)
	}
}

func rouletteColour(n int) color.Color {
	reds := map[int]bool{1: true, 5: true, 7: true, 12: true, 14: true, 16: true, 18: true, 19: true,
		21: true, 23: true, 25: true, 27: true, 30: true, 32: true, 34: true, 36: true}
	if reds[n] {
		return colRed
	}
	return colBlack
}

func colChip(i int) color.Color {
	return []color.Color{colRed, colDuelBlue, colJackpot}[i%3]
}

func drawCraps(d *pen, c *game.CrapsSurface, win bool) {
	const x, y, w, h = 600, 128, 376, 268
	panel(d, x, y, w, h, colCrapsRed, "CRAPS", win)
	d.text(x+14, y+36, 250, "SEPT GAGNE", 11, colGold, true, -1)
	for i, p := range c.Dice {
		dx := x + 70 + float32(i)*150
		drawDie(d, dx, y+62, 86, p)
		d.text(dx-20, y+154, 126, dieLabel(p), 11, colWordsLight, true, 0)
	}
	d.text(x+w/2-30, y+90, 60, "+", 30, colWhite, true, 0)
	drawAmount(d, x, y+190, w, c.Amount, win)
}

// dieLabel is what a die shows in figures and words: "3 TROIS".
func dieLabel(p int) string { return fmt.Sprintf("%d %s", p, game.DieWords(p)) }

func drawDie(d *pen, x, y, s float32, pips int) {
	d.rect(x+4, y+5, s, s, color.NRGBA{0, 0, 0, 0x60}, nil, 0, 14)
	d.rect(x, y, s, s, colPaper, color.NRGBA{0xcc, 0xcc, 0xcc, 0xff}, 1.5, 14)
	q := s / 4
	spots := map[int][][2]float32{
		1: {{2, 2}},
		2: {{1, 1}, {3, 3}},
		3: {{1, 1}, {2, 2}, {3, 3}},
		4: {{1, 1}, {3, 1}, {1, 3}, {3, 3}},
		5: {{1, 1}, {3, 1}, {2, 2}, {1, 3}, {3, 3}},
		6: {{1, 1}, {3, 1}, {1, 2}, {3, 2}, {1, 3}, {3, 3}},
	}
	for _, sp := range spots[pips] {
		c := color.Color(colInk)
		if pips == 1 {
			c = colRed
		}
		d.circle(x+sp[0]*q, y+sp[1]*q, s/11, c, nil, 0)
	}
}

func drawDuel(d *pen, u *game.DuelSurface, win bool) {
	const x, y, w, h = 24, 410, 400, 194
	panel(d, x, y, w, h, colDuelBlue, "DUEL", win)
	d.text(x+14, y+34, 200, "VOS CARTES", 11, colGold, true, -1)
	d.text(x+290, y+34, 96, "BANQUE", 11, colGold, true, 0)
	for i, c := range u.Cards {
		cx := x + 22 + float32(i)*86
		beats := c > u.Bank
		drawCard(d, cx, y+54, c, win && beats)
		d.words(cx-10, y+134, 82, c.Words(), 9, colWordsLight)
	}
	drawCard(d, x+308, y+54, u.Bank, false)
	d.words(x+298, y+134, 82, u.Bank.Words(), 9, colWordsLight)
	d.rect(x+276, y+50, 1, 110, color.NRGBA{0xff, 0xff, 0xff, 0x50}, nil, 0, 0)
	d.text(x+14, y+162, 90, "MISE", 10, colWordsLight, true, -1)
	c := color.Color(colWhite)
	if win {
		d.rect(x+60, y+158, 120, 26, colGold, nil, 0, 13)
		c = colInk
	}
	d.text(x+60, y+160, 120, game.FormatAmount(u.Amount), 17, c, true, 0)
	d.text(x+186, y+165, 210, game.AmountWords(u.Amount), 10, colWordsLight, false, -1)
}

func drawCard(d *pen, x, y float32, c game.Card, highlight bool) {
	stroke, sw := color.Color(color.NRGBA{0xbb, 0xbb, 0xbb, 0xff}), float32(1.5)
	if highlight {
		stroke, sw = colGold, 5
	}
	d.rect(x+3, y+4, 60, 78, color.NRGBA{0, 0, 0, 0x60}, nil, 0, 8)
	d.rect(x, y, 60, 78, colPaper, stroke, sw, 8)
	ink := color.Color(colBlack)
	if c%2 == 0 {
		ink = colRed
	}
	d.text(x, y+20, 60, c.String(), 28, ink, true, 0)
	d.text(x+5, y+3, 20, c.String(), 9, ink, true, -1)
}

func drawJackpot(d *pen, lines *[3]game.Line, won func(game.Surface, int) bool) {
	const x, y, w, h = 438, 410, 372, 194
	panel(d, x, y, w, h, colJackpot, "JACKPOT", won(game.Jackpot, -1))
	for i, l := range lines {
		ly := y + 38 + float32(i)*52
		win := won(game.Jackpot, i)
		if win {
			d.rect(x+8, ly-4, w-16, 50, color.NRGBA{0xff, 0xc8, 0x2e, 0x38}, colGold, 3, 8)
		}
		d.text(x+12, ly+12, 56, fmt.Sprintf("LIGNE %d", i+1), 9, colWordsLight, true, -1)
		for j, s := range l.Symbols {
			drawSymbol(d, x+62+float32(j)*70, ly, 64, 42, s)
		}
		c := color.Color(colWhite)
		if win {
			c = colGold
		}
		d.text(x+270, ly+2, 96, game.FormatAmount(l.Amount), 16, c, true, 0)
		d.words(x+270, ly+22, 96, game.AmountWords(l.Amount), 8, colWordsLight)
	}
}

// symbolStyle gives each jackpot symbol a tile colour and a glyph colour.
var symbolStyle = map[game.Symbol][2]color.NRGBA{
	game.Sept:     {{0xff, 0xf3, 0xd6, 0xff}, {0xd0, 0x10, 0x2a, 0xff}},
	game.Bar:      {{0x22, 0x22, 0x22, 0xff}, {0xff, 0xff, 0xff, 0xff}},
	game.Cerise:   {{0xff, 0xe0, 0xe6, 0xff}, {0xb0, 0x00, 0x30, 0xff}},
	game.Cloche:   {{0xff, 0xf0, 0xb0, 0xff}, {0x9a, 0x6a, 0x00, 0xff}},
	game.Trefle:   {{0xdc, 0xf5, 0xe0, 0xff}, {0x0b, 0x6e, 0x3c, 0xff}},
	game.Citron:   {{0xff, 0xf8, 0x9a, 0xff}, {0x8a, 0x7a, 0x00, 0xff}},
	game.Pasteque: {{0xd8, 0xf0, 0xc8, 0xff}, {0xd0, 0x30, 0x50, 0xff}},
	game.Diamant:  {{0xd8, 0xf4, 0xff, 0xff}, {0x10, 0x70, 0xb0, 0xff}},
}

func drawSymbol(d *pen, x, y, w, h float32, s game.Symbol) {
	st := symbolStyle[s]
	d.rect(x, y, w, h, st[0], color.NRGBA{0, 0, 0, 0x40}, 1, 7)
	name := s.String()
	switch s {
	case game.Sept:
		d.text(x, y+4, w, "7", 28, st[1], true, 0)
	case game.Bar:
		d.rect(x+8, y+12, w-16, 18, st[1], nil, 0, 3)
		d.text(x+8, y+13, w-16, "BAR", 13, st[0], true, 0)
	default:
		// A small emblem above the symbol's name.
		switch s {
		case game.Cerise:
			d.circle(x+w/2-7, y+14, 6, st[1], nil, 0)
			d.circle(x+w/2+7, y+15, 6, st[1], nil, 0)
		case game.Diamant:
			p := canvas.NewPolygon(4, st[1])
			d.add(p, x+w/2-9, y+4, 18, 20)
		case game.Trefle:
			d.circle(x+w/2, y+9, 5, st[1], nil, 0)
			d.circle(x+w/2-5, y+16, 5, st[1], nil, 0)
			d.circle(x+w/2+5, y+16, 5, st[1], nil, 0)
		default:
			d.circle(x+w/2, y+14, 9, st[1], nil, 0)
		}
		d.text(x, y+27, w, name, 9, st[1], true, 0)
	}
}

func drawBonus(d *pen, amount int, win bool) {
	const x, y, w, h = 824, 410, 152, 194
	panel(d, x, y, w, h, colBonus, "BONUS", false)
	if win {
		d.rect(x, y, w, h, color.Transparent, colGold, 5, 12)
		d.rect(x+w-106, y-10, 96, 26, colGold, colGoldDeep, 1.5, 13)
		d.text(x+w-106, y-6, 96, "GAGNANT", 13, colInk, true, 0)
	}
	d.circle(x+w/2, y+92, 46, color.NRGBA{0xff, 0xff, 0xff, 0x30}, colWhite, 2)
	c := color.Color(colWhite)
	if win {
		c = colGold
	}
	d.text(x, y+78, w, game.FormatAmount(amount), 22, c, true, 0)
	d.words(x+4, y+146, w-8, game.AmountWords(amount), 10, colWordsLight)
}

func drawSerial(d *pen, s *game.Serial) {
	const x, y, w, h = 24, 620, 952, 84
	d.rect(x, y, w, h, colPaper, colGold, 2, 10)
	if s == nil {
		d.text(x, y+30, w, "N° DE TICKET SOUS LA ZONE À GRATTER", 14, colInk, true, 0)
		return
	}
	d.text(x+20, y+12, 400, "N° DE TICKET", 11, colInk, true, -1)
	t := canvas.NewText(s.String(), colInk)
	// 38 characters beside a barcode of 31 digits.
	t.TextSize = 18 * d.s
	t.TextStyle = fyne.TextStyle{Monospace: true, Bold: true}
	d.add(t, x+20, y+38, 450, 26)
	img, err := barcodeImage(*s, 2, 60)
	if err != nil {
		return
	}
	bw := float32(img.Bounds().Dx())
	bx := x + w - 24 - bw
	d.rect(bx-14, y+6, bw+28, 72, colWhite, nil, 0, 4)
	ci := canvas.NewImageFromImage(img)
	ci.ScaleMode = canvas.ImageScalePixels
	ci.FillMode = canvas.ImageFillStretch
	d.add(ci, bx, y+12, bw, 60)
}

// drawUnscratched draws the silver scratch areas of a ticket not yet shown.
func drawUnscratched(d *pen) {
	areas := [][4]float32{{24, 128, 560, 268}, {600, 128, 376, 268}, {24, 410, 400, 194}, {438, 410, 372, 194}, {824, 410, 152, 194}}
	names := []string{"ROULETTE", "CRAPS", "DUEL", "JACKPOT", "BONUS"}
	for i, a := range areas {
		g := canvas.NewLinearGradient(colScratch1, colScratch2, 135)
		d.add(g, a[0], a[1], a[2], a[3])
		d.rect(a[0], a[1], a[2], a[3], color.Transparent, colGold, 2, 0)
		d.text(a[0], a[1]+a[3]/2-14, a[2], names[i], 22, colDimmed, true, 0)
	}
}

// barcodeImage returns the Code 128 barcode of a serial's 31 digits, each
// module modulePx pixels wide, with white quiet zones.
func barcodeImage(s game.Serial, modulePx, height int) (image.Image, error) {
	bc, err := code128.Encode(s.Compact())
	if err != nil {
		return nil, err
	}
	modules := bc.Bounds().Dx()
	return barcode.Scale(bc, modules*modulePx, height)
}
