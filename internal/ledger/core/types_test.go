package core

import (
	"os"
	"os/user"
	"testing"
)

// The command line and the app take who acts from one rule: what was
// named, else $USER, else the account's name; the host name for the desk.
func TestDefaultIdentity(t *testing.T) {
	host, _ := os.Hostname()
	t.Setenv("USER", "ann")
	if got := DefaultIdentity("", ""); got != (Identity{Desk: host, Operator: "ann"}) {
		t.Errorf("with USER=ann: %+v", got)
	}
	if got := DefaultIdentity("D7", "bob"); got != (Identity{Desk: "D7", Operator: "bob"}) {
		t.Errorf("named: %+v", got)
	}
	t.Setenv("USER", "")
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	if got := DefaultIdentity("", ""); got != (Identity{Desk: host, Operator: u.Username}) {
		t.Errorf("without USER: %+v, want %q", got, u.Username)
	}
}
