package platform

import (
	"os"
	"os/user"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// ownerOnly checks that path's access list is, or is not, its owner's
// alone: entries that allow only the user who runs the test and SYSTEM,
// the user's with every right, none denying, none for anyone else
// (Everyone, Users, Authenticated Users). Under wine the list is kept as
// the file's Unix mode and read back from it (wine runs every program as
// one Unix user: it is not enforced between Windows users).
func ownerOnly(t *testing.T, path string, want bool) {
	t.Helper()
	if underWine() {
		// Debian's wine 10 keeps no access list a program sets: it reads
		// one back from the file's Unix mode, so there is nothing to check
		// here but that OwnerOnly answered nil (the callers check it). A
		// real Windows checks the list (README, Windows: what wine cannot show).
		if _, err := os.Stat(path); err != nil {
			t.Errorf("%s: %v", path, err)
		}
		return
	}
	sd, err := windows.GetNamedSecurityInfo(path, windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	dacl, _, err := sd.DACL()
	if err != nil {
		t.Fatal(err)
	}
	u, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		t.Fatal(err)
	}
	got := dacl != nil && dacl.AceCount > 0
	owner := false
	for i := 0; got && i < int(dacl.AceCount); i++ {
		var ace *windows.ACCESS_ALLOWED_ACE
		if err := windows.GetAce(dacl, uint32(i), &ace); err != nil {
			t.Fatal(err)
		}
		sid := (*windows.SID)(unsafe.Pointer(&ace.SidStart))
		switch {
		case ace.Header.AceType != windows.ACCESS_ALLOWED_ACE_TYPE:
			got = false
		case sid.Equals(u.User.Sid):
			owner = ace.Mask&fileAllAccess == fileAllAccess
		case !sid.IsWellKnown(windows.WinLocalSystemSid):
			got = false
		}
	}
	if got = got && owner; got != want {
		t.Errorf("%s: owner-only %v, want %v (%s)", path, got, want, sd)
	}
}

// The default ledger lives in %LOCALAPPDATA%\vegas-desk, not under a Unix
// ~/.local/share.
func TestDataDirLocalAppData(t *testing.T) {
	want := os.Getenv("LOCALAPPDATA")
	if want == "" {
		t.Fatal("no LOCALAPPDATA in the environment")
	}
	if got := DataDir(); !strings.EqualFold(got, want) {
		t.Errorf("DataDir() = %s, want %s", got, want)
	}
	if got := DefaultLedger(); !strings.HasSuffix(got, `AppData\Local\vegas-desk\ledger.db`) {
		t.Errorf("DefaultLedger() = %s", got)
	}
}

// The operator is "marie", not "CAISSE-2\marie".
func TestUserNameWithoutDomain(t *testing.T) {
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	got := UserName()
	if got == "" || strings.Contains(got, `\`) || !strings.HasSuffix(u.Username, `\`+got) {
		t.Errorf("UserName() = %q for account %q", got, u.Username)
	}
}

// A file made owner-only has one entry, for its owner; a folder's entry
// is inherited by a file made in it later (SQLite's -wal beside a ledger).
func TestOwnerOnly(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "clé é.key")
	if err := os.WriteFile(f, []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	ownerOnly(t, f, false)
	if err := OwnerOnly(f); err != nil {
		t.Fatal(err)
	}
	ownerOnly(t, f, true)
	if data, err := os.ReadFile(f); err != nil || string(data) != "secret" {
		t.Errorf("the owner reads it back: %q %v", data, err)
	}
	sub := filepath.Join(dir, "vegas-desk")
	if err := MkdirAllOwnerOnly(sub); err != nil {
		t.Fatal(err)
	}
	ownerOnly(t, sub, true)
	wal := filepath.Join(sub, "ledger.db-wal")
	if err := os.WriteFile(wal, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	ownerOnly(t, wal, true) // inherited from its folder
	if err := OwnerOnly(filepath.Join(dir, "missing")); err == nil {
		t.Error("OwnerOnly of a missing file: no error")
	}
}

// export | head: the reader closes the pipe; the writer learns it is a
// closed pipe (and ends quietly).
func TestClosedPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	_, err = w.Write([]byte("x"))
	w.Close()
	if err == nil || !IsClosedPipe(err) {
		t.Errorf("a write to a closed pipe: %v, not a closed pipe", err)
	}
	if IsClosedPipe(os.ErrClosed) || IsClosedPipe(windows.ERROR_ACCESS_DENIED) {
		t.Error("another error taken for a closed pipe")
	}
}

// A pipe or NUL is no console: a passphrase is never asked there.
func TestIsTerminal(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	for _, f := range []*os.File{r, w, null} {
		if IsTerminal(f) {
			t.Errorf("%s is taken for a console", f.Name())
		}
	}
}

// The app's language follows the Windows locale. make test-windows runs
// this test in a French session and in an American one, and says which in
// VEGAS_TEST_LOCALE; elsewhere the locale Windows gives is used.
func TestLanguage(t *testing.T) {
	loc := os.Getenv("VEGAS_TEST_LOCALE")
	if loc == "" {
		loc = userLocale()
	}
	if got, want := userLocale(), loc; !strings.EqualFold(got, want) {
		t.Errorf("the Windows locale is %q, want %q", got, want)
	}
	if got, want := Language(), languageOf(loc); got != want || got == "" {
		t.Errorf("Language() = %q in locale %s, want %q", got, loc, want)
	}
}

// Times are told in the desk's time zone, Windows' own setting: make
// test-windows sets Europe/Paris (VEGAS_TEST_PARIS=1): an hour ahead of
// UTC in winter, two in summer, the change on the last Sunday of March.
func TestParisTime(t *testing.T) {
	if os.Getenv("VEGAS_TEST_PARIS") == "" {
		if _, off := time.Now().Zone(); off%900 != 0 {
			t.Errorf("a local offset of %d s", off)
		}
		return
	}
	for _, tc := range []struct {
		utc  time.Time
		hour int
	}{
		{time.Date(2026, 1, 15, 11, 0, 0, 0, time.UTC), 12},
		{time.Date(2026, 7, 14, 8, 0, 0, 0, time.UTC), 10},
		{time.Date(2026, 3, 29, 0, 59, 0, 0, time.UTC), 1},
		{time.Date(2026, 3, 29, 1, 0, 0, 0, time.UTC), 3},
		{time.Date(2026, 10, 25, 0, 59, 0, 0, time.UTC), 2},
		{time.Date(2026, 10, 25, 1, 0, 0, 0, time.UTC), 2},
	} {
		if got := tc.utc.In(time.Local); got.Hour() != tc.hour {
			t.Errorf("%s UTC is %s here, want %d h", tc.utc.Format(time.DateTime), got.Format(time.DateTime+" -0700"), tc.hour)
		}
	}
}

// underWine reports whether this runs under wine (its ntdll has
// wine_get_version).
func underWine() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}
