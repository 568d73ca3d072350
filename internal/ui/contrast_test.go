package ui

import (
	"context"
	"image"
	"image/color"
	"math"
	"sort"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"vegas-desk/internal/ledger"
)

// luminance is a colour's relative luminance (WCAG 2).
func luminance(c color.Color) float64 {
	r, g, b, _ := c.RGBA()
	lin := func(v uint32) float64 {
		x := float64(v) / 0xffff
		if x <= 0.03928 {
			return x / 12.92
		}
		return math.Pow((x+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(r) + 0.7152*lin(g) + 0.0722*lin(b)
}

// contrastRatio is WCAG's contrast ratio of two colours, 1 to 21.
func contrastRatio(a, b color.Color) float64 {
	la, lb := luminance(a), luminance(b)
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

// drawnContrast is the contrast of the text drawn in r of img with its
// background, as the screen shows them: the background is the colour most
// pixels of r have, the text the pixel that stands out most from it (a
// glyph's stem, whole, not its anti-aliased edge).
func drawnContrast(img image.Image, r image.Rectangle) (ratio float64, text, bg color.Color) {
	r = r.Intersect(img.Bounds())
	count := map[color.RGBA]int{}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			count[color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), 0xff}]++
		}
	}
	var colours []color.RGBA
	for c := range count {
		colours = append(colours, c)
	}
	if len(colours) == 0 {
		return 0, nil, nil
	}
	sort.Slice(colours, func(i, j int) bool { return count[colours[i]] > count[colours[j]] })
	bg, text = colours[0], colours[0]
	for _, c := range colours {
		if q := contrastRatio(c, bg); q > ratio {
			ratio, text = q, c
		}
	}
	return ratio, text, bg
}

// rectOf is where o is drawn in a capture of its window.
func rectOf(w fyne.Window, o fyne.CanvasObject) image.Rectangle {
	p, s, scale := abs(o), o.Size(), w.Canvas().Scale()
	return image.Rect(int(p.X*scale), int(p.Y*scale), int((p.X+s.Width)*scale), int((p.Y+s.Height)*scale))
}

// issue 39 item 2: every verdict (its title, amount and details on its
// colour) and every hint (a label of low importance: the contents form's,
// the pay dialog's keys, a voided payment's row, Réglages' notes) reads at
// 4.5:1 at least (WCAG AA), measured on the rendered window.
func TestContrast(t *testing.T) {
	// The variants the app is drawn in: the system's dark (Linux's
	// default) and light (Windows' default). Fyne's test app has a variant
	// of its own, neither.
	for _, variant := range []struct {
		name  string
		theme fyne.Theme
	}{{"dark", darkVariant{vegasTheme{}}}, {"light", lightVariant{vegasTheme{}}}} {
		t.Run(variant.name, func(t *testing.T) { testContrast(t, variant.theme) })
	}
}

func testContrast(t *testing.T, th fyne.Theme) {
	const least = 4.5
	d := newTestDesk(t, fixture)
	d.app.Settings().SetTheme(th)
	d.win.Resize(fyne.NewSize(1366, 768))
	k := newKeys(t, d.win)
	// check measures o as drawn in img, the window captured since it last
	// changed (a capture draws the whole window: one a screen, not one a
	// label).
	check := func(img image.Image, where string, o fyne.CanvasObject) {
		t.Helper()
		q, text, bg := drawnContrast(img, rectOf(d.win, o))
		if q < least {
			t.Errorf("%s: %.2f:1 (%v on %v), want %.1f:1 at least", where, q, text, bg, least)
		}
	}
	// hints checks every label of low importance shown.
	hints := func(screen string) int {
		t.Helper()
		n := 0
		img := d.win.Canvas().Capture() // laid out and drawn
		for _, root := range append([]fyne.CanvasObject{d.win.Canvas().Content()}, d.win.Canvas().Overlays().List()...) {
			for _, o := range test.LaidOutObjects(root) {
				if l, ok := o.(*widget.Label); ok && l.Importance == widget.LowImportance && l.Visible() && strings.TrimSpace(l.Text) != "" && o.Size().Height > 0 {
					check(img, screen+": "+l.Text, o)
					n++
				}
			}
		}
		return n
	}

	// The verdicts, on the counter.
	v := d.counter.view
	for kind := range verdictStyle {
		v.show(kind, counterTitle(kind), "3 €", "531-0001-0000005-2273-1531-6493-7253-9 · carnet 531-0001-0000-9\nBONUS : 3 €")
		name, img := counterTitle(kind), d.win.Canvas().Capture()
		check(img, name+": the title", v.title)
		check(img, name+": the amount", v.amount)
		check(img, name+": the details", v.detail)
	}

	// The hints: the contents form's.
	k.alt(fyne.KeyS)
	if n := hints("Saisir le contenu"); n == 0 {
		t.Error("Saisir le contenu shows no hint")
	}
	// The pay dialog's keys.
	k.key(fyne.KeyEscape)
	k.scan(takeWinner(t, 9))
	k.key(fyne.KeyReturn)
	if n := hints("Payer ce ticket"); n == 0 {
		t.Error("the pay dialog shows no hint")
	}
	k.key(fyne.KeyEscape)
	// A voided payment's row in Paiements.
	desk := "C9-" + time.Now().Format("150405.000000")
	cl, err := fixture.Claim(context.Background(), ledger.ClaimRequest{Serial: takeWinner(t, 15), Method: ledger.MethodSerial,
		Who: ledger.Identity{Desk: desk, Operator: "Bob"}, Limit: ledger.NoLimit})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fixture.Void(context.Background(), cl.Number, "erreur", ledger.Identity{Desk: desk, Operator: "Bob"}); err != nil {
		t.Fatal(err)
	}
	k.alt(fyne.KeyP)
	c := d.claims
	c.desk.SetText(desk)
	c.reload()
	c.table.Refresh()
	if len(c.claims) != 1 || !c.claims[0].Voided {
		t.Fatalf("payments of %s: %+v", desk, c.claims)
	}
	// Its row, under the header (Fyne's test driver draws the cells, but
	// does not list them).
	d.win.Canvas().Capture()
	var head fyne.CanvasObject
	for _, o := range test.LaidOutObjects(c.table) {
		if l, ok := o.(*widget.Label); ok && l.Text == "N°" {
			head = l
		}
	}
	if head == nil {
		t.Fatal("no header N° in Paiements")
	}
	row := rectOf(d.win, c.table)
	top := row.Min.Y + int(head.Size().Height*d.win.Canvas().Scale()) + 2
	row.Min.Y, row.Max.Y = top, top+int(c.rowHeights[0]*d.win.Canvas().Scale())-2
	if q, text, bg := drawnContrast(d.win.Canvas().Capture(), row); q < least {
		t.Errorf("Paiements: a voided payment's row: %.2f:1 (%v on %v), want %.1f:1 at least", q, text, bg, least)
	}
	hints("Paiements")
	// Réglages.
	k.alt(fyne.KeyR)
	hints("Réglages")
}
