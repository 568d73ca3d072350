package ledger

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"vegas-desk/internal/ledger/core"
)

// Issues 29 and 44: a look-alike of a name in another script has a hash
// of its own, but the ledger keeps beside each identity its name's key
// (NameSkeleton), so the two meet: a Latin "Copa Pepe" and a Cyrillic
// "Сора Рере", and in capitals, as French documents print names, a Latin
// "THEO TOMAS" and a Cyrillic "ТНЕО ТОМАЅ" (kept apart before issue 44:
// "theo tornas" and "ᴛʜeo ᴛoʍas"), on a file and on PostgreSQL, read back
// by Identities and checked by verify.
func TestLookAlikesMeet(t *testing.T) {
	for _, kind := range []struct{ name, location string }{{"file", copyFixture(t)}, {"shared", pgCopy(t)}} {
		t.Run(kind.name, func(t *testing.T) {
			ctx := context.Background()
			l := mustOpen(t, kind.location)
			l.Now = nil
			b := mustBlock(t, l)
			who := Identity{Desk: "BO", Operator: "eve"}
			ps := ticketsWith(t, l, b, 50000, 2)
			if err := l.SetSetting(ctx, SettingIdentityThreshold, 100, who); err != nil {
				t.Fatal(err)
			}
			ps = append(ps, ticketsWith(t, l, b, 100, 2)...)
			pairs := [][2]string{{"Copa Pepe", "Сора Рере"}, {"THEO TOMAS", "ТНЕО ТОМАЅ"}} // Latin; Cyrillic look-alike
			names := map[int64]string{}
			for i, p := range ps {
				name := pairs[i/2][i%2]
				c, err := l.Claim(ctx, ClaimRequest{Serial: serialOf(b, p), Method: MethodSerial, Who: who, Limit: NoLimit,
					Winner: &Winner{Name: name, DocType: "permis de conduire", DocNumber: fmt.Sprintf("19AZ7186%d", 4+i)}})
				if err != nil {
					t.Fatal(err)
				}
				names[c.Entry] = name
			}
			ids, err := l.Identities(ctx)
			if err != nil || len(ids) != 4 {
				t.Fatalf("identities: %v %v", ids, err)
			}
			kept := map[string]string{}
			for entry, name := range names {
				w := ids[entry]
				if w.Name != name || w.Skeleton == "" || w.Skeleton != core.NameSkeleton(name) {
					t.Errorf("entry %d: kept %+v, want %q with its key %q", entry, w, name, core.NameSkeleton(name))
				}
				kept[name] = w.Skeleton
			}
			for _, p := range pairs {
				if kept[p[0]] != kept[p[1]] {
					t.Errorf("the look-alikes %q and %q are kept apart: keys %q, %q", p[0], p[1], kept[p[0]], kept[p[1]])
				}
			}
			if rep, err := journalOnly(l); err != nil || !rep.OK() {
				t.Errorf("verify: %v %v", rep.Problems, err)
			}
		})
	}
}

// An identity kept before issue 44 holds the key of then (the skeleton of
// its name in lower case): verify accepts it, Identities gives the key of
// now, so it meets its look-alikes paid since; a key that is neither is
// reported.
func TestLegacySkeletonVerifies(t *testing.T) {
	ctx := context.Background()
	path := copyFixture(t)
	l := mustOpen(t, path)
	b := mustBlock(t, l)
	who := Identity{Desk: "BO", Operator: "eve"}
	p := ticketsWith(t, l, b, 50000, 1)[0]
	c, err := l.Claim(ctx, ClaimRequest{Serial: serialOf(b, p), Method: MethodSerial, Who: who, Limit: NoLimit,
		Winner: &Winner{Name: "ТНЕО ТОМАЅ", DocType: "permis de conduire", DocNumber: "19AZ71864"}})
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	legacy := core.LegacyNameSkeleton("ТНЕО ТОМАЅ")
	if legacy == core.NameSkeleton("ТНЕО ТОМАЅ") {
		t.Fatalf("the key of before is the key of now: %q", legacy)
	}
	alterUnderTrigger(t, path, "identities_no_update", fmt.Sprintf("UPDATE identities SET skeleton = '%s' WHERE claim = %d", legacy, c.Entry))
	l = mustOpen(t, path)
	if rep, err := journalOnly(l); err != nil || !rep.OK() {
		t.Errorf("verify of a key kept before issue 44: %v %v", rep.Problems, err)
	}
	if ids, err := l.Identities(ctx); err != nil || ids[c.Entry].Skeleton != core.NameSkeleton("THEO TOMAS") {
		t.Errorf("identities: %+v %v, want the key %q", ids[c.Entry], err, core.NameSkeleton("THEO TOMAS"))
	}
	l.Close()
	alterUnderTrigger(t, path, "identities_no_update", fmt.Sprintf("UPDATE identities SET skeleton = 'mallory' WHERE claim = %d", c.Entry))
	l = mustOpen(t, path)
	if rep, err := journalOnly(l); err != nil || len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0].What, `keeps the skeleton "mallory"`) {
		t.Errorf("verify of a forged key: %v %v", rep.Problems, err)
	}
}
