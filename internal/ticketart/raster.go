package ticketart

import (
	"image"
	"image/color"
	"image/draw"
	"math"
	"strings"
	"sync"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/gomonobold"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
	"golang.org/x/image/vector"
)

// The faces of the picture: Go's own fonts, embedded in the binary,
// parsed when first drawn (not in every command's process).
var (
	fontRegular  = mustParse(goregular.TTF)
	fontBold     = mustParse(gobold.TTF)
	fontMonoBold = mustParse(gomonobold.TTF)
)

func mustParse(ttf []byte) func() *opentype.Font {
	return sync.OnceValue(func() *opentype.Font {
		f, err := opentype.Parse(ttf)
		if err != nil {
			panic(err) // the embedded fonts always parse
		}
		return f
	})
}

// style picks a face: regular, bold or monospace bold.
type style uint8

const (
	regular style = iota
	bold
	mono
)

// baseline is where a line's baseline sits below the top of its box, as a
// fraction of the text size.
const baseline = 1.07

// pen draws in design units onto img, scaled by s pixels per unit.
type pen struct {
	img   *image.RGBA
	s     float32
	z     vector.Rasterizer
	faces map[faceKey]font.Face
}

type faceKey struct {
	st   style
	size float32 // pixels
}

func newPen(w, h int, scale float32) *pen {
	return penOn(image.NewRGBA(image.Rect(0, 0, int(math.Ceil(float64(w)*float64(scale))), int(math.Ceil(float64(h)*float64(scale))))), scale)
}

// penOn draws onto img, scale pixels a design unit.
func penOn(img *image.RGBA, scale float32) *pen {
	return &pen{img: img, s: scale, faces: map[faceKey]font.Face{}}
}

func (p *pen) face(st style, px float32) font.Face {
	k := faceKey{st, px}
	if f, ok := p.faces[k]; ok {
		return f
	}
	src := fontRegular
	switch st {
	case bold:
		src = fontBold
	case mono:
		src = fontMonoBold
	}
	f, err := opentype.NewFace(src(), &opentype.FaceOptions{Size: float64(px), DPI: 72, Hinting: font.HintingNone})
	if err != nil {
		panic(err) // a positive size always makes a face
	}
	p.faces[k] = f
	return f
}

// path draws a shape: it adds its outlines to a rasterizer whose origin is
// at pixel (ox, oy).
type path func(z *vector.Rasterizer, ox, oy float32)

// fill paints the shape bounded by the design-unit box (x, y, w, h) with c.
// The rasterizer covers only the box's pixels.
func (p *pen) fill(x, y, w, h float32, c color.Color, shape path) {
	r := image.Rect(int(math.Floor(float64(x*p.s)))-1, int(math.Floor(float64(y*p.s)))-1,
		int(math.Ceil(float64((x+w)*p.s)))+1, int(math.Ceil(float64((y+h)*p.s)))+1).Intersect(p.img.Bounds())
	if r.Empty() {
		return
	}
	p.z.Reset(r.Dx(), r.Dy())
	shape(&p.z, float32(r.Min.X), float32(r.Min.Y))
	p.z.Draw(p.img, r, image.NewUniform(c), image.Point{})
}

// roundRect adds the outline of a rectangle with rounded corners, in
// design units, clockwise, or anticlockwise when ccw (a hole).
func (p *pen) roundRect(z *vector.Rasterizer, ox, oy, x, y, w, h, r float32, ccw bool) {
	s := p.s
	x0, y0, x1, y1 := x*s-ox, y*s-oy, (x+w)*s-ox, (y+h)*s-oy
	r = min(r*s, (x1-x0)/2, (y1-y0)/2)
	if r < 0 {
		r = 0
	}
	const k = 0.5523 // a quarter circle as a cubic Bézier
	c := r * (1 - k)
	pts := [][6]float32{ // each corner: the line's end, then the curve
		{x1 - r, y0, x1 - c, y0, x1, y0 + c},
		{x1, y1 - r, x1, y1 - c, x1 - c, y1},
		{x0 + r, y1, x0 + c, y1, x0, y1 - c},
		{x0, y0 + r, x0, y0 + c, x0 + c, y0},
	}
	ends := [][2]float32{{x1, y0 + r}, {x1 - r, y1}, {x0, y1 - r}, {x0 + r, y0}}
	if !ccw {
		z.MoveTo(x0+r, y0)
		for i, q := range pts {
			z.LineTo(q[0], q[1])
			z.CubeTo(q[2], q[3], q[4], q[5], ends[i][0], ends[i][1])
		}
		z.ClosePath()
		return
	}
	// The same outline backwards.
	z.MoveTo(x0+r, y0)
	z.CubeTo(x0+c, y0, x0, y0+c, x0, y0+r)
	z.LineTo(x0, y1-r)
	z.CubeTo(x0, y1-c, x0+c, y1, x0+r, y1)
	z.LineTo(x1-r, y1)
	z.CubeTo(x1-c, y1, x1, y1-c, x1, y1-r)
	z.LineTo(x1, y0+r)
	z.CubeTo(x1, y0+c, x1-c, y0, x1-r, y0)
	z.ClosePath()
}

// rect fills a rounded rectangle with fill (nil for none) and strokes its
// edge, centred on it, with stroke of width sw (nil or 0 for none).
func (p *pen) rect(x, y, w, h float32, fill, stroke color.Color, sw, radius float32) {
	if fill != nil {
		p.fill(x, y, w, h, fill, func(z *vector.Rasterizer, ox, oy float32) {
			p.roundRect(z, ox, oy, x, y, w, h, radius, false)
		})
	}
	if stroke != nil && sw > 0 {
		d := sw / 2
		p.fill(x-d, y-d, w+sw, h+sw, stroke, func(z *vector.Rasterizer, ox, oy float32) {
			p.roundRect(z, ox, oy, x-d, y-d, w+sw, h+sw, radius+d, false)
			p.roundRect(z, ox, oy, x+d, y+d, w-sw, h-sw, max(radius-d, 0), true)
		})
	}
}

// circle fills a circle and strokes its edge.
func (p *pen) circle(cx, cy, r float32, fill, stroke color.Color, sw float32) {
	if fill != nil {
		p.rect(cx-r, cy-r, 2*r, 2*r, fill, nil, 0, r)
	}
	if stroke != nil && sw > 0 {
		p.rect(cx-r, cy-r, 2*r, 2*r, nil, stroke, sw, r)
	}
}

// polygon fills the polygon through pts, in design units.
func (p *pen) polygon(c color.Color, pts ...[2]float32) {
	x0, y0, x1, y1 := float32(math.MaxFloat32), float32(math.MaxFloat32), float32(-math.MaxFloat32), float32(-math.MaxFloat32)
	for _, q := range pts {
		x0, y0, x1, y1 = min(x0, q[0]), min(y0, q[1]), max(x1, q[0]), max(y1, q[1])
	}
	p.fill(x0, y0, x1-x0, y1-y0, c, func(z *vector.Rasterizer, ox, oy float32) {
		for i, q := range pts {
			if i == 0 {
				z.MoveTo(q[0]*p.s-ox, q[1]*p.s-oy)
			} else {
				z.LineTo(q[0]*p.s-ox, q[1]*p.s-oy)
			}
		}
		z.ClosePath()
	})
}

// gradient fills the box (x, y, w, h) from colour a to colour b: top to
// bottom, or along the diagonal from the bottom right corner to the top
// left one.
func (p *pen) gradient(x, y, w, h float32, a, b color.NRGBA, diagonal bool) {
	r := image.Rect(int(x*p.s), int(y*p.s), int(math.Ceil(float64((x+w)*p.s))), int(math.Ceil(float64((y+h)*p.s)))).Intersect(p.img.Bounds())
	fw, fh := float64(r.Dx()), float64(r.Dy())
	mix := func(u, v uint8, t float64) uint8 { return uint8(math.Round(float64(u) + t*(float64(v)-float64(u)))) }
	for py := r.Min.Y; py < r.Max.Y; py++ {
		for px := r.Min.X; px < r.Max.X; px++ {
			fx, fy := float64(px-r.Min.X)+0.5, float64(py-r.Min.Y)+0.5
			t := fy / fh
			if diagonal {
				t = (fw + fh - fx - fy) / (fw + fh)
			}
			p.img.SetRGBA(px, py, color.RGBA{mix(a.R, b.R, t), mix(a.G, b.G, t), mix(a.B, b.B, t), 0xff})
		}
	}
}

// measure returns the width of s in design units at text size size.
func (p *pen) measure(s string, size float32, st style) float32 {
	// Measured at one pixel a unit, so that lines break alike at every scale.
	return float32(font.MeasureString(p.face(st, size), s)) / 64
}

// text writes s with its box's top at y, centred (align 0), left (-1) or
// right (1) in the box that starts at x and is w wide.
func (p *pen) text(x, y, w float32, s string, size float32, c color.Color, st style, align int) {
	tw := p.measure(s, size, st)
	switch {
	case align < 0:
	case align > 0:
		x += w - tw
	default:
		x += (w - tw) / 2
	}
	d := font.Drawer{
		Dst:  p.img,
		Src:  image.NewUniform(c),
		Face: p.face(st, size*p.s),
		Dot:  fixed.Point26_6{X: fixed.Int26_6(x * p.s * 64), Y: fixed.Int26_6((y + size*baseline) * p.s * 64)},
	}
	d.DrawString(s)
}

// words writes the French words under a figure, on two lines when they do
// not fit in w.
func (p *pen) words(x, y, w float32, s string, size float32, c color.Color) {
	for i, l := range p.fitLines(s, w, size) {
		p.text(x, y+float32(i)*size*1.15, w, l, size, c, regular, 0)
	}
}

// fitLines splits s at spaces into at most two lines that fit in w design
// units at the given text size, as evenly as it can.
func (p *pen) fitLines(s string, w, size float32) []string {
	if p.measure(s, size, regular) <= w {
		return []string{s}
	}
	f := strings.Fields(s)
	best, bestW := []string{s}, float32(math.MaxFloat32)
	for i := 1; i < len(f); i++ {
		a, b := strings.Join(f[:i], " "), strings.Join(f[i:], " ")
		if m := max(p.measure(a, size, regular), p.measure(b, size, regular)); m < bestW {
			best, bestW = []string{a, b}, m
		}
	}
	return best
}

// pixels fills the pixel rectangle r with c, without anti-aliasing: the
// barcode's bars stay sharp.
func (p *pen) pixels(r image.Rectangle, c color.Color) {
	draw.Draw(p.img, r, image.NewUniform(c), image.Point{}, draw.Over)
}
