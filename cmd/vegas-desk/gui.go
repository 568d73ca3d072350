//go:build !nogui

package main

import "vegas-desk/internal/ui"

// openApp opens the desktop app on the ledger at db ("" for the app's own
// choice: the ledger last chosen in its settings, else ledger.DefaultPath).
func openApp(db string) error { return ui.Run(db) }
