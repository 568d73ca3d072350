package sqlite

import (
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/jmoiron/sqlx"
)

// Commits made at once share syncs (group commit), each returning once a
// sync begun after it ended: 16 writers, 25 commits each, all kept, in
// fewer syncs than commits, and nothing left unsynced.
func TestGroupCommit(t *testing.T) {
	const schema = "CREATE TABLE t (w INTEGER NOT NULL, i INTEGER NOT NULL, PRIMARY KEY (w, i)) STRICT"
	s := NewSchema(func() string { return schema }, "")
	digest, err := s.ExpectedDigest()
	if err != nil {
		t.Fatal(err)
	}
	s.Digest = digest
	k := Kind{AppID: 0x54455354, Schema: s, Create: func(tx *sqlx.Tx) error {
		_, err := tx.Exec(schema)
		return err
	}}
	f, err := Open(filepath.Join(t.TempDir(), "group.db"), false, k)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	const writers, commits = 16, 25
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Go(func() {
			for i := range commits {
				tx, err := f.W.Beginx()
				if err == nil {
					_, err = tx.Exec("INSERT INTO t (w, i) VALUES (?, ?)", w, i)
				}
				if err == nil {
					err = tx.Commit()
				}
				if err != nil {
					errs <- fmt.Errorf("writer %d, commit %d: %w", w, i, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	var n int
	if err := f.R.Get(&n, "SELECT count(*) FROM t"); err != nil || n != writers*commits {
		t.Fatalf("%d rows, want %d: %v", n, writers*commits, err)
	}
	g := f.group
	g.mu.Lock()
	defer g.mu.Unlock()
	// The schema's commit and the writers'.
	if g.committed != writers*commits+1 || g.synced != g.committed || g.syncs >= int(g.committed) || g.syncs == 0 {
		t.Fatalf("%d commits, %d synced, in %d syncs: want all synced, in fewer syncs than commits", g.committed, g.synced, g.syncs)
	}
	t.Logf("%d commits in %d syncs", g.committed, g.syncs)
}
