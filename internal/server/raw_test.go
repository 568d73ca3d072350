package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/conformance"
	"vegas-desk/internal/ledger/wire"
	"vegas-desk/internal/mrz/mrztest"
	"vegas-desk/internal/server"
	"vegas-desk/internal/server/servertest"
)

// Attacks asked of the server's JSON itself, as any client could send it
// (no Go client in between): what issue 23 once asked of a counter's
// database login with psql.

// post posts body's JSON to path and returns the answer's status and body.
func post(t *testing.T, c *http.Client, url, path string, body any) (int, []byte) {
	t.Helper()
	b, _ := json.Marshal(body)
	resp, err := c.Post(url+path, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, data
}

// Issue 23's lock-out oracle: a counter paid a ticket it holds under a
// request id, then guesses another ticket's secret part under the same
// id until it is locked out. Then the right guess and a wrong one must get
// the same answer, byte for byte: locked (the server answers the lock-out
// before it looks at the request id or the ticket).
func TestLockOutNoRequestOracleRaw(t *testing.T) {
	o, serials := office(t)
	s := servertest.Start(t, o, server.Config{})
	c := client(t, s.DeskFile(t, "C1"))
	known, target := serials.Winners[6][0], serials.Winners[6][1]
	if st, body := post(t, c, s.URL, "/v1/claim", wire.ClaimRequest{Serial: known, Operator: "mallory", Request: "oracle"}); st != http.StatusOK {
		t.Fatalf("the known ticket: %d %s", st, body)
	}
	right, err := game.ParseSerial(target)
	if err != nil {
		t.Fatal(err)
	}
	wrong := right
	wrong.Secret = (right.Secret + 1) % game.SecretModulus
	for range 20 {
		if st, _ := post(t, c, s.URL, "/v1/lookup", wire.LookupRequest{Serial: wrong.String(), Operator: "mallory"}); st == http.StatusOK {
			t.Fatal("a wrong guess answered")
		}
	}
	answer := func(serial game.Serial) (int, wire.Error) {
		st, body := post(t, c, s.URL, "/v1/claim", wire.ClaimRequest{Serial: serial.String(), Operator: "mallory", Request: "oracle"})
		var e wire.Error
		if err := json.Unmarshal(body, &e); err != nil {
			t.Fatalf("%d %s: %v", st, body, err)
		}
		if e.Refusal != nil {
			e.Refusal.Serial = "" // what was asked, said back
		}
		return st, e
	}
	rs, re := answer(right)
	ws, we := answer(wrong)
	rj, _ := json.Marshal(re)
	wj, _ := json.Marshal(we)
	if re.Refusal == nil || re.Refusal.Verdict != string(ledger.Locked) || rs != ws || string(rj) != string(wj) {
		t.Errorf("locked out: the right guess answers %d %s\n\tthe wrong one %d %s", rs, rj, ws, wj)
	}
}

// Issue 23's identity attack: a prize from the identity threshold claimed
// with each identity of the table as typed, sent as JSON with no Go client
// in between, is paid only to an identity given by the rule, which the
// ledger keeps in its normal form.
func TestServedInvisibleIdentity(t *testing.T) {
	ctx := context.Background()
	o, serials := office(t)
	if err := o.SetSetting(ctx, ledger.SettingIdentityThreshold, 100, bo); err != nil {
		t.Fatal(err)
	}
	if _, err := o.AddDesk(ctx, "ID", 1_000_000, bo); err != nil {
		t.Fatal(err)
	}
	var prizes []int
	for p := range serials.Winners {
		if p >= 100 {
			prizes = append(prizes, p)
		}
	}
	slices.Sort(prizes)
	var tickets []string
	for _, p := range prizes {
		tickets = append(tickets, serials.Winners[p]...)
	}
	cases := conformance.Identities()
	// A ticket for each identity given, and one that each identity that
	// is none is refused.
	refused, tickets := tickets[0], tickets[1:]
	s := servertest.Start(t, o, server.Config{})
	c := client(t, s.DeskFile(t, "ID"))
	for _, ic := range cases {
		serial := refused
		if ic.Given {
			if len(tickets) == 0 {
				t.Fatal("too few tickets from the threshold for the identities given")
			}
			serial, tickets = tickets[0], tickets[1:]
		}
		w := ic.Winner
		st, body := post(t, c, s.URL, "/v1/claim", wire.ClaimRequest{Serial: serial, Operator: "mallory",
			Winner: &wire.Winner{Name: w.Name, DocType: w.DocType, DocNumber: w.DocNumber, MRZ: w.MRZ}})
		if ic.Given && w.CheckAt(time.Now()) != nil {
			// Given, but a payment today does not take it (a card of
			// before 2021 expired): the server reads its zone's dates.
			if st == http.StatusOK || !strings.Contains(string(body), "expired") && !strings.Contains(string(body), "under 18") {
				t.Errorf("%s (identities.txt:%d): %d %s, want refused", ic.Name, ic.Line, st, body)
			}
			tickets = append([]string{serial}, tickets...)
			continue
		}
		if !ic.Given {
			var e wire.Error
			if json.Unmarshal(body, &e); st == http.StatusOK || e.Refusal == nil || e.Refusal.Verdict != string(ledger.IdentityRequired) {
				t.Errorf("%s (identities.txt:%d): %d %s, want identity-required", ic.Name, ic.Line, st, body)
			}
			continue
		}
		var cl struct {
			Entry int64 `json:"entry"` // the payment's journal entry, which its identity names
		}
		if st != http.StatusOK || json.Unmarshal(body, &cl) != nil || cl.Entry == 0 {
			t.Errorf("%s (identities.txt:%d): %d %s, want paid", ic.Name, ic.Line, st, body)
			continue
		}
		kept, err := o.Identities(ctx)
		if n := w.Normal(); err != nil || kept[cl.Entry].Name != n.Name || kept[cl.Entry].DocNumber != n.DocNumber {
			t.Errorf("%s: kept %+v %v; want %+v", ic.Name, kept[cl.Entry], err, n)
		}
	}
	// Issue 44: a zone saying the winner is 17, sent raw (no Go client's
	// own check in between), is refused by the server, and nothing paid.
	now := time.Now()
	minor := mrztest.Card("R8WN3CTJ6", "PETIT<<LUCAS", now.AddDate(-18, 0, 2), now.AddDate(5, 0, 0))
	st, body := post(t, c, s.URL, "/v1/claim", wire.ClaimRequest{Serial: refused, Operator: "mallory", Winner: &wire.Winner{MRZ: minor}})
	if st == http.StatusOK || !strings.Contains(string(body), "under 18") {
		t.Errorf("a minor's zone: %d %s", st, body)
	}
	if cl, err := o.Claims(ctx, ledger.ClaimFilter{}); err != nil || slices.ContainsFunc(cl, func(c ledger.Claim) bool { return c.Serial == refused }) {
		t.Errorf("the minor's ticket paid: %v", err)
	}
}
