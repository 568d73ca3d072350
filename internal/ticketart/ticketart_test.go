package ticketart

import (
	"bytes"
	"flag"
	"image"
	"image/draw"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"vegas-desk/internal/game"
)

var update = flag.Bool("update", false, "rewrite the golden images in testdata")

// sampleTicket wins on a roulette chip, the dice, the duel and a jackpot
// line: 36 €, which no genuine ticket shows, but every kind of mark.
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
		Bonus: 1000,
	}
	return t, game.Serial{Game: 531, Block: 1, Position: 456789, Secret: 304172}
}

func TestGolden(t *testing.T) {
	tk, s := sampleTicket()
	tests := []struct {
		name   string
		ticket *game.Ticket
		serial *game.Serial
		opts   Options
		w, h   int
	}{
		{"ticket.png", &tk, &s, Options{}, Width, Height},
		{"unscratched.png", nil, nil, Options{}, Width, Height},
		// A printed demonstration sheet: no marks, the serial to scratch,
		// drawn at 1.5 pixels a unit.
		{"sheet.png", &tk, &s, Options{Scale: 1.5, ScratchPanel: true, HideWins: true}, 1500, 1080},
		// A sheet printed from a ledger that is not a demonstration
		// ledger: the secret part and the barcode under the panel.
		{"sheet-covered.png", &tk, &s, Options{Scale: 1.5, HideWins: true, CoverSerial: true}, 1500, 1080},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			img := Draw(tt.ticket, tt.serial, tt.opts)
			if got := img.Bounds().Size(); got != image.Pt(tt.w, tt.h) {
				t.Fatalf("size %v, want %dx%d", got, tt.w, tt.h)
			}
			assertGolden(t, tt.name, img)
		})
	}
}

// The wins are marked unless HideWins: the gold GAGNANT tab over the
// roulette's frame is there or not.
func TestHideWins(t *testing.T) {
	tk, s := sampleTicket()
	tab := image.Pt(int(roulettePlace[0]+roulettePlace[2]-20), int(roulettePlace[1]-1))
	isGold := func(img *image.RGBA) bool {
		c := img.RGBAAt(tab.X, tab.Y)
		return c.R > 0xf0 && c.G > 0xb0 && c.B < 0x60
	}
	if !isGold(Draw(&tk, &s, Options{})) {
		t.Error("no GAGNANT tab on the winning roulette")
	}
	if isGold(Draw(&tk, &s, Options{HideWins: true})) {
		t.Error("a GAGNANT tab with HideWins")
	}
}

// The barcode's modules are whole pixels at any scale: every column of the
// bars is all black or all white.
func TestBarcodeSharp(t *testing.T) {
	tk, s := sampleTicket()
	for _, scale := range []float64{1, 1.37, 2} {
		img := Draw(&tk, &s, Options{Scale: scale})
		y0, y1 := int(640*scale)+2, int(690*scale)-2
		for x := int(560 * scale); x < int(960*scale); x++ {
			top := img.RGBAAt(x, y0)
			if top.R != 0x10 && top.R != 0xff {
				t.Fatalf("scale %v: column %d is grey (%v)", scale, x, top)
			}
			for y := y0; y < y1; y++ {
				if img.RGBAAt(x, y) != top {
					t.Fatalf("scale %v: column %d changes at row %d", scale, x, y)
				}
			}
		}
	}
}

// assertGolden compares img with testdata/name (go test -update rewrites
// it). The drawing is pure Go with embedded fonts and renders the golden
// file exactly on linux/amd64; the margin only absorbs rounding in
// anti-aliasing elsewhere: at most 0.01 % of the pixels may differ by more
// than 2 in a channel.
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
		t.Fatalf("golden file: %v (go test -update writes it)", err)
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

// A printed ticket's parts laid over the card make exactly the picture Draw
// makes of it printed, at any scale: nothing of the ticket is outside its
// parts.
func TestPrintedParts(t *testing.T) {
	tk, s := sampleTicket()
	for _, cover := range []bool{false, true} {
		for _, scale := range []float64{1, 1.0276, 1.5} {
			testPrintedParts(t, &tk, &s, Options{Scale: scale, CoverSerial: cover})
		}
	}
}

// testPrintedParts lays the parts of ticket tk printed with o over its card
// and compares the picture with Draw's.
func testPrintedParts(t *testing.T, tk *game.Ticket, s *game.Serial, o Options) {
	t.Helper()
	pr := NewPrinted(s.Game, o)
	img := image.NewRGBA(pr.Card().Bounds())
	draw.Draw(img, img.Rect, pr.Card(), image.Point{}, draw.Src)
	parts := pr.Parts(tk, s)
	if len(parts) != 6 {
		t.Fatalf("%d parts, want the five surfaces and the serial", len(parts))
	}
	area := 0
	for _, part := range parts {
		draw.Draw(img, part.Bounds(), part, part.Bounds().Min, draw.Src)
		area += part.Bounds().Dx() * part.Bounds().Dy()
	}
	want := Draw(tk, s, Options{Scale: o.Scale, ScratchPanel: true, HideWins: true, CoverSerial: o.CoverSerial})
	if !bytes.Equal(img.Pix, want.Pix) {
		t.Errorf("scale %v, covered %v: the card and the parts differ from the ticket drawn whole", o.Scale, o.CoverSerial)
	}
	if whole := img.Rect.Dx() * img.Rect.Dy(); area*10 > whole*8 {
		t.Errorf("scale %v, covered %v: the parts cover %d of %d pixels", o.Scale, o.CoverSerial, area, whole)
	}
}

// A covered serial gives nothing of its secret part away: two tickets whose
// serials differ only there (and so in the check digit) are the same
// picture, drawn whole or as a sheet's parts; and the serial shown is
// their public part. Shown, the secret part changes the picture.
func TestCoverSerial(t *testing.T) {
	tk, s := sampleTicket()
	other := s
	other.Secret = 999_999_999_999_999 % game.SecretModulus
	if s.String()[16:] == other.String()[16:] {
		t.Fatal("the two serials' secret parts are the same")
	}
	for _, scale := range []float64{1, 1.0276} {
		o := Options{Scale: scale, HideWins: true, CoverSerial: true}
		if !bytes.Equal(Draw(&tk, &s, o).Pix, Draw(&tk, &other, o).Pix) {
			t.Errorf("scale %v: the covered ticket shows something of its secret part", scale)
		}
		pr := NewPrinted(s.Game, o)
		a, b := pr.Parts(&tk, &s), pr.Parts(&tk, &other)
		for i := range a {
			if !bytes.Equal(pixels(a[i]), pixels(b[i])) {
				t.Errorf("scale %v: part %d of the covered ticket shows something of its secret part", scale, i)
			}
		}
		o.CoverSerial = false
		o.ScratchPanel = true
		if bytes.Equal(Draw(&tk, &s, o).Pix, Draw(&tk, &other, o).Pix) {
			t.Errorf("scale %v: the serial in view does not show its secret part", scale)
		}
	}
}

// pixels copies img's pixels out.
func pixels(img image.Image) []byte {
	out := image.NewRGBA(img.Bounds())
	draw.Draw(out, out.Rect, img, img.Bounds().Min, draw.Src)
	return out.Pix
}
