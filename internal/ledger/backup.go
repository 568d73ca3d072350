package ledger

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/ledger/sqlite"
	"vegas-desk/internal/platform"
)

// BackupInfo is a backup of a ledger, as the JSON file beside it says.
type BackupInfo struct {
	File     string `json:"file"` // the backup, a ledger file
	LedgerID string `json:"ledger_id"`
	From     string `json:"from"` // the ledger's location (no password)
	TakenAt  string `json:"taken_at"`
	// Head is the backup's journal head: the ledger it was taken from held
	// it unchanged when the backup was verified.
	Head    string `json:"head"`
	Entries int    `json:"entries"`
	Blocks  int    `json:"blocks"`
	Tickets int    `json:"tickets"`
}

// backupSuffix names a backup's JSON file: FILE.db beside FILE.db.json.
const backupSuffix = ".json"

// Backup takes a backup of the ledger into dir while it keeps answering:
// a file through SQLite's VACUUM INTO (one read transaction: a consistent
// snapshot), a shared ledger through a copy into a new file (one
// repeatable-read transaction); either way the backup is a ledger file,
// which vegas-desk copy restores (to a file or a database). The backup is
// verified (every ticket, digest and the journal) and its head must be
// held unchanged by the ledger's journal; its BackupInfo is written
// beside it. Both are written under temporary names and renamed once
// synced: a failed or interrupted backup leaves nothing. Then only the
// keep most recent backups of this ledger in dir are kept (keep <= 0: all).
func (l *Ledger) Backup(ctx context.Context, dir string, keep int) (BackupInfo, error) {
	if l.info.Kind != "back-office" {
		return BackupInfo{}, errors.New("backup: only a back office's ledger is backed up here (a counter's is sealed again from it)")
	}
	now := time.Now().UTC()
	info := BackupInfo{LedgerID: l.info.ID, From: l.info.Location, TakenAt: core.FormatTime(now)}
	name := "vegas-desk-" + now.Format("20060102T150405.000Z") + ".db"
	fail := func(err error) (BackupInfo, error) {
		return info, fmt.Errorf("backup of %s into %s: %w", l.info.Location, dir, err)
	}
	// The backup names the ledger it is of (issue 44: a restore replaces
	// that ledger, not the one it is a copy of): its absolute path, or
	// its URL without password.
	of := l.info.Location
	if !IsURL(of) {
		if abs, err := filepath.Abs(of); err == nil {
			of = abs
		}
	}
	of = l.info.ID + " " + of
	var path string
	var err error
	if b, ok := l.b.(*sqlite.Backend); ok {
		path, err = sqlite.Backup(ctx, b.File().Path, dir, name, [2]string{MetaBackupOf, of})
	} else {
		path, err = l.copyBackup(ctx, dir, name, of)
	}
	if err != nil {
		return fail(err)
	}
	info.File = path
	if err := l.checkBackup(ctx, &info); err != nil {
		os.Remove(path)
		return fail(err)
	}
	js, _ := json.MarshalIndent(info, "", "  ")
	tmp := filepath.Join(dir, "."+name+backupSuffix+".partial")
	if err := os.WriteFile(tmp, append(js, '\n'), 0o600); err != nil {
		os.Remove(path)
		return fail(err)
	}
	if err := core.SyncRename(tmp, path+backupSuffix); err != nil {
		os.Remove(tmp)
		os.Remove(path)
		return fail(err)
	}
	if keep > 0 {
		all, err := Backups(dir, l.info.ID)
		if err != nil {
			return info, err
		}
		for _, old := range all[:max(len(all)-keep, 0)] {
			for _, f := range []string{old.File + backupSuffix, old.File, old.File + "-wal", old.File + "-shm"} {
				os.Remove(f)
			}
		}
	}
	return info, nil
}

// copyBackup copies a shared ledger into a new file, then that file into
// dir/name as a file's backup is written.
func (l *Ledger) copyBackup(ctx context.Context, dir, name, of string) (string, error) {
	if err := platform.PrivateDir(dir); err != nil { // issue 36: a backup is a whole ledger
		return "", err
	}
	tmp := filepath.Join(dir, "."+name+".copy")
	defer func() {
		for _, f := range []string{tmp, tmp + "-wal", tmp + "-shm"} {
			os.Remove(f)
		}
	}()
	dst, err := duplicate(ctx, l, tmp, of, nil) // a backup keeps the ledger's id, as a file's does
	if err != nil {
		return "", err
	}
	if err := dst.Close(); err != nil {
		return "", err
	}
	return sqlite.Backup(ctx, tmp, dir, name)
}

// checkBackup verifies the backup of info.File, fills info from the
// report and checks that l's journal holds the backup's head.
func (l *Ledger) checkBackup(ctx context.Context, info *BackupInfo) error {
	b, err := OpenReadOnly(info.File)
	if err != nil {
		return fmt.Errorf("the backup does not open: %w", err)
	}
	defer b.Close()
	r, err := b.Verify(ctx, 0, 0, nil)
	if err != nil {
		return fmt.Errorf("the backup's verify: %w", err)
	}
	if !r.OK() {
		return fmt.Errorf("the backup does not verify: %v", r.Problems)
	}
	if b.ID() != l.info.ID {
		return fmt.Errorf("the backup is of ledger %s, not %s", b.ID(), l.info.ID)
	}
	info.Head, info.Entries, info.Blocks, info.Tickets = r.Head, r.Entries, r.Blocks, r.Tickets
	if r.Head != "" {
		if _, err := l.CheckHead(ctx, r.Head); err != nil {
			return fmt.Errorf("the ledger's journal does not hold the backup's head %s: %w", r.Head, err)
		}
	}
	return nil
}

// Backups lists the backups of ledger id (all ledgers': "") in dir, oldest
// first, from the JSON files beside them.
func Backups(dir, id string) ([]BackupInfo, error) {
	names, err := filepath.Glob(filepath.Join(dir, "vegas-desk-*.db"+backupSuffix))
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	var out []BackupInfo
	for _, n := range names {
		js, err := os.ReadFile(n)
		if err != nil {
			continue
		}
		var info BackupInfo
		if json.Unmarshal(js, &info) != nil || id != "" && info.LedgerID != id {
			continue
		}
		info.File = strings.TrimSuffix(n, backupSuffix) // where it is now
		if _, err := os.Stat(info.File); err == nil {
			out = append(out, info)
		}
	}
	return out, nil
}

// backupInfoOf is the JSON written beside the backup at path, if there
// is one.
func backupInfoOf(path string) (BackupInfo, bool) {
	var info BackupInfo
	if IsURL(path) {
		return info, false
	}
	js, err := os.ReadFile(path + backupSuffix)
	return info, err == nil && json.Unmarshal(js, &info) == nil
}
