//go:build windows

package protocol

// CheckPrivate checks nothing on Windows, whose files have no POSIX modes
// (their access lists are the administrator's).
func CheckPrivate(string) error { return nil }

// CheckPrivateDir checks nothing on Windows.
func CheckPrivateDir(string) error { return nil }
