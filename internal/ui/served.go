package ui

import (
	"errors"
	"os"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/widget"

	"vegas-desk/internal/ledger"
)

// A counter's ledger on a validation server (vegas-desk serve): its
// address and the desk file the back office gave, remembered in Réglages.

// deskCert is the desk file to ask a validation server with: the one of
// VEGAS_DESK_CERT (the command line's --desk-cert), else the one
// remembered.
func (d *desk) deskCert() string {
	if f := os.Getenv("VEGAS_DESK_CERT"); f != "" {
		return f
	}
	return d.app.Preferences().String(prefDeskCert)
}

// openServer opens the ledger of the server at address as the desk of
// deskFile, uses it, and remembers both; it says why it cannot, and
// reports whether it could.
func (s *settingsScreen) openServer(address, deskFile string) bool {
	if deskFile == "" {
		s.d.showError(errors.New(lang.L("The validation server {{.Address}} needs this desk's desk file: choose it in Settings, Validation server….", map[string]any{"Address": address})))
		return false
	}
	l, err := ledger.OpenServer(address, deskFile)
	if err != nil {
		s.d.showError(errors.New(openError(address, err)))
		return false
	}
	s.d.app.Preferences().SetString(prefDeskCert, deskFile)
	s.d.useLedger(l)
	s.path.SetText(l.Path())
	return true
}

// askServer asks the address of a validation server and the desk file,
// and opens it.
func (s *settingsScreen) askServer() {
	addr := s.d.newDialogEntry()
	addr.SetPlaceHolder("https://serveur:8443")
	file := s.d.newDialogEntry()
	file.SetPlaceHolder("/chemin/guichet.desk")
	if l := s.d.ledger; l != nil && ledger.IsServer(l.Location()) {
		addr.SetText(l.Location())
	}
	file.SetText(s.d.deskCert())
	label := widget.NewLabel(lang.L("The address of the validation server and this desk's desk file, as the back office gave them."))
	label.Wrapping = fyne.TextWrapWord
	form := container.NewVBox(label, widget.NewLabel(lang.L("Address")), addr, widget.NewLabel(lang.L("Desk file")), file)
	dlg := s.d.ask(lang.L("Open a validation server"), form, lang.L("Connect"), lang.L("Back"), func(ok bool) {
		a, f := strings.TrimSpace(addr.Text), strings.TrimSpace(file.Text)
		if !ok || a == "" {
			return
		}
		if !ledger.IsServer(a) {
			s.d.showError(errors.New(lang.L("{{.Address}} is not the address of a validation server: it starts with https://", map[string]any{"Address": a})))
			return
		}
		s.openServer(a, f)
	})
	dlg.Resize(fyne.NewSize(560, dlg.MinSize().Height))
	s.d.win.Canvas().Focus(addr)
}
