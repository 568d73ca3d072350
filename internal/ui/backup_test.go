package ui

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/ledger/ledgertest"
	"vegas-desk/internal/testcache"
)

// Réglages → Sauvegardes, by the keyboard: the folder (a "sauvegardes"
// folder beside the ledger file by default) typed, Sauvegarder maintenant
// takes a verified backup in the background, its JSON and its file are
// there and verify, and the last backup is shown; a folder that cannot be
// one, or Escape while it is taken, says the backup was not taken and
// leaves nothing.
func TestBackupNow(t *testing.T) {
	ctx := context.Background()
	path := ledgertest.Copy(t, ledgertest.Block)
	l, err := ledger.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	s := newShooter(t)
	d := newTestDeskIn(t, l, func(fyne.App) fyne.Window { return test.NewTempWindow(t, nil) })
	defer d.closeLedger()
	d.win.Resize(fyne.NewSize(1366, 768))
	k := newKeys(t, d.win)
	b := d.settings.backups
	k.alt(fyne.KeyR)
	if want := filepath.Join(filepath.Dir(path), "sauvegardes"); b.folder.PlaceHolder != want || b.dir() != want {
		t.Errorf("the default folder: %q (in effect %q), want %q beside the ledger", b.folder.PlaceHolder, b.dir(), want)
	}
	if !b.offered.Visible() || !strings.Contains(b.last.Text, "Aucune sauvegarde") {
		t.Fatalf("before any backup: offered %v, %q", b.offered.Visible(), b.last.Text)
	}

	// A folder where a file is: refused, said, nothing left.
	notDir := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(notDir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	d.win.Canvas().Focus(b.folder)
	k.text(notDir)
	k.key(fyne.KeyTab)
	k.key(fyne.KeyTab)
	if d.win.Canvas().Focused() != b.now {
		t.Fatalf("Tab, Tab from the folder reaches %v, not Sauvegarder maintenant", d.win.Canvas().Focused())
	}
	k.key(fyne.KeyReturn)
	waitFor(t, "the failed backup", time.Minute, func() bool { return len(d.tasks) == 0 })
	msg := dialogText(d)
	if !strings.Contains(msg, "La sauvegarde n’a pas été faite") || !strings.Contains(msg, notDir) {
		t.Errorf("the failure says %q", msg)
	}
	k.key(fyne.KeyReturn) // closes the message
	if all, _ := ledger.Backups(filepath.Dir(notDir), ""); len(all) != 0 || b.state.Text != "" {
		t.Errorf("a failed backup left %v, says %q", all, b.state.Text)
	}

	// The folder typed over, then Sauvegarder maintenant, cancelled, then taken.
	dir := filepath.Join(t.TempDir(), "backups")
	d.win.Canvas().Focus(b.folder)
	b.folder.TypedShortcut(&fyne.ShortcutSelectAll{})
	k.text(dir)
	if got := d.app.Preferences().String(prefBackupDir); got != dir {
		t.Fatalf("the folder in effect: %q, want %q", got, dir)
	}
	// Escape at once cancels it: said, nothing left.
	test.Tap(b.now)
	k.key(fyne.KeyEscape)
	waitFor(t, "the cancelled backup", time.Minute, func() bool { return len(d.tasks) == 0 })
	if msg := dialogText(d); !strings.Contains(msg, "La sauvegarde n’a pas été faite") {
		t.Errorf("the cancel says %q", msg)
	}
	k.key(fyne.KeyReturn)
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a cancelled backup left %d files", len(entries))
	}
	test.Tap(b.now) // again, to its end
	waitFor(t, "the backup", 5*time.Minute, func() bool { return len(d.tasks) == 0 })
	if dialogs(d.win) != 0 {
		t.Fatalf("the backup says %q", dialogText(d))
	}
	all, err := ledger.Backups(dir, l.ID())
	if err != nil || len(all) != 1 {
		t.Fatalf("backups in %s: %+v %v", dir, all, err)
	}
	info := all[0]
	if _, err := os.Stat(info.File + ".json"); err != nil {
		t.Fatal(err)
	}
	head, err := l.Head(ctx)
	if err != nil || info.Head != head {
		t.Errorf("the backup's head %q, the ledger's %q %v", info.Head, head, err)
	}
	bl, err := ledger.OpenReadOnly(info.File)
	if err != nil {
		t.Fatal(err)
	}
	r, err := bl.Verify(ctx, 0, 0, nil)
	bl.Close()
	if err != nil || !r.OK() || r.Head != info.Head || bl.ID() != l.ID() {
		t.Errorf("the backup verifies: %+v %v", r, err)
	}
	if !strings.Contains(b.state.Text, "Sauvegarde faite et vérifiée") || !strings.Contains(b.state.Text, info.File) {
		t.Errorf("done says %q", b.state.Text)
	}
	if !strings.Contains(b.last.Text, filepath.Base(info.File)) || !strings.Contains(b.last.Text, info.Head) {
		t.Errorf("the last backup shown: %q", b.last.Text)
	}

	d.win.Canvas().Focus(b.now)
	pump()
	d.win.Content().Refresh() // laid out again for the texts set since, as the driver does before it paints
	s.shoot(d, "settings-backup-1366")
}

// A ledger of an earlier schema version: the app says what it is and the
// exact commands that upgrade it (the path quoted for the shell), and
// leaves the file as it was.
func TestOpenLedgerNeedsUpgrade(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mon registre")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "ledger.db")
	if err := testcache.CopyFile(ledgertest.Copy(t, ledgertest.Block), path); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.Exec(fmt.Sprintf("PRAGMA user_version = %d", core.SchemaVersion-1))
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ledger.Open(path); !errors.Is(err, ledger.ErrNeedsUpgrade) {
		t.Fatalf("the ledger opens with %v, not ErrNeedsUpgrade", err)
	}

	d := newTestDesk(t, nil)
	d.start(path, true)
	if d.ledger != nil || d.tabs.SelectedIndex() != tabSettings {
		t.Fatalf("opened %v, on tab %d", d.ledger, d.tabs.SelectedIndex())
	}
	msg := dialogText(d)
	q := "'" + path + "'"
	for _, want := range []string{
		"registre d’une version antérieure de vegas-desk",
		"Il n’a pas été modifié",
		"vegas-desk --db " + q + " upgrade --dry-run",
		"vegas-desk --db " + q + " upgrade --backup-dir '" + filepath.Join(dir, "sauvegardes") + "'",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("the message lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "Impossible d’ouvrir") {
		t.Errorf("a generic error:\n%s", msg)
	}
	if after, err := os.ReadFile(path); err != nil || !bytes.Equal(after, before) {
		t.Errorf("the file changed (%v)", err)
	}
}
