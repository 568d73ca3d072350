// Package paper writes the documents vegas-desk prints, as PDF: the payment
// receipt, a counter's day report, the settlement statement (and its CSV),
// the block certificate and the demonstration sheets.
//
// It knows nothing of SQL or Fyne: the caller fills plain structs (Receipt,
// DayReport, Settlement, Certificate, DemoSheets) and passes an io.Writer.
// The documents are in French, set in the PDF core fonts (Helvetica, and
// Courier for serials and hashes) in the Windows-1252 code page, which holds
// every character French needs (accents on capitals, œ, « », ’, €, the
// non-breaking space). The same input gives the same bytes (for a given Go
// and fpdf): each document's PDF dates come from its input and its
// catalogue is sorted; but the demonstration sheets, whose many pictures of
// one width fpdf numbers in its map's order (they print the same).
package paper

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/go-pdf/fpdf"
	"golang.org/x/text/encoding/charmap"

	"vegas-desk/internal/game"
)

// nbsp is the no-break space a French typesetter puts before : ; ! ? € and
// %, inside « », after n°, and between groups of digits. Windows-1252 has no
// narrow no-break space (U+202F), so the full one stands for both.
const nbsp = "\u00a0"

// Page layout of the A4 documents, in millimetres.
const (
	a4Margin = 15.0
	a4Bottom = 18.0 // the footer sits in it
)

// doc is a PDF being laid out, with the helpers every document uses. All
// text goes through cp1252 on its way to fpdf.
type doc struct {
	pdf *fpdf.Fpdf
	// total is the number of pages of the finished document, printed in
	// the footer ("page 1/2"); 0 while a first pass counts them, and in
	// documents without that footer.
	total int
}

// meta is what the PDF's information dictionary and footer say.
type meta struct {
	title  string    // the PDF title and the left of the footer
	date   time.Time // the PDF creation and modification date
	footer bool      // print "title … page n/N" at the foot of each page
}

// newDoc starts an empty PDF of the given page size in millimetres.
func newDoc(m meta, w, h float64, total int) *doc {
	pdf := fpdf.NewCustom(&fpdf.InitType{UnitStr: "mm", Size: fpdf.SizeType{Wd: w, Ht: h}})
	pdf.SetCatalogSort(true)
	pdf.SetCreationDate(m.date)
	pdf.SetModificationDate(m.date)
	pdf.SetTitle(m.title, true)
	pdf.SetCreator("vegas-desk", true)
	pdf.SetLang("fr-FR")
	pdf.SetCellMargin(0)
	d := &doc{pdf: pdf, total: total}
	if m.footer {
		pdf.SetFooterFunc(func() {
			pdf.SetY(-12)
			d.rule(0.2)
			pdf.SetY(-11)
			d.font("", 7.5)
			pdf.SetTextColor(80, 80, 80)
			n := fmt.Sprintf("page %d/%d", pdf.PageNo(), d.total)
			nw := d.width(n) + 2
			d.cell(d.textWidth()-nw, 5, d.fit(m.title, d.textWidth()-nw), "L")
			d.cell(nw, 5, n, "R")
			pdf.SetTextColor(0, 0, 0)
		})
	}
	return d
}

// writeA4 lays out an A4 document twice, the first time to count its
// pages so that every footer can say "page n/N" with the true N (fpdf's
// page-count alias would be measured at its own width and misalign the
// number), and writes the second. body must lay out the same pages both
// times.
func writeA4(w io.Writer, m meta, body func(d *doc)) error {
	m.footer = true
	layout := func(total int) (*doc, error) {
		d := newDoc(m, 210, 297, total)
		d.pdf.SetMargins(a4Margin, a4Margin, a4Margin)
		d.pdf.SetAutoPageBreak(true, a4Bottom)
		d.pdf.AddPage()
		body(d)
		return d, d.pdf.Error()
	}
	d, err := layout(0)
	if err != nil {
		return err
	}
	if d, err = layout(d.pdf.PageCount()); err != nil {
		return err
	}
	return d.pdf.Output(w)
}

// cp1252 turns UTF-8 text into the Windows-1252 bytes the core fonts read.
// Thin and narrow no-break spaces become the no-break space and the minus
// sign the en dash, their nearest glyphs there; any other character that
// code page lacks prints as "?" (fpdf's own translator prints ".", which in
// a name or a serial reads as punctuation).
func cp1252(s string) string {
	b := make([]byte, 0, len(s))
	for _, r := range s {
		switch r {
		case '\u202f', '\u2009', '\u2007':
			r = '\u00a0'
		case '\u2212':
			r = '–'
		}
		c, ok := charmap.Windows1252.EncodeRune(r)
		if !ok {
			c = '?'
		}
		b = append(b, c)
	}
	return string(b)
}

// font selects Helvetica in the given style ("", "B", "I", "BI").
func (d *doc) font(style string, size float64) { d.pdf.SetFont("Helvetica", style, size) }

// mono selects Courier, for serials, hashes and pack numbers.
func (d *doc) mono(style string, size float64) { d.pdf.SetFont("Courier", style, size) }

// width is the width of s in the current font.
func (d *doc) width(s string) float64 { return d.pdf.GetStringWidth(cp1252(s)) }

// textWidth is the width between the left and right margins.
func (d *doc) textWidth() float64 {
	w, _ := d.pdf.GetPageSize()
	l, _, r, _ := d.pdf.GetMargins()
	return w - l - r
}

// cell prints s in a cell of width w and height h and moves right.
func (d *doc) cell(w, h float64, s, align string) {
	d.pdf.CellFormat(w, h, cp1252(s), "", 0, align, false, 0, "")
}

// line prints s on a line of its own, across the text width.
func (d *doc) line(h float64, s, align string) {
	d.pdf.CellFormat(0, h, cp1252(s), "", 1, align, false, 0, "")
}

// para prints s wrapped to width w (0: to the right margin), breaking at
// ordinary spaces only: no-break spaces hold their words together.
func (d *doc) para(w, h float64, s, align string) {
	d.pdf.MultiCell(w, h, cp1252(s), "", align, false)
}

// lines is the number of lines para would print s on.
func (d *doc) lines(w float64, s string) int {
	return len(d.pdf.SplitLines([]byte(cp1252(s)), w))
}

// fit returns s, cut with "…" if it is wider than w in the current font.
func (d *doc) fit(s string, w float64) string {
	if d.width(s) <= w {
		return s
	}
	r := []rune(s)
	for len(r) > 0 && d.width(string(r)+"…") > w {
		r = r[:len(r)-1]
	}
	return string(r) + "…"
}

// rule draws a horizontal line across the text width at the current height.
func (d *doc) rule(width float64) {
	l, _, _, _ := d.pdf.GetMargins()
	y := d.pdf.GetY()
	d.pdf.SetLineWidth(width)
	d.pdf.Line(l, y, l+d.textWidth(), y)
}

// need starts a new page unless h millimetres are left above the bottom
// margin, and says whether it did.
func (d *doc) need(h float64) bool {
	_, ph := d.pdf.GetPageSize()
	_, _, _, b := d.pdf.GetMargins()
	if d.pdf.GetY()+h <= ph-b {
		return false
	}
	d.pdf.AddPage()
	return true
}

// title prints an A4 document's title and the line under it.
func (d *doc) title(title, sub string) {
	d.font("B", 18)
	d.line(9, title, "L")
	d.font("", 11)
	d.para(0, 5.5, sub, "L")
	d.pdf.Ln(2)
	d.rule(0.4)
	d.pdf.Ln(3)
}

// heading prints a section heading, on the next page if fewer than
// keep millimetres would follow it on this one.
func (d *doc) heading(s string, keep float64) {
	d.pdf.Ln(3)
	d.need(8 + keep)
	d.font("B", 11)
	d.line(7, s, "L")
}

// field prints "label : value" on one line, the label in a column of
// width lw.
func (d *doc) field(lw, h float64, label, value string) {
	d.font("", 9.5)
	d.cell(lw, h, label+nbsp+":", "L")
	d.para(0, h, value, "L")
}

// hexField prints a label and a hash below it in groups of eight hex
// digits, perLine groups a line.
func (d *doc) hexField(label, hex string, perLine int) {
	d.font("", 9.5)
	d.line(5, label+nbsp+":", "L")
	d.mono("", 9.5)
	for _, l := range hexLines(hex, perLine) {
		d.line(4.5, l, "L")
	}
}

// column is one column of a table.
type column struct {
	title string
	w     float64
	align string // "L", "R" or "C"
	mono  bool   // Courier: serials and numbers that line up
}

// table prints rows under a header that is repeated at the top of every
// page the table runs onto.
type table struct {
	d    *doc
	cols []column
	// noteCol is the column where a row's note starts (see row).
	noteCol int
}

// Heights of a table row and of a line of a row's note.
const (
	rowH  = 5.5
	noteH = 4.2
)

// cellPad is the space inside a table cell, left and right.
const cellPad = 1.2

// header prints the column titles on a grey band.
func (t *table) header() {
	d := t.d
	d.font("B", 8.5)
	d.pdf.SetFillColor(225, 225, 225)
	d.pdf.SetCellMargin(cellPad)
	for _, c := range t.cols {
		d.pdf.CellFormat(c.w, rowH+0.5, cp1252(c.title), "", 0, c.align, true, 0, "")
	}
	d.pdf.SetCellMargin(0)
	d.pdf.Ln(-1)
}

// row prints one row in style ("" or "B"), each cell cut to its column,
// and under it, unless note is empty, the note in italics wrapped from the
// column noteCol to the table's right. Row and note stay on one page.
func (t *table) row(style, note string, cells ...string) {
	d := t.d
	noteX, width := 0.0, 0.0
	for i, c := range t.cols {
		if i < t.noteCol {
			noteX += c.w
		}
		width += c.w
	}
	noteW := width - noteX - 2*cellPad
	h := rowH
	if note != "" {
		d.font("I", 8.5)
		h += float64(d.lines(noteW, note))*noteH + 0.5
	}
	if d.need(h) {
		t.header()
	}
	d.pdf.SetCellMargin(cellPad)
	for i, c := range t.cols {
		if c.mono {
			d.mono(style, 8.5)
		} else {
			d.font(style, 8.5)
		}
		d.cell(c.w, rowH, d.fit(cells[i], c.w-2*cellPad), c.align)
	}
	d.pdf.SetCellMargin(0)
	d.pdf.Ln(-1)
	if note != "" {
		l, _, _, _ := d.pdf.GetMargins()
		d.pdf.SetY(d.pdf.GetY() - 0.5)
		d.pdf.SetX(l + noteX + cellPad)
		d.font("I", 8.5)
		d.para(noteW, noteH, note, "L")
		d.pdf.Ln(1)
	}
	d.pdf.SetDrawColor(200, 200, 200)
	d.rule(0.1)
	d.pdf.SetDrawColor(0, 0, 0)
}

// euros prints a whole amount in figures, French style: "1 000 €".
func euros(n int) string { return strings.ReplaceAll(game.FormatAmount(n), " ", nbsp) }

// number prints a count with its digits grouped: "2 000 000".
func number(n int) string { return strings.ReplaceAll(game.GroupDigits(n), " ", nbsp) }

// count prints a number of things, the noun in the plural from 2 on, as
// French has it: "1 carnet", "0 gain", "600 tickets".
func count(n int, noun string) string {
	if n >= 2 {
		noun += "s"
	}
	return number(n) + nbsp + noun
}

// amountWords is an amount in words, or "" where there are none.
func amountWords(n int) string {
	if game.Words(n) == "" {
		return ""
	}
	return game.AmountWords(n)
}

var months = [12]string{"janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août",
	"septembre", "octobre", "novembre", "décembre"}

var weekdays = [7]string{"dimanche", "lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi"}

// longDate is a date in words: "jeudi 1er mai 2025".
func longDate(t time.Time) string {
	day := fmt.Sprint(t.Day())
	if t.Day() == 1 {
		day = "1er"
	}
	return weekdays[t.Weekday()] + " " + day + nbsp + months[t.Month()-1] + nbsp + fmt.Sprint(t.Year())
}

// date is a date in figures: "01/05/2025".
func date(t time.Time) string { return t.Format("02/01/2006") }

// stamp is a date and time of day, in the time's own location:
// "01/05/2025 à 12:00:05"; a dash for the zero time. The caller passes
// local times.
func stamp(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.Format("02/01/2006") + " à " + t.Format("15:04:05")
}

// hexLines cuts a hash into groups of eight digits, perLine groups a line:
// "9f86d081 884c7d65 …". Spaces in it are dropped, nothing else: a hash
// prints as it was given. An empty hash prints as a dash.
func hexLines(h string, perLine int) []string {
	digits := []rune(strings.Join(strings.Fields(h), ""))
	if len(digits) == 0 {
		return []string{"—"}
	}
	var out []string
	var groups []string
	for len(digits) > 0 {
		n := min(8, len(digits))
		groups = append(groups, string(digits[:n]))
		digits = digits[n:]
		if len(groups) == perLine {
			out = append(out, strings.Join(groups, " "))
			groups = nil
		}
	}
	if len(groups) > 0 {
		out = append(out, strings.Join(groups, " "))
	}
	return out
}

// orDash prints an empty string as a dash, so a missing value shows.
func orDash(s string) string {
	if strings.TrimSpace(s) == "" {
		return "—"
	}
	return s
}

// docDate is the first non-zero time of ts, else the Unix epoch: a PDF's
// dates must come from the input for the output to be reproducible (fpdf
// would put the current time for a zero one).
func docDate(ts ...time.Time) time.Time {
	for _, t := range ts {
		if !t.IsZero() {
			return t
		}
	}
	return time.Unix(0, 0).UTC()
}
