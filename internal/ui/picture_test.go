package ui

import (
	"bytes"
	"flag"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"fyne.io/fyne/v2/test"

	"vegas-desk/internal/game"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata and Icon.png")

// sampleTicket wins on a roulette chip, the dice and a jackpot line.
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

func TestTicketPictureGolden(t *testing.T) {
	test.NewTempApp(t)
	tk, s := sampleTicket()
	img := renderTicket(&tk, &s)
	assertGolden(t, "ticket.png", img)
}

// assertGolden compares img with testdata/name. The software painter is
// pure Go with embedded fonts and renders the golden file exactly (0 pixels
// differ, measured on linux/amd64); the margin left only absorbs rounding
// in anti-aliasing on other architectures: at most 0.01 % of the pixels may
// differ by more than 2 in a channel.
func assertGolden(t *testing.T, name string, img image.Image) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		var b bytes.Buffer
		if err := png.Encode(&b, img); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("golden file: %v (run go test -update to create it)", err)
	}
	defer f.Close()
	want, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if got, w := img.Bounds().Size(), want.Bounds().Size(); got != w {
		t.Fatalf("size: got %v, want %v", got, w)
	}
	b := img.Bounds()
	diff := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r1, g1, b1, a1 := img.At(x, y).RGBA()
			r2, g2, b2, a2 := want.At(x-b.Min.X+want.Bounds().Min.X, y-b.Min.Y+want.Bounds().Min.Y).RGBA()
			if far(r1, r2) || far(g1, g2) || far(b1, b2) || far(a1, a2) {
				diff++
			}
		}
	}
	if limit := b.Dx() * b.Dy() / 10000; diff > limit {
		out := filepath.Join(t.TempDir(), name)
		if f, err := os.Create(out); err == nil {
			png.Encode(f, img)
			f.Close()
		}
		t.Errorf("%s: %d pixels differ (limit %d); got image written to %s", name, diff, limit, out)
	}
}

func far(a, b uint32) bool {
	d := int(a>>8) - int(b>>8)
	return d > 2 || d < -2
}
