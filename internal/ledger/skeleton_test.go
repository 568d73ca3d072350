package ledger

import (
	"context"
	"testing"
)

// Issue 29: a Cyrillic look-alike of a Latin name has a hash of its own,
// but the ledger keeps beside each identity its name's confusable
// skeleton, so the two meet: the same kept skeleton, on a file and on
// PostgreSQL, read back by Identities and checked by verify.
func TestLookAlikesMeet(t *testing.T) {
	for _, kind := range []struct{ name, location string }{{"file", copyFixture(t)}, {"shared", pgCopy(t)}} {
		t.Run(kind.name, func(t *testing.T) {
			ctx := context.Background()
			l := mustOpen(t, kind.location)
			l.Now = nil
			b := mustBlock(t, l)
			who := Identity{Desk: "BO", Operator: "eve"}
			ps := ticketsWith(t, l, b, 50000, 2)
			names := []string{"Copa Pepe", "Сора Рере"} // Latin; Cyrillic look-alike
			numbers := map[int64]string{}
			for i, p := range ps {
				c, err := l.Claim(ctx, ClaimRequest{Serial: serialOf(b, p), Method: MethodSerial, Who: who, Limit: NoLimit,
					Winner: &Winner{Name: names[i], DocType: "CNI", DocNumber: "X4RTBPFW" + string(rune('4'+i))}})
				if err != nil {
					t.Fatal(err)
				}
				numbers[c.Entry] = names[i]
			}
			ids, err := l.Identities(ctx)
			if err != nil || len(ids) != 2 {
				t.Fatalf("identities: %v %v", ids, err)
			}
			var skeletons []string
			for entry, name := range numbers {
				w := ids[entry]
				if w.Name != name || w.Skeleton == "" || w.Skeleton != NameSkeleton(name) {
					t.Errorf("entry %d: kept %+v, want %q with its skeleton %q", entry, w, name, NameSkeleton(name))
				}
				skeletons = append(skeletons, w.Skeleton)
			}
			if skeletons[0] != skeletons[1] {
				t.Errorf("the look-alikes' kept skeletons differ: %q, %q", skeletons[0], skeletons[1])
			}
			if rep, err := l.Verify(ctx, 0, 0, nil); err != nil || !rep.OK() {
				t.Errorf("verify: %v %v", rep.Problems, err)
			}
		})
	}
}
