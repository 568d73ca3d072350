package core

import (
	"errors"
	"fmt"
	"strconv"
	"vegas-desk/internal/game"
	"vegas-desk/internal/signing"
)

// ParseCertificate reads a block certificate's signed text (already
// checked by signing.Verify).
func ParseCertificate(s *signing.Signed) (Certificate, error) {
	if s.Kind != "vegas-desk block certificate 1" {
		return Certificate{}, fmt.Errorf("%q is not a block certificate", s.Kind)
	}
	c := Certificate{Text: s.Text, PublicKey: s.Key.String()}
	num := func(name string) int {
		v, _ := s.Get(name)
		n, err := strconv.Atoi(v)
		if err != nil {
			return -1
		}
		return n
	}
	str := func(name string) string {
		v, _ := s.Get(name)
		u, err := signing.Unquote(v)
		if err != nil {
			return ""
		}
		return u
	}
	c.Block = Block{Game: num("game"), Number: num("block"), Tickets: num("tickets"), PackSize: num("pack_size"),
		Winners: num("winners"), Payout: num("payout"), CreatedAt: ParseTime(str("generated_at"))}
	c.Block.Digest, _ = s.Get("digest")
	c.GameName = str("game_name")
	c.SignedAt = ParseTime(str("signed_at"))
	for _, p := range s.All("prize") {
		var t TierLine
		if _, err := fmt.Sscanf(p, "%d %d", &t.Prize, &t.Generated); err != nil {
			return Certificate{}, fmt.Errorf("prize line %q: %w", p, err)
		}
		c.Counts = append(c.Counts, t)
	}
	if c.Block.Game < game.MinGameCode || c.Block.Number < 1 || c.Block.Tickets < 0 || c.GameName == "" || c.SignedAt.IsZero() || len(c.Counts) == 0 {
		return Certificate{}, errors.New("a field of the certificate is missing or damaged")
	}
	return c, nil
}
