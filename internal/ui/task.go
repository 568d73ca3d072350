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
)

// task is long work running in a goroutine, shown in a dialog with a
// progress bar, the count done, the time left and a Cancel button.
type task struct {
	cancel   context.CancelFunc
	progress binding.Float // 0..1, safe from any goroutine
	done     chan struct{} // closed once finish has run on the app goroutine
	err      error         // the work's error, read after done
	dlg      dialog.Dialog
}

// startTask runs work in a goroutine. work reports progress with its
// callback, which may be called from any goroutine. When it returns, the
// dialog closes and finish runs on the app goroutine with work's error.
func startTask(win fyne.Window, title string, work func(ctx context.Context, progress func(done, total int)) error, finish func(err error)) *task {
	ctx, cancel := context.WithCancel(context.Background())
	t := &task{cancel: cancel, progress: binding.NewFloat(), done: make(chan struct{})}
	bar := widget.NewProgressBarWithData(t.progress)
	count := widget.NewLabel(lang.L("Starting…"))
	cancelBtn := widget.NewButton(lang.L("Cancel"), func() {
		cancel()
		count.SetText(lang.L("Cancelling…"))
	})
	cancelBtn.Importance = widget.DangerImportance
	content := container.NewVBox(bar, count, container.NewCenter(cancelBtn))
	t.dlg = dialog.NewCustomWithoutButtons(title, container.NewGridWrap(fyne.NewSize(460, content.MinSize().Height), content), win)
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
		if done > 0 && done < total {
			el := now.Sub(start)
			rem := time.Duration(float64(el) * float64(total-done) / float64(done))
			left = " · " + lang.L("time left") + " " + rem.Round(time.Second).String()
		}
		text := fmt.Sprintf("%s / %s%s", groupDigits(done), groupDigits(total), left)
		fyne.Do(func() { count.SetText(text) })
	}
	go func() {
		err := work(ctx, report)
		fyne.Do(func() {
			t.err = err
			t.dlg.Hide()
			cancel()
			finish(err)
			close(t.done)
		})
	}()
	return t
}

func groupDigits(n int) string {
	s := fmt.Sprint(n)
	out := ""
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			out += "\u202f"
		}
		out += string(r)
	}
	return out
}
