package printertest

import (
	"embed"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// What CUPS's own client (Debian's cups-client, lp and lpstat, in the C
// locale) wrote, recorded once against a real scheduler (cupsd) started by
// TestRecordedIsCUPS, which checks the recording again on every run and
// rewrites it with VEGAS_RECORD_CUPS=1. The queue was named QUEUE; the
// stand-in puts its own queue's name there, and its job's number in
// QUEUE-1.
//
//go:embed testdata/cups
var recorded embed.FS

// Cases are the recorded answers, each CASE.stdout, CASE.stderr and
// CASE.status in testdata/cups.
var Cases = []string{
	"lp-printed",            // lp -d QUEUE FILE, the server's first job
	"lp-no-queue",           // lp -d NOSUCH FILE
	"lp-not-accepting",      // lp -d QUEUE FILE after cupsreject QUEUE
	"lp-no-scheduler",       // lp -d QUEUE FILE, no scheduler running
	"lpstat-e",              // lpstat -e with queues QUEUE, Bureau and annexe
	"lpstat-e-none",         // lpstat -e, no queue
	"lpstat-e-no-scheduler", // lpstat -e, no scheduler running
	"lpstat-r",              // lpstat -r
	"lpstat-r-no-scheduler", // lpstat -r, no scheduler running
}

// Recorded returns the recorded answer of a case.
func Recorded(name string) Output {
	read := func(ext string) string {
		b, err := recorded.ReadFile("testdata/cups/" + name + "." + ext)
		if err != nil {
			panic(fmt.Sprintf("printertest: no recording of %s: %v", name, err))
		}
		return string(b)
	}
	status, err := strconv.Atoi(strings.TrimSpace(read("status")))
	if err != nil {
		panic(fmt.Sprintf("printertest: %s.status: %v", name, err))
	}
	return Output{Stdout: read("stdout"), Stderr: read("stderr"), Status: status}
}

// Record writes o as the recording of a case, in dir (the package's
// testdata/cups).
func Record(t testing.TB, dir, name string, o Output) {
	t.Helper()
	for ext, text := range map[string]string{"stdout": o.Stdout, "stderr": o.Stderr, "status": fmt.Sprintln(o.Status)} {
		if err := os.WriteFile(filepath.Join(dir, name+"."+ext), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
