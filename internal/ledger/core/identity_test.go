package core

import (
	"errors"
	"strings"
	"testing"
	"time"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// NameSkeleton reaches its key in fewer than maxSkeletonRounds rounds for
// every letter and mark of Unicode, and the key of a key is itself: two
// look-alikes that meet stay met however often the key is taken.
func TestNameSkeletonFixed(t *testing.T) {
	for r := rune(1); r <= unicode.MaxRune; r++ {
		if !unicode.In(r, unicode.L, unicode.M, unicode.N) {
			continue
		}
		s := "a" + string(r) // a mark alone is no text
		k, rounds := norm.NFKD.String(IdentityText(s)), 0
		for ; rounds < maxSkeletonRounds; rounds++ {
			next := skeletonRound(k)
			if next == k {
				break
			}
			k = next
		}
		if rounds >= maxSkeletonRounds-1 {
			t.Errorf("%U: %d rounds", r, rounds)
		}
		if key := NameSkeleton(s); NameSkeleton(key) != key {
			t.Errorf("%U %q: key %q, whose key is %q", r, s, key, NameSkeleton(key))
		}
	}
}

// What a payment's day says of an identity read from its zone: a minor,
// an expired document are refused, the day of the 18th birthday and the
// last day of validity paid; a typed one says nothing of either.
func TestCheckAt(t *testing.T) {
	minor := &Winner{MRZ: "IDFRAR8WN3CTJ63<<<<<<<<<<<<<<<\n1005220M3205220FRA<<<<<<<<<<<0\nPETIT<<LUCAS<<<<<<<<<<<<<<<<<<"}
	expired := &Winner{MRZ: "IDFRAH5QZ7VDM26<<<<<<<<<<<<<<<\n7001017F2401014FRA<<<<<<<<<<<8\nBERNARD<<CLAIRE<<<<<<<<<<<<<<<"}
	old := &Winner{MRZ: "IDFRADUPONT<<<<<<<<<<<<<<<<<<<931021\n8806931028579JEAN<<MARC<<<<6504223M2"}
	day := func(s string) time.Time {
		t, _ := time.ParseInLocation("2006-01-02 15:04", s, time.Local)
		return t
	}
	for _, c := range []struct {
		w    *Winner
		at   string
		want error
	}{
		{minor, "2026-12-07 10:00", ErrMinor},
		{minor, "2028-05-21 23:59", ErrMinor},
		{minor, "2028-05-22 00:01", nil},
		{expired, "2023-12-31 12:00", nil},
		{expired, "2024-01-01 23:00", nil},
		{expired, "2024-01-02 08:00", ErrDocumentExpired},
		{expired, "2026-12-07 10:00", ErrDocumentExpired},
		{old, "1998-06-30 10:00", nil}, // issued June 1988: 10 years
		{old, "1998-07-01 10:00", ErrDocumentExpired},
		{&Winner{Name: "Jean Dupont", DocType: "permis de conduire", DocNumber: "19AZ71864"}, "2026-12-07 10:00", nil},
	} {
		err := c.w.CheckAt(day(c.at))
		if c.want == nil && err != nil || c.want != nil && !errors.Is(err, c.want) {
			t.Errorf("%.20q at %s: %v, want %v", c.w.MRZ, c.at, err, c.want)
		}
	}
	err := minor.CheckAt(day("2026-12-07 10:00"))
	if err == nil || !strings.Contains(err.Error(), "born on 22/05/2010, the winner is 16 on 07/12/2026") {
		t.Errorf("the minor's refusal: %v", err)
	}
}
