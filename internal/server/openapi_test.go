package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger"
	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/ledger/ledgertest"
	"vegas-desk/internal/ledger/protocol"
	"vegas-desk/internal/ledger/wire"
	"vegas-desk/internal/pgtest"
	"vegas-desk/internal/server"
	"vegas-desk/internal/server/servertest"
)

// apiDoc is docs/api/openapi.yaml, loaded and checked as an OpenAPI 3
// document by kin-openapi.
func apiDoc(t *testing.T) *openapi3.T {
	t.Helper()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromFile("../../docs/api/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(loader.Context); err != nil {
		t.Fatalf("docs/api/openapi.yaml is not a valid OpenAPI 3 document: %v", err)
	}
	return doc
}

// Every route the server registers is in the document, and every route
// the document has is one the server registers.
func TestOpenAPIRoutes(t *testing.T) {
	doc := apiDoc(t)
	var documented []string
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			documented = append(documented, method+" "+path)
		}
	}
	registered := server.Routes()
	for _, r := range registered {
		if !slices.Contains(documented, r) {
			t.Errorf("the server answers %s, which docs/api/openapi.yaml does not document", r)
		}
	}
	for _, r := range documented {
		if !slices.Contains(registered, r) {
			t.Errorf("docs/api/openapi.yaml documents %s, which the server does not answer", r)
		}
	}
	if len(registered) < 13 {
		t.Errorf("server.Routes() lists %d routes: %v", len(registered), registered)
	}
}

// jsonFields are t's JSON names, each with whether it may be left out
// (omitempty).
func jsonFields(t reflect.Type) map[string]bool {
	out := map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" || !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		out[name] = strings.Contains(opts, "omitempty")
	}
	return out
}

// schemaAt is the schema of the components' name, or of a property of one
// ("TicketContents.roulette"), or of an array's items ("….bets[]").
func schemaAt(t *testing.T, doc *openapi3.T, name string) *openapi3.Schema {
	t.Helper()
	parts := strings.Split(name, ".")
	ref := doc.Components.Schemas[parts[0]]
	if ref == nil {
		t.Fatalf("docs/api/openapi.yaml has no schema %s", parts[0])
	}
	s := ref.Value
	for _, p := range parts[1:] {
		items := strings.HasSuffix(p, "[]")
		prop := s.Properties[strings.TrimSuffix(p, "[]")]
		if prop == nil {
			t.Fatalf("docs/api/openapi.yaml: no %s in %s", p, name)
		}
		s = prop.Value
		if items {
			s = s.Items.Value
		}
	}
	return s
}

// Every field of the API's JSON (package wire's types, and the ticket's
// interchange format) is in the document's schema of it, and every
// property the document gives is a field: a field added or renamed
// without the document fails here, whether or not an exchange below
// shows it. Each object refuses properties it does not list, so that an
// answer with an undocumented field fails the exchanges too. What an
// answer always holds is required.
func TestOpenAPISchemas(t *testing.T) {
	doc := apiDoc(t)
	for name, c := range map[string]struct {
		v        any
		response bool
	}{
		"Hello": {wire.Hello{}, true}, "Head": {wire.Head{}, true}, "Block": {wire.Block{}, true},
		"Game": {wire.Game{}, true}, "Claim": {wire.Claim{}, true}, "Ticket": {wire.Ticket{}, true},
		"Refusal": {wire.Refusal{}, true}, "Error": {wire.Error{}, true}, "Referral": {wire.Referral{}, true},
		"PackRun": {wire.PackRun{}, true}, "PackEntry": {wire.PackEntry{}, true},
		"TicketContents": {game.Doc{}, true}, "TicketContents.roulette": {game.DocRoul{}, true},
		"TicketContents.roulette.bets[]": {game.DocBet{}, true}, "TicketContents.craps": {game.DocCrap{}, true},
		"TicketContents.duel": {game.DocDuel{}, true}, "TicketContents.jackpot[]": {game.DocLn{}, true},
		"LookupRequest": {wire.LookupRequest{}, false}, "ClaimRequest": {wire.ClaimRequest{}, false},
		"FindRequest": {wire.FindRequest{}, false}, "MoveRequest": {wire.MoveRequest{}, false},
		"Winner": {wire.Winner{}, false},
	} {
		s := schemaAt(t, doc, name)
		fields := jsonFields(reflect.TypeOf(c.v))
		for f := range fields {
			if s.Properties[f] == nil {
				t.Errorf("%s: the field %q (%T) is not in docs/api/openapi.yaml", name, f, c.v)
			}
		}
		for p := range s.Properties {
			if _, ok := fields[p]; !ok {
				t.Errorf("%s: docs/api/openapi.yaml documents %q, which %T does not have", name, p, c.v)
			}
		}
		if s.AdditionalProperties.Has == nil || *s.AdditionalProperties.Has {
			t.Errorf("%s: the schema takes properties it does not list (additionalProperties: false)", name)
		}
		if !c.response || strings.HasPrefix(name, "TicketContents") {
			continue // a question's fields and the contents' are required as the document says
		}
		for f, omit := range fields {
			if required := slices.Contains(s.Required, f); required == omit {
				t.Errorf("%s: %q required %v in docs/api/openapi.yaml, omitempty %v in %T", name, f, required, omit, c.v)
			}
		}
	}

	enum := func(s *openapi3.Schema) []string {
		var out []string
		for _, v := range s.Enum {
			out = append(out, fmt.Sprint(v))
		}
		sort.Strings(out)
		return out
	}
	same := func(what string, doc, code []string) {
		sort.Strings(code)
		if !slices.Equal(doc, code) {
			t.Errorf("%s: docs/api/openapi.yaml lists %v, the code %v", what, doc, code)
		}
	}
	// The error codes: the document's are protocol.Kinds, and each status's
	// answer lists exactly the codes of that status (method-not-allowed and
	// no-such-question answer no documented route).
	var codes []string
	for _, k := range protocol.Kinds {
		codes = append(codes, k.Code)
	}
	same("Error.code", enum(schemaAt(t, doc, "Error.code")), codes)
	statuses := map[string]int{"BadRequest": 400, "Forbidden": 403, "NotFound": 404, "Conflict": 409,
		"TooLarge": 413, "TooManyConnections": 429, "Internal": 500, "Unavailable": 503}
	for name, r := range doc.Components.Responses {
		status, ok := statuses[name]
		if !ok {
			t.Errorf("response %s: which status?", name)
			continue
		}
		var listed []string
		for _, sub := range r.Value.Content.Get("application/json").Schema.Value.AllOf {
			if c := sub.Value.Properties["code"]; c != nil && sub.Ref == "" {
				listed = enum(c.Value)
			}
		}
		var want []string
		for _, k := range protocol.Kinds {
			if k.Status == status && k.Code != protocol.CodeNoSuchQuestion {
				want = append(want, k.Code)
			}
		}
		same("the codes of "+name+" ("+strconv.Itoa(status)+")", listed, want)
	}
	same("PackState", enum(schemaAt(t, doc, "PackState")), slices.Clone(core.PackStates))
	var moves []string
	for m := range core.PackMoves {
		moves = append(moves, m)
	}
	same("PackMove", enum(schemaAt(t, doc, "PackMove")), moves)
	same("Verdict", enum(schemaAt(t, doc, "Verdict")), verdicts(t))
}

// verdicts are the constants of type Verdict that core declares.
func verdicts(t *testing.T) []string {
	f, err := parser.ParseFile(token.NewFileSet(), "../ledger/core/verdicts.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		if v, ok := n.(*ast.ValueSpec); ok {
			if id, ok := v.Type.(*ast.Ident); ok && id.Name == "Verdict" {
				for _, val := range v.Values {
					s, _ := strconv.Unquote(val.(*ast.BasicLit).Value)
					out = append(out, s)
				}
			}
		}
		return true
	})
	if len(out) < 10 {
		t.Fatalf("read %d verdicts in core/verdicts.go", len(out))
	}
	return out
}

// exchanger asks a real server and holds each question and answer to the
// document: kin-openapi's router finds the operation, ValidateRequest
// checks the question, ValidateResponse the answer (its status among the
// operation's, its headers and its body).
type exchanger struct {
	t      *testing.T
	doc    *openapi3.T
	router routers.Router
	url    string
	seen   map[string]bool // the codes answered, and "METHOD path 200"
}

// answer is what the server answered.
type answer struct {
	status int
	body   []byte
	err    wire.Error
}

// ask sends method path (body: a string as is, else its JSON; nil for
// none) with c. valid says whether the document accepts the question (a
// question the server refuses as malformed must be one the document
// refuses too). The answer must be want (a status) and, when not 200,
// code.
func (x *exchanger) ask(c *http.Client, method, path string, header map[string]string, body any, valid bool, want int, code string) answer {
	t := x.t
	t.Helper()
	var data []byte
	switch b := body.(type) {
	case nil:
	case string:
		data = []byte(b)
	default:
		data, _ = json.Marshal(b)
	}
	newReq := func() *http.Request {
		var rd io.Reader
		if data != nil {
			rd = bytes.NewReader(data)
		}
		req, err := http.NewRequest(method, x.url+path, rd)
		if err != nil {
			t.Fatal(err)
		}
		if data != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		for k, v := range header {
			req.Header.Set(k, v)
		}
		return req
	}
	resp, err := c.Do(newReq())
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	a := answer{status: resp.StatusCode, body: got}
	if resp.StatusCode != http.StatusOK {
		if err := json.Unmarshal(got, &a.err); err != nil {
			t.Errorf("%s %s: %d %s: not an Error: %v", method, path, resp.StatusCode, got, err)
		}
	}
	if a.status != want || want != http.StatusOK && a.err.Code != code {
		t.Errorf("%s %s %s: answered %d %s, want %d %s", method, path, data, a.status, got, want, code)
	}
	x.seen[a.err.Code] = true
	if a.status == http.StatusOK {
		x.seen[method+" "+strings.SplitN(path, "?", 2)[0]+" 200"] = true
	}

	ctx := context.Background()
	req := newReq()
	route, params, err := x.router.FindRoute(req)
	if err != nil {
		// A route the document does not have: the server must answer it as
		// one it does not have either, with an Error.
		var re *routers.RouteError
		if !errors.As(err, &re) || re.Reason != routers.ErrPathNotFound.Error() && re.Reason != routers.ErrMethodNotAllowed.Error() {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		if a.err.Code != protocol.CodeNoSuchQuestion && a.err.Code != protocol.CodeMethod {
			t.Errorf("%s %s is no route of docs/api/openapi.yaml (%v), and the server answered it %d %s", method, path, err, a.status, got)
		}
		var v any
		json.Unmarshal(got, &v)
		if err := x.doc.Components.Schemas["Error"].Value.VisitJSON(v); err != nil {
			t.Errorf("%s %s: %d %s is not an Error of docs/api/openapi.yaml: %v", method, path, a.status, got, err)
		}
		return a
	}
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{MultiError: true}}
	switch err := openapi3filter.ValidateRequest(ctx, in); {
	case valid && err != nil:
		t.Errorf("%s %s %s: docs/api/openapi.yaml refuses the question: %v", method, path, data, err)
	case !valid && err == nil:
		t.Errorf("%s %s %s: the server answers %d %s, and docs/api/openapi.yaml accepts the question", method, path, data, a.status, a.err.Code)
	}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: resp.StatusCode, Header: resp.Header,
		Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true}}
	out.SetBodyBytes(got)
	if err := openapi3filter.ValidateResponse(ctx, out); err != nil {
		t.Errorf("%s %s %s: the answer %d %s is not what docs/api/openapi.yaml says: %v", method, path, data, resp.StatusCode, got, err)
	}
	return a
}

// on is an exchanger of the server at url (the document's server), whose
// answers count with x's.
func (x *exchanger) on(url string) *exchanger {
	doc := apiDoc(x.t)
	doc.Servers = openapi3.Servers{{URL: url}}
	router, err := legacy.NewRouter(doc)
	if err != nil {
		x.t.Fatal(err)
	}
	return &exchanger{t: x.t, doc: doc, router: router, url: url, seen: x.seen}
}

func (x *exchanger) get(c *http.Client, path string, want int, code string) answer {
	x.t.Helper()
	return x.ask(c, http.MethodGet, path, nil, nil, true, want, code)
}

func (x *exchanger) post(c *http.Client, path string, body any, want int, code string) answer {
	x.t.Helper()
	return x.ask(c, http.MethodPost, path, nil, body, true, want, code)
}

// Real questions to a real serve (TLS 1.3, mTLS with the ledger's own
// authority, a back office's SQLite file; for unavailable, a PostgreSQL
// ledger whose server is stopped; for internal, a file closed under its
// server): each route answered, and each error code the API has, every
// question and answer validated against docs/api/openapi.yaml by
// kin-openapi. A field, a route, a status or a code the server answers and
// the document does not have fails; so does a question the server refuses
// as malformed that the document accepts.
func TestOpenAPIExchanges(t *testing.T) {
	ctx := context.Background()
	o, err := ledger.Open(ledgertest.Copy(t, ledgertest.Stock))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { o.Close() })
	for _, d := range []string{"C1", "L1", "D1", "M1", "R1", "E1"} {
		if _, err := o.AddDesk(ctx, d, 100, bo); err != nil {
			t.Fatal(err)
		}
	}
	serials := ledgertest.SerialsOf(t, ledgertest.Stock)
	w50, w1000, loser := serials.Winners[50][0], serials.Winners[1000][0], serials.Losers[0]
	w3a, w3b := serials.Winners[3][0], serials.Winners[3][1]
	positionOf := func(serial string) int {
		p, err := strconv.Atoi(strings.NewReplacer("-", "").Replace(serial)[7:14])
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	// The packs of these tickets delivered to C1 (the back office), which
	// receives and activates them through the API below.
	var packs []int
	for _, s := range []string{w50, w1000, loser, w3a, w3b} {
		if p := positionOf(s) / game.PackSize; !slices.Contains(packs, p) {
			packs = append(packs, p)
		}
	}
	sort.Ints(packs)
	for _, p := range packs {
		if err := o.MovePacks(ctx, ledger.PackMove{Game: 531, Block: 1, First: p, Last: p, Move: "deliver", Desk: "C1"}, bo); err != nil {
			t.Fatal(err)
		}
	}

	s := servertest.Start(t, o, server.Config{})
	x := (&exchanger{t: t, seen: map[string]bool{}}).on(s.URL)
	c1 := client(t, s.DeskFile(t, "C1"))

	// Each route, answered.
	x.get(c1, protocol.Hello, 200, "")
	x.get(c1, protocol.Head, 200, "")
	x.get(c1, protocol.Blocks, 200, "")
	x.get(c1, protocol.Games+"531", 200, "")
	move := func(first int, m string) wire.MoveRequest {
		return wire.MoveRequest{Game: 531, Block: 1, First: first, Last: first, Move: m, Operator: "ann"}
	}
	for _, p := range packs {
		x.post(c1, protocol.MovePacks, move(p, "receive"), 200, "")
	}
	x.get(c1, protocol.Packs+"?state=received", 200, "")
	for _, p := range packs {
		x.post(c1, protocol.MovePacks, move(p, "activate"), 200, "")
	}
	x.get(c1, protocol.PackMoves+"?moves=receive,activate", 200, "")
	a := x.post(c1, protocol.Lookup, wire.LookupRequest{Serial: w50, Operator: "ann"}, 200, "")
	var tk wire.Ticket
	if err := json.Unmarshal(a.body, &tk); err != nil || tk.Verdict != "payable" || tk.Prize != 50 {
		t.Fatalf("lookup of a 50 € winner: %s %v", a.body, err)
	}
	contents := tk.Ticket
	contents.Prize = nil
	x.post(c1, protocol.Find, map[string]any{"ticket": contents, "operator": "ann"}, 200, "")
	paid := x.ask(c1, http.MethodPost, protocol.Claim, map[string]string{protocol.IdempotencyKey: "openapi-1"},
		wire.ClaimRequest{Serial: w50, Operator: "ann"}, true, 200, "")
	x.ask(c1, http.MethodPost, protocol.Claim, map[string]string{protocol.IdempotencyKey: "openapi-1"},
		wire.ClaimRequest{Serial: w50, Operator: "ann"}, true, 200, "") // asked again: the first answer
	x.post(c1, protocol.Claim, wire.ClaimRequest{Serial: w3a, Operator: "ann", Request: "openapi-2", Method: "serial"}, 200, "")
	x.post(c1, protocol.Lookup, wire.LookupRequest{Serial: w50, Operator: "ann"}, 200, "") // paid: its claim shown
	var cl wire.Claim
	if err := json.Unmarshal(paid.body, &cl); err != nil {
		t.Fatal(err)
	}
	if _, err := o.Void(ctx, cl.Number, "a mistake", bo); err != nil {
		t.Fatal(err)
	}
	x.get(c1, protocol.Claims+"?since=2000-01-01T00:00:00Z&game=531&block=1", 200, "")
	x.get(c1, protocol.Voids, 200, "")

	// 409 refused, each as the document says a refusal is: a voided
	// payment's retry, already claimed, over the limit (a referral), a
	// loser's claim.
	x.ask(c1, http.MethodPost, protocol.Claim, map[string]string{protocol.IdempotencyKey: "openapi-1"},
		wire.ClaimRequest{Serial: w50, Operator: "ann"}, true, 409, protocol.CodeRefused)
	x.post(c1, protocol.Claim, wire.ClaimRequest{Serial: w3a, Operator: "bob"}, 409, protocol.CodeRefused)
	x.post(c1, protocol.Claim, wire.ClaimRequest{Serial: w1000, Operator: "ann"}, 409, protocol.CodeRefused)
	x.post(c1, protocol.Claim, wire.ClaimRequest{Serial: loser, Operator: "ann"}, 409, protocol.CodeRefused)
	x.get(c1, protocol.Referrals+"?since=2000-01-01T00:00:00Z", 200, "")
	// 409 request-reused and pack-move.
	x.post(c1, protocol.Claim, wire.ClaimRequest{Serial: w3b, Operator: "ann", Request: "openapi-2"}, 409, protocol.CodeRequestReused)
	x.post(c1, protocol.MovePacks, move(packs[0], "receive"), 409, protocol.CodePackMove)

	// 400: bad serial, bad contents, not a winner, bad requests.
	wrong := []byte(strings.ReplaceAll(w3b, "-", ""))
	wrong[30] = '0' + (wrong[30]-'0'+1)%10
	x.post(c1, protocol.Lookup, wire.LookupRequest{Serial: string(wrong), Operator: "ann"}, 400, protocol.CodeBadSerial)
	notGenuine := contents
	notGenuine.Roulette.Bets = slices.Clone(contents.Roulette.Bets)
	notGenuine.Roulette.Bets[0].Number = 15 // no roulette number
	x.post(c1, protocol.Find, map[string]any{"ticket": notGenuine, "operator": "ann"}, 400, protocol.CodeBadContents)
	a = x.post(c1, protocol.Lookup, wire.LookupRequest{Serial: loser, Operator: "ann"}, 200, "")
	if err := json.Unmarshal(a.body, &tk); err != nil {
		t.Fatal(err)
	}
	tk.Ticket.Prize = nil
	x.post(c1, protocol.Find, map[string]any{"ticket": tk.Ticket, "operator": "ann"}, 400, protocol.CodeNotWinner)
	x.ask(c1, http.MethodPost, protocol.Lookup, nil, `{"serial":"`+w3b+`","operator":"ann","colour":"red"}`, false, 400, protocol.CodeBadRequest)
	x.ask(c1, http.MethodPost, protocol.Lookup, nil, `{"serial":"`+w3b+`","operator":"ann","limit":-1}`, false, 400, protocol.CodeBadRequest)
	x.ask(c1, http.MethodPost, protocol.Claim, nil, `{"serial":"`+w3b+`","operator":7}`, false, 400, protocol.CodeBadRequest)
	x.ask(c1, http.MethodGet, protocol.Games+"99", nil, nil, false, 400, protocol.CodeBadRequest)
	x.ask(c1, http.MethodGet, protocol.Claims+"?since=yesterday", nil, nil, false, 400, protocol.CodeBadRequest)
	// 413: a body over 16 KiB.
	x.ask(c1, http.MethodPost, protocol.Lookup, nil, `{"serial":"`+strings.Repeat("5", 20000)+`"}`, false, 413, protocol.CodeTooLarge)
	// 404: no such game; no such block to move packs of.
	x.get(c1, protocol.Games+"999", 404, protocol.CodeNotFound)
	x.post(c1, protocol.MovePacks, wire.MoveRequest{Game: 531, Block: 9, First: 1, Last: 1, Move: "receive", Operator: "ann"}, 404, protocol.CodeNotFound)
	// 403: another desk named, what only the back office asks.
	x.post(c1, protocol.Lookup, wire.LookupRequest{Serial: w3b, Operator: "ann", Desk: "L1"}, 403, protocol.CodeDeskMismatch)
	x.get(c1, protocol.Packs+"?state=stock", 403, protocol.CodeForbidden)
	x.post(c1, protocol.MovePacks, move(packs[0], "return"), 403, protocol.CodeForbidden)
	// 405 and 404 of no documented route.
	x.ask(c1, http.MethodGet, protocol.Claim, nil, nil, false, 405, protocol.CodeMethod)
	x.ask(c1, http.MethodGet, "/v1/tickets", nil, nil, false, 404, protocol.CodeNoSuchQuestion)

	// 409 refused, locked: twenty guesses lock desk L1 out.
	l1 := client(t, s.DeskFile(t, "L1"))
	for i := range 20 {
		guess := []byte(strings.ReplaceAll(w3b, "-", ""))
		guess[20] = '0' + byte((int(guess[20]-'0')+1+i%9)%10)
		x.post(l1, protocol.Lookup, wire.LookupRequest{Serial: fixCheck(t, string(guess)), Operator: "mallory"}, 409, protocol.CodeRefused)
	}
	a = x.post(l1, protocol.Claim, wire.ClaimRequest{Serial: w3b, Operator: "mallory"}, 409, protocol.CodeRefused)
	if a.err.Refusal == nil || a.err.Refusal.Verdict != "locked" || a.err.Refusal.Until == nil {
		t.Errorf("the 21st question of a guessing desk: %s", a.body)
	}
	// 403: a disabled desk, a desk the ledger does not list, a revoked
	// desk file.
	d1 := client(t, s.DeskFile(t, "D1"))
	if err := o.DisableDesk(ctx, "D1", bo); err != nil {
		t.Fatal(err)
	}
	x.get(d1, protocol.Hello, 403, protocol.CodeDeskDisabled)
	x.get(client(t, s.DeskFile(t, "Z9")), protocol.Hello, 403, protocol.CodeUnknownDesk)
	old := client(t, s.DeskFile(t, "R1"))
	newCert(t, s, o, "R1", false)
	x.get(old, protocol.Hello, 403, protocol.CodeDeskRevoked)
	// 429: a ninth connection of one desk.
	m1 := s.DeskFile(t, "M1")
	for range server.MaxConnsPerDesk {
		if status, body, err := hold(t, s, m1).hello(); err != nil || status != 200 {
			t.Fatalf("a held connection's hello: %d %s %v", status, body, err)
		}
	}
	x.get(client(t, m1), protocol.Hello, 429, protocol.CodeTooMany)
	// 503: the ledger behind the server does not answer (its PostgreSQL
	// stopped), on a server of a new, empty ledger of its own.
	pg, err := pgtest.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pg.Stop)
	po, err := ledger.Open(pg.URL(pgtest.Owner, pg.NewDatabase(t)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { po.Close() })
	if _, err := po.AddDesk(ctx, "C1", 100, bo); err != nil {
		t.Fatal(err)
	}
	sp := servertest.Start(t, po, server.Config{})
	cp := client(t, sp.DeskFile(t, "C1"))
	xp := x.on(sp.URL)
	xp.get(cp, protocol.Hello, 200, "")
	if _, err := pg.Stopped(); err != nil {
		t.Fatal(err)
	}
	xp.get(cp, protocol.Hello, 503, protocol.CodeUnavailable)
	xp.post(cp, protocol.Lookup, wire.LookupRequest{Serial: w3b, Operator: "ann"}, 503, protocol.CodeUnavailable)
	xp.post(cp, protocol.Claim, wire.ClaimRequest{Serial: w3b, Operator: "ann", Request: "openapi-3"}, 503, protocol.CodeUnavailable)

	// 403 other-ledger: a desk file of a later incarnation of the ledger
	// (a restore's) tells this server it was replaced; it serves no desk
	// from then on.
	epoch, _, err := o.Epochs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	later, err := s.Authority.DeskCertificate("E1", epoch+1, time.Now().Add(-time.Hour), time.Now().AddDate(1, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	laterFile := t.TempDir() + "/E1.desk"
	if err := server.WriteDeskFile(laterFile, later); err != nil {
		t.Fatal(err)
	}
	x.get(client(t, laterFile), protocol.Hello, 403, protocol.CodeOtherLedger)
	x.get(c1, protocol.Hello, 403, protocol.CodeOtherLedger)

	// 500: a ledger that fails on every question (closed under its server).
	o2, err := ledger.Open(ledgertest.Copy(t, ledgertest.Stock))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := o2.AddDesk(ctx, "C1", 100, bo); err != nil {
		t.Fatal(err)
	}
	s2 := servertest.Start(t, o2, server.Config{})
	c2 := client(t, s2.DeskFile(t, "C1"))
	o2.Close()
	x.on(s2.URL).get(c2, protocol.Hello, 500, protocol.CodeInternal)

	// Every route answered 200 and every error code answered at least once.
	for _, r := range server.Routes() {
		path := strings.Replace(strings.SplitN(r, " ", 2)[1], "{code}", "531", 1)
		if method := strings.SplitN(r, " ", 2)[0]; !x.seen[method+" "+path+" 200"] {
			t.Errorf("%s never answered 200 here", r)
		}
	}
	for _, k := range protocol.Kinds {
		if !x.seen[k.Code] {
			t.Errorf("the code %s (%d) never answered here", k.Code, k.Status)
		}
	}
}
