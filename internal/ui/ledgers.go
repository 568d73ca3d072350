package ui

// Réglages' ledger: open a file (typed or browsed), create one, open a
// shared ledger or a validation server, and say why one does not open.

import (
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"vegas-desk/internal/ledger"
)

// choose opens an existing ledger or creates one.
func (s *settingsScreen) choose(create bool) {
	if create {
		s.askNew()
		return
	}
	s.askOpen()
}

// ledgerFiles are the extensions of ledger files the file dialog lists.
var ledgerFiles = []string{".db", ".sqlite", ".sqlite3"}

// askOpen asks which ledger file to open: its path typed (the open
// ledger's at first), or found with Parcourir…, Fyne's file dialog, which
// starts in the typed path's folder (hidden or not: the default ledger's
// is) and lists ledger files only.
func (s *settingsScreen) askOpen() {
	path := s.d.newDialogEntry()
	path.SetPlaceHolder(ledger.DefaultPath())
	if l := s.d.ledger; l != nil && !l.Shared() {
		path.SetText(l.Path())
	}
	browse := s.d.button(lang.L("Browse…"), theme.FolderOpenIcon(), func() {
		fd := dialog.NewFileOpen(func(r fyne.URIReadCloser, err error) {
			if err != nil || r == nil {
				return
			}
			path.SetText(r.URI().Path())
			r.Close()
			s.d.win.Canvas().Focus(path)
		}, s.d.win)
		fd.SetFilter(storage.NewExtensionFileFilter(ledgerFiles))
		dir := filepath.Dir(strings.TrimSpace(path.Text))
		if strings.TrimSpace(path.Text) == "" {
			dir = filepath.Dir(ledger.DefaultPath())
		}
		if u, err := storage.ListerForURI(storage.NewFileURI(dir)); err == nil {
			fd.SetLocation(u)
		}
		fd.Resize(s.d.win.Canvas().Size().Subtract(fyne.NewSize(80, 80)))
		fd.Show()
	})
	label := widget.NewLabel(lang.L("Type the ledger file's path, or browse for it."))
	dlg := s.d.ask(lang.L("Open a ledger"), container.NewVBox(label, container.NewBorder(nil, nil, nil, browse, path)), lang.L("Open"), lang.L("Back"), func(ok bool) {
		p := strings.TrimSpace(path.Text)
		if !ok || p == "" {
			return
		}
		// A path mistyped must not make an empty ledger (openAt creates one).
		if _, err := os.Stat(p); errors.Is(err, os.ErrNotExist) {
			s.d.showError(errors.New(lang.L("There is no file at {{.Path}}: check the path, or make a new ledger with Create a ledger….", map[string]any{"Path": p})))
			return
		}
		s.openAt(p)
	})
	dlg.Resize(fyne.NewSize(720, dlg.MinSize().Height))
	s.d.win.Canvas().Focus(path)
}

// askNew asks where to create a ledger, in one dialog: the folder (the
// current ledger's, or another chosen with a button) and a file name, in a
// field wide enough to read it. Fyne's save dialog is not used: it opens,
// and so empties, an existing file before the app hears of it, and asks
// its own question in English; createAt refuses an existing file instead.
func (s *settingsScreen) askNew() {
	dir := filepath.Dir(ledger.DefaultPath())
	if s.d.ledger != nil {
		dir = filepath.Dir(s.d.ledger.Path())
	}
	folder := widget.NewLabel(dir)
	folder.Wrapping = fyne.TextWrapBreak
	change := s.d.button(lang.L("Another folder…"), theme.FolderOpenIcon(), func() {
		fd := dialog.NewFolderOpen(func(u fyne.ListableURI, err error) {
			if err == nil && u != nil {
				dir = u.Path()
				folder.SetText(dir)
			}
		}, s.d.win)
		fd.SetTitleText(lang.L("Folder of the new ledger"))
		fd.SetConfirmText(lang.L("Choose"))
		fd.SetDismissText(lang.L("Back"))
		if u, err := storage.ListerForURI(storage.NewFileURI(dir)); err == nil {
			fd.SetLocation(u)
		}
		fd.Show()
	})
	name := s.d.newDialogEntry()
	name.SetText("vegas-desk.db")
	name.Validator = func(v string) error {
		v = strings.TrimSpace(v)
		if v == "" || v == "." || v == ".." || strings.ContainsAny(v, `/\`) {
			return errors.New(lang.L("give a file name"))
		}
		return nil
	}
	items := []*widget.FormItem{
		widget.NewFormItem(lang.L("Folder"), container.NewBorder(nil, nil, nil, change, folder)),
		widget.NewFormItem(lang.L("File name"), name),
	}
	dlg := s.d.ask(lang.L("Create a ledger"), widget.NewForm(items...), lang.L("Create"), lang.L("Cancel"), func(ok bool) {
		if ok {
			s.createAt(filepath.Join(dir, strings.TrimSpace(name.Text)))
		}
	})
	dlg.Resize(fyne.NewSize(640, dlg.MinSize().Height))
	s.d.win.Canvas().Focus(name)
	name.TypedShortcut(&fyne.ShortcutSelectAll{}) // to type another name over it
}

// createAt creates a new ledger at path and uses it. It refuses a path
// where a file already exists: that file, maybe the open ledger, is left
// untouched.
func (s *settingsScreen) createAt(path string) {
	exists, err := storage.Exists(storage.NewFileURI(path))
	if err != nil {
		s.d.showError(err)
		return
	}
	if exists {
		s.d.inform(lang.L("Create a ledger"),
			lang.L("A file named {{.Path}} already exists: it was left untouched. Choose another name, or open it with Open a ledger….",
				map[string]any{"Path": path}))
		return
	}
	s.openAt(path)
}

// openAt opens the ledger at path (creating it when there is no file) and
// uses it. It says why it cannot in the app's language and terms, and
// reports whether it could.
func (s *settingsScreen) openAt(path string) bool {
	if ledger.IsServer(path) {
		return s.openServer(path, s.d.deskCert())
	}
	if ledger.IsURL(path) {
		s.openShared(path, "")
		return true
	}
	return s.openWith(path, ledger.Open)
}

// openWith opens the ledger at path with open and uses it.
func (s *settingsScreen) openWith(path string, open func(string) (*ledger.Ledger, error)) bool {
	l, err := open(path)
	if err != nil {
		s.d.showError(errors.New(openError(path, err)))
		return false
	}
	s.d.useLedger(l)
	s.path.SetText(l.Path())
	return true
}

// openShared opens the shared ledger at address (a postgres:// URL), with
// password when not empty. The password comes from the URL, PGPASSWORD or
// ~/.pgpass, as libpq's does; when the server refuses the login without
// one, the app asks for it, keeps it in memory for this connection and
// never stores it.
func (s *settingsScreen) openShared(address, password string) {
	location := address
	if password != "" {
		if u, err := url.Parse(address); err == nil && u.User != nil {
			u.User = url.UserPassword(u.User.Username(), password)
			location = u.String()
		}
	}
	l, err := ledger.Open(location)
	if errors.Is(err, ledger.ErrPassword) {
		s.askPassword(address, password != "")
		return
	}
	if err != nil {
		s.d.showError(errors.New(openError(address, err)))
		return
	}
	s.d.useLedger(l)
	s.path.SetText(l.Path())
}

// askPassword asks the password of the back office's login to a shared
// ledger.
func (s *settingsScreen) askPassword(address string, wrong bool) {
	pw := s.d.newDialogEntry()
	pw.Password = true
	msg := lang.L("The shared ledger {{.Address}} asks for the back office's password.", map[string]any{"Address": address})
	if wrong {
		msg = lang.L("The password was refused. Type it again.") + "\n" + msg
	}
	label := widget.NewLabel(msg)
	label.Wrapping = fyne.TextWrapWord
	dlg := s.d.ask(lang.L("Password"), container.NewVBox(label, pw), lang.L("Connect"), lang.L("Back"), func(ok bool) {
		if ok {
			s.openShared(address, pw.Text)
		}
	})
	dlg.Resize(fyne.NewSize(520, dlg.MinSize().Height))
	s.d.win.Canvas().Focus(pw)
}

// askAddress asks the address of a shared ledger (the back office's) and
// opens it.
func (s *settingsScreen) askAddress() {
	addr := s.d.newDialogEntry()
	addr.SetPlaceHolder("postgres://login@server/base")
	if l := s.d.ledger; l != nil && l.Shared() && l.CounterDesk() == "" { // the back office's, not a validation server's
		addr.SetText(l.Location())
	}
	label := widget.NewLabel(lang.L("The address of the back office's shared ledger (PostgreSQL), for the back office only: a counter opens the ledger's validation server. Its password is asked, never stored."))
	label.Wrapping = fyne.TextWrapWord
	dlg := s.d.ask(lang.L("Open a shared ledger"), container.NewVBox(label, addr), lang.L("Connect"), lang.L("Back"), func(ok bool) {
		a := strings.TrimSpace(addr.Text)
		if !ok || a == "" {
			return
		}
		if !ledger.IsURL(a) {
			s.d.showError(errors.New(lang.L("{{.Address}} is not the address of a shared ledger: it starts with postgres://", map[string]any{"Address": a})))
			return
		}
		s.openShared(a, "")
	})
	dlg.Resize(fyne.NewSize(560, dlg.MinSize().Height))
	s.d.win.Canvas().Focus(addr)
}

// openError says why the ledger at path cannot be opened, as the app's
// user understands it; the cause that is not the ledger's own stays for
// whoever maintains the desk.
func openError(path string, err error) string {
	switch {
	case errors.Is(err, ledger.ErrNotLedger):
		return lang.L("{{.Path}} is not a vegas-desk ledger. It was left untouched. Open a ledger file made by vegas-desk, or create a new one.", map[string]any{"Path": path})
	case errors.Is(err, ledger.ErrTooNew):
		return lang.L("{{.Path}} was written by a newer version of vegas-desk. It was left untouched. Open it with that version.", map[string]any{"Path": path})
	case errors.Is(err, ledger.ErrNeedsUpgrade):
		cmd := upgradeCommand(path)
		return lang.L("{{.Path}} is a ledger of an earlier version of vegas-desk, which this version upgrades in place. It was left untouched. Stop what uses it (vegas-desk serve, another desk's app), then type on this computer's command line:", map[string]any{"Path": path}) +
			"\n\n" + cmd + " --dry-run\n    " + lang.L("says what the upgrade will change;") +
			"\n" + cmd + " --backup-dir " + shellWord(defaultBackupDir(path)) + "\n    " + lang.L("backs the ledger up, then makes every change in one transaction.") +
			"\n\n" + lang.L("Then open it again.")
	case errors.Is(err, ledger.ErrTooOld):
		return lang.L("{{.Path}} is a ledger of a development version of vegas-desk, whose serials are too short to protect unsold tickets. It was left untouched. Generate new blocks in a new ledger.", map[string]any{"Path": path})
	case errors.Is(err, ledger.ErrUnreachable):
		return lang.L("The shared ledger {{.Path}} does not answer. Check the address and the network, then try again.", map[string]any{"Path": path})
	case errors.Is(err, ledger.ErrNoLedger):
		return lang.L("The database {{.Path}} holds no ledger yet: the back office creates it.", map[string]any{"Path": path})
	case errors.Is(err, os.ErrPermission):
		return lang.L("vegas-desk may not read or write {{.Path}}. Choose a ledger in a folder of yours.", map[string]any{"Path": path})
	}
	return lang.L("Cannot open the ledger {{.Path}}.", map[string]any{"Path": path}) + "\n(" + err.Error() + ")"
}

// upgradeCommand is the command line that upgrades the ledger at path:
// the command-line binary's (on Windows, vegas-desk-cli: the app's is
// linked without a console).
func upgradeCommand(path string) string {
	bin := "vegas-desk"
	if runtime.GOOS == "windows" {
		bin = "vegas-desk-cli"
	}
	return bin + " --db " + shellWord(path) + " upgrade"
}

// shellWord quotes s for a shell when it holds more than letters, digits
// and the characters of paths and URLs.
func shellWord(s string) string {
	plain := "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:@"
	if runtime.GOOS == "windows" {
		plain += `\`
	}
	if s != "" && strings.Trim(s, plain) == "" {
		return s
	}
	if runtime.GOOS == "windows" {
		return `"` + s + `"`
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
