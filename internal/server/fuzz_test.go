package server_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/protocol"
	"vegas-desk/internal/server"
	"vegas-desk/internal/server/servertest"
)

// fuzzBody asks path with any body (and Idempotency-Key) as desk C1: the
// answer is one JSON value, 200 or 4xx (never 5xx, never a panic), and a
// question refused pays nothing.
func fuzzBody(f *testing.F, path string, seeds ...string) {
	o, _ := office(f)
	s := servertest.Start(f, o, server.Config{})
	d, err := protocol.ReadDeskFile(s.DeskFile(f, "C1"))
	if err != nil {
		f.Fatal(err)
	}
	h := s.Server.Handler()
	for _, seed := range seeds {
		f.Add([]byte(seed), "")
		f.Add([]byte(seed), "key-1")
	}
	f.Fuzz(func(t *testing.T, body []byte, key string) {
		ctx := context.Background()
		before, err := o.Claims(ctx, ledger.ClaimFilter{})
		if err != nil {
			t.Fatal(err)
		}
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
		after, err := o.Claims(ctx, ledger.ClaimFilter{})
		if err != nil {
			t.Fatal(err)
		}
		if rec.Code != http.StatusOK && len(after) != len(before) {
			t.Fatalf("%s %q: refused (%d %s), yet a payment was recorded", path, body, rec.Code, rec.Body)
		}
	})
}

const (
	fuzzSerial = `"531-0001-0000000-0000-0000-0000-0000-0"`
	fuzzDoc    = `{"roulette":{"winning":[1,2,4,5],"bets":[{"number":1,"amount":3},{"number":7,"amount":6},{"number":8,"amount":9}]},` +
		`"craps":{"dice":[1,2],"amount":3},"duel":{"cards":["2","3","4"],"bank":"R","amount":3},` +
		`"jackpot":[{"symbols":["7","7","BAR"],"amount":3},{"symbols":["7","BAR","BAR"],"amount":3},{"symbols":["CERISE","7","BAR"],"amount":3}],"bonus":0}`
)

func FuzzLookupBody(f *testing.F) {
	fuzzBody(f, "/v1/lookup", `{"serial":`+fuzzSerial+`,"operator":"ann"}`, `{"serial":`+fuzzSerial+`,"operator":"ann","limit":5}`,
		`{"serial":1}`, `{}`, `[`, `{"serial":`+fuzzSerial+`,"operator":"ann","desk":"C2"}`)
}

func FuzzClaimBody(f *testing.F) {
	fuzzBody(f, "/v1/claim", `{"serial":`+fuzzSerial+`,"operator":"ann","request":"r1"}`,
		`{"serial":`+fuzzSerial+`,"operator":"ann","method":"contents","winner":{"name":"A","doc_type":"CNI","doc_number":"1"}}`,
		`{"serial":`+fuzzSerial+`,"operator":"ann","limit":-3}`, `{"serial":null}`, `{"winner":[]}`)
}

func FuzzFindBody(f *testing.F) {
	fuzzBody(f, "/v1/find", `{"ticket":`+fuzzDoc+`,"operator":"ann"}`, `{"ticket":{},"operator":"ann"}`, `{"ticket":null}`,
		`{"ticket":"x","operator":"ann"}`)
}

func FuzzMoveBody(f *testing.F) {
	fuzzBody(f, "/v1/packs/move", `{"game":531,"block":1,"first":1,"last":2,"move":"receive","operator":"ann"}`,
		`{"game":531,"block":1,"first":2,"last":1,"move":"activate","operator":"ann"}`, `{"move":"deliver"}`, `{"first":1e99}`)
}
