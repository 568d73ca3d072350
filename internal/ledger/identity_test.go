package ledger

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"vegas-desk/internal/ledger/core"
)

// Issue 23's attack on a sealed counter ledger's import: a payment whose
// winner's identity prints nothing (forged into the counter's file: its
// own app refuses one) is recorded, the money being gone, and flagged
// identity-missing with why; the identity is not kept, and verify on the
// counter's file reports it.
func TestImportFlagsInvisibleIdentity(t *testing.T) {
	ctx := context.Background()
	bo, _, c2 := openCounterCopies(t)
	b := mustBlock(t, bo)
	p := ticketsWith(t, bo, b, 50000, 1)[0]
	w := Winner{Name: "\u200b\u3164", DocType: "\u2060", DocNumber: "\ufeff\u2800\u200b\u200b"}
	appendForged(t, c2, entry{Kind: "claim", Ticket: sql.NullInt64{Int64: b.First() + int64(p), Valid: true}, Serial: serialOf(b, p),
		Game: 531, Block: 1, Position: p, Amount: 50000, Desk: "C2", Operator: "mallory", Method: MethodSerial, Request: "r1",
		Detail: core.IdentityHash(&w)})
	var id int64
	if err := get(ctx, rdb(c2), &id, "SELECT max(id) FROM journal"); err != nil {
		t.Fatal(err)
	}
	if _, err := execute(ctx, wdb(c2), "INSERT INTO identities (claim, name, doc_type, doc_number) VALUES (?, ?, ?, ?)", id, w.Name, w.DocType, w.DocNumber); err != nil {
		t.Fatal(err)
	}
	if rep, err := c2.Verify(ctx, 0, 0, nil); err != nil || rep.OK() || !strings.Contains(fmt.Sprint(rep.Problems), "blank or invisible") {
		t.Errorf("verify on the counter's file: %v %v", rep.Problems, err)
	}
	rep, err := bo.ImportClaims(ctx, bytes.NewReader(exportOf(t, c2)), Identity{Desk: "BO", Operator: "clerk"})
	if err != nil || rep.Recorded != 1 || fmt.Sprint(flagKinds(rep)) != "[identity-missing]" || !strings.Contains(rep.Flags[0].What, "is none") {
		t.Fatalf("import: %+v %v", rep, err)
	}
	var kept int
	if err := get(ctx, rdb(bo), &kept, "SELECT count(*) FROM identities"); err != nil || kept != 0 {
		t.Errorf("the back office keeps %d identities, %v", kept, err)
	}
}
