//go:build failover

// make test-failover's (a primary, a standby and their kills take some
// seconds each: not in make test).

package pgtest

import (
	"context"
	"strings"
	"testing"
	"time"
)

// A primary and its synchronous standby: a commit is on the standby when
// it returns; with the standby killed, a commit waits (and its wait,
// cancelled, leaves it committed on the primary alone: what a ledger must
// not answer as done); the standby restarted alone is read-only, and
// promoted it accepts writes.
func TestStandby(t *testing.T) {
	p, err := StartDurable()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	s, err := p.Standby("s1")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	if err := p.Set("synchronous_standby_names", "FIRST 1 (s1)"); err != nil {
		t.Fatal(err)
	}
	db, err := p.Open("postgres", "postgres")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var state string
	for range 500 { // the reload reaches the walsender
		if err := db.QueryRow("SELECT sync_state FROM pg_stat_replication WHERE application_name = 's1'").Scan(&state); err == nil && state == "sync" {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if state != "sync" {
		t.Fatalf("the standby's sync_state is %q, want sync", state)
	}
	if _, err := db.Exec("CREATE TABLE t (n int); INSERT INTO t VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := s.Query("postgres", "SELECT count(*) FROM t", nil, &n); err != nil || n != 1 {
		t.Fatalf("the standby has %d rows of 1 committed, %v", n, err)
	}
	if err := s.Kill(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	_, err = db.ExecContext(ctx, "INSERT INTO t VALUES (2)")
	cancel()
	if err == nil {
		t.Fatal("a commit returned with its synchronous standby killed")
	}
	if err := p.Query("postgres", "SELECT count(*) FROM t", nil, &n); err != nil || n != 2 {
		t.Fatalf("the primary has %d rows, want 2 (the cancelled wait committed locally), %v", n, err)
	}
	if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := s.StartAgain(); err != nil {
		t.Fatal(err)
	}
	if err := s.Query("postgres", "SELECT count(*) FROM t", nil, &n); err != nil || n != 1 {
		t.Fatalf("the standby restarted alone has %d rows, want 1, %v", n, err)
	}
	if err := s.Exec("postgres", "INSERT INTO t VALUES (3)"); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Fatalf("a write on the standby: %v, want refused (read-only)", err)
	}
	if err := s.Promote(); err != nil {
		t.Fatal(err)
	}
	if err := s.Exec("postgres", "INSERT INTO t VALUES (3)"); err != nil {
		t.Fatalf("a write on the promoted standby: %v", err)
	}
}
