package main

import (
	"fmt"
	"image"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger"
	"vegas-desk/internal/paper"
	"vegas-desk/internal/ticketart"
)

// maxPrintPacks bounds one print: a pack is 200 tickets, 50 pages.
const maxPrintPacks = 10

// print lays the tickets of packs out on A4 demonstration sheets, four to a
// page with cut marks: each ticket as ticketart draws it printed (no wins
// marked) with its serial under a GRATTEZ ICI panel. A demonstration
// ledger's sheets show each serial and its barcode; any other ledger's
// cover them, and print destroys their packs (ledger.PrintPacks).
func (c *cli) print(fs *pflag.FlagSet) work {
	code, block := blockFlags(fs)
	span := fs.String("packs", "", "packs A-B (or one pack)")
	out := fs.String("o", "", "PDF file to write")
	operator := fs.String("operator", "", "operator name, in the journal entry that destroys the packs (default: $USER)")
	var spans []game.PackRange
	var positions []int
	var g, b int
	return work{check: func(args []string) error {
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
		if spans, err = parsePacks(pos, *code, *block); err != nil {
			return err
		}
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
		return nil
	}, run: func(l *ledger.Ledger, _ []string) error {
		// Printing a real ledger's packs destroys them: read-write (access
		// record). A file that cannot be written opens read-only, and
		// PrintPacks says what it cannot do.
		err := l.PrintPacks(c.ctx, spans, c.who(l, "", *operator), func(cover bool) (ledger.Sheets, error) {
			return c.stageOut(*out, func(w io.Writer) error { return paper.WriteDemoSheets(w, c.sheets(l, g, b, positions, cover)) })
		})
		if err != nil || l.Demo() {
			return err
		}
		c.printf(c.stderr, "destroyed %s (%s): %s; the sheets cover the serials, and no ticket of them is payable\n",
			c.count(len(positions)/game.PackSize, "pack", "packs"), c.text(ledger.PrintedReason), c.joinRanges(spans))
		return nil
	}}
}

// sheets are the demonstration sheets of the tickets at positions of block
// g/b of l, their serials covered when cover.
func (c *cli) sheets(l *ledger.Ledger, g, b int, positions []int, cover bool) paper.DemoSheets {
	progress := func(int) {}
	if f, ok := c.stderr.(*os.File); ok && isTerminal(f) {
		progress = func(i int) {
			c.printf(c.stderr, "\rdrawing: %d/%d tickets", i+1, len(positions))
			if i+1 == len(positions) {
				fmt.Fprintln(c.stderr)
			}
		}
	}
	// Each ticket drawn once, at 300 dpi on the sheet, over the card all of
	// them share, which the document holds once.
	pr := ticketart.NewPrinted(g, ticketart.Options{Scale: paper.DemoTicketWidth / 25.4 * 300 / ticketart.Width, CoverSerial: cover})
	return paper.DemoSheets{Game: g, Block: b, Positions: positions, PrintedAt: time.Now(), Card: pr.Card(), Destroyed: cover,
		Ticket: func(i int) (func() []image.Image, error) {
			t, err := l.TicketAt(c.ctx, g, b, positions[i])
			if err != nil {
				return nil, err
			}
			progress(i)
			return func() []image.Image { return pr.Parts(&t.Ticket, &t.Serial) }, nil
		}}
}

// joinRanges names packs.
func (c *cli) joinRanges(rs []game.PackRange) string {
	names := make([]string, len(rs))
	for i, r := range rs {
		names[i] = c.packRange(r)
	}
	return strings.Join(names, ", ")
}
