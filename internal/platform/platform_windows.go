package platform

import (
	"errors"
	"os"
	"os/user"
	"strings"
	"unsafe"

	"golang.org/x/sys/windows"
)

// DataDir is %LOCALAPPDATA% (C:\Users\NAME\AppData\Local), the user's
// data that stays on this machine (not %APPDATA%, which roams with the
// account: a ledger must not be copied between machines by a login).
func DataDir() string {
	if dir, err := windows.KnownFolderPath(windows.FOLDERID_LocalAppData, 0); err == nil && dir != "" {
		return dir
	}
	if dir := os.Getenv("LOCALAPPDATA"); dir != "" {
		return dir
	}
	dir, err := os.UserHomeDir()
	if err != nil {
		return "."
	}
	return dir
}

// UserName is the account's name without its DOMAIN\ (or machine) part:
// the operator "marie", not "CAISSE-2\marie".
func UserName() string {
	name := os.Getenv("USERNAME")
	if u, err := user.Current(); err == nil {
		name = u.Username
	}
	if i := strings.LastIndexByte(name, '\\'); i >= 0 {
		name = name[i+1:]
	}
	return name
}

// fileAllAccess is FILE_ALL_ACCESS: every right on a file or folder.
const fileAllAccess = 0x1F01FF

// SyncDir does nothing on Windows, which has no sync of a folder's names
// (SQLite's Windows VFS syncs none either): NTFS logs them in its journal.
func SyncDir(string) error { return nil }

// OwnerOnly gives path a protected access list (nothing inherited from its
// folder) that lets its owner, the user running this process, and the
// system itself (SYSTEM: backups, the indexer) do everything and nobody
// else anything: what 0600 means on Linux, for a file; for a folder the
// entries are inherited by what is made in it (SQLite's -wal and -shm
// files beside a ledger).
func OwnerOnly(path string) error {
	fail := func(err error) error { return &os.PathError{Op: "owner-only", Path: path, Err: err} }
	u, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return fail(err)
	}
	system, err := windows.CreateWellKnownSid(windows.WinLocalSystemSid)
	if err != nil {
		return fail(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	inherit := uint32(windows.NO_INHERITANCE)
	if st.IsDir() {
		inherit = windows.OBJECT_INHERIT_ACE | windows.CONTAINER_INHERIT_ACE
	}
	var entries []windows.EXPLICIT_ACCESS
	for _, sid := range []*windows.SID{u.User.Sid, system} {
		entries = append(entries, windows.EXPLICIT_ACCESS{
			AccessPermissions: fileAllAccess,
			AccessMode:        windows.SET_ACCESS,
			Inheritance:       inherit,
			Trustee: windows.TRUSTEE{
				TrusteeForm:  windows.TRUSTEE_IS_SID,
				TrusteeType:  windows.TRUSTEE_IS_USER,
				TrusteeValue: windows.TrusteeValueFromSID(sid),
			},
		})
	}
	acl, err := windows.ACLFromEntries(entries, nil)
	if err != nil {
		return fail(err)
	}
	err = windows.SetNamedSecurityInfo(path, windows.SE_FILE_OBJECT,
		windows.DACL_SECURITY_INFORMATION|windows.PROTECTED_DACL_SECURITY_INFORMATION, nil, nil, acl, nil)
	if err != nil {
		return fail(err)
	}
	return nil
}

// IsTerminal reports whether f is a console (GetConsoleMode answers only
// for one; NUL and pipes are not).
func IsTerminal(f *os.File) bool {
	var mode uint32
	return windows.GetConsoleMode(windows.Handle(f.Fd()), &mode) == nil
}

// IsClosedPipe reports whether err is a write to a pipe its reader closed:
// Windows says "the pipe is being closed" (ERROR_NO_DATA) or "broken pipe",
// wine "pipe not connected".
func IsClosedPipe(err error) bool {
	return errors.Is(err, windows.ERROR_NO_DATA) || errors.Is(err, windows.ERROR_BROKEN_PIPE) ||
		errors.Is(err, windows.ERROR_PIPE_NOT_CONNECTED)
}

// Language is the app's language for the user's Windows locale
// (GetUserDefaultLocaleName: "fr-FR" is French, any other English), or ""
// when Windows does not say.
func Language() string { return languageOf(userLocale()) }

var getUserDefaultLocaleName = windows.NewLazySystemDLL("kernel32.dll").NewProc("GetUserDefaultLocaleName")

// userLocale is the user's Windows locale name ("fr-FR"), or "".
func userLocale() string {
	const localeNameMaxLength = 85
	buf := make([]uint16, localeNameMaxLength)
	n, _, _ := getUserDefaultLocaleName.Call(uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))
	if n == 0 {
		return ""
	}
	return windows.UTF16ToString(buf)
}

// looseFolder checks nothing on Windows, whose folders have no POSIX
// modes: one made here has an access list for its owner alone.
func looseFolder(string) error { return nil }
