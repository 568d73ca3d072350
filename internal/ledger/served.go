package ledger

import (
	"context"
	"strings"
	"time"

	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/ledger/remote"
)

// What the validation server (package server) asks of the back office's
// ledger beside the counter's questions, and the ledger a counter opens on
// a server.

// IsServer reports whether location names a validation server
// (https://HOST:PORT) rather than a file or a database.
func IsServer(location string) bool { return strings.HasPrefix(location, "https://") }

// OpenServer opens the ledger of the validation server at url
// (https://HOST:PORT) as the desk of deskFile (made by desks add --out):
// a counter's ledger, which asks the server every question. A server that
// cannot be reached answers ErrUnreachable.
func OpenServer(url, deskFile string) (*Ledger, error) {
	b, err := remote.Open(context.Background(), url, deskFile)
	if err != nil {
		return nil, err
	}
	return &Ledger{b: b, info: b.Info()}, nil
}

// DeskState is desk id's row as every question of the desk must see it,
// read now (no cache, one row): its payout limit, whether it is disabled,
// and the end of its lock-out (zero when it is over).
func (l *Ledger) DeskState(ctx context.Context, id string) (Desk, error) {
	bo, err := l.backOffice("a desk's state")
	if err != nil {
		return Desk{}, err
	}
	return bo.DeskState(ctx, id)
}

// LockOutGuesses makes the ledger lock out a desk it lists that guesses
// serials or contents (core.Lock): the validation server's. A guess is
// recorded only while the desk is not locked out, counted under the
// desk's lock, so that questions at once, on one server or several, never
// record more guesses than the lock-out allows. The back office's own
// questions lock no one out.
func (l *Ledger) LockOutGuesses() {
	if b, ok := l.b.(interface{ LockOutGuesses() }); ok {
		b.LockOutGuesses()
	}
}

// VoidsBetween lists the voids of desk's payments made from since until
// until (a day report's).
func (l *Ledger) VoidsBetween(ctx context.Context, desk string, since, until time.Time) ([]Claim, error) {
	return l.b.VoidsBetween(ctx, desk, since, until)
}

// ReferralsBetween lists desk's referrals from since until until.
func (l *Ledger) ReferralsBetween(ctx context.Context, desk string, since, until time.Time) ([]Referral, error) {
	return l.b.ReferralsBetween(ctx, desk, since, until)
}

// Game is game code's name, price and dates.
func (l *Ledger) Game(ctx context.Context, code int) (core.Game, error) { return l.b.Game(ctx, code) }
