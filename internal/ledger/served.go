package ledger

import (
	"context"
	"crypto/x509"
	"strings"
	"time"

	"vegas-desk/internal/ledger/backoffice"
	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/ledger/protocol"
	"vegas-desk/internal/ledger/remote"
)

// Errors of a counter's ledger on a validation server, for errors.Is (the
// server's codes: package protocol).
var (
	ErrDeskUnknown    = core.ErrDeskUnknown
	ErrDeskRevoked    = core.ErrDeskRevoked
	ErrOtherLedger    = core.ErrOtherLedger
	ErrBadSerial      = protocol.ErrBadSerial
	ErrBadContents    = protocol.ErrBadContents
	ErrTooLarge       = protocol.ErrTooLarge
	ErrServerFailed   = protocol.ErrInternal
	ErrUnavailable    = protocol.ErrUnavailable
	ErrTooMany        = protocol.ErrTooMany
	ErrNoSuchQuestion = protocol.ErrNoSuchQuestion
	ErrMethod         = protocol.ErrMethod
	ErrLooseMode      = protocol.ErrLooseMode
)

// What the validation server (package server) asks of the back office's
// ledger beside the counter's questions, and the ledger a counter opens on
// a server.

// IsServer reports whether location names a validation server
// (https://HOST:PORT) rather than a file or a database.
func IsServer(location string) bool { return strings.HasPrefix(location, "https://") }

// IsWebAddress reports whether location is an http:// or https://
// address: never a ledger's file nor its database (Open refuses it rather
// than make a file named https:/HOST).
func IsWebAddress(location string) bool {
	l := strings.ToLower(location)
	return strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://")
}

// ClaimWait is the longest a claim on a shared ledger waits for its
// answer, its retries included (protocol.Retry: 31 s).
func ClaimWait() time.Duration { return protocol.Retry.Total() }

// OpenServer opens the ledger of the validation server at url
// (https://HOST:PORT) as the desk of deskFile (made by desks add --out):
// a counter's ledger, which asks the server every question. A server that
// cannot be reached answers ErrUnreachable.
func OpenServer(url, deskFile string) (*Ledger, error) {
	b, err := remote.Open(context.Background(), url, deskFile)
	if err != nil {
		return nil, err
	}
	info := b.Info()
	return &Ledger{Asker: core.Asker{Questions: b.Questions(), Desk: info.Desk}, b: b, info: info}, nil
}

// DeskState is desk id's row as every request of the desk must see it (a
// lookup, claim or search reads it in its own read: core.Gate), read now (no cache, one statement): its payout limit, whether it is
// disabled, the end of its lock-out (zero when it is over), and whether
// it accepts cert now (its certificates, listed in the ledger; nil: no).
func (l *Ledger) DeskState(ctx context.Context, id string, cert *x509.Certificate) (Desk, bool, error) {
	bo, err := l.backOffice("a desk's state")
	if err != nil {
		return Desk{}, false, err
	}
	serial := ""
	if cert != nil {
		serial = protocol.CertSerial(cert)
	}
	return bo.DeskState(ctx, id, serial)
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

// DeskCert is a certificate a desk accepts: its serial number (lowercase
// hex, as desks list shows it) and its expiry (Expires).
type DeskCert = backoffice.DeskCert

// certs is what a back office's ledger keeps of its desks' certificates
// (backoffice.Store's, on every engine).
type certs interface {
	DeskCerts(ctx context.Context) ([]DeskCert, error)
	AcceptDeskCert(ctx context.Context, desk, serial string, notAfter time.Time, keepOthers bool, who Identity) ([]string, error)
	RevokeDeskCert(ctx context.Context, desk, serial string, who Identity) error
}

func (l *Ledger) certs(what string) (certs, error) {
	if c, ok := l.b.(certs); ok {
		return c, nil
	}
	return nil, l.b.Refuse(what)
}

// AcceptDeskCert makes desk accept cert (a desk file's, desks add --out
// or desks cert): unless keepOthers, the certificates it accepted before
// are revoked, so that it accepts exactly this one. It returns the serials
// revoked.
func (l *Ledger) AcceptDeskCert(ctx context.Context, desk string, cert *x509.Certificate, keepOthers bool, who Identity) ([]string, error) {
	c, err := l.certs("desks cert")
	if err != nil {
		return nil, err
	}
	return c.AcceptDeskCert(ctx, desk, protocol.CertSerial(cert), cert.NotAfter, keepOthers, who)
}

// NewDesk is a desk AddDesks adds with the certificate it accepts.
type NewDesk struct {
	ID    string
	Limit int
	Cert  *x509.Certificate
}

// AddDesks adds desks, each accepting its certificate alone, in one
// transaction: all of them, or none (desks add --count).
func (l *Ledger) AddDesks(ctx context.Context, desks []NewDesk, who Identity) error {
	c, err := l.certs("desks add")
	if err != nil {
		return err
	}
	b, ok := c.(interface {
		AddDesks(context.Context, []backoffice.NewDesk, Identity) error
	})
	if !ok {
		return l.b.Refuse("desks add")
	}
	out := make([]backoffice.NewDesk, len(desks))
	for i, d := range desks {
		out[i] = backoffice.NewDesk{ID: d.ID, Limit: d.Limit, Serial: protocol.CertSerial(d.Cert), NotAfter: d.Cert.NotAfter}
	}
	return b.AddDesks(ctx, out, who)
}

// RevokeDeskCert makes desk refuse its certificate of serial (desks list's
// hex) from the next question on, or answers ErrNotFound.
func (l *Ledger) RevokeDeskCert(ctx context.Context, desk, serial string, who Identity) error {
	c, err := l.certs("desks revoke")
	if err != nil {
		return err
	}
	return c.RevokeDeskCert(ctx, desk, strings.ToLower(strings.ReplaceAll(serial, ":", "")), who)
}

// DeskCerts lists the certificates each desk accepts.
func (l *Ledger) DeskCerts(ctx context.Context) ([]DeskCert, error) {
	c, err := l.certs("desks list")
	if err != nil {
		return nil, err
	}
	return c.DeskCerts(ctx)
}
