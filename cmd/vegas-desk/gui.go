//go:build !nogui

package main

import (
	"io"

	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ui"
)

// openApp opens the desktop app on the ledger at db ("" for the app's own
// choice: the ledger last chosen in its settings, else ledger.DefaultPath).
func openApp(db string) error { return ui.Run(db) }

// renderPNG draws the ticket picture of t as a PNG.
func renderPNG(w io.Writer, t ledger.Ticket) error { return ui.RenderTicketPNG(w, t) }
