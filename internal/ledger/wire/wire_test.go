package wire_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"vegas-desk/internal/game"
	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/ledger/wire"
)

// again is w written as JSON and read back.
func again[W any](t *testing.T, w W) W {
	t.Helper()
	data, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	var back W
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&back); err != nil {
		t.Fatalf("%T %s: %v", w, data, err)
	}
	return back
}

func same(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: back from JSON\n%+v\nwant\n%+v", what, got, want)
	}
}

var (
	at   = time.Date(2026, 3, 4, 10, 11, 12, 345678000, time.UTC)
	paid = core.Claim{Number: 7, Entry: 41, Hash: "ab12", Serial: "531-0001-0000123-…", Game: 531, Block: 1, Position: 123,
		Amount: 50, Desk: "C1", Operator: "ann", Method: core.MethodSerial, Request: "r-1", At: at, Chained: 1500 * time.Microsecond}
)

// Every shape the server answers comes back from its JSON as the value it
// was made of: a counter on the server sees what the back office wrote.
func TestRoundTripOfEveryShape(t *testing.T) {
	voided := paid
	voided.Voided, voided.VoidReason, voided.VoidedBy, voided.VoidDesk, voided.VoidedAt = true, "mistake", "eve", "BO", at.Add(time.Hour)
	for name, c := range map[string]core.Claim{"claim": paid, "voided claim": voided} {
		same(t, name, *again(t, wire.ClaimOf(&c)).Core(), c)
	}
	if wire.ClaimOf(nil) != nil || (*wire.Claim)(nil).Core() != nil {
		t.Error("no claim is not nil")
	}
	same(t, "claims", len(wire.Claims([]core.Claim{paid, voided})), 2)

	var tk game.Ticket
	game.Build(game.NewRand([32]byte{7}), &game.Way{Prize: 50, Parts: []game.Part{{Surface: game.Craps, Amount: 50}}}, &tk)
	serial := game.Serial{Game: 531, Block: 1, Position: 123, Secret: 987654321}
	ticket := core.Ticket{Serial: serial, Block: core.Block{Game: 531, Number: 1, PackSize: game.PackSize, Tickets: game.BlockSize},
		Pack: serial.Pack(), Position: 123, Ticket: tk, Prize: 50, Status: core.StatusPaid, Claim: &paid, PackState: "on-sale",
		Verdict: core.AlreadyClaimed}
	expired := ticket
	expired.Status, expired.Claim, expired.Verdict, expired.Until = core.StatusUnpaid, nil, core.Expired, at
	for name, tc := range map[string]core.Ticket{"paid ticket": ticket, "expired ticket": expired} {
		got, err := again(t, wire.TicketOf(tc)).Core()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		same(t, name, got, tc)
	}
	bad := wire.TicketOf(ticket)
	bad.Status = "lost"
	if _, err := bad.Core(); err == nil {
		t.Error("a ticket of status lost was read")
	}

	for name, r := range map[string]*core.Refusal{
		"already claimed": {Verdict: core.AlreadyClaimed, Serial: "s", First: &paid, Entry: 9},
		"locked":          {Verdict: core.Locked, Until: at, Entry: 3},
		"over the limit":  {Verdict: core.OverLimit, Serial: "s", Amount: 1000, Entry: 12},
		"voided":          {Verdict: core.Voided, Serial: "s", First: &voided},
	} {
		w := wire.RefusalOf(r)
		w.Entry = r.Entry
		e := again(t, wire.Error{Code: "refused", Message: r.Error(), Refusal: &w})
		same(t, name, e.Refusal.Core(), r)
		if e.Refusal.Voided != (r.Verdict == core.Voided) {
			t.Errorf("%s: voided %v", name, e.Refusal.Voided)
		}
	}

	run := core.PackRun{Game: 531, Block: 1, First: 3, Last: 9, State: "on-sale", Desk: "C1", Entry: 5, At: at, Operator: "ann", Move: "activate"}
	same(t, "pack run", again(t, wire.PackRunOf(run)).Core(), run)
	if w := wire.PackRunOf(run); w.Count != 7 || w.FirstCode == "" || w.LastCode == "" {
		t.Errorf("pack run's count and codes: %+v", w)
	}
	stock := core.PackRun{Game: 531, Block: 1, First: 1, Last: 2, State: "stock"}
	same(t, "stock", again(t, wire.PackRunOf(stock)).Core(), stock)
	entry := core.PackEntry{Entry: 5, At: at, Game: 531, Block: 1, First: 3, Last: 9, State: "on-sale", Desk: "C1", Operator: "ann", Move: "activate", Reason: "r"}
	same(t, "pack entry", again(t, wire.PackEntryOf(entry)).Core(), entry)
	ref := core.Referral{Entry: 4, Number: 2, At: at, Serial: "531-0001-…", Game: 531, Block: 1, Position: 8, Amount: 1000, Desk: "C1", Operator: "ann", Tries: 2, Last: at.Add(time.Minute)}
	same(t, "referral", again(t, wire.ReferralOf(ref)).Core(), ref)
	block := core.Block{ID: 1, Game: 531, Number: 1, Digest: "ff", PackSize: 50, Tickets: 2000000, Winners: 7, Payout: 99, CreatedAt: at, FirstPack: 1,
		Key: game.SerialKey{1, 2, 3}}
	public := block
	public.Key = game.SerialKey{}
	same(t, "block (its key never sent)", again(t, wire.BlockOf(block)).Core(), public)
	g := core.Game{Code: 531, Name: "VEGAS", Price: 3, Dates: core.Dates{OnSale: "2026-01-01", EndOfSale: "2026-12-31", Deadline: "2027-03-31"}}
	same(t, "game", again(t, wire.GameOf(g)).Core(), g)

	limit := 20
	for _, w := range []any{
		wire.Hello{Demo: true, Desk: "C1", Ledger: "id", Limit: 100}, wire.Head{Head: "h"},
		wire.LookupRequest{Serial: "s", Operator: "ann", Desk: "C1", Limit: &limit},
		wire.ClaimRequest{Serial: "s", Operator: "ann", Method: "contents", Request: "r", Desk: "C1", Limit: &limit, Winner: &wire.Winner{Name: "A B", DocType: "CNI", DocNumber: "1", MRZ: "IDFRA\n<<"}},
		wire.FindRequest{Ticket: json.RawMessage(`{"bonus":0}`), Operator: "ann", Desk: "C1", Limit: &limit},
		wire.MoveRequest{Game: 531, Block: 1, First: 1, Last: 2, Move: "receive", Operator: "ann", Desk: "C1"},
	} {
		back := reflect.New(reflect.TypeOf(w))
		data, _ := json.Marshal(w)
		if err := json.Unmarshal(data, back.Interface()); err != nil {
			t.Fatal(err)
		}
		same(t, reflect.TypeOf(w).Name(), back.Elem().Interface(), w)
	}
}

// A claim's body is written and read in one place (issue 37): the body a
// counter sends (ClaimRequestOf) is the JSON the API has always taken, and
// the claim the server reads of it (Core) is the one the counter asked,
// as the server's desk, the winner's identity field for field.
func TestClaimRequestBody(t *testing.T) {
	s, err := game.ParseSerial("531-0001-0000048-8365-1265-9063-1386-8")
	if err != nil {
		t.Fatal(err)
	}
	w := &core.Winner{Name: "Ann Lee", DocType: "passport", DocNumber: "X1", MRZ: "P<FRALEE<<ANN"}
	req := core.ClaimRequest{Serial: " typed ", Method: core.MethodSerial, Who: core.Identity{Desk: "C1", Operator: "ann"},
		Request: "r1", Limit: core.LimitOf(500), Winner: w}
	body, err := json.Marshal(wire.ClaimRequestOf(s, req))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"serial":"531-0001-0000048-8365-1265-9063-1386-8","operator":"ann","method":"serial","request":"r1","limit":500,` +
		`"winner":{"name":"Ann Lee","doc_type":"passport","doc_number":"X1","mrz":"P\u003cFRALEE\u003c\u003cANN"}}` // as encoding/json writes it, the client's too
	if string(body) != want {
		t.Errorf("body\n%s\nwant\n%s", body, want)
	}
	var q wire.ClaimRequest
	if err := json.Unmarshal(body, &q); err != nil {
		t.Fatal(err)
	}
	served := core.Identity{Desk: "C1", Cert: "0a"}
	got := q.Core(served, core.LimitOf(500))
	wantReq := core.ClaimRequest{Serial: s.String(), Method: core.MethodSerial, Who: core.Identity{Desk: "C1", Operator: "ann", Cert: "0a"},
		Request: "r1", Limit: core.LimitOf(500), Winner: w}
	if !reflect.DeepEqual(got, wantReq) {
		t.Errorf("Core: %+v, want %+v", got, wantReq)
	}
	bare := wire.ClaimRequest{Serial: s.String(), Operator: "bob"}
	if c := bare.Core(served, core.NoLimit); c.Method != core.MethodSerial || c.Winner != nil || c.Who.Operator != "bob" {
		t.Errorf("a body with no method nor winner: %+v", c)
	}
	if wire.LimitOf(core.NoLimit) != nil {
		t.Error("no limit asked is sent as none")
	}
}
