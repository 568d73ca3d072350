// Package ticketart draws the picture of a VEGAS ticket as a player sees it
// once scratched: the five surfaces with their figures and the French words
// printed under them, the serial with its Code 128 barcode, and the winning
// zones marked. It is pure Go with embedded fonts and needs no display: the
// app shows this drawing, `vegas-desk render` writes it as PNG, and printed
// sheets can place it.
package ticketart

import (
	"fmt"
	"image"
	"image/color"

	"github.com/boombuler/barcode/code128"

	"vegas-desk/internal/game"
)

// Width and Height are the picture's design size, in units: with Scale 1, a
// unit is a pixel.
const (
	Width  = 1000
	Height = 720
)

// Options choose how a ticket is drawn. The zero value draws it as the app
// shows it: one pixel a unit, the wins marked, the serial in plain view.
type Options struct {
	// Scale is the number of pixels per design unit; 0 means 1. Scale 2
	// draws a 2000 × 1440 picture, for print or a dense screen.
	Scale float64
	// ScratchPanel draws the serial and its barcode inside a silver panel
	// marked GRATTEZ ICI, as on a printed demonstration sheet, where the
	// serial hides under the scratch layer like the surfaces.
	ScratchPanel bool
	// CoverSerial draws the serial band as a sheet printed from a ledger
	// that is not a demonstration ledger must: the scratch panel covers
	// the serial's secret part and its barcode, which are not drawn at all
	// (nothing of them is in the picture, so nothing can be read or
	// recovered from it), and only the serial's public part (game, block,
	// position) shows, beside SPÉCIMEN · NON PAYABLE. It implies
	// ScratchPanel.
	CoverSerial bool
	// HideWins leaves the wins unmarked, as on a printed ticket: no GAGNANT
	// tabs, gold frames or total.
	HideWins bool
}

// The ticket's palette, chosen to read well in print and on a screen. The
// app's icon and theme take their colours from it.
var (
	Gold      = color.NRGBA{0xff, 0xc8, 0x2e, 0xff}
	GoldDeep  = color.NRGBA{0xe0, 0x9b, 0x00, 0xff}
	Ink       = color.NRGBA{0x1b, 0x12, 0x30, 0xff}
	Paper     = color.NRGBA{0xff, 0xfb, 0xf0, 0xff}
	Night     = color.NRGBA{0x2a, 0x0b, 0x4a, 0xff}
	NightDeep = color.NRGBA{0x0d, 0x06, 0x24, 0xff}
	Felt      = color.NRGBA{0x0b, 0x6e, 0x3c, 0xff}
	Red       = color.NRGBA{0xd0, 0x10, 0x2a, 0xff}
	Black     = color.NRGBA{0x10, 0x10, 0x10, 0xff}
	White     = color.NRGBA{0xff, 0xff, 0xff, 0xff}

	colCrapsRed   = color.NRGBA{0xb3, 0x1b, 0x2c, 0xff}
	colDuelBlue   = color.NRGBA{0x1a, 0x4a, 0xa8, 0xff}
	colJackpot    = color.NRGBA{0x6b, 0x1f, 0x9e, 0xff}
	colBonus      = color.NRGBA{0xe0, 0x5a, 0x0b, 0xff}
	colWordsLight = color.NRGBA{0xff, 0xff, 0xff, 0xd8}
	colRule       = color.NRGBA{0xff, 0xff, 0xff, 0x50}
	colDimmed     = color.NRGBA{0x00, 0x00, 0x00, 0x55}
	colShadow     = color.NRGBA{0x00, 0x00, 0x00, 0x60}
	colWinWash    = color.NRGBA{0xff, 0xc8, 0x2e, 0x38}
	colScratch1   = color.NRGBA{0xc9, 0xcd, 0xd6, 0xff}
	colScratch2   = color.NRGBA{0x8d, 0x93, 0xa3, 0xff}
)

// Draw returns the picture of ticket t with serial s. A nil t draws an
// unscratched ticket; a nil s leaves the serial band blank.
func Draw(t *game.Ticket, s *game.Serial, opts Options) *image.RGBA {
	scale := opts.Scale
	if scale <= 0 {
		scale = 1
	}
	p := newPen(Width, Height, float32(scale))
	code := 531
	if s != nil {
		code = s.Game
	}
	drawStock(p, code)
	band := opts.band()
	drawSerialBand(p, band)
	if t == nil {
		drawUnscratched(p)
		drawSerial(p, s, band)
		return p.img
	}
	drawFace(p, t, opts.HideWins)
	drawSerial(p, s, band)
	return p.img
}

// band is how the serial band is drawn.
type band uint8

const (
	bandPaper   band = iota // the serial on paper, as the app shows it
	bandScratch             // beside a GRATTEZ ICI panel, serial and barcode in view
	bandCovered             // the secret part and the barcode under the panel, not drawn
)

func (o Options) band() band {
	switch {
	case o.CoverSerial:
		return bandCovered
	case o.ScratchPanel:
		return bandScratch
	}
	return bandPaper
}

// drawStock draws what every ticket of game code shows: the card stock,
// its border and its header.
func drawStock(p *pen, code int) {
	p.gradient(0, 0, Width, Height, Night, NightDeep, false)
	p.rect(6, 6, Width-12, Height-12, nil, Gold, 4, 14)
	p.rect(14, 14, Width-28, Height-28, nil, GoldDeep, 1, 10)
	for i := range 17 { // marquee lights along the header
		p.circle(40+float32(i)*57.5, 26, 4, Gold, nil, 0)
	}
	p.text(30, 32, 300, "VEGAS", 48, Gold, bold, -1)
	p.text(30, 94, 400, "GRATTEZ · GAGNEZ · JUSQU'À 50 000 €", 13, colWordsLight, bold, -1)
	p.text(600, 40, 370, fmt.Sprintf("JEU N° %03d · %d €", code, game.Price), 18, White, bold, 1)
}

// drawFace draws the five surfaces of ticket t, and unless hideWins the
// marks of its wins and its total.
func drawFace(p *pen, t *game.Ticket, hideWins bool) {
	prize, wins := game.Evaluate(t)
	won := func(sf game.Surface, idx int) bool {
		for _, w := range wins {
			if !hideWins && w.Surface == sf && (idx < 0 || w.Index == idx) {
				return true
			}
		}
		return false
	}
	if prize > 0 && !hideWins {
		p.rect(600, 70, 370, 34, Gold, nil, 0, 17)
		p.text(600, 75, 370, "GAIN TOTAL "+game.FormatAmount(prize), 19, Ink, bold, 0)
	}

	drawRoulette(p, &t.Roulette, won)
	drawCraps(p, &t.Craps, won(game.Craps, -1))
	drawDuel(p, &t.Duel, won(game.Duel, -1))
	drawJackpot(p, &t.Jackpot, won)
	drawBonus(p, t.Bonus, won(game.Bonus, -1))
}

// The surfaces' places on the design grid: x, y, w, h.
var (
	roulettePlace = [4]float32{24, 128, 560, 268}
	crapsPlace    = [4]float32{600, 128, 376, 268}
	duelPlace     = [4]float32{24, 410, 400, 194}
	jackpotPlace  = [4]float32{438, 410, 372, 194}
	bonusPlace    = [4]float32{824, 410, 152, 194}
)

// panel draws a surface's frame and title; a winning surface gets a gold
// frame and a GAGNANT tab.
func panel(p *pen, at [4]float32, fill color.Color, title string, win bool) {
	x, y, w, h := at[0], at[1], at[2], at[3]
	stroke, sw := color.Color(color.NRGBA{0xff, 0xff, 0xff, 0x40}), float32(1.5)
	if win {
		stroke, sw = Gold, 5
	}
	p.rect(x, y, w, h, fill, stroke, sw, 12)
	p.text(x+14, y+8, w-28, title, 17, White, bold, -1)
	if win {
		tw := min(w-50, 106)
		p.rect(x+w-12-tw, y-11, tw, 22, Gold, GoldDeep, 1.5, 11)
		p.text(x+w-12-tw, y-9, tw, "GAGNANT", 13, Ink, bold, 0)
	}
}

// drawAmount writes an amount in figures with its words under it; a
// winning amount sits on a gold pill.
func drawAmount(p *pen, x, y, w float32, amount int, win bool) {
	c := color.Color(White)
	if win {
		pw := min(w-4, 140)
		p.rect(x+w/2-pw/2, y-3, pw, 30, Gold, nil, 0, 15)
		c = Ink
	}
	p.text(x, y, w, game.FormatAmount(amount), 20, c, bold, 0)
	p.words(x, y+29, w, game.AmountWords(amount), 10, colWordsLight)
}

func drawRoulette(p *pen, r *game.RouletteSurface, won func(game.Surface, int) bool) {
	x, y, w := roulettePlace[0], roulettePlace[1], roulettePlace[2]
	panel(p, roulettePlace, Felt, "ROULETTE", won(game.Roulette, -1))
	matched := map[int]bool{}
	for i, b := range r.Bets {
		if won(game.Roulette, i) {
			matched[b.Number] = true
		}
	}
	p.text(x+14, y+36, 250, "NUMÉROS GAGNANTS", 11, Gold, bold, -1)
	for i, n := range r.Winning {
		cx := x + 80 + float32(i)*133
		stroke, sw := color.Color(White), float32(2)
		if matched[n] {
			stroke, sw = Gold, 5
		}
		p.circle(cx, y+82, 27, rouletteColour(n), stroke, sw)
		p.text(cx-30, y+68, 60, fmt.Sprint(n), 22, White, bold, 0)
		p.words(cx-66, y+114, 132, game.Words(n), 10, colWordsLight)
	}
	p.rect(x+14, y+146, w-28, 1, colRule, nil, 0, 0)
	p.text(x+14, y+152, 250, "VOS MISES", 11, Gold, bold, -1)
	for i, b := range r.Bets {
		cx := x + 100 + float32(i)*180
		win := won(game.Roulette, i)
		if win {
			p.rect(cx-84, y+168, 172, 94, colWinWash, Gold, 3, 10)
		}
		// A casino chip: rim, dashes and a centre.
		p.circle(cx-45, y+193, 24, chipColour(i), White, 4)
		p.circle(cx-45, y+193, 15, White, nil, 0)
		p.text(cx-64, y+183, 38, fmt.Sprint(b.Number), 16, Ink, bold, 0)
		p.words(cx-88, y+221, 90, game.Words(b.Number), 9, colWordsLight)
		// MISE clear of the amount's gold pill when the chip wins.
		p.text(cx-10, y+171, 96, "MISE", 9, colWordsLight, bold, 0)
		drawAmount(p, cx-10, y+188, 96, b.Amount, win)
	}
}

func rouletteColour(n int) color.Color {
	switch n {
	case 1, 5, 7, 12, 14, 16, 18, 19, 21, 23, 25, 27, 30, 32, 34, 36:
		return Red
	}
	return Black
}

func chipColour(i int) color.Color {
	return [3]color.Color{Red, colDuelBlue, colJackpot}[i%3]
}

func drawCraps(p *pen, c *game.CrapsSurface, win bool) {
	x, y, w := crapsPlace[0], crapsPlace[1], crapsPlace[2]
	panel(p, crapsPlace, colCrapsRed, "CRAPS", win)
	p.text(x+14, y+36, 250, "SEPT GAGNE", 11, Gold, bold, -1)
	for i, pips := range c.Dice {
		dx := x + 70 + float32(i)*150
		drawDie(p, dx, y+62, 86, pips)
		p.text(dx-20, y+154, 126, fmt.Sprintf("%d %s", pips, game.DieWords(pips)), 11, colWordsLight, bold, 0)
	}
	p.text(x+w/2-30, y+90, 60, "+", 30, White, bold, 0)
	drawAmount(p, x, y+190, w, c.Amount, win)
}

// pipSpots are a die's pips on a 4 × 4 grid.
var pipSpots = map[int][][2]float32{
	1: {{2, 2}},
	2: {{1, 1}, {3, 3}},
	3: {{1, 1}, {2, 2}, {3, 3}},
	4: {{1, 1}, {3, 1}, {1, 3}, {3, 3}},
	5: {{1, 1}, {3, 1}, {2, 2}, {1, 3}, {3, 3}},
	6: {{1, 1}, {3, 1}, {1, 2}, {3, 2}, {1, 3}, {3, 3}},
}

func drawDie(p *pen, x, y, s float32, pips int) {
	p.rect(x+4, y+5, s, s, colShadow, nil, 0, 14)
	p.rect(x, y, s, s, Paper, color.NRGBA{0xcc, 0xcc, 0xcc, 0xff}, 1.5, 14)
	q := s / 4
	c := color.Color(Ink)
	if pips == 1 {
		c = Red
	}
	for _, sp := range pipSpots[pips] {
		p.circle(x+sp[0]*q, y+sp[1]*q, s/11, c, nil, 0)
	}
}

func drawDuel(p *pen, u *game.DuelSurface, win bool) {
	x, y := duelPlace[0], duelPlace[1]
	panel(p, duelPlace, colDuelBlue, "DUEL", win)
	p.text(x+14, y+34, 200, "VOS CARTES", 11, Gold, bold, -1)
	p.text(x+290, y+34, 96, "BANQUE", 11, Gold, bold, 0)
	for i, c := range u.Cards {
		cx := x + 22 + float32(i)*86
		drawCard(p, cx, y+54, c, win && c > u.Bank)
		p.words(cx-10, y+134, 82, c.Words(), 9, colWordsLight)
	}
	drawCard(p, x+308, y+54, u.Bank, false)
	p.words(x+298, y+134, 82, u.Bank.Words(), 9, colWordsLight)
	p.rect(x+276, y+50, 1, 110, colRule, nil, 0, 0)
	p.text(x+14, y+162, 90, "MISE", 10, colWordsLight, bold, -1)
	c := color.Color(White)
	if win {
		p.rect(x+60, y+158, 120, 26, Gold, nil, 0, 13)
		c = Ink
	}
	p.text(x+60, y+160, 120, game.FormatAmount(u.Amount), 17, c, bold, 0)
	p.text(x+186, y+165, 210, game.AmountWords(u.Amount), 10, colWordsLight, regular, -1)
}

func drawCard(p *pen, x, y float32, c game.Card, highlight bool) {
	stroke, sw := color.Color(color.NRGBA{0xbb, 0xbb, 0xbb, 0xff}), float32(1.5)
	if highlight {
		stroke, sw = Gold, 5
	}
	p.rect(x+3, y+4, 60, 78, colShadow, nil, 0, 8)
	p.rect(x, y, 60, 78, Paper, stroke, sw, 8)
	ink := color.Color(Black)
	if c%2 == 0 {
		ink = Red
	}
	p.text(x, y+20, 60, c.String(), 28, ink, bold, 0)
	p.text(x+5, y+3, 20, c.String(), 9, ink, bold, -1)
}

func drawJackpot(p *pen, lines *[3]game.Line, won func(game.Surface, int) bool) {
	x, y, w := jackpotPlace[0], jackpotPlace[1], jackpotPlace[2]
	panel(p, jackpotPlace, colJackpot, "JACKPOT", won(game.Jackpot, -1))
	for i, l := range lines {
		ly := y + 38 + float32(i)*52
		win := won(game.Jackpot, i)
		if win {
			p.rect(x+8, ly-4, w-16, 50, colWinWash, Gold, 3, 8)
		}
		p.text(x+12, ly+12, 56, fmt.Sprintf("LIGNE %d", i+1), 9, colWordsLight, bold, -1)
		for j, s := range l.Symbols {
			drawSymbol(p, x+62+float32(j)*70, ly, 64, 42, s)
		}
		c := color.Color(White)
		if win {
			c = Gold
		}
		p.text(x+270, ly+2, 96, game.FormatAmount(l.Amount), 16, c, bold, 0)
		p.words(x+270, ly+22, 96, game.AmountWords(l.Amount), 8, colWordsLight)
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

func drawSymbol(p *pen, x, y, w, h float32, s game.Symbol) {
	st := symbolStyle[s]
	p.rect(x, y, w, h, st[0], color.NRGBA{0, 0, 0, 0x40}, 1, 7)
	switch s {
	case game.Sept:
		p.text(x, y+4, w, "7", 28, st[1], bold, 0)
		return
	case game.Bar:
		p.rect(x+8, y+12, w-16, 18, st[1], nil, 0, 3)
		p.text(x+8, y+13, w-16, "BAR", 13, st[0], bold, 0)
		return
	case game.Cerise: // a small emblem above the symbol's name
		p.circle(x+w/2-7, y+14, 6, st[1], nil, 0)
		p.circle(x+w/2+7, y+15, 6, st[1], nil, 0)
	case game.Diamant:
		p.polygon(st[1], [2]float32{x + w/2, y + 4}, [2]float32{x + w/2 + 9, y + 14}, [2]float32{x + w/2, y + 24}, [2]float32{x + w/2 - 9, y + 14})
	case game.Trefle:
		p.circle(x+w/2, y+9, 5, st[1], nil, 0)
		p.circle(x+w/2-5, y+16, 5, st[1], nil, 0)
		p.circle(x+w/2+5, y+16, 5, st[1], nil, 0)
	default:
		p.circle(x+w/2, y+14, 9, st[1], nil, 0)
	}
	p.text(x, y+27, w, s.Label(), 9, st[1], bold, 0)
}

func drawBonus(p *pen, amount int, win bool) {
	x, y, w := bonusPlace[0], bonusPlace[1], bonusPlace[2]
	panel(p, bonusPlace, colBonus, "BONUS", win)
	fill, c := color.Color(color.NRGBA{0xff, 0xff, 0xff, 0x30}), color.Color(White)
	if win {
		fill, c = Gold, Ink
	}
	p.circle(x+w/2, y+92, 46, fill, White, 2)
	p.text(x, y+78, w, game.FormatAmount(amount), 22, c, bold, 0)
	p.words(x+4, y+146, w-8, game.AmountWords(amount), 10, colWordsLight)
}

// The serial band's place: x, y, w, h; coverX is where the panel that
// covers the serial's secret part and barcode (bandCovered) begins.
const (
	serialX, serialY, serialW, serialH = 24, 620, 952, 84
	coverX                             = serialX + 330
)

// drawSerialBand draws the serial band without the serial: paper; or a
// silver panel marked GRATTEZ ICI around a paper box (bandScratch); or
// paper whose right part, from coverX, is a silver panel marked GRATTEZ
// ICI over the secret part and the barcode (bandCovered).
func drawSerialBand(p *pen, b band) {
	const x, y, w, h = serialX, serialY, serialW, serialH
	switch b {
	case bandPaper:
		p.rect(x, y, w, h, Paper, Gold, 2, 10)
		return
	case bandCovered:
		p.rect(x, y, w, h, Paper, Gold, 2, 10)
		p.text(x+20, y+60, coverX-x-30, "SPÉCIMEN · NON PAYABLE", 12, Red, bold, -1)
		p.gradient(coverX, y, x+w-coverX, h, colScratch1, colScratch2, true)
		p.rect(coverX, y, x+w-coverX, h, nil, Gold, 2, 0)
		p.text(coverX, y+16, x+w-coverX, "GRATTEZ ICI", 22, Ink, bold, 0)
		p.text(coverX, y+50, x+w-coverX, "N° SECRET ET CODE-BARRES", 11, colDimmed, bold, 0)
		return
	}
	p.gradient(x, y, w, h, colScratch1, colScratch2, true)
	p.rect(x, y, w, h, nil, Gold, 2, 0)
	p.text(x, y+18, 150, "GRATTEZ", 17, Ink, bold, 0)
	p.text(x, y+42, 150, "ICI", 17, Ink, bold, 0)
	p.rect(x+150, y+8, w-158, h-16, Paper, nil, 0, 6)
}

// drawSerial draws the serial in figures and its barcode on the serial
// band (drawSerialBand); on bandCovered, its public part only.
func drawSerial(p *pen, s *game.Serial, b band) {
	const x, y, w = serialX, serialY, serialW
	if s == nil {
		if b != bandCovered {
			p.text(x, y+30, w, "N° DE TICKET SOUS LA ZONE À GRATTER", 14, Ink, bold, 0)
		}
		return
	}
	str := s.String()
	if b == bandCovered {
		// Game, block and position: nothing of the secret part, not even
		// the check digit, which depends on it.
		p.text(x+20, y+9, 200, "N° DE TICKET", 10, Ink, bold, -1)
		p.text(x+20, y+24, coverX-x-30, str[:16], 22, Ink, mono, -1)
		return
	}
	tx := float32(x + 20)
	if b == bandScratch {
		tx = x + 162
	}
	// The serial's 38 characters on two lines, cut where its secret part
	// begins, beside the barcode of its 31 digits.
	p.text(tx, y+11, 400, "N° DE TICKET", 10, Ink, bold, -1)
	p.text(tx, y+26, 320, str[:17], 22, Ink, mono, -1)
	p.text(tx, y+51, 320, str[17:], 22, Ink, mono, -1)
	drawBarcode(p, *s, x+w-24, y+12, 60)
}

// drawBarcode draws the Code 128 barcode of a serial's 31 digits, two units
// a module, ending at right with its top at y, on white with quiet zones.
// Each module is a whole number of pixels, so that a scanner reads the
// bars at any scale.
func drawBarcode(p *pen, s game.Serial, right, y, h float32) {
	bc, err := code128.Encode(s.Compact())
	if err != nil {
		return // 31 digits always encode
	}
	modules := bc.Bounds().Dx()
	mpx := max(1, int(2*p.s+0.5)) // pixels per module
	bw := float32(modules*mpx) / p.s
	bx := right - bw
	p.rect(bx-14, y-6, bw+28, h+12, White, nil, 0, 4)
	px0, py0, py1 := int(bx*p.s+0.5), int(y*p.s+0.5), int((y+h)*p.s+0.5)
	for i := range modules {
		if r, _, _, _ := bc.At(i, 0).RGBA(); r == 0 {
			x0 := px0 + i*mpx
			p.pixels(image.Rect(x0, py0, x0+mpx, py1), Black)
		}
	}
}

// drawUnscratched draws the silver scratch areas of a ticket not yet shown.
func drawUnscratched(p *pen) {
	places := [5][4]float32{roulettePlace, crapsPlace, duelPlace, jackpotPlace, bonusPlace}
	for i, a := range places {
		p.gradient(a[0], a[1], a[2], a[3], colScratch1, colScratch2, true)
		p.rect(a[0], a[1], a[2], a[3], nil, Gold, 2, 0)
		p.text(a[0], a[1]+a[3]/2-14, a[2], game.Surfaces[i].String(), 22, colDimmed, bold, 0)
	}
}
