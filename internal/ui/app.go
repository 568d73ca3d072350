// Package ui is the vegas-desk desktop app: the counter, the ticket picture,
// the claims, blocks and settings screens. It draws and delegates: every
// rule comes from internal/game and every record from internal/ledger.
package ui

import (
	"fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/widget"
)

// Run opens the desktop app on the ledger at dbPath and returns when its
// window closes.
func Run(dbPath string) error {
	a := app.NewWithID("fr.vegasdesk.app")
	w := a.NewWindow("vegas-desk")
	w.SetContent(widget.NewLabel("vegas-desk — " + dbPath))
	w.ShowAndRun()
	return nil
}
