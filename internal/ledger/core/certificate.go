package core

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
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
	if c.Block.Game < game.MinGameCode || c.Block.Number < 1 || c.Block.Tickets < 0 || c.GameName == "" || c.SignedAt.IsZero() || len(c.Counts) == 0 {
		return Certificate{}, errors.New("a field of the certificate is missing or damaged")
	}
	return c, nil
}
