package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"vegas-desk/internal/ledger"
	"vegas-desk/internal/platform"
)

// terminal makes text typed by an operator (or read from a file) safe to
// print on a terminal: control characters (escape sequences could rewrite the
// screen, a carriage return hide what came before), bidirectional
// overrides and invalid UTF-8 are written as Go escapes (\x1b, \u202e).
func terminal(s string) string {
	clean := true
	for _, r := range s {
		if !printable(r) {
			clean = false
			break
		}
	}
	if clean && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case printable(r):
			b.WriteRune(r)
		default:
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		}
		i += n
	}
	return b.String()
}

// shown is text of the ledger's (or typed) as a message prints it: through
// terminal, whatever the verb's width and flags (%s, %-16s, %v); %q quotes
// it, and the quotes escape what is not printable themselves.
type shown string

func (s shown) Format(f fmt.State, verb rune) {
	t := string(s)
	if verb != 'q' {
		t = terminal(t)
	}
	fmt.Fprintf(f, fmt.FormatString(f, verb), t)
}

// ours is text of the command line's own, its parts escaped already,
// that a message prints as it is (its line breaks kept).
type ours string

// shownArgs are a message's arguments, its texts made shown (c.tr).
func shownArgs(args []any) []any {
	out := make([]any, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case string:
			a = shown(v)
		case ours:
			a = string(v)
		case error:
			a = shown(v.Error())
		}
		out[i] = a
	}
	return out
}

// jsonSafe is JSON text with every character that is not printable
// (terminal's: a C1 control, DEL, a bidirectional override) written as
// a \u escape, the same JSON: the encoder escapes only those below U+0020.
// The line breaks between values are kept.
func jsonSafe(b []byte) []byte {
	s := string(b)
	clean := true
	for _, r := range s {
		if r != '\n' && !printable(r) {
			clean = false
			break
		}
	}
	if clean {
		return b
	}
	var out strings.Builder
	for _, r := range s {
		if r != '\n' && !printable(r) && r != utf8.RuneError {
			fmt.Fprintf(&out, `\u%04x`, r)
			continue
		}
		out.WriteRune(r)
	}
	return []byte(out.String())
}

// termLines is terminal for a message of several lines of our own: each line
// is made safe, the line breaks kept.
func termLines(s string) string {
	lines := strings.Split(s, "\n")
	for i := range lines {
		lines[i] = terminal(lines[i])
	}
	return strings.Join(lines, "\n")
}

func printable(r rune) bool {
	switch {
	case r == '\t':
		return true
	case unicode.IsControl(r):
		return false
	case r >= '\u202a' && r <= '\u202e', r >= '\u2066' && r <= '\u2069', r == '\u200e', r == '\u200f', r == '\u061c':
		return false // bidirectional controls
	case r == '\u2028', r == '\u2029':
		return false // line and paragraph separators: a line break to some terminals
	}
	return true
}

// passphrase returns the passphrase of a key file: the first line of
// --passphrase-file, else $VEGAS_DESK_PASSPHRASE, else typed at the
// terminal without echo (twice when confirm, for a new key file).
func (c *cli) passphrase(file string, confirm bool) ([]byte, error) {
	if file != "" {
		line, err := readFirstLine(file, maxSecretFile)
		if errors.As(err, new(tooLarge)) {
			return nil, badInput("--passphrase-file %s: its first line holds %v, which no passphrase does: give a file whose first line is the passphrase", file, err)
		}
		if err != nil {
			return nil, badInput("--passphrase-file: %v", err)
		}
		return line, nil
	}
	if p := os.Getenv("VEGAS_DESK_PASSPHRASE"); p != "" {
		return []byte(p), nil
	}
	in, ok := c.stdin.(*os.File)
	if !ok || !isTerminal(in) {
		return nil, badInput("no passphrase: type it at a terminal, or give --passphrase-file FILE or VEGAS_DESK_PASSPHRASE")
	}
	c.printf(c.stderr, "passphrase: ")
	p, err := readHidden(in)
	fmt.Fprintln(c.stderr)
	if err != nil {
		return nil, err
	}
	if confirm {
		c.printf(c.stderr, "passphrase again: ")
		again, err := readHidden(in)
		fmt.Fprintln(c.stderr)
		if err != nil {
			return nil, err
		}
		if string(again) != string(p) {
			return nil, badInput("the two passphrases differ; run keygen again")
		}
	}
	return p, nil
}

// readLine reads one line from f, one byte at a time (nothing is read
// past it).
func readLine(f *os.File) ([]byte, error) {
	var line []byte
	var b [1]byte
	for {
		n, err := f.Read(b[:])
		if n == 1 {
			if b[0] == '\n' {
				return []byte(strings.TrimSuffix(string(line), "\r")), nil
			}
			if len(line) == maxSecretFile {
				return nil, badInput("the line typed holds %v, which no passphrase does: type the passphrase, or give --passphrase-file FILE", tooLarge{maxSecretFile})
			}
			line = append(line, b[0])
		}
		if err != nil {
			if errors.Is(err, io.EOF) && len(line) > 0 {
				return line, nil
			}
			return nil, err
		}
	}
}

// checkOut refuses an output file (-o) that would destroy what must be
// kept: the ledger this command opens, its -wal, -shm or -journal file,
// any other SQLite file (a ledger, a counter ledger, a write-ahead log or
// journal, or what lies beside one), a signing key file, and anything that
// is not a regular file (a directory, a device, a named pipe); also when
// the name reaches one of these through a symbolic link, or is a hard link
// to the ledger's files. A document goes to a new file, or over a document.
func (c *cli) checkOut(path string) error {
	if path == "" || path == "-" {
		return nil
	}
	refuse := func(what string) error {
		return badInput("-o %s: %s; vegas-desk writes a document only to a new file or over a document: give another file name", path, what)
	}
	if err := ledger.CheckRegular(path); err != nil {
		return badInput("-o %v; vegas-desk writes a document only to a new file or over a document: give another file name", err)
	}
	out, outErr := os.Stat(path) // through symbolic links
	if db := c.dbPath(); !ledger.IsURL(db) {
		real := realPath(path)
		for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
			name := map[string]string{"": "the ledger " + db + " that this command opens",
				"-wal": "the write-ahead log of the ledger " + db, "-shm": "the shared-memory index of the ledger " + db,
				"-journal": "the rollback journal of the ledger " + db}[suffix]
			if real == realPath(db+suffix) {
				return refuse("it is " + name)
			}
			if st, err := os.Stat(db + suffix); err == nil && outErr == nil && os.SameFile(st, out) {
				return refuse("it is " + name + " (a link to it)")
			}
		}
	}
	if outErr != nil {
		return nil // a new file
	}
	if what := ledger.KeptFile(path); what != "" {
		return refuse("it is " + what)
	}
	for _, suffix := range []string{"-wal", "-shm", "-journal"} {
		if base, ok := strings.CutSuffix(path, suffix); ok && ledger.KeptFile(base) != "" {
			return refuse("it lies beside " + base + ", " + ledger.KeptFile(base) + ", as its " + suffix + " file")
		}
	}
	return nil
}

// serialOutputs are the commands whose -o file holds serials a winner is
// paid by (a ticket drawn, demonstration sheets, a receipt, a counter's day
// report): as a backup, it is written only into a folder its owner's alone
// (checkPrivateOut), and is itself 0600 (writeFile). A sealed counter
// ledger shows no serial (it goes on a USB stick); claim --receipt is
// checked by claim.
var serialOutputs = map[string]bool{"render": true, "print": true, "receipt": true, "daily": true}

// checkPrivateOut refuses to write path (given by flag, -o), a file that holds serials, into a
// folder that others may read, write or enter, with the chmod that makes
// it its owner's alone (platform.PrivateDir, the backups' rule, issue 36).
// A folder that is not there is left to the write to name.
func checkPrivateOut(flag, path string) error {
	if path == "" || path == "-" {
		return nil
	}
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return err
	}
	st, err := os.Stat(dir)
	if err != nil || !st.IsDir() {
		return nil
	}
	if err := platform.PrivateDir(dir); errors.Is(err, platform.ErrLooseFolder) {
		return badInput("%s %s: the folder %s is not its owner's alone (mode %s), and this file holds serials that pay: run chmod 700 %s, or write it into a folder of yours",
			flag, path, dir, fmt.Sprintf("%04o", st.Mode().Perm()), shellWord(dir))
	} else if err != nil {
		return failf("%s %s: %w", flag, path, err)
	}
	return nil
}

// realPath is path made absolute with its symbolic links resolved, as far
// as they lead (a link to a file not there yet is followed by name).
func realPath(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	for range 40 { // as many links as the kernel follows
		if r, err := filepath.EvalSymlinks(abs); err == nil {
			return r
		}
		dir, base := filepath.Split(abs)
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			dir = r
		}
		target, err := os.Readlink(filepath.Join(dir, base))
		if err != nil {
			return filepath.Join(dir, base) // a file not there yet
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(dir, target)
		}
		abs = target
	}
	return abs
}
