package server_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/protocol"
	"vegas-desk/internal/server"
	"vegas-desk/internal/server/servertest"
)

// A stolen desk file is revoked, on a SQLite back office and on
// PostgreSQL: after a new certificate for the desk (desks cert), the old
// desk file is refused as revoked (ErrDeskRevoked) — a counter already
// open on it too, nothing recorded —, and still after the desk is disabled
// and enabled again; the new one pays; revoked in turn (desks revoke), it
// is refused; a certificate kept (--keep-old) still pays.
func TestStolenDeskFileRevoked(t *testing.T) {
	pg, tmpl := sharedPG(t)
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			ctx := context.Background()
			o, serials := office(t)
			desk := "C1"
			if engine == "postgres" {
				o, desk = pgOffice(t, pg, tmpl), "D1"
			}
			s := servertest.Start(t, o, server.Config{})
			stolen := s.DeskFile(t, desk)
			thief, err := ledger.OpenServer(s.URL, stolen)
			if err != nil {
				t.Fatal(err)
			}
			defer thief.Close()
			who := ledger.Identity{Operator: "mallory"}
			claim := func(l *ledger.Ledger, serial string) error {
				_, err := l.Claim(ctx, ledger.ClaimRequest{Serial: serial, Method: ledger.MethodSerial, Who: who, Limit: ledger.NoLimit})
				return err
			}
			if err := claim(thief, serials.Winners[3][0]); err != nil {
				t.Fatalf("the desk file before its desk is given a new one: %v", err)
			}

			// desks cert: the desk accepts the new certificate alone.
			replacement := newCert(t, s, o, desk, false)
			head, _ := o.Head(ctx)
			if err := claim(thief, serials.Winners[3][1]); !errors.Is(err, ledger.ErrDeskRevoked) || errors.Is(err, ledger.ErrDeskDisabled) {
				t.Fatalf("the stolen desk file after desks cert: %v, want ErrDeskRevoked", err)
			}
			if _, err := ledger.OpenServer(s.URL, stolen); !errors.Is(err, ledger.ErrDeskRevoked) {
				t.Fatalf("opening the stolen desk file: %v, want ErrDeskRevoked", err)
			}
			if h, _ := o.Head(ctx); h != head {
				t.Error("a revoked certificate's claim wrote to the journal")
			}
			if err := o.DisableDesk(ctx, desk, bo); err != nil {
				t.Fatal(err)
			}
			if err := o.EnableDesk(ctx, desk, bo); err != nil {
				t.Fatal(err)
			}
			if err := claim(thief, serials.Winners[3][1]); !errors.Is(err, ledger.ErrDeskRevoked) {
				t.Fatalf("the stolen desk file after disable and enable: %v", err)
			}
			counter, err := ledger.OpenServer(s.URL, replacement)
			if err != nil {
				t.Fatal(err)
			}
			defer counter.Close()
			if err := claim(counter, serials.Winners[3][1]); err != nil {
				t.Fatalf("the new desk file: %v", err)
			}

			// desks cert --keep-old: both pay; desks revoke: the one named is refused.
			spare := newCert(t, s, o, desk, true)
			d, err := protocol.ReadDeskFile(replacement)
			if err != nil {
				t.Fatal(err)
			}
			if err := o.RevokeDeskCert(ctx, desk, protocol.CertSerial(d.Cert.Leaf), bo); err != nil {
				t.Fatal(err)
			}
			if err := claim(counter, serials.Winners[3][2]); !errors.Is(err, ledger.ErrDeskRevoked) {
				t.Fatalf("a revoked desk file: %v", err)
			}
			if err := o.RevokeDeskCert(ctx, desk, protocol.CertSerial(d.Cert.Leaf), bo); !errors.Is(err, ledger.ErrNotFound) {
				t.Errorf("revoked twice: %v", err)
			}
			kept, err := ledger.OpenServer(s.URL, spare)
			if err != nil {
				t.Fatal(err)
			}
			defer kept.Close()
			if err := claim(kept, serials.Winners[3][2]); err != nil {
				t.Fatalf("the desk file kept: %v", err)
			}
			certs, err := o.DeskCerts(ctx)
			if err != nil || len(certs) != 1 || certs[0].Desk != desk || certs[0].Expires().IsZero() {
				t.Errorf("the desk's certificates: %+v %v", certs, err)
			}
			if rep, err := o.Verify(ctx, 0, 0, nil); err != nil || !rep.OK() {
				t.Errorf("verify after the certificates' changes: %+v %v", rep, err)
			}
		})
	}
}

// newCert writes a new desk file of desk, as desks cert does: the desk
// accepts its certificate alone, or beside the others (keep: --keep-old).
func newCert(t *testing.T, s *servertest.Served, o *ledger.Ledger, desk string, keep bool) string {
	t.Helper()
	data, err := s.Authority.DeskCertificate(desk, 0, time.Now().Add(-time.Hour), time.Now().AddDate(1, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	d, err := protocol.ParseDeskFile(data)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), desk+".desk")
	if err := server.WriteDeskFile(path, data); err != nil {
		t.Fatal(err)
	}
	all, err := o.DeskCerts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var before []ledger.DeskCert
	for _, c := range all {
		if c.Desk == desk {
			before = append(before, c)
		}
	}
	revoked, err := o.AcceptDeskCert(context.Background(), desk, d.Cert.Leaf, keep, bo)
	if err != nil || keep && len(revoked) != 0 || !keep && len(revoked) != len(before) {
		t.Fatalf("accepting a new certificate (keep %v): revoked %v of %d, %v", keep, revoked, len(before), err)
	}
	return path
}
