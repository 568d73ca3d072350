package ui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"vegas-desk/internal/ledger"
	"vegas-desk/internal/paper"
	"vegas-desk/internal/printer"
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

// offerPDF says a paper is ready and offers to print it on a printer of
// CUPS (the one papers printed on last, else the receipt printer), to open
// it, to save it elsewhere, or to close (Escape). Enter prints when a
// printer is chosen, else opens.
func (d *desk) offerPDF(title, name string, write func(io.Writer) error) {
	// "Document prêt : …", which agrees with any paper's title (« Étiquettes
	// de 7 carnets est prêt » did not).
	msg := widget.NewLabel(lang.L("Document ready: {{.Paper}}. Print it, open it to read it, or save it where you choose.", map[string]any{"Paper": title}))
	msg.Wrapping = fyne.TextWrapWord
	var dlg dialog.Dialog
	open := func() {
		dlg.Hide()
		d.openPDF(name, write)
	}
	queue := d.newSelect(nil, nil)
	queue.PlaceHolder = lang.L("no printer")
	chosen := d.app.Preferences().StringWithFallback(prefPaperPrinter, d.receiptPrinter())
	if chosen != "" {
		queue.SetOptions([]string{chosen})
		queue.SetSelected(chosen)
	}
	go func() { // the queues CUPS lists, and the one chosen
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		qs, _ := printer.Queues(ctx)
		cancel()
		onMain(func() {
			if chosen != "" && !slices.Contains(qs, chosen) {
				qs = append([]string{chosen}, qs...)
			}
			queue.SetOptions(qs)
		})
	}()
	print := func() {
		q := queue.Selected
		if q == "" {
			open()
			return
		}
		dlg.Hide()
		d.app.Preferences().SetString(prefPaperPrinter, q)
		d.printPaper(title, q, name, write)
	}
	printB := d.button(lang.L("Print"), theme.DocumentPrintIcon(), print)
	printB.Importance = widget.HighImportance
	openB := d.button(lang.L("Open"), theme.DocumentIcon(), open)
	saveB := d.button(lang.L("Save as…"), theme.DocumentSaveIcon(), func() {
		dlg.Hide()
		d.savePDF(name, write)
	})
	closeB := d.button(lang.L("Close"), theme.CancelIcon(), func() { dlg.Hide() })
	for _, b := range []*keyButton{printB, openB, saveB, closeB} {
		b.escape = func() { dlg.Hide() }
	}
	dlg = dialog.NewCustomWithoutButtons(title, container.NewVBox(msg,
		container.NewBorder(nil, nil, widget.NewLabel(lang.L("Printer")), printB, queue),
		container.NewHBox(layout.NewSpacer(), closeB, saveB, openB)), d.win)
	d.answerKeys(dlg, print, dlg.Hide)
	dlg.Resize(fyne.NewSize(600, dlg.MinSize().Height))
	dlg.Show()
	if chosen != "" {
		d.win.Canvas().Focus(printB)
	} else {
		d.win.Canvas().Focus(openB)
	}
}

// printPaper prints a paper on queue, in a goroutine, and says what became
// of it.
func (d *desk) printPaper(title, queue, name string, write func(io.Writer) error) {
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		_, err := printer.PrintDocument(ctx, queue, title, name, write)
		cancel()
		onMain(func() {
			if d.closing {
				return
			}
			if err != nil {
				d.showError(errors.New(paperFailure(title, queue, err)))
				return
			}
			d.inform(lang.L("Papers"), lang.L("{{.Paper}}: printed on {{.Printer}}.", map[string]any{"Paper": title, "Printer": queue}))
		})
	}()
}

// paperFailure says why a paper was not printed on queue, and what to do.
func paperFailure(title, queue string, err error) string {
	args := map[string]any{"Paper": title, "Printer": queue}
	detail := "\n(" + err.Error() + ")"
	switch {
	case errors.Is(err, printer.ErrNoQueue):
		return lang.L("The printer “{{.Printer}}” does not exist: choose another.", args) + detail
	case errors.Is(err, printer.ErrRefused):
		return lang.L("The printer “{{.Printer}}” refused {{.Paper}}: check that it is on and its queue accepts jobs, then print again.", args) + detail
	case errors.Is(err, printer.ErrNoCUPS):
		return lang.L("Nothing can print here: CUPS does not answer. Open the paper or save it instead.", args) + detail
	}
	return lang.L("{{.Paper}} was not printed on “{{.Printer}}”.", args) + detail
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

// Preference keys of the printers.
const (
	prefPrinter      = "receipt.printer" // a CUPS queue; "" for none: receipts open as PDF
	prefAutoPrint    = "receipt.auto"    // print each payment's receipt at once (on unless unticked)
	prefPaperPrinter = "papers.printer"  // the queue the other papers printed on last
	prefShop         = "shop.name"       // the retailer's name, on the receipts
)

// receiptPrinter is the CUPS queue receipts print on, "" for none.
func (d *desk) receiptPrinter() string { return d.app.Preferences().String(prefPrinter) }

// printsEachReceipt says whether a payment prints its receipt at once: when
// a printer is set, unless unticked in Réglages.
func (d *desk) printsEachReceipt() bool {
	return d.receiptPrinter() != "" && d.app.Preferences().BoolWithFallback(prefAutoPrint, true)
}

// printReceipt prints the receipt of payment number on the receipt
// printer, in a goroutine (lp may take a moment), then tells done, on the
// app goroutine, whether it printed and what to say (nil: a dialog says
// it). Without a printer it offers the receipt as a PDF instead, and done
// hears nothing. The receipt bears the shop's name (Réglages), and
// DUPLICATA unless it is the first of a payment this desk just made
// (d.originals).
func (d *desk) printReceipt(number int64, done func(ok bool, msg string)) {
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
	p := paper.ReceiptOf(r, time.Local)
	p.Shop = d.app.Preferences().String(prefShop)
	p.Duplicate = !d.originals[number]
	name := fmt.Sprintf("recu-%d.pdf", number)
	write := func(w io.Writer) error { return paper.WriteReceipt(w, p) }
	queue := d.receiptPrinter()
	if queue == "" {
		delete(d.originals, number)
		d.offerPDF(lang.L("Receipt of payment {{.N}}", map[string]any{"N": number}), name, write)
		return
	}
	if done == nil {
		done = func(ok bool, msg string) {
			if ok {
				d.inform(lang.L("Receipt"), msg)
			} else {
				d.showError(errors.New(msg))
			}
		}
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		_, err := printer.PrintDocument(ctx, queue, lang.L("Receipt of payment {{.N}}", map[string]any{"N": number}), name, write)
		cancel()
		onMain(func() {
			if d.closing {
				return
			}
			if err != nil {
				done(false, printFailure(queue, err))
				return
			}
			delete(d.originals, number) // printed: any other is a duplicate
			done(true, lang.L("Receipt of payment {{.N}} printed on {{.Printer}}.", map[string]any{"N": number, "Printer": queue}))
		})
	}()
}

// printReceiptIn prints payment number's receipt from a verdict that
// offers it, and says there what became of it.
func (d *desk) printReceiptIn(v *verdictView, number int64) {
	if q := d.receiptPrinter(); q != "" {
		v.setNote(lang.L("Printing the receipt on {{.Printer}}…", map[string]any{"Printer": q}))
	}
	d.printReceipt(number, func(ok bool, msg string) {
		if v.payment == number {
			v.setNote(msg)
		} else if !ok {
			d.showError(errors.New(msg))
		}
	})
}

// offerPaid offers, on verdict v of a payment's result r, its receipt:
// printed at once when the settings say so; or the receipt of the first
// payment of a ticket found already paid.
func (d *desk) offerPaid(v *verdictView, r payResult) {
	switch r.kind {
	case verdictJustPaid:
		d.originals[r.payment] = true
		v.offerReceipt(r.payment, lang.L("Print the receipt"))
		if d.printsEachReceipt() {
			d.printReceiptIn(v, r.payment)
		}
	case verdictPaid:
		v.offerReceipt(r.payment, lang.L("Reprint the receipt"))
	}
}

// reprintable is the number of the payment cl whose receipt this desk may
// print again, or 0: the back office any payment's, a counter its own.
func (d *desk) reprintable(cl *ledger.Claim) int64 {
	if cl == nil || d.ledger == nil {
		return 0
	}
	if own := d.ledger.CounterDesk(); own != "" && cl.Desk != own {
		return 0
	}
	return cl.Number
}

// printFailure says why a print on queue failed, and what to do.
func printFailure(queue string, err error) string {
	var pe *printer.Error
	detail := ""
	if errors.As(err, &pe) && pe.Detail != "" {
		detail = "\n(" + pe.Detail + ")"
	}
	args := map[string]any{"Printer": queue}
	switch {
	case errors.Is(err, printer.ErrNoQueue):
		return lang.L("The printer “{{.Printer}}” does not exist: choose one in Settings.", args)
	case errors.Is(err, printer.ErrRefused):
		return lang.L("The printer “{{.Printer}}” refused the receipt: check that it is on and its queue accepts jobs, then print it again.", args) + detail
	case errors.Is(err, printer.ErrNoCUPS):
		return lang.L("Nothing can print here: CUPS does not answer. Install or start it, or choose no printer in Settings to open receipts as PDF.", args) + detail
	}
	return lang.L("The receipt was not printed on “{{.Printer}}”.", args) + "\n(" + err.Error() + ")"
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
	p := paper.DayReportOf(f, time.Local)
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
	p := paper.SettlementOf(s, time.Local)
	d.offerPDF(lang.L("Settlement of counter {{.Desk}}", map[string]any{"Desk": s.Desk}),
		fmt.Sprintf("releve-%s-%s-%s.pdf", s.Desk, s.From.Format("2006-01-02"), s.To.Format("2006-01-02")),
		func(w io.Writer) error { return paper.WriteSettlement(w, p) })
}
