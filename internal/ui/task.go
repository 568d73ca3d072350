package ui

import (
	"context"
	"fmt"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/data/binding"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/widget"

	"vegas-desk/internal/game"
)

// task is long work running in a goroutine, shown in a dialog with a
// progress bar, the count done, the time left and a Cancel button.
type task struct {
	cancel   context.CancelFunc
	progress binding.Float // 0..1, safe from any goroutine
	ended    chan struct{} // closed when work has returned, from its goroutine
	done     chan struct{} // closed once finish has run on the app goroutine
	err      error         // the work's error, read after done
	dlg      dialog.Dialog
}

// startTask runs work in a goroutine. work reports progress with its
// callback, which may be called from any goroutine. When it returns, the
// dialog closes and finish runs on the app goroutine with work's error,
// unless the window is closing (see quit). The desk keeps the task until
// then, so that closing the window can cancel it and wait for it.
func (d *desk) startTask(title string, work func(ctx context.Context, progress func(done, total int)) error, finish func(err error)) *task {
	win := d.win
	ctx, cancel := context.WithCancel(context.Background())
	t := &task{cancel: cancel, progress: binding.NewFloat(), ended: make(chan struct{}), done: make(chan struct{})}
	d.tasks[t] = struct{}{}
	bar := widget.NewProgressBar()
	count := widget.NewLabel(lang.L("Starting…"))
	stop := func() {
		cancel()
		count.SetText(lang.L("Cancelling…"))
	}
	cancelBtn := d.button(lang.L("Cancel"), nil, stop)
	cancelBtn.Importance = widget.DangerImportance
	content := container.NewVBox(bar, count, container.NewCenter(cancelBtn))
	t.dlg = dialog.NewCustomWithoutButtons(title, container.NewGridWrap(fyne.NewSize(460, content.MinSize().Height), content), win)
	d.addAnswer(t.dlg, &answer{ok: func() {}, cancel: stop, keep: true}) // Escape cancels, Enter does nothing, a scan neither
	t.dlg.Show()

	start := time.Now()
	var mu sync.Mutex
	var lastShown time.Time
	report := func(done, total int) {
		if total <= 0 {
			return
		}
		t.progress.Set(float64(done) / float64(total))
		mu.Lock()
		now := time.Now()
		if now.Sub(lastShown) < 100*time.Millisecond && done < total {
			mu.Unlock()
			return
		}
		lastShown = now
		mu.Unlock()
		left := ""
		if rem, ok := timeLeft(now.Sub(start), done, total); ok {
			left = " · " + lang.L("time left") + " " + duration(rem)
		}
		text := fmt.Sprintf("%s / %s%s", game.GroupDigits(done), game.GroupDigits(total), left)
		frac := float64(done) / float64(total)
		onMain(func() {
			bar.SetValue(frac)
			count.SetText(text)
		})
	}
	go func() {
		err := work(ctx, report)
		cancel()
		close(t.ended)
		onMain(func() {
			t.err = err
			t.dlg.Hide()
			delete(d.tasks, t)
			if !d.closing {
				finish(err)
			}
			close(t.done)
		})
	}()
	return t
}

// quit is the window's close intercept: it remembers the window's size,
// cancels the running tasks, waits for their work and for the payments in
// flight to return, and only then closes the ledger and the window, so that
// no generation, verification, export or payment is cut off mid-write.
func (d *desk) quit() {
	if d.closing {
		return
	}
	d.closing = true
	d.rememberSize()
	var running []chan struct{}
	for t := range d.tasks {
		t.cancel()
		running = append(running, t.ended)
	}
	for p := range d.payments { // a payment ends on its own: its answer is kept
		running = append(running, p)
	}
	if len(running) == 0 {
		d.closeLedger()
		d.win.Close()
		return
	}
	dialog.ShowCustomWithoutButtons(lang.L("Closing"), widget.NewLabel(lang.L("Stopping the work in progress…")), d.win)
	go func() {
		for _, ended := range running {
			<-ended
		}
		onMain(func() {
			d.closeLedger()
			d.win.Close()
		})
	}()
}

// timeLeft estimates the time a task still needs, from the time it took
// for done of total. There is no estimate (false) until it means something:
// the first batches of a block cost more than the others (start-up, the
// first pages of the file), so an estimate after a fraction of a second
// says 14 to 31 s of a job of 1.5 s. It waits for 2 s and a tenth of the
// work, and for at least 2 s left to say.
func timeLeft(elapsed time.Duration, done, total int) (time.Duration, bool) {
	if done <= 0 || done >= total || elapsed < 2*time.Second || done*10 < total {
		return 0, false
	}
	rem := time.Duration(float64(elapsed) * float64(total-done) / float64(done))
	return rem, rem >= 2*time.Second
}

// duration writes a time left to the second, as people write it: "8 s",
// "1 min 05 s".
func duration(d time.Duration) string {
	s := int(d.Round(time.Second).Seconds())
	if s < 60 {
		return fmt.Sprintf("%d s", s)
	}
	return fmt.Sprintf("%d min %02d s", s/60, s%60)
}
