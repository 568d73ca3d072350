package ui

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
	"sync"
	"vegas-desk/internal/ticketart"

	"fyne.io/fyne/v2"
)

// Icon returns the app's icon: the Icon.png of the repository, drawn by
// drawIcon (go test ./internal/ui -run Icon -update rewrites the file).
func Icon() fyne.Resource {
	iconOnce.Do(func() {
		var b bytes.Buffer
		png.Encode(&b, drawIcon(256))
		iconRes = fyne.NewStaticResource("Icon.png", b.Bytes())
	})
	return iconRes
}

var (
	iconOnce sync.Once
	iconRes  fyne.Resource
)

// drawIcon paints the icon at size×size pixels: a roulette wheel in red,
// black and green on a night-purple tile with a gold rim, a white die with
// five pips over it, anti-aliased by supersampling.
func drawIcon(size int) image.Image {
	const ss = 3 // supersampling per axis
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	n := float64(size)
	for py := 0; py < size; py++ {
		for px := 0; px < size; px++ {
			var r, g, b, a float64
			for sy := 0; sy < ss; sy++ {
				for sx := 0; sx < ss; sx++ {
					x := (float64(px) + (float64(sx)+0.5)/ss) / n
					y := (float64(py) + (float64(sy)+0.5)/ss) / n
					c := iconAt(x, y)
					al := float64(c.A) / 255
					r += float64(c.R) * al
					g += float64(c.G) * al
					b += float64(c.B) * al
					a += al
				}
			}
			k := float64(ss * ss)
			if a > 0 {
				img.SetNRGBA(px, py, color.NRGBA{uint8(r / a), uint8(g / a), uint8(b / a), uint8(255 * a / k)})
			}
		}
	}
	return img
}

// iconAt returns the icon's colour at (x, y) in the unit square.
func iconAt(x, y float64) color.NRGBA {
	transparent := color.NRGBA{}
	// Rounded tile.
	if !inRoundRect(x, y, 0.02, 0.02, 0.98, 0.98, 0.2) {
		return transparent
	}
	if !inRoundRect(x, y, 0.045, 0.045, 0.955, 0.955, 0.18) {
		return ticketart.Gold
	}
	// Die, drawn over the wheel at the bottom right, slightly turned.
	dx, dy := rotate(x-0.72, y-0.72, 12*math.Pi/180)
	if math.Abs(dx) < 0.17 && math.Abs(dy) < 0.17 && inRoundRect(dx, dy, -0.17, -0.17, 0.17, 0.17, 0.05) {
		if !inRoundRect(dx, dy, -0.155, -0.155, 0.155, 0.155, 0.04) {
			return color.NRGBA{0xc8, 0xc0, 0xb0, 0xff}
		}
		for _, p := range [][2]float64{{-0.08, -0.08}, {0.08, -0.08}, {0, 0}, {-0.08, 0.08}, {0.08, 0.08}} {
			if math.Hypot(dx-p[0], dy-p[1]) < 0.032 {
				if p == [2]float64{0, 0} {
					return ticketart.Red
				}
				return ticketart.Ink
			}
		}
		return ticketart.Paper
	}
	// Roulette wheel.
	cx, cy := 0.44, 0.44
	d := math.Hypot(x-cx, y-cy)
	ang := math.Atan2(y-cy, x-cx)
	switch {
	case d < 0.065:
		return ticketart.Gold
	case d < 0.085:
		return ticketart.GoldDeep
	case d < 0.2:
		// Turret spokes over the cone.
		for k := 0; k < 4; k++ {
			a := float64(k) * math.Pi / 2
			if math.Abs(math.Sin(ang-a)) < 0.06/d*0.35 && math.Cos(ang-a) > 0 {
				return ticketart.Gold
			}
		}
		return color.NRGBA{0x5a, 0x2a, 0x10, 0xff}
	case d < 0.33:
		// 18 pockets: red and black, one green.
		k := int(math.Floor((ang + math.Pi) / (2 * math.Pi) * 18))
		edge := math.Mod((ang+math.Pi)/(2*math.Pi)*18, 1)
		if edge < 0.06 || d > 0.322 || d < 0.208 {
			return ticketart.Gold
		}
		if k == 0 {
			return ticketart.Felt
		}
		if k%2 == 0 {
			return ticketart.Red
		}
		return ticketart.Black
	case d < 0.39:
		// Wooden rim with a white ball.
		bx, by := cx+0.36*math.Cos(-2.2), cy+0.36*math.Sin(-2.2)
		if math.Hypot(x-bx, y-by) < 0.03 {
			return ticketart.White
		}
		return color.NRGBA{0x7a, 0x3a, 0x12, 0xff}
	case d < 0.405:
		return ticketart.Gold
	}
	// Night background with a glow.
	t := math.Min(1, math.Hypot(x-0.4, y-0.35)/0.8)
	return mix(color.NRGBA{0x5a, 0x1a, 0x8a, 0xff}, ticketart.NightDeep, t)
}

func rotate(x, y, a float64) (float64, float64) {
	return x*math.Cos(a) + y*math.Sin(a), -x*math.Sin(a) + y*math.Cos(a)
}

func inRoundRect(x, y, x0, y0, x1, y1, r float64) bool {
	if x < x0 || x > x1 || y < y0 || y > y1 {
		return false
	}
	cx := math.Max(x0+r, math.Min(x, x1-r))
	cy := math.Max(y0+r, math.Min(y, y1-r))
	return math.Hypot(x-cx, y-cy) <= r
}

func mix(a, b color.NRGBA, t float64) color.NRGBA {
	l := func(p, q uint8) uint8 { return uint8(float64(p)*(1-t) + float64(q)*t) }
	return color.NRGBA{l(a.R, b.R), l(a.G, b.G), l(a.B, b.B), 255}
}
