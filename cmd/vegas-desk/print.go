package main

import (
	"flag"
	"fmt"
	"image"
	"io"
	"os"
	"time"

	"vegas-desk/internal/game"
	"vegas-desk/internal/paper"
	"vegas-desk/internal/ticketart"
)

// maxPrintPacks bounds one print: a pack is 200 tickets, 50 pages.
const maxPrintPacks = 10

// print lays the tickets of packs out on A4 demonstration sheets, four to a
// page with cut marks: each ticket as ticketart draws it printed (no wins
// marked), its serial and barcode under a GRATTEZ ICI panel.
func (c *cli) print(args []string) error {
	fs := flag.NewFlagSet("print", flag.ContinueOnError)
	code, block := blockFlags(fs)
	span := fs.String("packs", "", "packs A-B (or one pack)")
	out := fs.String("o", "", "PDF file to write")
	pos, err := c.flags(fs, args)
	if err != nil {
		return err
	}
	if *span != "" {
		pos = append(pos, *span)
	}
	if *out == "" {
		return badInput("print: -o FILE.pdf is required")
	}
	spans, err := parsePacks(pos, *code, *block)
	if err != nil {
		return err
	}
	var positions []int
	var g, b int
	for _, s := range spans {
		if g != 0 && (s.Game != g || s.Block != b) {
			return badInput("print: the packs of one block at a time (%d/%d and %d/%d)", g, b, s.Game, s.Block)
		}
		g, b = s.Game, s.Block
		for p := s.First; p <= s.Last; p++ {
			for i := range game.PackSize {
				positions = append(positions, p*game.PackSize+i)
			}
		}
	}
	if n := len(positions) / game.PackSize; n > maxPrintPacks {
		return badInput("print: %d packs is %d pages; print at most %d packs at once", n, len(positions)/4, maxPrintPacks)
	}
	l, err := c.read()
	if err != nil {
		return err
	}
	defer l.Close()
	if _, err := l.Block(c.ctx, g, b); err != nil {
		return err
	}
	progress := func(int) {}
	if f, ok := c.stderr.(*os.File); ok && isTerminal(f) {
		progress = func(i int) { fmt.Fprintf(c.stderr, "\rdrawing: %d/%d tickets", i+1, len(positions)) }
		defer fmt.Fprintln(c.stderr)
	}
	// Each ticket drawn once, at 300 dpi on the sheet, over the card all of
	// them share, which the document holds once.
	pr := ticketart.NewPrinted(g, paper.DemoTicketWidth/25.4*300/ticketart.Width)
	sheets := paper.DemoSheets{Game: g, Block: b, Positions: positions, PrintedAt: time.Now(), Card: pr.Card(),
		Ticket: func(i int) (func() []image.Image, error) {
			t, err := l.TicketAt(c.ctx, g, b, positions[i])
			if err != nil {
				return nil, err
			}
			progress(i)
			return func() []image.Image { return pr.Parts(&t.Ticket, &t.Serial) }, nil
		}}
	return c.writeOut(*out, func(w io.Writer) error { return paper.WriteDemoSheets(w, sheets) })
}
