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
		"Graine choisie par l'opérateur seul.",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in the certificate", want)
		}
	}
}

// A drawn block's certificate shows the two commitments, when each was
// recorded, the generation's start and the reveals' hashes, on one page.
func TestCertificateDrawn(t *testing.T) {
	c := Certificate{
		Game: 531, GameName: "VEGAS", Block: 2, Tickets: game.BlockSize,
		Digest:      "3a7bd3e2360a3d29eea436fcfb7e44c735d117c42d1c1835420b6b9942dd4f1b",
		GeneratedAt: at(1, 10, 0, 9), PrintedAt: at(2, 9, 0, 0),
		PublicKey: "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
		Signature: strings.Repeat("e5564300", 16),
		Drawing: &Drawing{Began: at(1, 10, 0, 5), Parties: []DrawParty{
			{Role: "operator", Commitment: "def622f33a5b2e25a8d5e0079c508c1a27cc4b38848ca04642019930d24d885b", RecordedAt: at(1, 9, 30, 0),
				RevealHash: "09fca08716adb430a7c64d76a216c8a5278b58c7babf259ce2e8e436b75de150"},
			{Role: "auditor", Commitment: "c0cbd113ad9174298a99b5c94f2b2e46c8dd90ac3869533eb1facd3eb9e48879", RecordedAt: at(1, 9, 45, 0),
				RevealHash: "c4fca7b5e2cbeaee970ca7ba9d33a4034829390748ba015753ef751b01c822c2"},
		}},
	}
	for _, p := range game.PrizeTable {
		c.Prizes = append(c.Prizes, Prize{Amount: p.Prize, Count: p.Count})
	}
	text := pdfText(t, write(t, func(w *bytes.Buffer) error { return WriteCertificate(w, c) }))
	golden(t, "certificate-drawn.txt", text)
	if got := pages(text); got != 1 {
		t.Errorf("%d pages, want 1", got)
	}
	for _, want := range []string{
		"Engagement de l'opérateur, enregistré le jeudi 1er mai 2025 à 09:30:00 (UTC+02:00)",
		"def622f3 3a5b2e25 a8d5e007 9c508c1a 27cc4b38 848ca046 42019930 d24d885b",
		"Empreinte du secret révélé par le contrôleur",
		"c4fca7b5 e2cbeaee 970ca7ba 9d33a403 48293907 48ba0157 53ef751b 01c822c2",
		"--reveal SECRET-OPÉRATEUR,SECRET-CONTRÔLEUR",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in the certificate", want)
		}
	}
	if strings.Contains(text, "opérateur seul") {
		t.Error("a drawn block's certificate says the operator chose its seed alone")
	}
}
