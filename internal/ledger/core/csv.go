package core

import (
	"encoding/csv"
	"io"
	"strconv"
	"strings"
	"time"
)

// WriteCSV writes claims as CSV with a header line: number, at, serial,
// game, block, position, amount, desk, operator, method, voided,
// void_reason, voided_by, voided_at. Times are RFC 3339; voided_at is
// empty when the claim stands. A cell that a spreadsheet would read as a
// formula (=, +, -, @) is neutralised. The winners' identities are not in
// it (WriteCSVWithIdentity).
func WriteCSV(w io.Writer, claims []Claim) error { return writeClaimsCSV(w, claims, nil) }

// WriteCSVWithIdentity is WriteCSV with four more columns, winner_name,
// winner_doc, winner_doc_number and winner_skeleton (kept beside the name: NameSkeleton, the
// look-alikes of one name have the same), from ids (Identities), empty
// for a payment without one. Personal data: only when asked for.
func WriteCSVWithIdentity(w io.Writer, claims []Claim, ids map[int64]Winner) error {
	if ids == nil {
		ids = map[int64]Winner{}
	}
	return writeClaimsCSV(w, claims, ids)
}

func writeClaimsCSV(w io.Writer, claims []Claim, ids map[int64]Winner) error {
	cw := csv.NewWriter(w)
	header := []string{"number", "at", "serial", "game", "block", "position", "amount", "desk", "operator", "method", "voided", "void_reason", "voided_by", "voided_at"}
	if ids != nil {
		header = append(header, "winner_name", "winner_doc", "winner_doc_number", "winner_skeleton")
	}
	cw.Write(header)
	for _, cl := range claims {
		va := ""
		if cl.Voided {
			va = cl.VoidedAt.Format(time.RFC3339)
		}
		row := []string{strconv.FormatInt(cl.Number, 10), cl.At.Format(time.RFC3339), cl.Serial,
			strconv.Itoa(cl.Game), strconv.Itoa(cl.Block), strconv.Itoa(cl.Position), strconv.Itoa(cl.Amount),
			cl.Desk, cl.Operator, cl.Method, strconv.FormatBool(cl.Voided), cl.VoidReason, cl.VoidedBy, va}
		if ids != nil {
			id := ids[cl.Entry]
			row = append(row, id.Name, id.DocType, id.DocNumber, id.Skeleton)
		}
		for i := range row {
			row[i] = CSVCell(row[i])
		}
		cw.Write(row)
	}
	cw.Flush()
	return cw.Error()
}

// CSVCell returns s ready for a CSV cell that a spreadsheet may open: a
// cell beginning with =, +, -, @, a tab or a carriage return gets a single
// quote in front, so that the spreadsheet shows it as text instead of
// running it as a formula (CSV injection: a desk id or a reason typed as
// =HYPERLINK(…) or -2+3+cmd|…). Any CSV writer of this app should pass
// every cell of outside text through it; numbers it formats itself need
// it only when they can be negative.
func CSVCell(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}
