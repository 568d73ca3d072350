package protocol

import (
	"testing"
	"time"
)

// The policy's timeouts agree (issue 37): the server answers an attempt
// before the client gives it up, with a second at least for the way there
// and back; a claim ends within Total.
func TestRetryTimeoutsAgree(t *testing.T) {
	p := Retry
	if p.ServerTimeout+time.Second > p.AttemptTimeout {
		t.Errorf("the server's %v leaves an attempt of %v no time for the way", p.ServerTimeout, p.AttemptTimeout)
	}
	if p.Attempts < 2 {
		t.Errorf("%d attempts: a lost answer is never asked again", p.Attempts)
	}
	if got, want := p.Total(), time.Duration(p.Attempts)*p.AttemptTimeout+time.Duration(p.Attempts-1)*p.Pause; got != want {
		t.Errorf("Total %v, want %v", got, want)
	}
}
