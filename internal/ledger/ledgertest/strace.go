package ledgertest

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// Durability is checked on a process traced by strace (issue 32): what it
// writes to a ledger's files, what it syncs, and what it answers, in the
// order the kernel saw them. strace rather than a sync-counting shim in
// the process: the SQLite driver is Go (no LD_PRELOAD without cgo) and
// offers no hook on its syncs, while strace sees every system call of the
// real binary, whoever makes it.

// Strace is a command that runs name with args under strace -f, its trace
// written to the file trace: the writes, syncs, links, renames and
// removals of files, and the writes to sockets, each descriptor named
// (-yy: a file's path, a TCP connection's addresses).
func Strace(trace, name string, args ...string) *exec.Cmd {
	return exec.Command("strace", append(straceArgs(trace), append([]string{name}, args...)...)...)
}

// StraceFailing is Strace with every sync of the process from its
// failFrom-th on (1: all) failing with EIO, as a disk that fails does
// (strace's fault injection; the trace shows each "(INJECTED)").
func StraceFailing(trace string, failFrom int, name string, args ...string) *exec.Cmd {
	return exec.Command("strace", append(append(straceArgs(trace), "-e", fmt.Sprintf("inject=fsync,fdatasync:error=EIO:when=%d+", failFrom)),
		append([]string{name}, args...)...)...)
}

// FailSyncs attaches strace to the running process pid, whose syncs then
// all fail with EIO until the returned function detaches it; it returns
// once strace says it is attached to every thread.
func FailSyncs(pid int) (detach func(), err error) {
	cmd := exec.Command("strace", "-f", "-p", strconv.Itoa(pid), "-o", os.DevNull, "-e", "trace=fsync,fdatasync",
		"-e", "inject=fsync,fdatasync:error=EIO")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	detach = func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() }
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if strings.Contains(sc.Text(), "attached") {
			go func() {
				for sc.Scan() {
				}
			}()
			return detach, nil
		}
	}
	detach()
	return nil, fmt.Errorf("strace -p %d never said it was attached", pid)
}

func straceArgs(trace string) []string {
	return []string{"-f", "-qq", "-yy", "-s", "48", "-e", "signal=none", "-o", trace,
		"-e", "trace=execve,write,writev,pwrite64,pwritev,pwritev2,sendto,sendmsg,fsync,fdatasync," +
			"link,linkat,rename,renameat,renameat2,unlink,unlinkat"}
}

// SyncReport is what CheckSynced found: the answers given, how many came
// after a write to a watched file (what makes the check mean something),
// and the syncs of watched files.
type SyncReport struct {
	Answers, AfterWrite, Syncs int
}

var (
	callLine    = regexp.MustCompile(`^(\d+)\s+(\w+)\((.*)$`)
	resumedLine = regexp.MustCompile(`^(\d+)\s+<\.\.\. (\w+) resumed>.*= (-?\d+)`)
	fdArg       = regexp.MustCompile(`^(\d+)<(.*?)>(?:[,)]| <unfinished)`) // a sync another thread cut: "fsync(18<…> <unfinished ...>"
	quoted      = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"`)
	result      = regexp.MustCompile(`= (-?\d+)`)
)

// CheckSynced reads the trace file made by Strace and checks that no
// answer was given while something written to a watched file (watch says
// which: a ledger's WAL, a folder a file was linked or renamed into) was
// not yet synced: each answer, a write that answer picks by its
// descriptor's number and name, must start after a sync, finished and
// successful, that started after the last write to every watched file. A
// watched file removed needs no sync. It is an error too when no answer
// follows a write: the trace would prove nothing.
func CheckSynced(trace string, watch func(path string) bool, answer func(fd int, name string) bool) (SyncReport, error) {
	var rep SyncReport
	f, err := os.Open(trace)
	if err != nil {
		return rep, err
	}
	defer f.Close()
	lastWrite := map[string]int{} // a watched path → the line of its last write
	synced := map[string]int{}    // a watched path → the start line of its last sync that succeeded
	type started struct {
		path string
		line int
	}
	pending := map[string]started{} // a pid → its unfinished sync
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	wrote := false
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if m := resumedLine.FindStringSubmatch(line); m != nil {
			if p, ok := pending[m[1]]; ok && m[3] == "0" {
				synced[p.path] = p.line
				rep.Syncs++
			}
			delete(pending, m[1])
			continue
		}
		m := callLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		pid, call, args := m[1], m[2], m[3]
		fd, name := -1, ""
		if a := fdArg.FindStringSubmatch(args); a != nil {
			fd, _ = strconv.Atoi(a[1])
			name = a[2]
		}
		switch call {
		case "fsync", "fdatasync":
			if !watch(name) {
				continue
			}
			if strings.HasSuffix(line, "<unfinished ...>") {
				pending[pid] = started{name, n}
			} else if r := result.FindStringSubmatch(line); r != nil && r[1] == "0" {
				synced[name] = n
				rep.Syncs++
			}
		case "link", "linkat", "rename", "renameat", "renameat2":
			if q := quoted.FindAllStringSubmatch(args, -1); len(q) > 0 {
				if dir := filepath.Dir(q[len(q)-1][1]); watch(dir) {
					lastWrite[dir] = n
				}
			}
		case "unlink", "unlinkat":
			if q := quoted.FindAllStringSubmatch(args, -1); len(q) > 0 {
				delete(lastWrite, q[len(q)-1][1])
			}
		default: // a write
			if watch(name) {
				lastWrite[name], wrote = n, true
				continue
			}
			if fd < 0 || !answer(fd, name) {
				continue
			}
			rep.Answers++
			if wrote {
				rep.AfterWrite++
			}
			for path, w := range lastWrite {
				if synced[path] < w {
					return rep, fmt.Errorf("line %d of the trace answers (%s) while %s, written on line %d, is not synced:\n%s", n, strings.TrimSpace(line), path, w, excerpt(trace, w, n))
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		return rep, err
	}
	if rep.AfterWrite == 0 {
		return rep, fmt.Errorf("no answer after a write to a watched file in the trace (%d answers, %d syncs): it proves nothing", rep.Answers, rep.Syncs)
	}
	return rep, nil
}

// excerpt is the trace's lines from to to, for a failure's message: at
// most the first and last 20.
func excerpt(trace string, from, to int) string {
	data, _ := os.ReadFile(trace)
	lines := strings.Split(string(data), "\n")
	if to > len(lines) {
		to = len(lines)
	}
	part := lines[from-1 : to]
	if len(part) > 40 {
		part = append(append(part[:20:20], "…"), part[len(part)-20:]...)
	}
	return strings.Join(part, "\n")
}
