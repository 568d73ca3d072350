package mrz_test

import (
	"testing"
	"time"

	"vegas-desk/internal/mrz"
	"vegas-desk/internal/mrz/mrztest"
)

// The zones mrztest makes read, and read as made: the French card's
// specimen and ICAO's Utopia passport, check digits and all.
func TestMade(t *testing.T) {
	day := func(y, m, d int) time.Time { return time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC) }
	for text, want := range map[string]string{
		mrztest.Card("X4RTBPFW4", "MARTIN<<MAELYS<GAELLE<MARIE", day(1990, 7, 13), day(2030, 2, 11)):     "IDFRAX4RTBPFW46<<<<<<<<<<<<<<<\n9007138F3002119FRA<<<<<<<<<<<6\nMARTIN<<MAELYS<GAELLE<MARIE<<<",
		mrztest.Passport("UTO", "L898902C3", "ERIKSSON<<ANNA<MARIA", day(1974, 8, 12), day(2012, 4, 15)): "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<\nL898902C36UTO7408122F1204159<<<<<<<<<<<<<<<8",
	} {
		if d, err := mrz.Parse(text); err != nil || text != want {
			t.Errorf("made %q, want %q: %+v %v", text, want, d, err)
		}
	}
}
