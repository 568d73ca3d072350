package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/protocol"
	"vegas-desk/internal/ledger/wire"
	"vegas-desk/internal/server"
	"vegas-desk/internal/server/servertest"
)

// A refusal tells no other desk's secrets, through serve on a SQLite back
// office and on PostgreSQL: a desk that looks up, claims or finds a ticket
// another desk paid is told it was paid and on which date, nothing of who,
// where or under which request (not in the answer's JSON, not in its
// message); the desk that paid it sees its payment in full.
func TestOtherDesksPaymentNotShown(t *testing.T) {
	pg, tmpl := sharedPG(t)
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			ctx := context.Background()
			o, serials := office(t)
			payer, asker := "C1", "C2"
			if engine == "postgres" {
				o, payer, asker = pgOffice(t, pg, tmpl), "D1", "D2"
			}
			s := servertest.Start(t, o, server.Config{})
			paying := s.Open(t, payer)
			win := serials.Winners[50][0]
			paid, err := paying.Claim(ctx, ledger.ClaimRequest{Serial: win, Method: ledger.MethodSerial, Who: ledger.Identity{Operator: "secret-cashier"},
				Request: "secret-request", Limit: ledger.NoLimit})
			if err != nil {
				t.Fatal(err)
			}
			secrets := []string{payer, "secret-cashier", "secret-request", paid.Hash}
			day := paid.At.Local().Format("2006-01-02")

			// The desk's own payment: in full.
			own, err := paying.Lookup(ctx, win, ledger.Identity{Operator: "x"}, ledger.NoLimit)
			if err != nil || own.Claim == nil || own.Claim.Desk != payer || own.Claim.Operator != "secret-cashier" || own.Claim.Request != "secret-request" {
				t.Fatalf("the payer's own lookup: %+v %v", own.Claim, err)
			}

			// Another desk, through the client: the date only.
			other := s.Open(t, asker)
			tk, err := other.Lookup(ctx, win, ledger.Identity{Operator: "x"}, ledger.NoLimit)
			if err != nil || tk.Verdict != ledger.AlreadyClaimed || tk.Claim == nil || !tk.Claim.At.Equal(paid.At) ||
				*tk.Claim != (ledger.Claim{At: tk.Claim.At}) {
				t.Fatalf("another desk's lookup: %+v %v", tk.Claim, err)
			}
			_, err = other.Claim(ctx, ledger.ClaimRequest{Serial: win, Method: ledger.MethodSerial, Who: ledger.Identity{Operator: "x"}, Limit: ledger.NoLimit})
			var r *ledger.Refusal
			if !errors.As(err, &r) || r.Verdict != ledger.AlreadyClaimed || r.First == nil || *r.First != (ledger.Claim{At: r.First.At}) ||
				!strings.Contains(err.Error(), "already paid on "+day) {
				t.Fatalf("another desk's claim: %v", err)
			}

			// Another desk, on the wire: no secret anywhere in the answers.
			c := client(t, s.DeskFile(t, asker))
			for path, body := range map[string]any{
				protocol.Lookup: wire.LookupRequest{Serial: win, Operator: "x"},
				protocol.Claim:  wire.ClaimRequest{Serial: win, Operator: "x", Request: "mine"},
			} {
				data, _ := json.Marshal(body)
				resp, err := c.Post(s.URL+path, "application/json", bytes.NewReader(data))
				if err != nil {
					t.Fatal(err)
				}
				answer, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if !strings.Contains(string(answer), "already-claimed") {
					t.Errorf("%s: %s", path, answer)
				}
				for _, secret := range secrets {
					if strings.Contains(string(answer), secret) {
						t.Errorf("%s tells another desk %q: %s", path, secret, answer)
					}
				}
				var shown struct {
					Claim   *wire.Claim
					Refusal *wire.Refusal
					Message string
				}
				json.Unmarshal(answer, &shown)
				if shown.Refusal != nil {
					shown.Claim = shown.Refusal.Claim
				}
				if shown.Claim == nil || !shown.Claim.At.Equal(paid.At) || resp.StatusCode != http.StatusOK && !strings.Contains(shown.Message, "already paid on "+day) {
					t.Errorf("%s: the date of the payment not told: %s", path, answer)
				}
			}
		})
	}
}
