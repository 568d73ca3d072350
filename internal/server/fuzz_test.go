package server_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/protocol"
	"vegas-desk/internal/ledger/wire"
	"vegas-desk/internal/server"
	"vegas-desk/internal/server/servertest"
)

// fuzzBody asks path with any body (and Idempotency-Key) as desk C1, the
// seeds' {serial} a ticket C1 may pay (3 €): the answer is one JSON value,
// 200 or 4xx (never 5xx, never a panic); a question refused pays nothing
// and moves no pack; a payment answered is the ledger's.
func fuzzBody(f *testing.F, path string, seeds ...string) {
	o, serials := office(f)
	s := servertest.Start(f, o, server.Config{})
	d, err := protocol.ReadDeskFile(s.DeskFile(f, "C1"))
	if err != nil {
		f.Fatal(err)
	}
	ctx := context.Background()
	serial := serials.Winners[3][0]
	if t, err := o.Lookup(ctx, serial, ledger.Identity{Desk: "C1", Operator: "ann"}, ledger.NoLimit); err != nil || t.Verdict != ledger.Payable {
		f.Fatalf("the seeds' serial: %+v %v; want payable", t, err)
	}
	h := s.Server.Handler()
	for _, seed := range seeds {
		seed = strings.ReplaceAll(seed, "{serial}", strconv.Quote(serial))
		f.Add([]byte(seed), "")
		f.Add([]byte(seed), "key-1")
	}
	state := func(t *testing.T) ([]ledger.Claim, []ledger.PackRun) {
		cs, err := o.Claims(ctx, ledger.ClaimFilter{})
		if err != nil {
			t.Fatal(err)
		}
		ps, err := o.Packs(ctx, ledger.PackFilter{})
		if err != nil {
			t.Fatal(err)
		}
		return cs, ps
	}
	f.Fuzz(func(t *testing.T, body []byte, key string) {
		claims, packs := state(t)
		req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
		req.TLS = &tls.ConnectionState{PeerCertificates: []*x509.Certificate{d.Cert.Leaf}}
		if key != "" {
			req.Header.Set("Idempotency-Key", key)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 500 || (rec.Code != http.StatusOK && rec.Code < 400) {
			t.Fatalf("%s %q: %d %s", path, body, rec.Code, rec.Body)
		}
		if !json.Valid(rec.Body.Bytes()) {
			t.Fatalf("%s %q: the answer is not JSON: %q", path, body, rec.Body)
		}
		afterClaims, afterPacks := state(t)
		if rec.Code != http.StatusOK && (len(afterClaims) != len(claims) || !reflect.DeepEqual(afterPacks, packs)) {
			t.Fatalf("%s %q: refused (%d %s), yet a payment was recorded or a pack moved", path, body, rec.Code, rec.Body)
		}
		if path == protocol.Claim && rec.Code == http.StatusOK {
			var paid wire.Claim
			if err := json.Unmarshal(rec.Body.Bytes(), &paid); err != nil || !slices.ContainsFunc(afterClaims, func(c ledger.Claim) bool {
				return c.Number == paid.Number && c.Serial == paid.Serial && c.Desk == "C1"
			}) {
				t.Fatalf("%s %q: answered payment %s, not the ledger's (%v)", path, body, rec.Body, err)
			}
		}
	})
}

const (
	fuzzDoc = `{"roulette":{"winning":[1,2,4,5],"bets":[{"number":1,"amount":3},{"number":7,"amount":6},{"number":8,"amount":9}]},` +
		`"craps":{"dice":[1,2],"amount":3},"duel":{"cards":["2","3","4"],"bank":"R","amount":3},` +
		`"jackpot":[{"symbols":["7","7","BAR"],"amount":3},{"symbols":["7","BAR","BAR"],"amount":3},{"symbols":["CERISE","7","BAR"],"amount":3}],"bonus":0}`
)

func FuzzLookupBody(f *testing.F) {
	fuzzBody(f, protocol.Lookup, `{"serial":{serial},"operator":"ann"}`, `{"serial":{serial},"operator":"ann","limit":5}`,
		`{"serial":1}`, `{}`, `[`, `{"serial":{serial},"operator":"ann","desk":"C2"}`)
}

func FuzzClaimBody(f *testing.F) {
	fuzzBody(f, protocol.Claim, `{"serial":{serial},"operator":"ann","request":"r1"}`,
		`{"serial":{serial},"operator":"ann","method":"contents","winner":{"name":"A","doc_type":"CNI","doc_number":"1"}}`,
		`{"serial":{serial},"operator":"ann","winner":{"name":"","doc_type":"","doc_number":"","mrz":"IDFRAT7MK2QLV86<<<<<<<<<<<<<<<\n8511043M3609208FRA<<<<<<<<<<<0\nDUPONT<<JEAN<PIERRE<<<<<<<<<<<"}}`,
		`{"serial":{serial},"operator":"ann","winner":{"mrz":"P<FRA\u0000<<"}}`,
		`{"serial":{serial},"operator":"ann","limit":-3}`, `{"serial":null}`, `{"winner":[]}`)
}

func FuzzFindBody(f *testing.F) {
	fuzzBody(f, protocol.Find, `{"ticket":`+fuzzDoc+`,"operator":"ann"}`, `{"ticket":{},"operator":"ann"}`, `{"ticket":null}`,
		`{"ticket":"x","operator":"ann"}`)
}

func FuzzMoveBody(f *testing.F) {
	fuzzBody(f, protocol.MovePacks, `{"game":531,"block":1,"first":1,"last":2,"move":"receive","operator":"ann"}`,
		`{"game":531,"block":1,"first":2,"last":1,"move":"activate","operator":"ann"}`, `{"move":"deliver"}`, `{"first":1e99}`)
}
