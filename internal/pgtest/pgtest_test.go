package pgtest

import (
	"database/sql"
	"testing"
)

func TestServer(t *testing.T) {
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	name := s.NewDatabase(t)
	db, err := sql.Open("pgx", s.URL(Owner, name))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var who string
	if err := db.QueryRow("SELECT current_user").Scan(&who); err != nil || who != Owner {
		t.Fatalf("current_user = %q, %v", who, err)
	}
	if err := s.Restart(); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow("SELECT current_user").Scan(&who); err != nil {
		t.Fatalf("after a restart: %v", err)
	}
}
