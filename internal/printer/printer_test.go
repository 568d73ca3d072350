//go:build !windows

package printer_test

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"vegas-desk/internal/printer"
	"vegas-desk/internal/printer/printertest"
)

// printCase is a print and what it must come to, with what CUPS's
// client said in the error.
type printCase struct {
	name  string
	queue string
	job   string // the job's id, when it prints
	want  error
	said  string // in the error
}

func checkPrint(t *testing.T, tc printCase) {
	t.Helper()
	doc := func(w io.Writer) error { _, err := io.WriteString(w, "%PDF-1.4 the receipt"); return err }
	job, err := printer.PrintDocument(context.Background(), tc.queue, "Reçu du paiement 1", "recu-1.pdf", doc)
	if job != tc.job || !errors.Is(err, tc.want) || tc.want == nil && err != nil {
		t.Fatalf("%s: job %q, %v; want %q, %v", tc.name, job, err, tc.job, tc.want)
	}
	if err != nil && (!strings.Contains(err.Error(), tc.said) || !strings.Contains(err.Error(), tc.queue)) {
		t.Errorf("%s: the error %q does not name the queue and say %q", tc.name, err, tc.said)
	}
}

// A document goes to lp -d QUEUE FILE; each failure is told apart, with
// what lp said: the stand-in's words are the real lp's (printertest's
// recording; TestRealCUPS asks the real one).
func TestPrint(t *testing.T) {
	cases := []struct {
		printCase
		setup func(t *testing.T)
	}{
		{printCase{"a queue that takes jobs", "Recus", "Recus-1", nil, ""}, func(t *testing.T) { printertest.Install(t, "Recus", "Bureau") }},
		{printCase{"a queue that does not exist", "Recu", "", printer.ErrNoQueue, "lp: Error - The printer or class does not exist."}, func(t *testing.T) { printertest.Install(t, "Recus") }},
		{printCase{"a queue that refuses jobs", "Recus", "", printer.ErrRefused, `lp: Destination "Recus" is not accepting jobs.`}, func(t *testing.T) { printertest.Install(t, "Recus").Refuse(t, "Recus") }},
		{printCase{"no scheduler running", "Recus", "", printer.ErrNoCUPS, "scheduler is not running"}, func(t *testing.T) { printertest.Install(t, "Recus").Down(t) }},
		{printCase{"no CUPS client", "Recus", "", printer.ErrNoCUPS, "cups-client"}, func(t *testing.T) { printertest.Uninstall(t) }},
		{printCase{"a name lp would read as an option", "-h", "", printer.ErrNoQueue, "not the name"}, func(t *testing.T) { printertest.Install(t, "-h") }},
		{printCase{"a name with a space", "Recus Caisse", "", printer.ErrNoQueue, "not the name"}, func(t *testing.T) { printertest.Install(t) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.setup(t)
			checkPrint(t, tc.printCase)
		})
	}
}

// The same prints through the real lp and lpstat, to a real scheduler
// the test starts (printertest.StartCUPS), then stops.
func TestRealCUPS(t *testing.T) {
	s := printertest.StartCUPS(t)
	if qs, err := printer.Queues(context.Background()); err != nil || len(qs) != 0 {
		t.Errorf("no queue: %q, %v", qs, err)
	}
	s.AddQueue(t, "Recus")
	s.AddQueue(t, "Bureau")
	checkPrint(t, printCase{"a queue that takes jobs", "Recus", "Recus-1", nil, ""})
	checkPrint(t, printCase{"a queue that does not exist", "Recu", "", printer.ErrNoQueue, "lp: Error - The printer or class does not exist."})
	s.Reject(t, "Recus")
	checkPrint(t, printCase{"a queue that refuses jobs", "Recus", "", printer.ErrRefused, `lp: Destination "Recus" is not accepting jobs.`})
	if qs, err := printer.Queues(context.Background()); err != nil || !slices.Equal(qs, []string{"Bureau", "Recus"}) {
		t.Errorf("queues %q, %v", qs, err)
	}
	s.Stop()
	checkPrint(t, printCase{"no scheduler running", "Recus", "", printer.ErrNoCUPS, "scheduler is not running"})
	if _, err := printer.Queues(context.Background()); !errors.Is(err, printer.ErrNoCUPS) {
		t.Errorf("no scheduler: %v", err)
	}
}

// What lp is given: -d QUEUE, -t and the job's title, which says what the
// document is (issue 39: the queue listed temporary files' names), on one
// line, and the file, whole.
func TestPrintArgs(t *testing.T) {
	cups := printertest.Install(t, "Recus")
	for _, title := range []string{"Reçu du paiement 7", "Étiquettes de\n7 carnets\x1b[2J", ""} {
		if _, err := printer.PrintDocument(context.Background(), "Recus", title, "recu-7.pdf", func(w io.Writer) error {
			_, err := io.WriteString(w, "%PDF-1.4 payment 7")
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	jobs := cups.Jobs(t)
	want := []string{"Reçu du paiement 7", "Étiquettes de 7 carnets [2J", "vegas-desk"}
	if len(jobs) != len(want) {
		t.Fatalf("lp got %q", jobs)
	}
	for i, j := range jobs {
		if len(j.Args) != 5 || j.Args[0] != "-d" || j.Args[1] != "Recus" || j.Args[2] != "-t" || j.Args[3] != want[i] ||
			!strings.HasSuffix(j.Args[4], "recu-7.pdf") || string(j.File) != "%PDF-1.4 payment 7" {
			t.Errorf("lp got %q, want the title %q", j.Args, want[i])
		}
	}
}

func TestQueues(t *testing.T) {
	printertest.Install(t, "Recus", "Etiquettes")
	if qs, err := printer.Queues(context.Background()); err != nil || !slices.Equal(qs, []string{"Etiquettes", "Recus"}) {
		t.Errorf("queues %q, %v", qs, err)
	}
	printertest.Install(t)
	if qs, err := printer.Queues(context.Background()); err != nil || len(qs) != 0 {
		t.Errorf("no queue: %q, %v", qs, err)
	}
	printertest.Install(t, "Recus").Down(t)
	if _, err := printer.Queues(context.Background()); !errors.Is(err, printer.ErrNoCUPS) || !strings.Contains(err.Error(), "scheduler is not running") {
		t.Errorf("no scheduler running: %v", err)
	}
	printertest.Uninstall(t)
	if _, err := printer.Queues(context.Background()); !errors.Is(err, printer.ErrNoCUPS) {
		t.Errorf("without CUPS: %v", err)
	}
}
