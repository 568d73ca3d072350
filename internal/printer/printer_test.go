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

// A document goes to lp -d QUEUE FILE; each failure is told apart, with
// what lp said.
func TestPrint(t *testing.T) {
	doc := func(w io.Writer) error { _, err := io.WriteString(w, "%PDF-1.4 the receipt"); return err }
	cases := []struct {
		name  string
		setup func(t *testing.T)
		queue string
		job   string // the job's id, when it prints
		want  error
		said  string // in the error
	}{
		{"a queue that takes jobs", func(t *testing.T) { printertest.Install(t, "Recus", "Bureau") }, "Recus", "Recus-1", nil, ""},
		{"a queue that does not exist", func(t *testing.T) { printertest.Install(t, "Recus") }, "Recu", "", printer.ErrNoQueue, "does not exist"},
		{"a queue that refuses jobs", func(t *testing.T) { printertest.Install(t, "Recus").Refuse(t, "Recus") }, "Recus", "", printer.ErrRefused, "not accepting jobs"},
		{"no CUPS client", func(t *testing.T) { printertest.Uninstall(t) }, "Recus", "", printer.ErrNoCUPS, "cups-client"},
		{"a name lp would read as an option", func(t *testing.T) { printertest.Install(t, "-h") }, "-h", "", printer.ErrNoQueue, "not the name"},
		{"a name with a space", func(t *testing.T) { printertest.Install(t) }, "Recus Caisse", "", printer.ErrNoQueue, "not the name"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.setup(t)
			job, err := printer.PrintDocument(context.Background(), tc.queue, "recu-1.pdf", doc)
			if job != tc.job || !errors.Is(err, tc.want) || tc.want == nil && err != nil {
				t.Fatalf("job %q, %v; want %q, %v", job, err, tc.job, tc.want)
			}
			if err != nil && (!strings.Contains(err.Error(), tc.said) || !strings.Contains(err.Error(), tc.queue)) {
				t.Errorf("the error %q does not name the queue and say %q", err, tc.said)
			}
		})
	}
}

// What lp is given: -d QUEUE and the file, whole.
func TestPrintArgs(t *testing.T) {
	cups := printertest.Install(t, "Recus")
	if _, err := printer.PrintDocument(context.Background(), "Recus", "recu-7.pdf", func(w io.Writer) error {
		_, err := io.WriteString(w, "%PDF-1.4 payment 7")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	jobs := cups.Jobs(t)
	if len(jobs) != 1 || len(jobs[0].Args) != 3 || jobs[0].Args[0] != "-d" || jobs[0].Args[1] != "Recus" ||
		!strings.HasSuffix(jobs[0].Args[2], "recu-7.pdf") || string(jobs[0].File) != "%PDF-1.4 payment 7" {
		t.Errorf("lp got %q", jobs)
	}
}

func TestQueues(t *testing.T) {
	printertest.Install(t, "Recus", "Etiquettes")
	if qs, err := printer.Queues(context.Background()); err != nil || !slices.Equal(qs, []string{"Recus", "Etiquettes"}) {
		t.Errorf("queues %q, %v", qs, err)
	}
	printertest.Install(t)
	if qs, err := printer.Queues(context.Background()); err != nil || len(qs) != 0 {
		t.Errorf("no queue: %q, %v", qs, err)
	}
	printertest.Uninstall(t)
	if _, err := printer.Queues(context.Background()); !errors.Is(err, printer.ErrNoCUPS) {
		t.Errorf("without CUPS: %v", err)
	}
}
