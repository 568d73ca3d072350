package ui

import (
	"flag"
	"image"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ticketart"
)

var update = flag.Bool("update", false, "rewrite Icon.png")

// sampleTicket wins on a roulette chip, the dice, the duel and a jackpot
// line: 36 €, which no genuine ticket shows.
func sampleTicket() (game.Ticket, game.Serial) {
	t := game.Ticket{
		Roulette: game.RouletteSurface{
			Winning: [4]int{4, 12, 27, 33},
			Bets:    [3]game.Bet{{Number: 12, Amount: 6}, {Number: 5, Amount: 3}, {Number: 36, Amount: 50}},
		},
		Craps: game.CrapsSurface{Dice: [2]int{3, 4}, Amount: 15},
		Duel:  game.DuelSurface{Cards: [3]game.Card{game.Two, game.Nine, game.Valet}, Bank: game.Ten, Amount: 9},
		Jackpot: [3]game.Line{
			{Symbols: [3]game.Symbol{game.Cerise, game.Cerise, game.Cerise}, Amount: 6},
			{Symbols: [3]game.Symbol{game.Sept, game.Bar, game.Sept}, Amount: 50},
			{Symbols: [3]game.Symbol{game.Cloche, game.Trefle, game.Diamant}, Amount: 3},
		},
		Bonus: 0,
	}
	return t, game.Serial{Game: 531, Block: 1, Position: 456789, Secret: 304172}
}

// The widget shows ticketart's drawing, the one `vegas-desk render`
// writes, drawn at the size it takes on screen: no scaling blurs it.
func TestTicketPictureIsTicketart(t *testing.T) {
	test.NewTempApp(t)
	tk, s := sampleTicket()
	p := NewTicketPicture()
	p.SetTicket(&tk, &s)
	w := test.NewTempWindow(t, p)
	w.SetPadded(false)
	for _, size := range []fyne.Size{{Width: 1000, Height: 720}, {Width: 700, Height: 700}} {
		w.Resize(size)
		img := test.WidgetRenderer(p).Objects()[0].(*canvas.Image)
		want := ticketart.Draw(&tk, &s, ticketart.Options{Scale: float64(size.Width) / ticketart.Width})
		got, ok := img.Image.(*image.RGBA)
		if !ok || got.Bounds() != want.Bounds() || string(got.Pix) != string(want.Pix) {
			t.Errorf("at %v: the picture is not ticketart's drawing at %v", size, want.Bounds().Size())
		}
		if img.Size().Width != size.Width || img.Size().Height != size.Width*ticketart.Height/ticketart.Width {
			t.Errorf("at %v: picture laid out at %v", size, img.Size())
		}
	}
	// Another ticket is drawn again.
	p.SetTicket(nil, nil)
	img := test.WidgetRenderer(p).Objects()[0].(*canvas.Image)
	if want := ticketart.Draw(nil, nil, ticketart.Options{Scale: 0.7}); string(img.Image.(*image.RGBA).Pix) != string(want.Pix) {
		t.Error("SetTicket(nil, nil) does not show the unscratched ticket")
	}
}
