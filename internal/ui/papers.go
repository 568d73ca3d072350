package ui

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"vegas-desk/internal/paper"
)

// The printed papers: a payment's receipt, a counter's day report and its
// settlement. The ledger gives their facts (ledger.Receipt, DayReport,
// Settlement), internal/paper writes them as PDF, and the desk offers to
// open the PDF in the system's viewer, to print it, or to save it where the
// user says.

// documentsDir is where the papers opened from the app are written: the
// app's own storage, under documents.
func (d *desk) documentsDir() (string, error) {
	root := d.app.Storage().RootURI().Path()
	dir := filepath.Join(root, "documents")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	return dir, nil
}

// writeDocument writes a paper to name in documentsDir, through a temporary
// file renamed when complete, and returns its path.
func (d *desk) writeDocument(name string, write func(io.Writer) error) (string, error) {
	dir, err := d.documentsDir()
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, name)
	f, err := os.CreateTemp(dir, "."+name+".*")
	if err != nil {
		return "", err
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return path, nil
}

// offerPDF says a paper is ready and offers to open it (Enter), to save
// it elsewhere, or to close (Escape).
func (d *desk) offerPDF(title, name string, write func(io.Writer) error) {
	msg := widget.NewLabel(lang.L("{{.Paper}} is ready. Open it to read or print it, or save it where you choose.", map[string]any{"Paper": title}))
	msg.Wrapping = fyne.TextWrapWord
	var dlg dialog.Dialog
	open := func() {
		dlg.Hide()
		d.openPDF(name, write)
	}
	openB := widget.NewButtonWithIcon(lang.L("Open"), theme.DocumentIcon(), open)
	openB.Importance = widget.HighImportance
	saveB := widget.NewButtonWithIcon(lang.L("Save as…"), theme.DocumentSaveIcon(), func() {
		dlg.Hide()
		d.savePDF(name, write)
	})
	closeB := widget.NewButton(lang.L("Close"), func() { dlg.Hide() })
	dlg = dialog.NewCustomWithoutButtons(title, container.NewVBox(msg,
		container.NewHBox(layout.NewSpacer(), closeB, saveB, openB)), d.win)
	d.answerKeys(dlg, open, dlg.Hide)
	dlg.Resize(fyne.NewSize(560, dlg.MinSize().Height))
	dlg.Show()
}

// openPDF writes the paper in the documents folder and opens it with the
// system's viewer; it says where it is in any case.
func (d *desk) openPDF(name string, write func(io.Writer) error) (string, error) {
	path, err := d.writeDocument(name, write)
	if err != nil {
		d.showError(err)
		return "", err
	}
	u := &url.URL{Scheme: "file", Path: path}
	if err := d.app.OpenURL(u); err != nil {
		fyne.LogError("open "+path, err)
		d.inform(lang.L("Papers"), lang.L("Saved to {{.Path}}. No program could open it here: open it from that folder.", map[string]any{"Path": path}))
	}
	return path, nil
}

// savePDF asks for a file, then writes the paper to it.
func (d *desk) savePDF(name string, write func(io.Writer) error) {
	fd := dialog.NewFileSave(func(w fyne.URIWriteCloser, err error) {
		if err != nil {
			d.showError(err)
			return
		}
		if w == nil {
			return
		}
		if err := exportTo(w, write); err != nil {
			d.showError(err)
			return
		}
		d.inform(lang.L("Papers"), lang.L("Saved to {{.Path}}", map[string]any{"Path": w.URI().Path()}))
	}, d.win)
	fd.SetFileName(name)
	fd.Show()
}

// printReceipt offers the receipt of payment number.
func (d *desk) printReceipt(number int64) {
	if number <= 0 || !d.needLedger() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r, err := d.ledger.Receipt(ctx, number)
	if err != nil {
		d.showError(err)
		return
	}
	p := r.Paper(time.Local)
	d.offerPDF(lang.L("Receipt of payment {{.N}}", map[string]any{"N": number}), fmt.Sprintf("recu-%d.pdf", number),
		func(w io.Writer) error { return paper.WriteReceipt(w, p) })
}

// printDay offers desk's day report.
func (d *desk) printDay(desk string, day time.Time) {
	if !d.needLedger() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	f, err := d.ledger.DayReport(ctx, desk, day)
	if err != nil {
		d.showError(err)
		return
	}
	p := f.Paper(time.Local)
	d.offerPDF(lang.L("Day report of counter {{.Desk}}, {{.Day}}", map[string]any{"Desk": f.Desk, "Day": f.Day.Format(dayLayout)}),
		fmt.Sprintf("jour-%s-%s.pdf", f.Desk, f.Day.Format("2006-01-02")),
		func(w io.Writer) error { return paper.WriteDayReport(w, p) })
}

// printSettlement offers desk's settlement from the day of from to the day
// of to.
func (d *desk) printSettlement(desk string, from, to time.Time) {
	if !d.needLedger() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := d.ledger.Settlement(ctx, desk, DefaultGame, from, to)
	if err != nil {
		d.showError(err)
		return
	}
	p := s.Paper(time.Local)
	d.offerPDF(lang.L("Settlement of counter {{.Desk}}", map[string]any{"Desk": s.Desk}),
		fmt.Sprintf("releve-%s-%s-%s.pdf", s.Desk, s.From.Format("2006-01-02"), s.To.Format("2006-01-02")),
		func(w io.Writer) error { return paper.WriteSettlement(w, p) })
}
