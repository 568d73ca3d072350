package ledger

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"strings"
	"testing"
	"time"

	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/ledger/protocol"
)

// deskCert is a certificate of desk id (self-signed: AddDesks keeps its
// serial and expiry, nothing else).
func deskCert(t *testing.T, id string) *x509.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	tmpl := &x509.Certificate{SerialNumber: serial, Subject: pkix.Name{CommonName: id},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().AddDate(1, 0, 0).Truncate(time.Second)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	c, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// AddDesks (desks add --count) on every engine: the desks, each accepting
// its certificate alone, and a journal that verifies, its entries the ones
// AddDesk and AcceptDeskCert write desk by desk; a batch with a desk that
// exists already, or one desk twice, adds nothing and writes no entry.
func TestAddDesks(t *testing.T) {
	forEngines(t, func(t *testing.T, e engineCase) {
		ctx := context.Background()
		l := mustOpen(t, e.fresh(t))
		who := Identity{Desk: "BO", Operator: "eve"}
		one := deskCert(t, "D1")
		if _, err := l.AddDesk(ctx, "D1", 150, who); err != nil {
			t.Fatal(err)
		}
		if _, err := l.AcceptDeskCert(ctx, "D1", one, false, who); err != nil {
			t.Fatal(err)
		}
		var batch []NewDesk
		for _, id := range []string{"D2", "D3", "D4"} {
			batch = append(batch, NewDesk{ID: id, Limit: 200, Cert: deskCert(t, id)})
		}
		if err := l.AddDesks(ctx, batch, who); err != nil {
			t.Fatal(err)
		}
		ds, err := l.Desks(ctx)
		if err != nil || len(ds) != 4 || ds[3].ID != "D4" || ds[3].Limit != 200 {
			t.Fatalf("desks %+v, %v", ds, err)
		}
		certs, err := l.DeskCerts(ctx)
		if err != nil || len(certs) != 4 {
			t.Fatalf("certificates %+v, %v", certs, err)
		}
		for _, c := range certs[1:] {
			want := batch[int(c.Desk[1]-'2')].Cert
			if c.Serial != protocol.CertSerial(want) || !c.Expires().Equal(want.NotAfter) {
				t.Errorf("desk %s accepts %s until %v; want %s until %v", c.Desk, c.Serial, c.Expires(), protocol.CertSerial(want), want.NotAfter)
			}
		}
		// The journal: D1's entries made one call at a time, D2's in the
		// batch, alike but for the desk, the limit and the serial.
		var rows []struct {
			Desk   string `db:"desk"`
			State  string `db:"state"`
			Amount int    `db:"amount"`
			Detail string `db:"detail"`
			Number int64  `db:"number"`
		}
		if err := sel(ctx, rdb(l), &rows, "SELECT desk, state, amount, detail, number FROM journal WHERE kind = 'desk' ORDER BY id"); err != nil {
			t.Fatal(err)
		}
		var got []string
		for i, r := range rows {
			got = append(got, r.Desk+" "+r.State)
			if r.Number != int64(i+1) {
				t.Errorf("desk entry %d (%s %s) is number %d of its kind", i+1, r.Desk, r.State, r.Number)
			}
			if r.State == "certified" && r.Desk != "D1" {
				want := batch[int(r.Desk[1]-'2')].Cert
				if !strings.HasPrefix(r.Detail, protocol.CertSerial(want)+" ") {
					t.Errorf("%s's certified entry says %q; want its serial %s", r.Desk, r.Detail, protocol.CertSerial(want))
				}
			}
			if r.State == "added" && r.Desk != "D1" && r.Amount != 200 {
				t.Errorf("%s's added entry: limit %d, want 200", r.Desk, r.Amount)
			}
		}
		if want := "D1 added,D1 certified,D2 added,D2 certified,D3 added,D3 certified,D4 added,D4 certified"; strings.Join(got, ",") != want {
			t.Errorf("the journal's desk entries: %v; want %s", got, want)
		}
		vr, err := journalOnly(l)
		if err != nil || !vr.OK() {
			t.Errorf("verify: %v, %v", vr.Problems, err)
		}

		head, err := l.Head(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for name, bad := range map[string][]NewDesk{
			"a desk that exists": {{ID: "D5", Limit: 1, Cert: deskCert(t, "D5")}, {ID: "D3", Limit: 1, Cert: deskCert(t, "D3")}},
			"a desk twice":       {{ID: "D6", Limit: 1, Cert: deskCert(t, "D6")}, {ID: "D6", Limit: 1, Cert: deskCert(t, "D6")}},
			"a bad id":           {{ID: "D7", Limit: 1, Cert: deskCert(t, "D7")}, {ID: "a b", Limit: 1, Cert: deskCert(t, "a b")}},
			"a load test's id":   {{ID: core.TestDesk(1), Limit: 1, Cert: deskCert(t, "x")}},
		} {
			if err := l.AddDesks(ctx, bad, who); err == nil {
				t.Errorf("%s: added", name)
			}
			if ds, _ := l.Desks(ctx); len(ds) != 4 {
				t.Errorf("%s: %d desks after the refusal, want 4", name, len(ds))
			}
			if h, _ := l.Head(ctx); h != head {
				t.Errorf("%s: the journal's head moved", name)
			}
		}
	})
}
