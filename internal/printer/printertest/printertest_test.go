package printertest

import (
	"os"
	"path/filepath"
	"testing"
)

// realAnswers asks the real lp and lpstat each recorded question: first
// with no scheduler running, then of a scheduler started for the test.
func realAnswers(t *testing.T) map[string]Output {
	t.Helper()
	doc := filepath.Join(t.TempDir(), "receipt.pdf")
	if err := os.WriteFile(doc, []byte("%PDF-1.4 a receipt\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := map[string]Output{}
	t.Setenv("CUPS_SERVER", FreeAddr(t))
	got["lp-no-scheduler"] = Run("lp", "-d", "QUEUE", "-t", "Reçu du paiement 1", doc)
	got["lpstat-e-no-scheduler"] = Run("lpstat", "-e")
	got["lpstat-r-no-scheduler"] = Run("lpstat", "-r")
	s := StartCUPS(t)
	got["lpstat-r"] = Run("lpstat", "-r")
	got["lpstat-e-none"] = Run("lpstat", "-e")
	for _, q := range []string{"QUEUE", "Bureau", "annexe"} {
		s.AddQueue(t, q)
	}
	got["lpstat-e"] = Run("lpstat", "-e")
	got["lp-printed"] = Run("lp", "-d", "QUEUE", "-t", "Reçu du paiement 1", doc)
	got["lp-no-queue"] = Run("lp", "-d", "NOSUCH", "-t", "Reçu du paiement 1", doc)
	s.Reject(t, "QUEUE")
	got["lp-not-accepting"] = Run("lp", "-d", "QUEUE", "-t", "Reçu du paiement 1", doc)
	return got
}

// The recording is what CUPS's own client writes: each case asked again
// of the real lp and lpstat, against a real scheduler, and compared
// (VEGAS_RECORD_CUPS=1 records them anew instead).
func TestRecordedIsCUPS(t *testing.T) {
	got := realAnswers(t)
	if len(got) != len(Cases) {
		t.Fatalf("%d cases asked, %d recorded", len(got), len(Cases))
	}
	for _, name := range Cases {
		if os.Getenv("VEGAS_RECORD_CUPS") == "1" {
			Record(t, filepath.Join("testdata", "cups"), name, got[name])
			continue
		}
		if want := Recorded(name); got[name] != want {
			t.Errorf("%s: CUPS's client answers %+v, the recording says %+v", name, got[name], want)
		}
	}
}

// The stand-in answers each case as recorded: the same words, streams and
// status, for its own queue's name and job.
func TestStandInReplays(t *testing.T) {
	doc := filepath.Join(t.TempDir(), "receipt.pdf")
	if err := os.WriteFile(doc, []byte("%PDF-1.4 a receipt\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := map[string]Output{}
	c := Install(t)
	got["lpstat-r"] = Run("lpstat", "-r")
	got["lpstat-e-none"] = Run("lpstat", "-e")
	c = Install(t, "QUEUE", "Bureau", "annexe")
	got["lpstat-e"] = Run("lpstat", "-e")
	got["lp-printed"] = Run("lp", "-d", "QUEUE", "-t", "Reçu du paiement 1", doc)
	got["lp-no-queue"] = Run("lp", "-d", "NOSUCH", "-t", "Reçu du paiement 1", doc)
	c.Refuse(t, "QUEUE")
	got["lp-not-accepting"] = Run("lp", "-d", "QUEUE", "-t", "Reçu du paiement 1", doc)
	c.Down(t)
	got["lp-no-scheduler"] = Run("lp", "-d", "QUEUE", "-t", "Reçu du paiement 1", doc)
	got["lpstat-e-no-scheduler"] = Run("lpstat", "-e")
	got["lpstat-r-no-scheduler"] = Run("lpstat", "-r")
	for _, name := range Cases {
		if want := Recorded(name); got[name] != want {
			t.Errorf("%s: the stand-in answers %+v, CUPS's client %+v", name, got[name], want)
		}
	}
	// Another queue's name and a later job are put in the recorded words.
	c = Install(t, "Recus")
	Run("lp", "-d", "Recus", "-t", "Reçu du paiement 1", doc)
	if o := Run("lp", "-d", "Recus", "-t", "Reçu du paiement 1", doc); o.Stdout != "request id is Recus-2 (1 file(s))\n" || o.Status != 0 {
		t.Errorf("a second job on Recus: %+v", o)
	}
}
