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
)

// Claims come home: a counter ledger exports its whole journal (the
// payments with every refused attempt between them, each with its hash) as
// JSON Lines, and the back office imports it (backoffice.ImportClaims).
// This is the format of that file.

// CounterJournalFormat is the first line's "format" of a counter's export.
const CounterJournalFormat = "vegas-desk counter journal 1"

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

// Entry is the journal entry of an export line.
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
	h, err := hex.DecodeString(x.Hash)
	if err != nil || len(h) != 32 {
		return e, fmt.Errorf("hash %q is not 64 hexadecimal digits", x.Hash)
	}
	e.Hash = h
	return e, nil
}

// ReadExport reads a counter's export.
func ReadExport(r io.Reader) (ExportHeader, []ExportEntry, error) {
	var hdr ExportHeader
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	var xs []ExportEntry
	line := 0
	for sc.Scan() {
		line++
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		var err error
		if line == 1 {
			err = dec.Decode(&hdr)
			if err == nil && hdr.Format != CounterJournalFormat {
				err = fmt.Errorf("format %q, want %q", hdr.Format, CounterJournalFormat)
			}
		} else {
			var x ExportEntry
			err = dec.Decode(&x)
			xs = append(xs, x)
		}
		if err != nil {
			return hdr, nil, fmt.Errorf("import: line %d: %v: give the file a counter ledger wrote with vegas-desk claims --jsonl", line, err)
		}
	}
	if err := sc.Err(); err != nil {
		return hdr, nil, fmt.Errorf("import: %w", err)
	}
	if line == 0 {
		return hdr, nil, errors.New("import: the file is empty: give the file a counter ledger wrote with vegas-desk claims --jsonl")
	}
	return hdr, xs, nil
}

// SealDigest is the SHA-256 of a counter ledger's signed seal, in hex.
func SealDigest(seal string) string {
	d := sha256.Sum256([]byte(seal))
	return hex.EncodeToString(d[:])
}
