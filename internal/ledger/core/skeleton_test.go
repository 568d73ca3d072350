package core

import (
	"crypto/sha256"
	"fmt"
	"testing"

	"github.com/mtibben/confusables"
)

// The skeletons a ledger keeps beside a winner's name are upstream
// confusables' to the byte: the patched copy (third_party/confusables, a
// sorted table where upstream built a map at every start) gives the same
// skeleton for every rune up to U+2FFFF, alone and between letters, as
// upstream v0.0.0-20210201002637-9d1b0723b659 gave (its digest, taken
// once), and for names.
func TestSkeletonsAsUpstream(t *testing.T) {
	h := sha256.New()
	for r := rune(1); r < 0x30000; r++ {
		fmt.Fprintf(h, "%q\n", confusables.Skeleton(string(r)+"a"+string(r)))
	}
	for _, s := range []string{"Jean Dupont", "Сора", "Copa", "ρ⍺у𝓅𝒂ן", "JEAN"} {
		fmt.Fprintf(h, "%q\n", confusables.Skeleton(s))
	}
	if got := fmt.Sprintf("%x", h.Sum(nil)); got != "ed97657aef1b4352949b7cb0bb4479b13d6b3af5713c0a7375d612b184940595" {
		t.Errorf("skeletons' digest %s, not upstream's", got)
	}
	for name, skeleton := range map[string]string{"Сора": "copa", "Copa": "copa", "JEAN": "jean", "Jean Dupont": "jean dupont"} {
		if got := NameSkeleton(name); got != skeleton {
			t.Errorf("NameSkeleton(%q) = %q, want %q", name, got, skeleton)
		}
	}
}
