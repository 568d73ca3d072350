package backoffice

import (
	"context"
	"fmt"
	"strings"
	"time"

	"vegas-desk/internal/ledger/core"
)

// DeskCert is a certificate a desk accepts (desk_certs): its serial
// number in lowercase hex, and its expiry.
type DeskCert struct {
	Desk     string `db:"desk"`
	Serial   string `db:"serial"`
	NotAfter string `db:"not_after"`
}

// Expires is the certificate's expiry.
func (c DeskCert) Expires() time.Time { return core.ParseTime(c.NotAfter) }

func deskCerts(ctx context.Context, q core.Querier) ([]DeskCert, error) {
	var out []DeskCert
	err := core.Select(ctx, q, &out, "SELECT desk, serial, not_after FROM desk_certs ORDER BY desk, not_after, serial")
	return out, err
}

// DeskCerts lists the certificates every desk accepts, by desk then
// expiry.
func (o *Store) DeskCerts(ctx context.Context) ([]DeskCert, error) {
	out, err := deskCerts(ctx, o.E.Pool())
	return out, o.E.Classify(err)
}

// AcceptDeskCert makes desk accept the certificate of serial (lowercase
// hex), valid until notAfter: a 'certified' entry; unless keepOthers, the
// certificates it accepted before are revoked ('revoked' entries), so the
// desk accepts exactly this one. It returns the serials revoked.
func (o *Store) AcceptDeskCert(ctx context.Context, desk, serial string, notAfter time.Time, keepOthers bool, who core.Identity) ([]string, error) {
	if err := checkSerial(serial); err != nil {
		return nil, err
	}
	tx, err := o.write(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	if _, err := o.readDesk(ctx, tx, desk); err != nil {
		return nil, err
	}
	var before []string
	if err := core.Select(ctx, tx, &before, "SELECT serial FROM desk_certs WHERE desk = ? ORDER BY serial", desk); err != nil {
		return nil, o.E.Classify(err)
	}
	if err := o.certify(ctx, tx, desk, serial, notAfter, who); err != nil {
		return nil, err
	}
	var revoked []string
	for _, s := range before {
		if keepOthers || s == serial {
			continue
		}
		if err := o.revoke(ctx, tx, desk, s, who); err != nil {
			return nil, err
		}
		revoked = append(revoked, s)
	}
	return revoked, o.E.Classify(tx.Commit())
}

// certify makes desk accept the certificate of serial in tx: its row and
// its 'certified' entry.
func (o *Store) certify(ctx context.Context, tx core.Querier, desk, serial string, notAfter time.Time, who core.Identity) error {
	until := core.FormatTime(notAfter)
	e := core.Entry{Kind: "desk", Desk: desk, State: "certified", Detail: serial + " " + until, Operator: who.Operator}
	if err := o.appendJournal(ctx, tx, &e); err != nil {
		return err
	}
	_, err := core.Exec(ctx, tx, "INSERT INTO desk_certs (desk, serial, not_after) VALUES (?, ?, ?)", desk, serial, until)
	return o.E.Classify(err)
}

// RevokeDeskCert makes desk refuse the certificate of serial from now on,
// or answers ErrNotFound when the desk does not accept it.
func (o *Store) RevokeDeskCert(ctx context.Context, desk, serial string, who core.Identity) error {
	if err := checkSerial(serial); err != nil {
		return err
	}
	tx, err := o.write(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var n int
	if err := core.Get(ctx, tx, &n, "SELECT count(*) FROM desk_certs WHERE desk = ? AND serial = ?", desk, serial); err != nil {
		return o.E.Classify(err)
	}
	if n == 0 {
		return fmt.Errorf("desk %s: %w: it accepts no certificate %s (see desks list)", desk, core.ErrNotFound, serial)
	}
	if err := o.revoke(ctx, tx, desk, serial, who); err != nil {
		return err
	}
	return o.E.Classify(tx.Commit())
}

func (o *Store) revoke(ctx context.Context, tx core.Querier, desk, serial string, who core.Identity) error {
	e := core.Entry{Kind: "desk", Desk: desk, State: "revoked", Detail: serial, Operator: who.Operator}
	if err := o.appendJournal(ctx, tx, &e); err != nil {
		return err
	}
	_, err := core.Exec(ctx, tx, "DELETE FROM desk_certs WHERE desk = ? AND serial = ?", desk, serial)
	return o.E.Classify(err)
}

// checkSerial refuses what is not a certificate's serial number in
// lowercase hex.
func checkSerial(s string) error {
	if s == "" || len(s) > 64 || strings.Trim(s, "0123456789abcdef") != "" {
		return core.Invalid(fmt.Errorf("certificate serial %q: give the hexadecimal serial number desks list shows", s))
	}
	return nil
}
