package paper

import (
	"bytes"
	"cmp"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"runtime"
	"slices"
)

// A demonstration sheet's tickets are their card and, over it, the parts
// of each ticket's picture (DemoSheets). The tickets are read in order on
// one goroutine, then drawn and encoded as PNG on every core, a few
// tickets ahead of the page being laid out.

// encodedPart is a part of a ticket's picture as PNG, and its place in the
// card.
type encodedPart struct {
	at  image.Rectangle
	png []byte
}

// encodedTicket is a ticket's parts, or why they could not be made.
type encodedTicket struct {
	parts []encodedPart
	err   error
}

// encodeTickets reads the n tickets with ticket, in order on one goroutine
// (not the caller's), and draws and encodes their parts on every core, a
// few tickets ahead: next(i) waits for the i-th ticket, for i from 0 up.
// Closing stop ends the reading early (when the caller gives up on an
// error).
func encodeTickets(n int, ticket func(i int) (func() []image.Image, error), stop <-chan struct{}) (next func(i int) encodedTicket) {
	out := make([]chan encodedTicket, n)
	for i := range out {
		out[i] = make(chan encodedTicket, 1)
	}
	ahead := make(chan struct{}, runtime.GOMAXPROCS(0)+1) // tickets drawn and not yet laid out
	go func() {
		for i := range n {
			select {
			case ahead <- struct{}{}:
			case <-stop:
				return
			}
			draw, err := ticket(i)
			if err != nil {
				out[i] <- encodedTicket{err: err}
				return
			}
			go func() {
				var t encodedTicket
				for _, p := range draw() {
					b, err := encodePart(p)
					if err != nil {
						t.err = err
						break
					}
					t.parts = append(t.parts, encodedPart{p.Bounds(), b})
				}
				out[i] <- t
			}()
		}
	}()
	return func(i int) encodedTicket {
		t := <-out[i]
		<-ahead
		return t
	}
}

// encodePart encodes a part of a ticket's picture as a PNG of at most 256
// colours, a third of its size in full colour: the colours of its edge,
// where it meets the card, exactly (so that no seam shows), then the most
// frequent; any other becomes the nearest of those.
func encodePart(img image.Image) ([]byte, error) {
	var buf bytes.Buffer
	err := png.Encode(&buf, paletted(img))
	return buf.Bytes(), err
}

// paletted turns img into an image of at most 256 colours (encodePart).
func paletted(img image.Image) image.Image {
	b := img.Bounds()
	rgba, ok := img.(*image.RGBA)
	if !ok {
		rgba = image.NewRGBA(b)
		draw.Draw(rgba, b, img, b.Min, draw.Src)
	}
	if b.Empty() {
		return rgba
	}
	// Colours as 0xRRGGBB, alpha dropped: a ticket is opaque.
	at := func(x, y int) uint32 {
		i := rgba.PixOffset(x, y)
		return uint32(rgba.Pix[i])<<16 | uint32(rgba.Pix[i+1])<<8 | uint32(rgba.Pix[i+2])
	}
	// row is the colours of row y, in rowBuf.
	rowBuf := make([]uint32, b.Dx())
	row := func(y int) []uint32 {
		pix := rgba.Pix[rgba.PixOffset(b.Min.X, y):]
		for x := range rowBuf {
			rowBuf[x] = uint32(pix[4*x])<<16 | uint32(pix[4*x+1])<<8 | uint32(pix[4*x+2])
		}
		return rowBuf
	}
	// Counted run by run: a ticket is mostly runs of one colour.
	count := map[uint32]int{}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		cs := row(y)
		run, n := cs[0], 0
		for _, c := range cs {
			if c != run {
				count[run] += n
				run, n = c, 0
			}
			n++
		}
		count[run] += n
	}
	var pal []uint32
	index := make(map[uint32]uint8, len(count))
	add := func(c uint32) {
		if _, ok := index[c]; !ok && len(pal) < 256 {
			index[c] = uint8(len(pal))
			pal = append(pal, c)
		}
	}
	// nearest is the palette's nearest colour to c (Euclidean in RGB).
	nearest := func(c uint32) uint8 {
		best, bi := 1<<30, 0
		for i, p := range pal {
			dr, dg, db := int(c>>16)-int(p>>16), int(c>>8&0xff)-int(p>>8&0xff), int(c&0xff)-int(p&0xff)
			if d := dr*dr + dg*dg + db*db; d < best {
				best, bi = d, i
			}
		}
		return uint8(bi)
	}
	for x := b.Min.X; x < b.Max.X; x++ {
		add(at(x, b.Min.Y))
		add(at(x, b.Max.Y-1))
	}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		add(at(b.Min.X, y))
		add(at(b.Max.X-1, y))
	}
	byCount := make([]uint32, 0, len(count))
	for c := range count {
		byCount = append(byCount, c)
	}
	slices.SortFunc(byCount, func(a, c uint32) int { return cmp.Or(cmp.Compare(count[c], count[a]), cmp.Compare(a, c)) })
	for _, c := range byCount {
		add(c)
	}
	colours := make(color.Palette, len(pal))
	for i, c := range pal {
		colours[i] = color.RGBA{uint8(c >> 16), uint8(c >> 8), uint8(c), 0xff}
	}
	out := image.NewPaletted(b, colours)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		last, li := ^uint32(0), uint8(0)
		dst := out.Pix[out.PixOffset(b.Min.X, y):]
		for x, c := range row(y) {
			if c != last {
				i, ok := index[c]
				if !ok { // not in the palette: the nearest colour in it
					i = nearest(c)
					index[c] = i
				}
				last, li = c, i
			}
			dst[x] = li
		}
	}
	return out
}
