package paper

import (
	"bytes"
	"strings"
	"testing"

	"vegas-desk/internal/game"
)

func TestCertificate(t *testing.T) {
	c := Certificate{
		Game: 531, GameName: "VEGAS", Block: 1,
		Tickets:     game.BlockSize,
		Digest:      "3a7bd3e2360a3d29eea436fcfb7e44c735d117c42d1c1835420b6b9942dd4f1b",
		GeneratedAt: at(1, 10, 0, 0),
		PublicKey:   "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
		Signature: "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155" +
			"5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
		PrintedAt: at(2, 9, 0, 0),
	}
	for _, p := range game.PrizeTable {
		c.Prizes = append(c.Prizes, Prize{Amount: p.Prize, Count: p.Count})
	}
	text := pdfText(t, write(t, func(w *bytes.Buffer) error { return WriteCertificate(w, c) }))
	golden(t, "certificate.txt", text)
	if got := pages(text); got != 1 {
		t.Errorf("%d pages, want 1", got)
	}
	for _, want := range []string{
		"524 722", "4 200 000 €", "CINQUANTE MILLE EUROS",
		"--key d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
		"5fb88215 90a33bac c61e3970 1cf9b46b d25bf5f0 595bbe24 65514143 8e7a100b",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in the certificate", want)
		}
	}
}
