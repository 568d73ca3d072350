package paper

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/draw"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// picture is a stand-in for a ticket: a coloured card with a dark frame.
func picture(w, h int, c color.Color) image.Image {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Bounds(), image.NewUniform(color.Black), image.Point{}, draw.Src)
	draw.Draw(img, image.Rect(8, 8, w-8, h-8), image.NewUniform(c), image.Point{}, draw.Src)
	return img
}

// sampleDemo is five tickets on a stand-in card of a ticket's
// proportions, each with two parts of its own colour.
func sampleDemo() DemoSheets {
	colours := []color.RGBA{{0xc0, 0x20, 0x30, 0xff}, {0x20, 0x60, 0xc0, 0xff}, {0x20, 0xa0, 0x40, 0xff},
		{0xe0, 0xb0, 0x20, 0xff}, {0x60, 0x20, 0x90, 0xff}}
	return DemoSheets{
		Game: 531, Block: 1,
		Positions: []int{456600, 456601, 456602, 456799, 456800},
		Card:      picture(1028, 740, color.RGBA{0x2a, 0x0b, 0x4a, 0xff}),
		Ticket: func(i int) (func() []image.Image, error) {
			return func() []image.Image {
				img := picture(1028, 740, colours[i]).(*image.RGBA)
				return []image.Image{img.SubImage(image.Rect(30, 130, 600, 400)), img.SubImage(image.Rect(620, 640, 1000, 720))}
			}, nil
		},
	}
}

func TestDemoSheets(t *testing.T) {
	// fpdf numbers the pictures of one width in its map's order, so two
	// writes may differ in their bytes (the one paper whose may): not in
	// their text, nor in what they print.
	var pdf, again bytes.Buffer
	if err := WriteDemoSheets(&pdf, sampleDemo()); err != nil {
		t.Fatal(err)
	}
	if err := WriteDemoSheets(&again, sampleDemo()); err != nil {
		t.Fatal(err)
	}
	text := pdfText(t, pdf.Bytes())
	golden(t, "demo.txt", text)
	if got := pages(text); got != 2 {
		t.Errorf("%d pages, want 2", got)
	}
	if pdfText(t, again.Bytes()) != text || !bytes.Equal(pageImage(t, pdf.Bytes()), pageImage(t, again.Bytes())) {
		t.Error("the same input printed differently")
	}

	// Each picture keeps its proportions, and the parts the card's scale:
	// as many dots per inch across as down, and as the card. pdfimages
	// comes with pdftotext, in poppler-utils.
	f := filepath.Join(t.TempDir(), "demo.pdf")
	if err := os.WriteFile(f, pdf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("pdfimages", "-list", f).Output()
	if err != nil {
		t.Fatalf("pdfimages: %v", err)
	}
	placed, objects := 0, map[string]bool{}
	for _, line := range strings.Split(string(out), "\n")[2:] {
		fields := strings.Fields(line)
		if len(fields) < 14 || fields[2] != "image" {
			continue
		}
		placed++
		objects[fields[10]] = true
		if xppi, yppi := fields[12], fields[13]; xppi != yppi || xppi != "300" {
			t.Errorf("image %s of page %s is printed at %s × %s dpi, want 300", fields[1], fields[0], xppi, yppi)
		}
	}
	if placed != 5*(1+2) || len(objects) != 1+5*2 {
		t.Errorf("%d pictures placed, %d embedded; want the card and two parts a ticket, the card embedded once:\n%s", placed, len(objects), out)
	}
}

// pageImage is the first page of a PDF printed at 50 dpi, as PNG bytes.
func pageImage(t *testing.T, pdf []byte) []byte {
	t.Helper()
	dir := t.TempDir()
	f := filepath.Join(dir, "doc.pdf")
	if err := os.WriteFile(f, pdf, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("pdftoppm", "-r", "50", "-png", "-singlefile", "-f", "1", "-l", "1", f, filepath.Join(dir, "page")).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm: %v %s", err, out)
	}
	png, err := os.ReadFile(filepath.Join(dir, "page.png"))
	if err != nil {
		t.Fatal(err)
	}
	return png
}

func TestDemoSheetsError(t *testing.T) {
	bad := errors.New("no picture")
	s := sampleDemo()
	s.Ticket = func(i int) (func() []image.Image, error) {
		if i == 2 {
			return nil, bad
		}
		return func() []image.Image { return nil }, nil
	}
	if err := WriteDemoSheets(&bytes.Buffer{}, s); !errors.Is(err, bad) {
		t.Errorf("error %v, want %v", err, bad)
	}
	s.Ticket = func(int) (func() []image.Image, error) {
		return func() []image.Image { return []image.Image{picture(2000, 100, color.White)} }, nil
	}
	if err := WriteDemoSheets(&bytes.Buffer{}, s); err == nil || !strings.Contains(err.Error(), "outside the card") {
		t.Errorf("a part outside the card: %v", err)
	}
	s.Card = image.NewRGBA(image.Rectangle{})
	if err := WriteDemoSheets(&bytes.Buffer{}, s); err == nil {
		t.Error("an empty card gave no error")
	}
	s.Card, s.Ticket = nil, nil
	if err := WriteDemoSheets(&bytes.Buffer{}, s); err == nil {
		t.Error("no card gave no error")
	}
}

// A part of a ticket is embedded in at most 256 colours: exactly when it
// has no more, and otherwise with the colours of its edge, where it meets
// the card, kept exact, so that no seam shows.
func TestPaletted(t *testing.T) {
	few := image.NewRGBA(image.Rect(10, 20, 60, 50))
	for y := 20; y < 50; y++ {
		for x := 10; x < 60; x++ {
			few.Set(x, y, color.RGBA{uint8(x * 3), 0x20, 0x40, 0xff}) // 50 colours
		}
	}
	// 10,000 colours inside, and a gradient of 50 around, like the card
	// around a surface.
	edge := func(x, y int) bool { return x == 0 || y == 0 || x == 99 || y == 99 }
	many := image.NewRGBA(image.Rect(0, 0, 100, 100))
	for y := range 100 {
		for x := range 100 {
			c := color.RGBA{uint8(x), uint8(y), uint8(x ^ y), 0xff}
			if edge(x, y) {
				c = color.RGBA{0x2a, 0x0b, uint8(0x24 + (x+y)/4), 0xff}
			}
			many.Set(x, y, c)
		}
	}
	for _, tc := range []struct {
		name  string
		img   *image.RGBA
		exact func(x, y int) bool
	}{
		{"50 colours, all kept", few, func(int, int) bool { return true }},
		{"10,000 colours, the edge kept", many, edge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := paletted(tc.img)
			if p.Bounds() != tc.img.Bounds() || len(p.(*image.Paletted).Palette) > 256 {
				t.Fatalf("bounds %v, %d colours", p.Bounds(), len(p.(*image.Paletted).Palette))
			}
			b := tc.img.Bounds()
			for y := b.Min.Y; y < b.Max.Y; y++ {
				for x := b.Min.X; x < b.Max.X; x++ {
					want, got := tc.img.RGBAAt(x, y), color.RGBAModel.Convert(p.At(x, y)).(color.RGBA)
					if tc.exact(x, y) && got != want {
						t.Fatalf("pixel %d,%d is %v, want %v", x, y, got, want)
					}
				}
			}
		})
	}
}

// Sheets of packs that printing destroyed say on every page that their
// tickets are specimens, not payable, and that the packs are destroyed.
func TestDemoSheetsDestroyed(t *testing.T) {
	s := sampleDemo()
	s.Destroyed = true
	var pdf bytes.Buffer
	if err := WriteDemoSheets(&pdf, s); err != nil {
		t.Fatal(err)
	}
	text := pdfText(t, pdf.Bytes())
	if n := strings.Count(text, "Spécimens non payables — jeu 531, bloc 0001 — carnet détruit 531-0001-228"); n != 2 {
		t.Errorf("%d pages say their tickets are not payable, want 2:\n%s", n, text)
	}
	if strings.Contains(text, "Tickets de démonstration") {
		t.Errorf("a page of destroyed packs reads as demonstration tickets:\n%s", text)
	}
}
