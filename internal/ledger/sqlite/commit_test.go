package sqlite

import (
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jmoiron/sqlx"
	"modernc.org/sqlite"
)

// Commits made at once share syncs (group commit), each returning once a
// sync begun after it ended: 16 writers, 25 commits each, all kept, in
// fewer syncs than commits, and nothing left unsynced.
func TestGroupCommit(t *testing.T) {
	const schema = "CREATE TABLE t (w INTEGER NOT NULL, i INTEGER NOT NULL, PRIMARY KEY (w, i)) STRICT"
	f, err := Open(filepath.Join(t.TempDir(), "group.db"), false, testKind(t, schema, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	const writers, commits = 16, 25
	atOnce(t, writers, commits, func(w, i int) error {
		tx, err := f.W.Beginx()
		if err == nil {
			_, err = tx.Exec("INSERT INTO t (w, i) VALUES (?, ?)", w, i)
		}
		if err == nil {
			err = tx.Commit()
		}
		return err
	})
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

// cacheMisses sums the page cache misses (pages read from the file) of the
// SQLite connections opened, from its call on, on files whose DSN holds
// path.
type cacheMisses struct {
	mu    sync.Mutex
	conns []interface {
		Status(sqlite.DBStatusOp, bool) (int, int, error)
	}
}

func countMisses(t *testing.T, path string) *cacheMisses {
	m := &cacheMisses{}
	var done atomic.Bool
	t.Cleanup(func() { done.Store(true) })
	sqlite.RegisterConnectionHook(func(c sqlite.ExecQuerierContext, dsn string) error {
		if done.Load() || !strings.Contains(dsn, path) {
			return nil
		}
		s, ok := c.(interface {
			Status(sqlite.DBStatusOp, bool) (int, int, error)
		})
		if !ok {
			return fmt.Errorf("the driver's connection %T says no status", c)
		}
		m.mu.Lock()
		m.conns = append(m.conns, s)
		m.mu.Unlock()
		return nil
	})
	return m
}

func (m *cacheMisses) total(t *testing.T) (n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, c := range m.conns {
		cur, _, err := c.Status(sqlite.DBStatusCacheMiss, false)
		if err != nil {
			t.Fatal(err)
		}
		n += cur
	}
	return n
}

// The writer's transactions keep their pages in memory from one to the
// next, whichever connection of its pool begins them (issue 38): 16
// writers at once, 20 transactions each, each reading 5 rows of a table
// of a few dozen pages and writing one, read fewer pages from the file
// than they are transactions. Each on a connection of its own, a
// transaction began on a connection another had written since, and
// SQLite emptied its cache: every transaction read its pages again.
func TestWriterKeepsItsCache(t *testing.T) {
	const schema = "CREATE TABLE t (k INTEGER PRIMARY KEY, v BLOB NOT NULL) STRICT; CREATE TABLE u (w INTEGER NOT NULL, i INTEGER NOT NULL, PRIMARY KEY (w, i)) STRICT"
	const rows = 2000
	k := testKind(t, schema, func(tx *sqlx.Tx) error {
		if _, err := tx.Exec(schema); err != nil {
			return err
		}
		_, err := tx.Exec("WITH RECURSIVE n(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM n WHERE k < ?) INSERT INTO t SELECT k, randomblob(200) FROM n", rows)
		return err
	})
	path := filepath.Join(t.TempDir(), "cache.db")
	misses := countMisses(t, path)
	f, err := Open(path, false, k)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	before := misses.total(t)
	const writers, txs = 16, 20
	rngs := make([]*mrand.Rand, writers)
	for w := range rngs {
		rngs[w] = mrand.New(mrand.NewPCG(uint64(w), 1))
	}
	atOnce(t, writers, txs, func(w, i int) error {
		tx, err := f.W.Beginx()
		for range 5 {
			var v []byte
			if err == nil {
				err = tx.Get(&v, "SELECT v FROM t WHERE k = ?", 1+rngs[w].IntN(rows))
			}
		}
		if err == nil {
			_, err = tx.Exec("INSERT INTO u (w, i) VALUES (?, ?)", w, i)
		}
		if err == nil {
			err = tx.Commit()
		}
		return err
	})
	if n := misses.total(t) - before; n >= writers*txs {
		t.Fatalf("%d transactions read %d pages from the file; want fewer than one a transaction", writers*txs, n)
	} else {
		t.Logf("%d transactions read %d pages from the file", writers*txs, n)
	}
}

// The WAL kept open for its syncs is the file at its path when it syncs:
// a WAL removed (checkpointed and removed by the file's last connection)
// is not synced in its place, and one made again, or put there, is opened
// and synced, not the removed one still open.
func TestKeptFollowsTheFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "l.db-wal")
	var k kept
	defer k.close()
	write := func(p, text string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	syncs := func(what string) {
		t.Helper()
		if err := k.sync(path); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		fi, err := os.Stat(path)
		switch {
		case errors.Is(err, os.ErrNotExist):
			if k.f != nil {
				t.Fatalf("%s: the file is gone, and one is kept open", what)
			}
		case err != nil:
			t.Fatal(err)
		case k.f == nil:
			t.Fatalf("%s: nothing kept", what)
		default:
			kf, err := k.f.Stat()
			if err != nil || !os.SameFile(kf, fi) {
				t.Fatalf("%s: the file kept is not the file at its path (%v)", what, err)
			}
		}
	}
	syncs("no file")
	write(path, "one")
	syncs("a file")
	syncs("the same file again")
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	syncs("the file removed")
	write(path, "two")
	syncs("a file made again")
	other := filepath.Join(dir, "other")
	write(other, "three")
	if err := os.Rename(other, path); err != nil {
		t.Fatal(err)
	}
	syncs("a file put there")
}

// A statement prepared in a write transaction is closed as the
// transaction ends, before the next begins on the writer's transaction
// connection, which database/sql closes only after the commit returned:
// closed beside the next transaction's statements on one SQLite
// connection, it broke the driver ("fatal error: sync: unlock of unlocked
// mutex" in most runs, a data race under -race). 16 writers at once, 40
// transactions each preparing their insert, and every row kept.
func TestPreparedInTransaction(t *testing.T) {
	const schema = "CREATE TABLE t (w INTEGER NOT NULL, i INTEGER NOT NULL, PRIMARY KEY (w, i)) STRICT"
	f, err := Open(filepath.Join(t.TempDir(), "prepared.db"), false, testKind(t, schema, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	const writers, txs = 16, 40
	atOnce(t, writers, txs, func(w, i int) error {
		tx, err := f.W.Beginx()
		if err != nil {
			return err
		}
		st, err := tx.Preparex("INSERT INTO t (w, i) VALUES (?, ?)")
		if err == nil {
			_, err = st.Exec(w, i)
		}
		if err == nil {
			err = tx.Commit()
		} else {
			tx.Rollback()
		}
		return err
	})
	var n int
	if err := f.R.Get(&n, "SELECT count(*) FROM t"); err != nil || n != writers*txs {
		t.Fatalf("%d rows, want %d: %v", n, writers*txs, err)
	}
}

// atOnce runs write(w, i) for i below each in each of writers goroutines,
// all at once, and fails the test with the first error of each writer.
func atOnce(t *testing.T, writers, each int, write func(w, i int) error) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				if err := write(w, i); err != nil {
					errs <- fmt.Errorf("writer %d, transaction %d: %w", w, i, err)
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
}

// testKind is a kind of file of a test's own: the tables of schema, made
// by create (schema's statements when nil).
func testKind(t *testing.T, schema string, create func(tx *sqlx.Tx) error) Kind {
	t.Helper()
	s := NewSchema(func() string { return schema }, "")
	digest, err := s.ExpectedDigest()
	if err != nil {
		t.Fatal(err)
	}
	s.Digest = digest
	if create == nil {
		create = func(tx *sqlx.Tx) error {
			_, err := tx.Exec(schema)
			return err
		}
	}
	return Kind{AppID: 0x54455354, Schema: s, Create: create}
}
