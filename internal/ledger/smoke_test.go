package ledger

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"vegas-desk/internal/game"
)

func TestSmoke(t *testing.T) {
	path := filepath.Join(t.TempDir(), "l.db")
	l, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var seed game.Seed
	t0 := time.Now()
	var last time.Time
	b, err := l.Generate(context.Background(), 531, seed, func(d, n int) { last = time.Now() })
	t.Logf("after last progress %v", time.Since(last))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("generate %v %+v", time.Since(t0), b)
	st, _ := os.Stat(path)
	wst, _ := os.Stat(path + "-wal")
	t.Logf("file %d wal %d", st.Size(), func() int64 {
		if wst == nil {
			return 0
		}
		return wst.Size()
	}())
	t0 = time.Now()
	rep, err := l.Verify(context.Background(), 531, 1, nil)
	t.Logf("verify %v %+v %v", time.Since(t0), rep, err)
	l.Close()
	st, _ = os.Stat(path)
	t.Logf("file after close %d = %.2f B/ticket", st.Size(), float64(st.Size())/2e6)
}
