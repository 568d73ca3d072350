// Package printertest puts stand-ins for CUPS's client first on a test's
// PATH, so that printing is tested without a print server: lpstat -e lists
// the queues given, and lp records its arguments and a copy of the file it
// is given, then takes the job on a queue that accepts jobs. What they
// write is not theirs: they replay what CUPS's own lp and lpstat wrote,
// recorded once (testdata/cups, fixtures.go), and the printer package's
// tests check the recording against a real scheduler they start
// (StartCUPS).
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
	Args []string // lp's arguments: -d QUEUE -t TITLE FILE
	File []byte   // the file as lp read it
}

// replay writes a recorded answer, its queue named $2 and its job $3, and
// exits with its status. Queue names come checked (printer.ValidQueue);
// sed's own characters in them are escaped all the same.
const replay = `D=%[1]s
replay() {
	q=$(printf '%%s' "$2" | sed 's/[&|\\]/\\&/g')
	sed -e "s|QUEUE-1|$q-$3|g" -e "s|QUEUE|$q|g" "$D/cups/$1.stdout"
	sed -e "s|QUEUE|$q|g" "$D/cups/$1.stderr" >&2
	exit "$(cat "$D/cups/$1.status")"
}
`

const lpstat = `#!/bin/sh
` + replay + `
case "$*" in
-r) [ -e "$D/down" ] && replay lpstat-r-no-scheduler; replay lpstat-r ;;
-e) [ -e "$D/down" ] && replay lpstat-e-no-scheduler
	[ -s "$D/queues" ] || replay lpstat-e-none
	LC_ALL=C sort -f "$D/queues"; exit 0 ;;
*) echo "lpstat stand-in: only -e and -r are recorded" >&2; exit 2 ;;
esac
`

const lp = `#!/bin/sh
` + replay + `
n=$(($(cat "$D/count") + 1))
echo "$n" > "$D/count"
printf '%%s\n' "$@" > "$D/job-$n.args"
[ "$1" = "-d" ] && [ $# -eq 5 ] && [ "$3" = "-t" ] || { echo "lp stand-in: only lp -d QUEUE -t TITLE FILE is recorded" >&2; exit 2; }
cp "$5" "$D/job-$n.file" 2>/dev/null
[ -e "$D/down" ] && replay lp-no-scheduler
grep -qxF -- "$2" "$D/queues" || replay lp-no-queue
grep -qxF -- "$2" "$D/refused" && replay lp-not-accepting "$2"
j=$(($(cat "$D/jobs") + 1))
echo "$j" > "$D/jobs"
replay lp-printed "$2" "$j"
`

// Install puts lp and lpstat stand-ins first on the PATH for the rest of
// the test, with these queues. Tests that call it cannot run in parallel
// (t.Setenv).
func Install(t testing.TB, queues ...string) *CUPS {
	t.Helper()
	c := &CUPS{dir: t.TempDir()}
	files := map[string]string{
		"lp": fmt.Sprintf(lp, c.dir), "lpstat": fmt.Sprintf(lpstat, c.dir),
		"queues": lines(queues), "refused": "", "count": "0\n", "jobs": "0\n",
	}
	for _, name := range Cases {
		o := Recorded(name)
		files["cups/"+name+".stdout"], files["cups/"+name+".stderr"] = o.Stdout, o.Stderr
		files["cups/"+name+".status"] = fmt.Sprintln(o.Status)
	}
	if err := os.Mkdir(filepath.Join(c.dir, "cups"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range files {
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

// Refuse makes queue refuse jobs from now on, as a queue cupsreject
// stopped taking them does.
func (c *CUPS) Refuse(t testing.TB, queue string) {
	t.Helper()
	c.appendTo(t, "refused", queue+"\n")
}

// AddQueue adds a queue, as lpadmin does.
func (c *CUPS) AddQueue(t testing.TB, queue string) {
	t.Helper()
	c.appendTo(t, "queues", queue+"\n")
}

// Down makes the stand-in answer as CUPS's client does when no scheduler
// runs.
func (c *CUPS) Down(t testing.TB) {
	t.Helper()
	c.appendTo(t, "down", "")
}

func (c *CUPS) appendTo(t testing.TB, name, text string) {
	f, err := os.OpenFile(filepath.Join(c.dir, name), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err == nil {
		_, err = f.WriteString(text)
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
