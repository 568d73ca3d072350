package ui

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/platform"
)

// prefBackupDir is the folder of the backups the app takes and shows; ""
// for the default, beside the ledger (defaultBackupDir).
const prefBackupDir = "backup.dir"

// backupsView is Réglages' backups of the open ledger: their folder, the
// last backup there (from the JSON files beside the backups) and
// Sauvegarder maintenant, which takes a verified backup (Ledger.Backup) in
// the background. A counter on a validation server or a sealed counter
// ledger is not backed up here: why is said instead.
type backupsView struct {
	d       *desk
	content fyne.CanvasObject
	offered *fyne.Container // the folder, the last backup and the button
	folder  *keyEntry
	last    *widget.Label
	now     *keyButton
	state   *widget.Label // the last backup taken now, and when
	why     *widget.Label // why the ledger open is not backed up here
}

func newBackupsView(d *desk) *backupsView {
	b := &backupsView{d: d}
	b.folder = d.newEntry()
	b.folder.SetText(d.app.Preferences().String(prefBackupDir))
	// The folder applies at once, as the receipt printer does.
	b.folder.OnChanged = func(v string) {
		d.app.Preferences().SetString(prefBackupDir, strings.TrimSpace(v))
		b.showLast()
	}
	browse := d.button(lang.L("Browse…"), theme.FolderOpenIcon(), b.browse)
	b.last = widget.NewLabel("")
	b.last.Wrapping = fyne.TextWrapBreak
	b.now = d.button(lang.L("Back up now"), theme.DocumentSaveIcon(), b.takeNow)
	b.state = widget.NewLabel("")
	b.state.Importance = widget.SuccessImportance
	b.state.Wrapping = fyne.TextWrapWord
	b.why = widget.NewLabel("")
	b.why.Importance = widget.LowImportance
	b.why.Wrapping = fyne.TextWrapWord
	b.offered = container.NewVBox(container.NewBorder(nil, nil, nil, browse, b.folder), b.last,
		container.NewBorder(nil, nil, b.now, nil, b.state))
	b.content = container.NewVBox(b.offered, b.why)
	b.show()
	return b
}

// defaultBackupDir is the backups' folder when none is set: a
// "sauvegardes" folder beside a ledger file (location), beside the
// default ledger for a shared one.
func defaultBackupDir(location string) string {
	near := location
	if near == "" || ledger.IsURL(near) {
		near = ledger.DefaultPath()
	}
	return filepath.Join(filepath.Dir(near), "sauvegardes")
}

// dir is the backups' folder in effect for the ledger open.
func (b *backupsView) dir() string {
	if dir := b.d.app.Preferences().String(prefBackupDir); dir != "" {
		return dir
	}
	if b.d.ledger == nil {
		return defaultBackupDir("")
	}
	return defaultBackupDir(b.d.ledger.Path())
}

// show offers the backups of the ledger open, or says why they are not
// taken here.
func (b *backupsView) show() {
	l := b.d.ledger
	why := ""
	switch {
	case l == nil:
		why = lang.L("no ledger open")
	case ledger.IsServer(l.Path()):
		why = lang.L("A counter on a validation server holds no ledger to back up: the back office backs up the server's ledger (serve --backup-dir, or vegas-desk backup).")
	case l.Kind() == "counter":
		why = lang.L("A sealed counter ledger is not backed up here: the back office seals it again from its own ledger, and its payments come back there with import-claims of its export.")
	}
	b.state.SetText("")
	b.why.SetText(why)
	if why != "" {
		b.offered.Hide()
		b.why.Show()
		return
	}
	b.why.Hide()
	b.offered.Show()
	b.folder.SetPlaceHolder(defaultBackupDir(l.Path()))
	b.showLast()
}

// showLast says the last backup of the ledger open in the folder.
func (b *backupsView) showLast() {
	l := b.d.ledger
	if l == nil {
		return
	}
	all, err := ledger.Backups(b.dir(), l.ID())
	switch {
	case err != nil:
		b.last.SetText(err.Error())
	case len(all) == 0:
		b.last.SetText(lang.L("No backup of this ledger in this folder yet."))
	default:
		i := all[len(all)-1]
		b.last.SetText(lang.L("Last backup: {{.When}}, {{.File}} ({{.Blocks}} blocks, {{.Entries}} entries), verified when taken.", map[string]any{
			"When": core.ParseTime(i.TakenAt).Local().Format("02/01/2006 15:04:05"), "File": filepath.Base(i.File),
			"Blocks": i.Blocks, "Entries": game.GroupDigits(i.Entries)}) + "\n" +
			lang.L("Its journal head (verify --head): {{.Head}}", map[string]any{"Head": i.Head}))
	}
}

// browse chooses the backups' folder.
func (b *backupsView) browse() {
	fd := dialog.NewFolderOpen(func(u fyne.ListableURI, err error) {
		if err == nil && u != nil {
			b.folder.SetText(u.Path())
		}
	}, b.d.win)
	fd.SetTitleText(lang.L("Backups"))
	fd.SetConfirmText(lang.L("Choose"))
	fd.SetDismissText(lang.L("Back"))
	if u, err := storage.ListerForURI(storage.NewFileURI(b.dir())); err == nil {
		fd.SetLocation(u)
	}
	fd.Show()
}

// takeNow takes a verified backup of the ledger open into the folder, in
// the background, and says when it is done or why it was not.
func (b *backupsView) takeNow() {
	l, dir := b.d.ledger, b.dir()
	if l == nil || !b.offered.Visible() {
		return
	}
	var info ledger.BackupInfo
	b.d.startTask(lang.L("Backing up and verifying the ledger…"), func(ctx context.Context, _ func(int, int)) error {
		var err error
		info, err = l.Backup(ctx, dir, 0)
		return err
	}, func(err error) {
		b.showLast()
		if err != nil {
			b.state.SetText("")
			msg := lang.L("The backup was not taken, and nothing of it was left in {{.Dir}}.", map[string]any{"Dir": dir})
			if errors.Is(err, context.Canceled) {
				b.d.inform(lang.L("Backups"), msg)
				return
			}
			if errors.Is(err, platform.ErrLooseFolder) { // issue 36: a backup is a whole ledger
				msg += "\n" + lang.L("Others may read the folder {{.Dir}}, and a backup pays every unpaid winner: run chmod 700 {{.Dir}}, or choose a folder of your own.", map[string]any{"Dir": dir})
			}
			b.d.showError(errors.New(msg + "\n(" + err.Error() + ")"))
			return
		}
		b.state.SetText(time.Now().Format("15:04:05") + " · " + lang.L("Backup taken and verified: {{.File}}. Restore it with vegas-desk copy --restore.", map[string]any{"File": info.File}))
	})
}
