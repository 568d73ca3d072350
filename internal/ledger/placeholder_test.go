package ledger

import (
	"context"
	"errors"
	"strings"
	"testing"

	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/mrz/mrztest"
)

// Issue 44's attack: 50,000 € claimed, on a file and on PostgreSQL, for
// each identity that was paid on d9316dd — placeholders, numbers no
// document carries, the README's own examples, a name of 40 marks a
// letter, two Vedic signs of no script — is refused identity-required and
// pays nothing; so is a CNI typed without its zone. A zone saying the
// winner is 17 or the card expired yesterday is refused as such; a zone
// that reads is paid, and the ledger keeps its name, document and number
// only.
func TestPlaceholderWinnersRefused(t *testing.T) {
	forty := "J"
	for i := range 40 {
		forty += string(rune(0x0300 + i))
	}
	forty += "ean Dupont"
	for _, kind := range []struct{ name, location string }{{"file", copyFixture(t)}, {"shared", pgCopy(t)}} {
		t.Run(kind.name, func(t *testing.T) {
			ctx := context.Background()
			l := mustOpen(t, kind.location)
			b := mustBlock(t, l)
			who := Identity{Desk: "BO", Operator: "mallory"}
			ps := ticketsWith(t, l, b, 50000, 2)
			claim := func(w *Winner, p int) (Claim, error) {
				return l.Claim(ctx, ClaimRequest{Serial: serialOf(b, p), Method: MethodSerial, Who: who, Limit: NoLimit, Winner: w})
			}
			for _, w := range []Winner{
				{Name: "Nom Prénom", DocType: "CNI", DocNumber: "000000001"},
				{Name: "Inconnu Inconnu", DocType: "titre de séjour", DocNumber: "0000000001"},
				{Name: "Test Test", DocType: "permis de conduire", DocNumber: "13AA00002"},
				{Name: "NOM PRENOM", DocType: "passeport", DocNumber: "12AB34567"},
				{Name: "Anonyme Anonyme", DocType: "permis de conduire", DocNumber: "19AZ71864"},
				{Name: "X Y", DocType: "permis de conduire", DocNumber: "19AZ71864"},
				{Name: forty, DocType: "permis de conduire", DocNumber: "19AZ71864"},
				{Name: "\u1ce9\u1cea", DocType: "permis de conduire", DocNumber: "19AZ71864"},
				{Name: "Jean Dupont", DocType: "permis de conduire", DocNumber: "000000000001"},
				{Name: "Jean Dupont", DocType: "CNI", DocNumber: "T7MK2QLV8"}, // a real-looking number, typed
			} {
				if c, err := claim(&w, ps[0]); !errors.Is(err, ErrIdentityRequired) {
					t.Errorf("%.40q %s %s: paid %+v, %v", w.Name, w.DocType, w.DocNumber, c, err)
				}
			}
			now := l.now() // the payment's time (mustOpen sets the clock)
			minor := Winner{MRZ: mrztest.Card("R8WN3CTJ6", "PETIT<<LUCAS", now.AddDate(-18, 0, 1), now.AddDate(5, 0, 0))}
			if c, err := claim(&minor, ps[0]); !errors.Is(err, ErrMinor) || !strings.Contains(err.Error(), "the winner is 17") {
				t.Errorf("a winner who is 18 tomorrow: %+v, %v", c, err)
			}
			expired := Winner{MRZ: mrztest.Card("H5QZ7VDM2", "BERNARD<<CLAIRE", now.AddDate(-40, 0, 0), now.AddDate(0, 0, -1))}
			if c, err := claim(&expired, ps[0]); !errors.Is(err, ErrDocumentExpired) {
				t.Errorf("a card expired yesterday: %+v, %v", c, err)
			}
			adult := Winner{MRZ: mrztest.Card("R8WN3CTJ6", "PETIT<<LUCAS", now.AddDate(-18, 0, -1), now)}
			c, err := claim(&adult, ps[0])
			if err != nil {
				t.Fatalf("a winner 18 since yesterday, a card valid today: %v", err)
			}
			ids, err := l.Identities(ctx)
			if err != nil || len(ids) != 1 {
				t.Fatalf("identities %+v %v", ids, err)
			}
			if got, want := ids[c.Entry], (Winner{Name: "LUCAS PETIT", DocType: "CNI", DocNumber: "R8WN3CTJ6", Skeleton: core.NameSkeleton("LUCAS PETIT")}); got != want {
				t.Errorf("kept %+v, want %+v", got, want)
			}
			if rep, err := journalOnly(l); err != nil || !rep.OK() {
				t.Errorf("verify: %v %v", rep.Problems, err)
			}
		})
	}
}
