package core

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
)

// Claims come home: a counter ledger exports its whole journal (the
// payments with every refused attempt between them, each with its hash) as
// JSON Lines, and the back office imports it (backoffice.ImportClaims).
// This is the format of that file.

// CounterJournalFormat is the first line's "format" of a counter's export.
const CounterJournalFormat = "vegas-desk counter journal 2"

// ExportHeader is the first line of a counter's export.
type ExportHeader struct {
	Format     string `json:"format"`
	Ledger     string `json:"ledger"`
	BackOffice string `json:"back_office"`
	Desk       string `json:"desk"`
	Seal       string `json:"seal"` // SHA-256 of the signed seal, hex
}

// ExportEntry is one journal entry of a counter's export: every column of
// the journal (the canonical text's), its hash, and a payment's winner's
// identity when one was recorded.
type ExportEntry struct {
	ID        int64   `json:"id"`
	Kind      string  `json:"kind"`
	At        string  `json:"at"`
	Number    int64   `json:"number"`
	Ticket    *int64  `json:"ticket"`
	Serial    string  `json:"serial"`
	Game      int     `json:"game"`
	Block     int     `json:"block"`
	Position  int     `json:"position"`
	PackFirst int     `json:"pack_first"`
	PackLast  int     `json:"pack_last"`
	State     string  `json:"state"`
	Amount    int     `json:"amount"`
	Desk      string  `json:"desk"`
	Operator  string  `json:"operator"`
	Method    string  `json:"method"`
	Ref       *int64  `json:"ref"`
	Request   string  `json:"request"`
	Reason    string  `json:"reason"`
	Detail    string  `json:"detail"`
	Hash      string  `json:"hash"`
	Winner    *Winner `json:"winner,omitempty"`
}

// Entry is the journal entry of an export line, its fields checked as a
// counter's ledger writes them: a kind a counter's journal holds, texts as
// a question takes them (CheckText: an operator, a desk, a request id, a
// method and a reason of at most MaxText characters; a winner's identity
// of MaxIdentity), a time in the ledger's form, a hash of 32 bytes.
func (x *ExportEntry) Entry() (Entry, error) {
	e := Entry{ID: x.ID, Kind: x.Kind, AtText: x.At, Number: x.Number, Serial: x.Serial, Game: x.Game, Block: x.Block,
		Position: x.Position, PackFirst: x.PackFirst, PackLast: x.PackLast, State: x.State, Amount: x.Amount, Desk: x.Desk,
		Operator: x.Operator, Method: x.Method, Request: x.Request, Reason: x.Reason, Detail: x.Detail, At: ParseTime(x.At)}
	if x.Ticket != nil {
		e.Ticket = sql.NullInt64{Int64: *x.Ticket, Valid: true}
	}
	if x.Ref != nil {
		e.Ref = sql.NullInt64{Int64: *x.Ref, Valid: true}
	}
	methods := map[string][]string{"issue": {""}, "claim": {MethodSerial, MethodContents},
		"refusal": {"lookup", "claim", "contents"}, "referral": {MethodSerial, MethodContents}}
	ms, ok := methods[x.Kind]
	switch {
	case !ok:
		return e, fmt.Errorf("kind %q: a counter's journal holds issue, claim, refusal and referral entries", x.Kind)
	case !slices.Contains(ms, x.Method):
		return e, fmt.Errorf("method %q: a %s entry's is one of %q", x.Method, x.Kind, ms)
	}
	if e.At.IsZero() || FormatTime(e.At) != x.At {
		return e, fmt.Errorf("time %q: not a time as a ledger writes it", x.At)
	}
	for _, f := range []struct {
		name, text string
		max        int
	}{{"operator", x.Operator, MaxText}, {"desk", x.Desk, MaxText}, {"request id", x.Request, MaxText},
		{"method", x.Method, MaxText}, {"reason", x.Reason, MaxText}, {"state", x.State, MaxText},
		{"serial", x.Serial, MaxText}, {"detail", x.Detail, 4 * MaxText}} {
		if err := CheckText(f.name, f.text, f.max); err != nil {
			return e, err
		}
	}
	if w := x.Winner; w != nil {
		for _, f := range [][2]string{{"winner's name", w.Name}, {"identity document", w.DocType}, {"document number", w.DocNumber}} {
			if err := CheckText(f[0], f[1], MaxIdentity); err != nil {
				return e, err
			}
		}
	}
	h, err := hex.DecodeString(x.Hash)
	if err != nil || len(h) != 32 {
		return e, fmt.Errorf("hash %q is not 64 hexadecimal digits", x.Hash)
	}
	e.Hash = h
	return e, nil
}

// The bounds of a counter's export: what a counter ledger writes is far
// smaller (an entry's line, a few hundred bytes; a counter ledger's
// journal, thousands of entries), and an import reads no more.
const (
	MaxExportLine = 16 << 10 // bytes
	MaxExportSize = 64 << 20 // bytes
)

// ExportReader reads a counter's export line by line, holding one line:
// Header first, then Next until io.EOF.
type ExportReader struct {
	sc   *bufio.Scanner
	cr   *countingReader
	line int
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	if c.n >= MaxExportSize {
		return 0, fmt.Errorf("the file is larger than %d MB, which no counter ledger's export is: give the file a counter ledger wrote with vegas-desk claims --jsonl", MaxExportSize>>20)
	}
	p = p[:min(int64(len(p)), MaxExportSize-c.n)]
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// NewExportReader reads r.
func NewExportReader(r io.Reader) *ExportReader {
	cr := &countingReader{r: r}
	sc := bufio.NewScanner(cr)
	sc.Buffer(make([]byte, 4096), MaxExportLine)
	return &ExportReader{sc: sc, cr: cr}
}

// next decodes the next line that is not blank into v.
func (rd *ExportReader) next(v any) error {
	for rd.sc.Scan() {
		rd.line++
		if len(bytes.TrimSpace(rd.sc.Bytes())) == 0 {
			continue
		}
		line := bytes.TrimSpace(rd.sc.Bytes())
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		err := dec.Decode(v)
		if err == nil && !bytes.Equal(canonicalJSON(v), line) {
			// Another tool could read another value from a key twice, a
			// key of other case, or more after the object.
			err = errors.New("not written as a counter ledger writes its lines (a key twice or of other case, or more after the entry)")
		}
		if err != nil {
			return fmt.Errorf("import: line %d: %v: give the file a counter ledger wrote with vegas-desk claims --jsonl", rd.line, err)
		}
		return nil
	}
	switch err := rd.sc.Err(); {
	case errors.Is(err, bufio.ErrTooLong):
		return fmt.Errorf("import: line %d is longer than %d KB, which no counter ledger writes: give the file a counter ledger wrote with vegas-desk claims --jsonl", rd.line+1, MaxExportLine>>10)
	case err != nil:
		return fmt.Errorf("import: %w", err)
	}
	return io.EOF
}

// canonicalJSON is v as a counter ledger's export writes it (ExportJournal:
// json.Encoder, no HTML escapes), without the newline.
func canonicalJSON(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// Header reads the first line.
func (rd *ExportReader) Header() (ExportHeader, error) {
	var hdr ExportHeader
	err := rd.next(&hdr)
	switch {
	case errors.Is(err, io.EOF):
		return hdr, errors.New("import: the file is empty: give the file a counter ledger wrote with vegas-desk claims --jsonl")
	case err == nil && hdr.Format != CounterJournalFormat:
		return hdr, fmt.Errorf("import: format %q, want %q: give the file a counter ledger wrote with vegas-desk claims --jsonl", hdr.Format, CounterJournalFormat)
	}
	return hdr, err
}

// Next reads the next entry, its fields checked (Entry); io.EOF after the
// last.
func (rd *ExportReader) Next() (Entry, *Winner, error) {
	var x ExportEntry
	if err := rd.next(&x); err != nil {
		return Entry{}, nil, err
	}
	e, err := x.Entry()
	if err != nil {
		return e, nil, fmt.Errorf("import: line %d (entry %d): %w: not what a counter ledger writes", rd.line, x.ID, err)
	}
	return e, x.Winner, nil
}

// SealDigest is the SHA-256 of a counter ledger's signed seal, in hex.
func SealDigest(seal string) string {
	d := sha256.Sum256([]byte(seal))
	return hex.EncodeToString(d[:])
}
