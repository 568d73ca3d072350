// Package printertest puts stand-ins for CUPS's client first on a test's
// PATH, so that printing is tested without a print server: lpstat -e lists
// the queues given, and lp records its arguments and a copy of the file it
// is given, then takes the job on a queue that accepts jobs, or answers as
// CUPS's lp does.
package printertest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// CUPS is the stand-in's state, in a directory of the test's.
type CUPS struct{ dir string }

// Job is one lp command the stand-in received.
type Job struct {
	Args []string // lp's arguments: -d QUEUE FILE
	File []byte   // the file as lp read it
}

const lpstat = `#!/bin/sh
[ "$1" = "-e" ] || { echo "lpstat: unknown option \"$1\"" >&2; exit 1; }
if [ ! -s "%[1]s/queues" ]; then echo "lpstat: No destinations added." >&2; exit 1; fi
cat "%[1]s/queues"
`

const lp = `#!/bin/sh
n=$(($(cat "%[1]s/count") + 1))
echo "$n" > "%[1]s/count"
printf '%%s\n' "$@" > "%[1]s/job-$n.args"
[ "$1" = "-d" ] || { echo "lp: Error - expected -d QUEUE" >&2; exit 1; }
cp "$3" "%[1]s/job-$n.file" 2>/dev/null
grep -qxF -- "$2" "%[1]s/queues" || { echo "lp: The printer or class does not exist." >&2; exit 1; }
if grep -qxF -- "$2" "%[1]s/refused"; then echo "lp: Destination \"$2\" is not accepting jobs." >&2; exit 1; fi
echo "request id is $2-$n (1 file(s))"
`

// Install puts lp and lpstat stand-ins first on the PATH for the rest of
// the test, with these queues. Tests that call it cannot run in parallel
// (t.Setenv).
func Install(t testing.TB, queues ...string) *CUPS {
	t.Helper()
	c := &CUPS{dir: t.TempDir()}
	for name, text := range map[string]string{
		"lp": fmt.Sprintf(lp, c.dir), "lpstat": fmt.Sprintf(lpstat, c.dir),
		"queues": lines(queues), "refused": "", "count": "0\n",
	} {
		mode := os.FileMode(0o644)
		if name == "lp" || name == "lpstat" {
			mode = 0o755
		}
		if err := os.WriteFile(filepath.Join(c.dir, name), []byte(text), mode); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", c.dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return c
}

// Uninstall leaves no CUPS client on the PATH: only the directories of the
// system's own tools, without lp and lpstat.
func Uninstall(t testing.TB) {
	t.Helper()
	t.Setenv("PATH", t.TempDir())
}

func lines(ss []string) string {
	if len(ss) == 0 {
		return ""
	}
	return strings.Join(ss, "\n") + "\n"
}

// Refuse makes queue refuse jobs from now on, as a stopped CUPS queue does.
func (c *CUPS) Refuse(t testing.TB, queue string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(c.dir, "refused"), os.O_APPEND|os.O_WRONLY, 0o644)
	if err == nil {
		_, err = f.WriteString(queue + "\n")
		f.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
}

// Jobs returns the lp commands received so far, in order.
func (c *CUPS) Jobs(t testing.TB) []Job {
	t.Helper()
	var out []Job
	for n := 1; ; n++ {
		args, err := os.ReadFile(filepath.Join(c.dir, fmt.Sprintf("job-%d.args", n)))
		if os.IsNotExist(err) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		file, _ := os.ReadFile(filepath.Join(c.dir, fmt.Sprintf("job-%d.file", n)))
		out = append(out, Job{Args: strings.Split(strings.TrimSuffix(string(args), "\n"), "\n"), File: file})
	}
}
