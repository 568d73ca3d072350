package ui

import (
	"image"
	"image/png"
	"io"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/software"
	"fyne.io/fyne/v2/test"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger"
)

// RenderTicketPNG draws the ticket picture of t as a PNG image on w, with the
// same drawing as the app's TicketPicture, painted in software: no window
// and no display are needed.
func RenderTicketPNG(w io.Writer, t ledger.Ticket) error {
	renderApp.Do(func() {
		if !appRunning {
			test.NewApp() // a headless app gives the painter its fonts
		}
	})
	img := renderTicket(&t.Ticket, &t.Serial)
	return png.Encode(w, img)
}

var (
	renderApp  sync.Once
	appRunning bool // set by Run: the real app already provides fonts
)

// renderTicket paints the ticket picture at its design size, one pixel a
// unit.
func renderTicket(t *game.Ticket, s *game.Serial) image.Image {
	if a := fyne.CurrentApp(); a != nil && !appRunning {
		a.Settings().SetTheme(vegasTheme{})
	}
	p := NewTicketPicture()
	p.SetTicket(t, s)
	c := software.NewCanvas()
	c.SetPadded(false)
	c.SetScale(1)
	c.SetContent(p)
	c.Resize(fyne.NewSize(ticketW, ticketH))
	return c.Capture()
}
