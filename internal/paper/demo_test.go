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

func sampleDemo() DemoSheets {
	pics := []image.Image{
		picture(760, 1000, color.RGBA{0xc0, 0x20, 0x30, 0xff}),
		picture(760, 1000, color.RGBA{0x20, 0x60, 0xc0, 0xff}),
		picture(1000, 500, color.RGBA{0x20, 0xa0, 0x40, 0xff}), // wide: other proportions
		picture(380, 500, color.RGBA{0xe0, 0xb0, 0x20, 0xff}),  // small: scaled up
		image.NewGray16(image.Rect(0, 0, 300, 900)),            // 16-bit grey, tall
	}
	return DemoSheets{
		Game: 531, Block: 1,
		Positions: []int{456600, 456601, 456602, 456799, 456800},
		Image:     func(i int) (image.Image, error) { return pics[i], nil },
	}
}

func TestDemoSheets(t *testing.T) {
	pdf := write(t, func(w *bytes.Buffer) error { return WriteDemoSheets(w, sampleDemo()) })
	text := pdfText(t, pdf)
	golden(t, "demo.txt", text)
	if got := pages(text); got != 2 {
		t.Errorf("%d pages, want 2", got)
	}

	// Each picture keeps its proportions: as many dots per inch across as
	// down. pdfimages comes with pdftotext, in poppler-utils.
	f := filepath.Join(t.TempDir(), "demo.pdf")
	if err := os.WriteFile(f, pdf, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("pdfimages", "-list", f).Output()
	if err != nil {
		t.Fatalf("pdfimages: %v", err)
	}
	images := 0
	for _, line := range strings.Split(string(out), "\n")[2:] {
		fields := strings.Fields(line)
		if len(fields) < 14 || fields[2] != "image" {
			continue
		}
		images++
		if xppi, yppi := fields[12], fields[13]; xppi != yppi {
			t.Errorf("image %s of page %s is stretched: %s × %s dpi", fields[1], fields[0], xppi, yppi)
		}
	}
	if images != 5 {
		t.Errorf("%d images, want 5:\n%s", images, out)
	}
}

func TestDemoSheetsError(t *testing.T) {
	bad := errors.New("no picture")
	s := sampleDemo()
	s.Image = func(i int) (image.Image, error) {
		if i == 2 {
			return nil, bad
		}
		return picture(76, 100, color.White), nil
	}
	if err := WriteDemoSheets(&bytes.Buffer{}, s); !errors.Is(err, bad) {
		t.Errorf("error %v, want %v", err, bad)
	}
	s.Image = func(int) (image.Image, error) { return image.NewRGBA(image.Rectangle{}), nil }
	if err := WriteDemoSheets(&bytes.Buffer{}, s); err == nil {
		t.Error("an empty picture gave no error")
	}
	s.Image = nil
	if err := WriteDemoSheets(&bytes.Buffer{}, s); err == nil {
		t.Error("no Image function gave no error")
	}
}
