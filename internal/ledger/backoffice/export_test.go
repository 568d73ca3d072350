package backoffice_test

import (
	"bytes"
	"context"
	"testing"

	"vegas-desk/internal/game"
)

// A block's export streams one line per ticket, in block order, each a
// game.Doc that reads back with its serial, its prize (the ticket's) and
// where it lies; the lines are checked as they stream (every 997th read
// back), and progress is reported.
func TestExportRoundTrip(t *testing.T) {
	forEngines(t, func(t *testing.T, l store) {
		ctx := context.Background()
		b, err := l.Block(ctx, 531, 1)
		if err != nil {
			t.Fatal(err)
		}
		calls := 0
		w := &lineWriter{line: func(pos int, line []byte) {
			if pos%997 != 0 {
				return
			}
			in, err := game.ParseDoc(line)
			if err != nil {
				t.Fatalf("line %d: %v", pos, err)
			}
			serial := game.Serial{Game: b.Game, Block: b.Number, Position: pos, Secret: b.Key.Secret(pos)}.String()
			if in.Serial != serial || in.Prize == nil || *in.Prize != game.Prize(&in.Ticket) {
				t.Fatalf("line %d: serial %s prize %v", pos, in.Serial, in.Prize)
			}
			for _, key := range []string{`"game":531`, `"block":1`, `"position":`, `"pack":`} {
				if !bytes.Contains(line, []byte(key)) {
					t.Errorf("line %d lacks %s", pos, key)
				}
			}
		}}
		if err := l.Export(ctx, 531, 1, w, func(done, total int) { calls++ }); err != nil {
			t.Fatal(err)
		}
		if w.lines != game.BlockSize || len(w.rest) != 0 || calls == 0 {
			t.Fatalf("%d lines (%d bytes after the last), %d progress calls", w.lines, len(w.rest), calls)
		}
	})
}

// lineWriter hands each line written to it (without its new line) to line,
// with its number from 0, as it comes.
type lineWriter struct {
	line  func(n int, line []byte)
	lines int
	rest  []byte
}

func (w *lineWriter) Write(p []byte) (int, error) {
	n := len(p)
	for {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			w.rest = append(w.rest, p...)
			return n, nil
		}
		line := p[:i]
		if len(w.rest) > 0 {
			line = append(w.rest, line...)
			w.rest = w.rest[:0]
		}
		w.line(w.lines, line)
		w.lines++
		p = p[i+1:]
	}
}
