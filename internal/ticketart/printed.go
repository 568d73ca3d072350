package ticketart

import (
	"image"
	"math"

	"vegas-desk/internal/game"
)

// Printed draws tickets as printed on a demonstration sheet (Draw with
// ScratchPanel and HideWins, and CoverSerial on a sheet of a ledger that
// is not a demonstration ledger) for a document that lays many of them out:
// what every ticket of a game shows — the card, its header and the silver
// panel of the serial — is drawn once (Card), and each ticket as the parts
// of its picture that differ from it (Parts), so that a document embeds the
// card once and each ticket's surfaces and serial once.
type Printed struct {
	card  *image.RGBA
	scale float32
	band  band
}

// NewPrinted draws the card of game code's printed tickets at o.Scale
// pixels a design unit, the serial covered when o.CoverSerial; the other
// options are a printed ticket's (ScratchPanel, HideWins).
func NewPrinted(code int, o Options) *Printed {
	scale := o.Scale
	if scale <= 0 {
		scale = 1
	}
	o.ScratchPanel = true
	p := newPen(Width, Height, float32(scale))
	drawStock(p, code)
	drawSerialBand(p, o.band())
	return &Printed{card: p.img, scale: float32(scale), band: o.band()}
}

// Card is the picture every printed ticket of the game shares: a ticket
// without its surfaces and its serial.
func (pr *Printed) Card() image.Image { return pr.card }

// partMargin is how far, in design units, a part reaches past its surface's
// frame: the frame's stroke and its anti-aliasing.
const partMargin = 3

// Parts draws ticket t with serial s, as Draw(t, s, Options{Scale,
// ScratchPanel: true, HideWins: true, CoverSerial}) does, and returns the
// parts of the picture that differ from the card: its five surfaces and
// the serial's box (its public part's, when covered). Each is an image
// whose bounds are its place in the card's: laid over the card, they make
// the ticket's picture.
func (pr *Printed) Parts(t *game.Ticket, s *game.Serial) []image.Image {
	img := image.NewRGBA(pr.card.Rect)
	copy(img.Pix, pr.card.Pix)
	p := penOn(img, pr.scale)
	drawFace(p, t, true)
	drawSerial(p, s, pr.band)
	places := [][4]float32{roulettePlace, crapsPlace, duelPlace, jackpotPlace, bonusPlace}
	var parts []image.Image
	for _, a := range places {
		parts = append(parts, img.SubImage(pr.pixels(a[0]-partMargin, a[1]-partMargin, a[2]+2*partMargin, a[3]+2*partMargin)))
	}
	if pr.band == bandCovered {
		// The serial's public part, on the paper left of the panel.
		parts = append(parts, img.SubImage(pr.pixels(serialX+4, serialY+4, coverX-serialX-8, 52)))
		return parts
	}
	// The serial's paper box, inside the silver panel (drawSerialBand), and
	// the white ground of the barcode, which reaches past it.
	parts = append(parts, img.SubImage(pr.pixels(serialX+150, serialY+4, serialW-158, serialH-8)))
	return parts
}

// pixels is the pixel rectangle that covers the design box (x, y, w, h).
func (pr *Printed) pixels(x, y, w, h float32) image.Rectangle {
	s := float64(pr.scale)
	return image.Rect(int(math.Floor(float64(x)*s)), int(math.Floor(float64(y)*s)),
		int(math.Ceil(float64(x+w)*s)), int(math.Ceil(float64(y+h)*s))).Intersect(pr.card.Rect)
}
