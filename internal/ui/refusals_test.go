package ui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"vegas-desk/internal/ledger"
)

// Each of a validation server's refusals has its own words at the counter,
// saying whom to call, wherever it is heard: a check, a payment, a ping of
// the server (the status line and both verdicts), a dialog. Only a server
// that does not answer says to check the network. One table, every place.
func TestServerRefusals(t *testing.T) {
	d := newTestDesk(t, fixture)
	tk, err := fixture.Lookup(context.Background(), takeWinner(t, 3), d.identity(), ledger.NoLimit)
	if err != nil {
		t.Fatal(err)
	}
	const network = "le réseau"
	for _, c := range []struct {
		err         error
		kind        verdict
		title, call string
		pinged      bool // a ping may answer it
	}{
		{fmt.Errorf("lookup: %w", ledger.ErrDeskDisabled), verdictDisabled, "GUICHET DÉSACTIVÉ — NE PAS PAYER", "appelez le service central pour qu’il le réactive", true},
		{fmt.Errorf("claim: %w", ledger.ErrDeskRevoked), verdictRevoked, "FICHIER DE GUICHET RÉVOQUÉ — NE PAS PAYER", "demandez un nouveau fichier de guichet au service central", true},
		{fmt.Errorf("ping: %w", ledger.ErrDeskUnknown), verdictUnknownDesk, "GUICHET INCONNU — NE PAS PAYER", "appelez le service central, qui ajoute le guichet", true},
		{fmt.Errorf("ping: %w", ledger.ErrOtherLedger), verdictOtherLedger, "AUTRE REGISTRE — NE PAS PAYER", "vérifiez l’adresse du serveur dans Réglages", true},
		{&ledger.Refusal{Verdict: ledger.Locked, Until: time.Now().Add(time.Hour)}, verdictLocked, "GUICHET BLOQUÉ — NE PAS PAYER", "Appelez le service central", false},
		{fmt.Errorf("dial: %w", ledger.ErrUnreachable), verdictUnreachable, "REGISTRE INJOIGNABLE — NE PAS PAYER", network, true},
		// The server answered, its ledger did not (issue 36 item 4): not
		// the network, the back office.
		{fmt.Errorf("ping: %w", ledger.ErrUnavailable), verdictUnreachable, "REGISTRE INJOIGNABLE — NE PAS PAYER", "ce n’est pas le réseau", true},
	} {
		name := c.title
		k, why := refused(c.err)
		if k != c.kind || counterTitle(k) != c.title || !strings.Contains(why, c.call) {
			t.Errorf("%s: %v %q %q", name, k, counterTitle(k), why)
		}
		if c.call != network && strings.Contains(strings.ReplaceAll(why, "pas le réseau", ""), network) {
			t.Errorf("%s: says to check the network", name)
		}
		r := d.claimResult(tk, ledger.Claim{}, c.err)
		if r.kind != c.kind || !strings.Contains(r.detail, c.call) {
			t.Errorf("%s: the payment says %v %q", name, r.kind, r.detail)
		}
		if msg := errorText(c.err); !strings.Contains(msg, c.title) || !strings.Contains(msg, c.call) {
			t.Errorf("%s: the dialog says %q", name, msg)
		}
		if !c.pinged {
			continue
		}
		d.pinged(c.err)
		for _, v := range []*verdictView{d.counter.view, d.contents.view} {
			if v.kind != c.kind || v.title.Text() != c.title || !strings.Contains(v.detail.Text, c.call) {
				t.Errorf("%s: after a ping, the verdict %q %q", name, v.title.Text(), v.detail.Text)
			}
			if c.call != network && strings.Contains(strings.ReplaceAll(v.detail.Text, "pas le réseau", ""), network) {
				t.Errorf("%s: after a ping, says to check the network: %q", name, v.detail.Text)
			}
		}
		d.pinged(nil)
		if !strings.Contains(d.counter.view.detail.Text, "répond de nouveau") || d.counter.view.kind != verdictNone {
			t.Errorf("%s: the server accepts the desk again: %q", name, d.counter.view.detail.Text)
		}
	}
}
