package ui

import (
	"image"
	"math"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/widget"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ticketart"
)

// TicketPicture shows the picture of a ticket that ticketart draws, the
// same drawing as `vegas-desk render`: scaled into the widget with its
// proportions kept, and drawn again at the canvas's pixel size whenever
// that changes, so that it stays sharp. With no ticket it shows an
// unscratched ticket.
type TicketPicture struct {
	widget.BaseWidget

	ticket   *game.Ticket
	serial   *game.Serial
	hideWins bool
}

// NewTicketPicture returns a picture showing no ticket yet.
func NewTicketPicture() *TicketPicture {
	p := &TicketPicture{}
	p.ExtendBaseWidget(p)
	return p
}

// SetTicket shows t with its wins marked, and its serial when s is not nil.
// A nil t shows an unscratched ticket.
func (p *TicketPicture) SetTicket(t *game.Ticket, s *game.Serial) {
	p.set(t, s, false)
}

// SetUnmarked shows contents typed in that may not be paid: no win is
// marked, no total shines in gold.
func (p *TicketPicture) SetUnmarked(t *game.Ticket) {
	p.set(t, nil, true)
}

func (p *TicketPicture) set(t *game.Ticket, s *game.Serial, hideWins bool) {
	if t != nil {
		c := *t
		t = &c
	}
	if s != nil {
		c := *s
		s = &c
	}
	p.ticket, p.serial, p.hideWins = t, s, hideWins
	p.Refresh()
}

// CreateRenderer implements fyne.Widget.
func (p *TicketPicture) CreateRenderer() fyne.WidgetRenderer {
	img := canvas.NewImageFromImage(nil)
	img.FillMode = canvas.ImageFillStretch
	img.ScaleMode = canvas.ImageScalePixels
	return &pictureRenderer{p: p, img: img}
}

// MinSize keeps the ticket's big figures readable, and leaves room for the
// screens beside it in a window 1024 px wide.
func (p *TicketPicture) MinSize() fyne.Size {
	p.ExtendBaseWidget(p)
	return fyne.NewSize(ticketart.Width*0.35, ticketart.Height*0.35)
}

type pictureRenderer struct {
	p    *TicketPicture
	img  *canvas.Image
	size fyne.Size

	// What the image shows, to draw it again only when it changes.
	drawn struct {
		ticket *game.Ticket
		serial *game.Serial
		px     image.Point
	}
}

func (r *pictureRenderer) Destroy() {}

func (r *pictureRenderer) Layout(size fyne.Size) {
	r.size = size
	r.draw()
}

func (r *pictureRenderer) MinSize() fyne.Size { return r.p.MinSize() }

func (r *pictureRenderer) Objects() []fyne.CanvasObject { return []fyne.CanvasObject{r.img} }

func (r *pictureRenderer) Refresh() {
	r.draw()
	r.img.Refresh()
}

// draw places the picture, centred and as large as fits, and draws it
// again when the ticket or its size in pixels changed.
func (r *pictureRenderer) draw() {
	if r.size.Width <= 0 || r.size.Height <= 0 {
		return
	}
	sc := min(r.size.Width/ticketart.Width, r.size.Height/ticketart.Height)
	w, h := ticketart.Width*sc, ticketart.Height*sc
	r.img.Move(fyne.NewPos((r.size.Width-w)/2, (r.size.Height-h)/2))
	r.img.Resize(fyne.NewSize(w, h))

	pixels := float32(1) // per unit of the canvas
	if c := fyne.CurrentApp().Driver().CanvasForObject(r.p); c != nil {
		pixels = c.Scale()
	}
	px := image.Pt(int(math.Round(float64(w*pixels))), int(math.Round(float64(h*pixels))))
	d := &r.drawn
	if r.img.Image != nil && d.ticket == r.p.ticket && d.serial == r.p.serial && d.px == px {
		return
	}
	d.ticket, d.serial, d.px = r.p.ticket, r.p.serial, px
	r.img.Image = ticketart.Draw(r.p.ticket, r.p.serial, ticketart.Options{Scale: float64(px.X) / ticketart.Width, HideWins: r.p.hideWins})
}
