package core

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"vegas-desk/internal/game"
	"vegas-desk/internal/signing"
)

// MaxSignedText bounds a signed text read from a file: a certificate's is
// a few hundred bytes.
const MaxSignedText = 1 << 20

// AttachedText returns the signed text attached to a block certificate's
// PDF (the embedded file paper.WriteCertificate writes: its stream,
// deflated). The PDF may come from anyone: the length its stream claims is
// checked against the bytes that follow, and the text against
// MaxSignedText; whatever is wrong, an error says what.
func AttachedText(pdf []byte) ([]byte, error) {
	notOurs := errors.New("the PDF holds no signed text: it is not a certificate vegas-desk printed")
	const dict = "/Type /EmbeddedFile /Length "
	i := bytes.Index(pdf, []byte(dict))
	if i < 0 {
		return nil, notOurs
	}
	rest := pdf[i+len(dict):]
	end := 0
	for end < len(rest) && (rest[end] == '-' || rest[end] == '+' || '0' <= rest[end] && rest[end] <= '9') {
		end++
	}
	claim := string(rest[:end])
	rest, ok := bytes.CutPrefix(rest[end:], []byte(" /Filter /FlateDecode"))
	nl := bytes.IndexByte(rest, '\n')
	if !ok || nl < 0 {
		return nil, notOurs
	}
	rest, ok = bytes.CutPrefix(bytes.TrimLeft(rest[nl:], "\n"), []byte("stream"))
	if ok {
		rest, ok = bytes.CutPrefix(bytes.TrimPrefix(rest, []byte("\r")), []byte("\n"))
	}
	if !ok {
		return nil, notOurs
	}
	n, err := strconv.ParseInt(claim, 10, 64)
	switch {
	case strings.HasPrefix(claim, "-") && (err == nil || errors.Is(err, strconv.ErrRange)):
		return nil, fmt.Errorf("the PDF's signed text claims a negative length (%.24s bytes): the file was damaged or made by hand", claim)
	case errors.Is(err, strconv.ErrRange) || err == nil && n > int64(len(rest)):
		return nil, fmt.Errorf("the PDF's signed text is cut short: its stream claims %.24s bytes, and %d follow", claim, len(rest))
	case err != nil:
		return nil, fmt.Errorf("the PDF's signed text has no length it can be read by (%q): the file was damaged or made by hand", claim[:min(len(claim), 24)])
	}
	r, err := zlib.NewReader(bytes.NewReader(rest[:n]))
	if err != nil {
		return nil, fmt.Errorf("the PDF's signed text is damaged: %w", err)
	}
	text, err := io.ReadAll(io.LimitReader(r, MaxSignedText+1))
	switch {
	case err != nil:
		return nil, fmt.Errorf("the PDF's signed text is damaged: %w", err)
	case len(text) > MaxSignedText:
		return nil, fmt.Errorf("the PDF's signed text is longer than %d bytes: it is not a certificate vegas-desk printed", MaxSignedText)
	}
	return text, nil
}

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
	var err error
	if c.Drawing, err = parseDrawing(s); err != nil {
		return Certificate{}, err
	}
	if c.Block.Game < game.MinGameCode || c.Block.Number < 1 || c.Block.Tickets < 0 || c.GameName == "" || c.SignedAt.IsZero() || len(c.Counts) == 0 {
		return Certificate{}, errors.New("a field of the certificate is missing or damaged")
	}
	return c, nil
}

// parseDrawing reads a certificate's seed lines (backoffice.DrawingLines):
// nil for a seed chosen by the operator alone ("seed=operator-alone", or
// no seed line in a certificate made before drawn seeds). It reads what
// the lines say; CheckDrawing says whether they make a drawn block.
func parseDrawing(s *signing.Signed) (*Drawing, error) {
	kind, _ := s.Get("seed")
	switch kind {
	case "", "operator-alone":
		if len(s.All("commitment")) > 0 || len(s.All("reveal_hash")) > 0 {
			return nil, errors.New("the certificate says its seed was chosen by the operator alone, yet lists commitments: it was made by hand")
		}
		return nil, nil
	case "drawn":
	default:
		return nil, fmt.Errorf("seed %q: want operator-alone or drawn", kind)
	}
	began, _ := s.Get("generation_began")
	b, err := signing.Unquote(began)
	d := &Drawing{Began: ParseTime(b)}
	if err != nil || d.Began.IsZero() {
		return nil, fmt.Errorf("generation_began %q: not a time", began)
	}
	for _, line := range s.All("commitment") {
		f := strings.Fields(line)
		var p DrawParty
		if len(f) == 3 {
			p.Role = game.Role(f[0])
			p.Commitment, err = game.ParseCommitment(f[1])
			p.RecordedAt = ParseTime(f[2])
		}
		if len(f) != 3 || err != nil || p.RecordedAt.IsZero() {
			return nil, fmt.Errorf("commitment line %q: want the role, the commitment and when it was recorded", line)
		}
		d.Parties = append(d.Parties, p)
	}
	for _, line := range s.All("reveal_hash") {
		role, h, _ := strings.Cut(line, " ")
		// The first commitment line of that role without its hash yet.
		i := slices.IndexFunc(d.Parties, func(p DrawParty) bool { return string(p.Role) == role && p.RevealHash == [32]byte{} })
		c, err := game.ParseCommitment(h)
		if i < 0 || err != nil {
			return nil, fmt.Errorf("reveal_hash line %q: want the role of a commitment line without its reveal hash yet and 64 hexadecimal digits", line)
		}
		d.Parties[i].RevealHash = c
	}
	return d, nil
}

// CheckDrawing says what makes d not a drawn block: not one commitment of
// the operator and one of the auditor, one commitment twice, a commitment
// recorded after the generation began, a party without its reveal's hash.
// Each problem is one string; none: d is a drawing.
func CheckDrawing(d *Drawing) []string {
	var out []string
	roles := map[game.Role]int{}
	for _, p := range d.Parties {
		roles[p.Role]++
	}
	if len(d.Parties) != 2 || roles[game.Operator] != 1 || roles[game.Auditor] != 1 {
		var names []string
		for _, p := range d.Parties {
			names = append(names, string(p.Role))
		}
		out = append(out, fmt.Sprintf("the seed was drawn from %d commitment(s) (%s), not from one of the operator and one of the auditor: no single party may choose it",
			len(d.Parties), strings.Join(names, ", ")))
	}
	if len(d.Parties) == 2 && d.Parties[0].Commitment == d.Parties[1].Commitment {
		out = append(out, fmt.Sprintf("the two commitments are the same (%s)", d.Parties[0].Commitment))
	}
	for _, p := range d.Parties {
		if !p.RecordedAt.Before(d.Began) {
			out = append(out, fmt.Sprintf("the %s's commitment %s was recorded at %s, not before the generation began (%s): whoever knew the other secret could choose it",
				p.Role, p.Commitment, FormatTime(p.RecordedAt), FormatTime(d.Began)))
		}
		if p.RevealHash == ([32]byte{}) {
			out = append(out, fmt.Sprintf("the %s's reveal hash is missing", p.Role))
		}
	}
	return out
}
