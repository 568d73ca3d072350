package sqlite

import (
	"cmp"
	"database/sql"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"slices"

	"vegas-desk/internal/ledger/core"
)

// A file in WAL mode whose -wal and -shm files are gone (its last
// connection, a writer or sqlite3, closed it cleanly) is checked before a
// read-only connection opens it, as that connection makes them: a file
// refused must be left without them. That check was a connection of its
// own, immutable, which parsed the schema and ran five statements before
// the connection that reads parsed it again (issue 38: a third of a lookup
// process's SQLite work, every time sqlite3 had read the file in between).
// rawSchemaMatches makes it from the file's bytes instead: its header and
// the sqlite_master rows of its page 1, where a ledger's schema fits. It
// only lets the read-only connection open at once; that connection checks
// the version and schema again, in SQLite, as every open does
// (checkVersion). Anything it cannot read for sure (a schema past page 1, a
// record that overflows, another text encoding) is left to the check
// through SQLite, which names what is wrong.

// rawSchemaMatches reports whether the file at path, with nothing in a WAL,
// is a ledger of kind k and of this version, with exactly k's schema
// (masterDigest), from its bytes alone. False says only that a connection
// must check it.
func rawSchemaMatches(path string, k Kind) bool {
	if st, err := os.Stat(path + "-wal"); err == nil && st.Size() > 0 {
		return false // the WAL may hold a newer page 1
	}
	s, ok := rawSchema(path)
	return ok && s.version == core.SchemaVersion && s.app == k.AppID && masterDigest(s.master) == k.Schema.Digest
}

// rawFile is what a file's header and page 1 say: its version
// (user_version), its kind (application_id) and sqlite_master, in
// masterQuery's order.
type rawFile struct {
	version int
	app     uint32
	master  []masterRow
}

// rawSchema reads the header and the sqlite_master rows of page 1 of the
// SQLite file at path, in SQLite's file format
// (https://www.sqlite.org/fileformat2.html); ok is false when page 1 is
// not the whole of sqlite_master, a row is not as SQLite writes one, or
// anything else it cannot read for sure.
func rawSchema(path string) (rawFile, bool) {
	f, err := os.Open(path)
	if err != nil {
		return rawFile{}, false
	}
	defer f.Close()
	var hdr [100]byte
	if _, err := io.ReadFull(f, hdr[:]); err != nil || string(hdr[:16]) != "SQLite format 3\x00" {
		return rawFile{}, false
	}
	size := int(binary.BigEndian.Uint16(hdr[16:]))
	if size == 1 {
		size = 65536
	}
	if size < 512 || size&(size-1) != 0 || binary.BigEndian.Uint32(hdr[56:]) != 1 { // 1: UTF-8
		return rawFile{}, false
	}
	// The header's other fields as a ledger's are, which SQLite reads
	// before its schema: WAL's read and write versions (2, 2), no reserved
	// bytes, the payload fractions it requires (64, 32, 32), a schema
	// format it knows (1 to 4). Any other file is SQLite's to judge
	// (FuzzRawSchema found a file of read version 0x30 passed here and
	// refused by SQLite).
	if hdr[18] != 2 || hdr[19] != 2 || hdr[20] != 0 || hdr[21] != 64 || hdr[22] != 32 || hdr[23] != 32 {
		return rawFile{}, false
	}
	if f := binary.BigEndian.Uint32(hdr[44:]); f < 1 || f > 4 {
		return rawFile{}, false
	}
	// The header's page count, which SQLite trusts when the header is
	// current (its change counter is the one the count is valid for), is
	// the file's: else SQLite judges (the fuzzer gave a count past the end).
	st, err := f.Stat()
	if err != nil || binary.BigEndian.Uint32(hdr[24:]) != binary.BigEndian.Uint32(hdr[92:]) ||
		int64(binary.BigEndian.Uint32(hdr[28:]))*int64(size) != st.Size() {
		return rawFile{}, false
	}
	page := make([]byte, size)
	if _, err := f.ReadAt(page, 0); err != nil && !errors.Is(err, io.EOF) {
		return rawFile{}, false
	}
	usable := size - int(hdr[20])
	master, ok := leafRows(page, usable)
	if !ok {
		return rawFile{}, false
	}
	return rawFile{version: int(binary.BigEndian.Uint32(hdr[60:])), app: binary.BigEndian.Uint32(hdr[68:]), master: master}, true
}

// leafRows reads the rows of page 1 as sqlite_master's whole table: a leaf
// page of the table's b-tree, each record local (no overflow page) and of
// sqlite_master's five columns; sorted by type then name, as masterQuery
// (BINARY collation: bytes), and false when two rows share both.
func leafRows(page []byte, usable int) ([]masterRow, bool) {
	const at = 100 // the b-tree page header follows the file header
	if usable < 480 || len(page) < at+8 || page[at] != 0x0d {
		return nil, false // not a table leaf: the schema spans pages
	}
	n := int(binary.BigEndian.Uint16(page[at+3:]))
	if at+8+2*n > len(page) {
		return nil, false
	}
	maxLocal := usable - 35
	rows := make([]masterRow, 0, n)
	for i := range n {
		off := int(binary.BigEndian.Uint16(page[at+8+2*i:]))
		payload, v := varint(page, off)
		if v == 0 {
			return nil, false
		}
		_, w := varint(page, off+v) // the rowid
		if w == 0 || payload > uint64(maxLocal) {
			return nil, false // or it overflows to other pages
		}
		start := off + v + w
		if start+int(payload) > usable {
			return nil, false
		}
		r, ok := masterRecord(page[start : start+int(payload)])
		if !ok {
			return nil, false
		}
		rows = append(rows, r)
	}
	slices.SortFunc(rows, func(a, b masterRow) int {
		return cmp.Or(cmp.Compare(a.Type, b.Type), cmp.Compare(a.Name, b.Name))
	})
	for i := 1; i < len(rows); i++ {
		if rows[i].Type == rows[i-1].Type && rows[i].Name == rows[i-1].Name {
			return nil, false // SQLite's order of the two is its own
		}
	}
	return rows, true
}

// masterRecord reads a record of sqlite_master: type, name and tbl_name
// texts, rootpage an integer, sql a text or NULL.
func masterRecord(rec []byte) (masterRow, bool) {
	hlen, n := varint(rec, 0)
	if n == 0 || hlen > uint64(len(rec)) {
		return masterRow{}, false
	}
	var types []uint64
	for p := n; p < int(hlen); {
		t, m := varint(rec[:hlen], p)
		if m == 0 {
			return masterRow{}, false
		}
		types = append(types, t)
		p += m
	}
	if len(types) != 5 {
		return masterRow{}, false
	}
	body := rec[hlen:]
	var texts [5]sql.NullString
	for i, t := range types {
		var size int
		switch {
		case t <= 4:
			size = int(t) // NULL, or an integer of 1 to 4 bytes
		case t == 5:
			size = 6
		case t == 6 || t == 7:
			size = 8
		case t == 8 || t == 9:
			size = 0
		case t >= 13 && t%2 == 1:
			size = int((t - 13) / 2)
		default:
			return masterRow{}, false // a blob, or a reserved type
		}
		if size > len(body) {
			return masterRow{}, false
		}
		text := t >= 13
		switch {
		case i == 3 && (text || t == 7):
			return masterRow{}, false // rootpage: an integer
		case i != 3 && text:
			texts[i] = sql.NullString{String: string(body[:size]), Valid: true}
		case i < 3 || i == 4 && t != 0:
			return masterRow{}, false // type, name, tbl_name: texts; sql: a text or NULL
		}
		body = body[size:]
	}
	if len(body) != 0 {
		return masterRow{}, false
	}
	return masterRow{Type: texts[0].String, Name: texts[1].String, TblName: texts[2].String, SQL: texts[4]}, true
}

// varint reads SQLite's variable-length integer at b[p:]: its value and
// length, 0 when b ends first.
func varint(b []byte, p int) (uint64, int) {
	var v uint64
	for i := range 9 {
		if p+i >= len(b) {
			return 0, 0
		}
		c := b[p+i]
		if i == 8 {
			return v<<8 | uint64(c), 9
		}
		v = v<<7 | uint64(c&0x7f)
		if c < 0x80 {
			return v, i + 1
		}
	}
	return 0, 0
}
